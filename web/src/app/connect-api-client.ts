import { requestSessionRenewal, setupApiClient } from '@/lib/api-client';
import { clearUser, selectToken, setUser } from '@/lib/session';
import type { AppStore } from './store';

type Navigate = (to: string, options?: { replace?: boolean }) => unknown;

/**
 * Hands the store to the API client: requests carry the in-memory token; a
 * 401 first renews the token once through /api/auth/refresh (api.md) and
 * repeats the call; when renewal fails the session is cleared and the user
 * goes to /login (product.md §4 and §8).
 */
export function connectApiClient(store: AppStore, navigate: Navigate): () => void {
  return setupApiClient({
    getToken: () => selectToken(store.getState()),
    refresh: async () => {
      try {
        const { token, user } = await requestSessionRenewal();
        store.dispatch(setUser({ user, token }));
        return token;
      } catch (error) {
        store.dispatch(clearUser());
        throw error;
      }
    },
    onUnauthorized: () => {
      store.dispatch(clearUser());
      void navigate('/login', { replace: true });
    },
  });
}
