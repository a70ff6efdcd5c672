import { AccessHistorySection } from '@/features/audit/components/AccessHistory';
import { ProfilePage } from '@/features/profile/pages/ProfilePage';
import { selectUser } from '@/lib/session';
import { useAppSelector } from './hooks';

/** /profile: the profile feature's page, with a patient's access history from the audit feature. */
export function ProfileRoute() {
  const isPatient = useAppSelector(selectUser)?.role === 'patient';
  return <ProfilePage extra={isPatient ? <AccessHistorySection /> : undefined} />;
}
