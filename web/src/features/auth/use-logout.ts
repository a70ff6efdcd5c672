import { useNavigate } from 'react-router';
import { useAppDispatch } from '@/app/hooks';
import { errorStatus, renewSession } from '@/lib/api-client';
import { notifyError, notifySuccess } from '@/lib/notify';
import { clearUser } from '@/lib/session';
import { useLogoutMutation } from './api';

/**
 * Signs out (product.md §2, §8): the server revokes the session, then the
 * local session is cleared and the app goes to /login, whatever the answer.
 */
export function useLogout(): () => Promise<void> {
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const [logoutMutation] = useLogoutMutation();
  const logout = () => logoutMutation().unwrap();

  return async () => {
    let done = false;
    try {
      await logout();
      done = true;
    } catch (error) {
      // An access token that expired meanwhile: renew it once so that the
      // server really ends the session instead of leaving the refresh cookie alive.
      if (errorStatus(error) === 401) {
        try {
          await renewSession();
          await logout();
          done = true;
        } catch {
          // reported below
        }
      }
    }
    if (done) notifySuccess('Logged out successfully');
    else notifyError('Logout failed. Please try again.');
    await navigate('/login', { replace: true, flushSync: true });
    // Also empties the API cache (app/store.ts).
    dispatch(clearUser());
  };
}
