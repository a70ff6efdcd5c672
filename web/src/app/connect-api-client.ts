import { requestSessionRenewal, setupApiClient } from '@/lib/api-client';
import { MFA_ENROLMENT_ROUTE } from '@/lib/access';
import { clearUser, selectToken, selectUser, setUser, updateUser } from '@/lib/session';
import type { AppStore } from './store';

type Navigate = (to: string, options?: { replace?: boolean }) => unknown;

/**
 * Hands the store to the API client: requests carry the in-memory token; a
 * 401 first renews the token once through /api/auth/refresh (api.md) and
 * repeats the call; when renewal fails the session is cleared and the user
 * goes to /login (product.md §4 and §8); a 403 mfa_enrollment_required
 * leads to the Security section of /profile.
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
    // The server says the session may only enrol (the admin may have required
    // a second factor of the role since sign-in): the record says so too,
    // which keeps the app on the Security section until one is set up.
    onMfaEnrolmentRequired: () => {
      const user = selectUser(store.getState());
      if (!user) return;
      store.dispatch(updateUser({ mfa: { totp: false, passkeys: 0, required: true } }));
      void navigate(MFA_ENROLMENT_ROUTE, { replace: true });
    },
  });
}
