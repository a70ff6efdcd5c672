import { RequireAuth } from '@/components/RequireAuth';
import { selectToken } from '@/features/auth';
import { useAppSelector } from './hooks';

/** Pages of product.md §2 that need a token: without one they go to /login. */
export function SessionGuard() {
  const token = useAppSelector(selectToken);
  return <RequireAuth allowed={token !== null} redirectTo="/login" />;
}
