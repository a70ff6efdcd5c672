import { AccessHistorySection } from '@/features/audit/components/AccessHistory';
import { ProfilePage } from '@/features/profile/pages/ProfilePage';
import { auditView } from '@/lib/access';
import { selectUser } from '@/lib/session';
import { useAppSelector } from './hooks';

/**
 * /profile: the profile feature's page, with the audit feature's access
 * history of the images about the user when that is how they read the audit
 * log (patients; the others have the Audit Logs screen).
 */
export function ProfileRoute() {
  const history = auditView(useAppSelector(selectUser)) === 'history';
  return <ProfilePage extra={history ? <AccessHistorySection /> : undefined} />;
}
