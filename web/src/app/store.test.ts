import { describe, expect, it } from 'vitest';
import { baseApi } from '@/lib/api';
import { clearUser, setUser, updateUser } from '@/lib/session';
import { makeUser } from '@/test/fixtures';
import { makeStore, type AppPersistor, type AppStore } from './store';

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

describe('API cache in the store', () => {
  const SECRET = 'the signed-in user’s data';
  // A cached answer, without HTTP.
  const cacheApi = baseApi.injectEndpoints({
    endpoints: (build) => ({
      cachedAnswer: build.query<string, void>({ queryFn: () => ({ data: SECRET }) }),
    }),
  });
  const cached = (store: AppStore) => cacheApi.endpoints.cachedAnswer.select()(store.getState()).data;

  it('lives under api, in memory only: nothing of it reaches persist:root', async () => {
    const { store, persistor } = await freshStore();
    store.dispatch(setUser({ user: makeUser(), token: TOKEN }));
    await store.dispatch(cacheApi.endpoints.cachedAnswer.initiate());
    await persistor.flush();

    expect(cached(store)).toBe(SECRET);
    expect(Object.keys(storedRoot()).sort()).toEqual(['_persist', 'user']);
    expect(localStorage.getItem('persist:root')).not.toContain(SECRET);
    expect(Object.keys(localStorage)).toEqual(['persist:root']);
  });

  it('is emptied when the session ends', async () => {
    const { store } = await freshStore();
    store.dispatch(setUser({ user: makeUser(), token: TOKEN }));
    await store.dispatch(cacheApi.endpoints.cachedAnswer.initiate());
    store.dispatch(clearUser());
    expect(cached(store)).toBeUndefined();
  });

  it('is emptied when another user signs in, and kept when the same user renews the session', async () => {
    const { store } = await freshStore();
    store.dispatch(setUser({ user: makeUser({ id: 'u-1' }), token: TOKEN }));
    await store.dispatch(cacheApi.endpoints.cachedAnswer.initiate());

    store.dispatch(setUser({ user: makeUser({ id: 'u-1', firstname: 'Renewed' }), token: 'next' }));
    expect(cached(store)).toBe(SECRET);

    store.dispatch(setUser({ user: makeUser({ id: 'u-2' }), token: 'other' }));
    expect(cached(store)).toBeUndefined();
  });
});
