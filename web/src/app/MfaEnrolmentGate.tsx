import { Navigate, Outlet, useLocation } from 'react-router';
import { MFA_ENROLMENT_ROUTE, needsMfaEnrolment } from '@/lib/access';
import { selectUser } from '@/lib/session';
import { useAppSelector } from './hooks';

/**
 * An enrolment-only session (the role requires a second factor and the user
 * has none) stays on /profile, where the Security section sets one up: the
 * server refuses every other call until then.
 */
export function MfaEnrolmentGate() {
  const user = useAppSelector(selectUser);
  const { pathname } = useLocation();
  if (needsMfaEnrolment(user) && pathname !== MFA_ENROLMENT_ROUTE) {
    return <Navigate to={MFA_ENROLMENT_ROUTE} replace />;
  }
  return <Outlet />;
}
