import { clearUser, selectToken } from '@/features/auth/session-slice';
import { setupApiClient } from '@/lib/api-client';
import type { AppStore } from './store';

type Navigate = (to: string, options?: { replace?: boolean }) => unknown;

/**
 * Hands the store to the API client: requests carry the in-memory token, and
 * a 401 (session expired or revoked) clears the session and goes to /login
 * (product.md §4 and §8).
 */
export function connectApiClient(store: AppStore, navigate: Navigate): () => void {
  return setupApiClient({
    getToken: () => selectToken(store.getState()),
    onUnauthorized: () => {
      store.dispatch(clearUser());
      void navigate('/login', { replace: true });
    },
  });
}
