import { Outlet } from 'react-router';
import { NotAllowed } from '@/components/NotAllowed';
import { homeRouteFor } from '@/lib/access';
import { selectUser } from '@/lib/session';
import type { User } from '@/types/api';
import { useAppSelector } from './hooks';

/**
 * Route guard: whoever the rule refuses (from the permissions the server
 * states, lib/access.ts) sees "Not allowed", and the screen, with its calls
 * to the server, never mounts. The server refuses those calls anyway.
 */
export function RequirePermission({ allowed, reason }: { allowed: (user: User | null) => boolean; reason?: string }) {
  const user = useAppSelector(selectUser);
  if (!allowed(user)) return <NotAllowed backTo={homeRouteFor(user)} reason={reason} />;
  return <Outlet />;
}
