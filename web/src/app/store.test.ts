import { describe, expect, it } from 'vitest';
import { clearUser, setUser, updateUser } from '@/lib/session';
import { makeUser } from '@/test/fixtures';
import { makeStore, type AppPersistor } from './store';

const TOKEN = 'header.payload.signature-that-must-never-be-stored';

/** Resolves once redux-persist has read localStorage and is writing again. */
function rehydrated(persistor: AppPersistor): Promise<void> {
  return new Promise((resolve) => {
    if (persistor.getState().bootstrapped) return resolve();
    const unsubscribe = persistor.subscribe(() => {
      if (persistor.getState().bootstrapped) {
        unsubscribe();
        resolve();
      }
    });
  });
}

async function freshStore() {
  const made = makeStore();
  await rehydrated(made.persistor);
  return made;
}

function storedRoot(): Record<string, unknown> {
  const raw = localStorage.getItem('persist:root');
  expect(raw).not.toBeNull();
  const outer = JSON.parse(raw as string) as Record<string, string>;
  // redux-persist stores each persisted key as its own JSON string.
  return Object.fromEntries(Object.entries(outer).map(([k, v]) => [k, JSON.parse(v)]));
}

describe('session store', () => {
  it('persists only the user record under persist:root, never the token', async () => {
    const { store, persistor } = await freshStore();
    const user = makeUser();

    store.dispatch(setUser({ user, token: TOKEN }));
    await persistor.flush();

    expect(store.getState().session.token).toBe(TOKEN);
    const raw = localStorage.getItem('persist:root') ?? '';
    expect(raw).not.toContain(TOKEN);
    expect(raw).not.toMatch(/token/i);
    const stored = storedRoot();
    expect(stored.user).toEqual(user);
    expect(Object.keys(stored).sort()).toEqual(['_persist', 'user']);
  });

  it('brings the user back after a reload, without a token', async () => {
    const first = await freshStore();
    const user = makeUser({ role: 'healthProvider' });
    first.store.dispatch(setUser({ user, token: TOKEN }));
    await first.persistor.flush();
    first.persistor.pause();

    const second = await freshStore();
    expect(second.store.getState().session.user).toEqual(user);
    expect(second.store.getState().session.token).toBeNull();
  });

  it('setUser keeps the held token when none is given', async () => {
    const { store } = await freshStore();
    store.dispatch(setUser({ user: makeUser(), token: TOKEN }));
    store.dispatch(setUser({ user: makeUser({ firstname: 'Sara' }) }));
    expect(store.getState().session.token).toBe(TOKEN);
    expect(store.getState().session.user?.firstname).toBe('Sara');
  });

  it('updateUser merges the given fields into the user', async () => {
    const { store } = await freshStore();
    const user = makeUser();
    store.dispatch(setUser({ user, token: TOKEN }));
    store.dispatch(updateUser({ city: 'Lahore', bio: 'Updated bio' }));

    expect(store.getState().session.user).toEqual({ ...user, city: 'Lahore', bio: 'Updated bio' });
    expect(store.getState().session.token).toBe(TOKEN);
  });

  it('updateUser sets the user when none is held', async () => {
    const { store } = await freshStore();
    store.dispatch(updateUser({ id: 'u-1', firstname: 'Omar' }));
    expect(store.getState().session.user).toEqual({ id: 'u-1', firstname: 'Omar' });
  });

  it('clearUser clears the token and the user, also in storage', async () => {
    const { store, persistor } = await freshStore();
    store.dispatch(setUser({ user: makeUser(), token: TOKEN }));
    store.dispatch(clearUser());
    await persistor.flush();

    expect(store.getState().session).toMatchObject({ token: null, user: null });
    expect(storedRoot().user).toBeNull();
  });
});
