import { Outlet } from 'react-router';
import { NotAllowed } from '@/components/NotAllowed';
import { homeRouteFor } from '@/features/auth/home-route';
import { selectUser } from '@/lib/session';
import { useAppSelector } from './hooks';

/**
 * Route guard of the admin screens: anyone else sees "Not allowed" (and the
 * screen, with its calls to the server, never mounts).
 */
export function RequireAdmin() {
  const role = useAppSelector(selectUser)?.role ?? '';
  if (role !== 'admin') return <NotAllowed backTo={homeRouteFor(role)} />;
  return <Outlet />;
}
