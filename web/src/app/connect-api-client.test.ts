import MockAdapter from 'axios-mock-adapter';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setUser } from '@/features/auth/session-slice';
import { api } from '@/lib/api-client';
import { makeUser } from '@/test/fixtures';
import { connectApiClient } from './connect-api-client';
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
    mock.onGet('/upload/my-images').reply(401, { message: 'Unauthenticated.' });

    await expect(api.get('/upload/my-images')).rejects.toThrow();

    expect(store.getState().session.token).toBeNull();
    expect(store.getState().session.user).toBeNull();
    expect(navigate).toHaveBeenCalledWith('/login', { replace: true });
  });
});
