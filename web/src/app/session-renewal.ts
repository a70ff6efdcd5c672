import { statesPermissions } from '@/lib/access';
import { renewSession } from '@/lib/api-client';
import type { AppStore } from './store';

/**
 * At app start (api.md "Auth"): a user record kept from an earlier visit but
 * no token in memory means a reload; renew the session with the refresh
 * cookie. A record without permissions (kept by an earlier version of the
 * app) is renewed likewise, which brings them. A failure clears the session
 * (done by the API client's hook), so guarded pages then go to /login while
 * public ones stay.
 */
export function renewStoredSession(store: AppStore): void {
  const { user, token } = store.getState().session;
  if (user && (!token || !statesPermissions(user))) void renewSession().catch(() => undefined);
}
