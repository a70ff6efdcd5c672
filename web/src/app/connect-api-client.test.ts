import MockAdapter from 'axios-mock-adapter';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api } from '@/lib/api-client';
import { setUser } from '@/lib/session';
import { makeUser } from '@/test/fixtures';
import { connectApiClient } from './connect-api-client';
import { renewStoredSession } from './session-renewal';
import { makeStore } from './store';

let mock: MockAdapter;
let disconnect: () => void;

beforeEach(() => {
  mock = new MockAdapter(api);
});

afterEach(() => {
  disconnect();
  mock.restore();
});

describe('connectApiClient', () => {
  it('sends the token held in the store', async () => {
    const { store } = makeStore();
    disconnect = connectApiClient(store, vi.fn());
    store.dispatch(setUser({ user: makeUser(), token: 'store-token' }));
    mock.onGet('/users/profile').reply(200, { data: {} });

    await api.get('/users/profile');

    expect(mock.history.get[0].headers?.Authorization).toBe('Bearer store-token');
  });

  it('clears the session and goes to /login on a 401', async () => {
    const { store } = makeStore();
    const navigate = vi.fn();
    disconnect = connectApiClient(store, navigate);
    store.dispatch(setUser({ user: makeUser(), token: 'revoked' }));
    mock.onPost('/auth/refresh').reply(401, { message: 'Unauthenticated.' });
    mock.onGet('/upload/my-images').reply(401, { message: 'Unauthenticated.', error: 'unauthenticated' });

    await expect(api.get('/upload/my-images')).rejects.toThrow();

    expect(store.getState().session.token).toBeNull();
    expect(store.getState().session.user).toBeNull();
    expect(navigate).toHaveBeenCalledWith('/login', { replace: true });
  });

  it('keeps the session on a 401 that is not about it (a wrong password)', async () => {
    const { store } = makeStore();
    const navigate = vi.fn();
    disconnect = connectApiClient(store, navigate);
    store.dispatch(setUser({ user: makeUser(), token: 'good' }));
    mock.onDelete('/users/profile').reply(401, { message: 'The password is not correct.', error: 'wrong_password' });

    await expect(api.delete('/users/profile', { data: { password: 'x' } })).rejects.toThrow();

    expect(store.getState().session.token).toBe('good');
    expect(navigate).not.toHaveBeenCalled();
    expect(mock.history.post).toHaveLength(0);
  });
});

describe('connectApiClient session renewal', () => {
  const expired = { message: 'Invalid or expired token', error: 'Invalid or expired token' };

  it('renews through /auth/refresh once for concurrent 401s and stores the new token and user', async () => {
    const { store } = makeStore();
    const navigate = vi.fn();
    disconnect = connectApiClient(store, navigate);
    store.dispatch(setUser({ user: makeUser(), token: 'stale' }));
    const renewed = makeUser({ firstname: 'Renewed' });
    mock.onPost('/auth/refresh').reply(200, { data: { token: 'fresh', user: renewed } });
    mock.onGet(/\/(users\/profile|dashboard\/stats)$/).reply((config) =>
      config.headers?.Authorization === 'Bearer fresh' ? [200, { data: 'ok' }] : [401, expired],
    );

    const answers = await Promise.all([
      api.get('/users/profile'),
      api.get('/dashboard/stats'),
      api.get('/users/profile'),
    ]);

    expect(answers.map((answer) => answer.data)).toEqual([{ data: 'ok' }, { data: 'ok' }, { data: 'ok' }]);
    expect(mock.history.post.filter((request) => request.url === '/auth/refresh')).toHaveLength(1);
    expect(store.getState().session.token).toBe('fresh');
    expect(store.getState().session.user).toEqual(renewed);
    expect(navigate).not.toHaveBeenCalled();
  });

  it('clears the session and goes to /login when the renewal is refused', async () => {
    const { store } = makeStore();
    const navigate = vi.fn();
    disconnect = connectApiClient(store, navigate);
    store.dispatch(setUser({ user: makeUser(), token: 'stale' }));
    mock.onPost('/auth/refresh').reply(401, { message: 'Unauthenticated.' });
    mock.onGet('/users/profile').reply(401, expired);

    await expect(api.get('/users/profile')).rejects.toMatchObject({ response: { status: 401 } });

    expect(store.getState().session).toMatchObject({ token: null, user: null });
    expect(navigate).toHaveBeenCalledWith('/login', { replace: true });
    expect(mock.history.get).toHaveLength(1);
  });

  it('renewStoredSession renews a persisted user without a token at app start', async () => {
    const { store } = makeStore();
    disconnect = connectApiClient(store, vi.fn());
    store.dispatch(setUser({ user: makeUser() }));
    mock.onPost('/auth/refresh').reply(200, { data: { token: 'fresh', user: makeUser() } });

    renewStoredSession(store);

    await vi.waitFor(() => expect(store.getState().session.token).toBe('fresh'));
    expect(mock.history.post).toHaveLength(1);
  });

  it('renewStoredSession renews a persisted record that states no permissions (kept by an older app), token or not', async () => {
    const { store } = makeStore();
    disconnect = connectApiClient(store, vi.fn());
    const stale = makeUser({ role: 'healthProvider' });
    delete stale.permissions;
    store.dispatch(setUser({ user: stale, token: 'held' }));
    mock.onPost('/auth/refresh').reply(200, { data: { token: 'fresh', user: makeUser({ role: 'healthProvider' }) } });

    renewStoredSession(store);

    await vi.waitFor(() => expect(store.getState().session.token).toBe('fresh'));
    expect(store.getState().session.user?.permissions).toContain('images:upload');
    expect(mock.history.post).toHaveLength(1);
  });

  it('renewStoredSession does nothing without a persisted user or with a token', () => {
    const { store } = makeStore();
    disconnect = connectApiClient(store, vi.fn());
    renewStoredSession(store);
    store.dispatch(setUser({ user: makeUser(), token: 'held' }));
    renewStoredSession(store);
    expect(mock.history.post).toHaveLength(0);
  });
});
