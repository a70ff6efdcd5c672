import { useEffect } from 'react';
import { RequireAuth } from '@/components/RequireAuth';
import { Spinner } from '@/components/Spinner';
import { statesPermissions } from '@/lib/access';
import { clearUser, selectToken, selectUser } from '@/lib/session';
import { renewSession } from '@/lib/api-client';
import { useAppDispatch, useAppSelector } from './hooks';

/**
 * Pages of product.md §2 that need a token: without one they go to /login.
 * A user record kept from an earlier visit, without a token (a reload), first
 * renews the session through /api/auth/refresh; meanwhile a spinner shows.
 * So does a record that states no permissions (kept by an app from before the
 * server stated them): the menu and guards are not drawn from it.
 */
export function SessionGuard() {
  const token = useAppSelector(selectToken);
  const user = useAppSelector(selectUser);
  const dispatch = useAppDispatch();
  const renewing = user !== null && (token === null || !statesPermissions(user));

  useEffect(() => {
    if (!renewing) return;
    // Joins the renewal started at app start, if any; one request in all.
    renewSession().catch(() => dispatch(clearUser()));
  }, [renewing, dispatch]);

  if (renewing) {
    return (
      <main id="main-content" tabIndex={-1}>
        <title>Restoring your session · MediShare</title>
        <Spinner label="Restoring your session…" />
      </main>
    );
  }
  return <RequireAuth allowed={token !== null} redirectTo="/login" />;
}
