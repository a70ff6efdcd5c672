import { Navigate, Outlet, useLocation } from 'react-router';

interface RequireAuthProps {
  /** Whether the visitor may see the wrapped routes (the app passes "a token is held"). */
  allowed: boolean;
  redirectTo?: string;
}

/**
 * Route guard: renders the child routes, or replaces the location with the
 * sign-in page (product.md §2). The page asked for travels in `state.from`.
 */
export function RequireAuth({ allowed, redirectTo = '/login' }: RequireAuthProps) {
  const location = useLocation();
  if (!allowed) {
    return <Navigate to={redirectTo} replace state={{ from: location }} />;
  }
  return <Outlet />;
}
