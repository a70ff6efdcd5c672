import { Outlet, ScrollRestoration } from 'react-router';
import { SkipLink } from '@/components/SkipLink';

/** Wraps every page: skip link first, scroll position restored on navigation. */
export function RootLayout() {
  return (
    <>
      <SkipLink />
      <Outlet />
      <ScrollRestoration />
    </>
  );
}
