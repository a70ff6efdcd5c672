import { render, screen } from '@testing-library/react';
import { Provider } from 'react-redux';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { describe, expect, it } from 'vitest';
import { setUser } from '@/features/auth/session-slice';
import { makeUser } from '@/test/fixtures';
import { routes } from './router';
import { makeStore } from './store';

function renderAt(path: string, session?: { token?: string }) {
  const { store } = makeStore();
  if (session) store.dispatch(setUser({ user: makeUser(), token: session.token }));
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  render(
    <Provider store={store}>
      <RouterProvider router={router} />
    </Provider>,
  );
  return router;
}

const PUBLIC_PAGES: [string, string][] = [
  ['/login', 'Sign in'],
  ['/register', 'Create your account'],
  ['/verify-account', 'Verify Your Account'],
  ['/forgot-password', 'Forgot password'],
  ['/reset-password?token=abc', 'Reset password'],
  ['/share-image', 'Share Your Image'],
];

const GUARDED_PAGES: [string, string][] = [
  ['/dashboard', 'Dashboard'],
  ['/admin-dashboard', 'Secure Medical Image Sharing Dashboard'],
  ['/profile', 'My Profile'],
  ['/user-profile', 'User Profile'],
  ['/user-profile/42', 'User Profile'],
  ['/upload', 'Upload Medical Image'],
  ['/view-images', 'View Medical Images'],
  ['/messages', 'Messages'],
  ['/audit-logs', 'Audit Logs'],
  ['/appsettings', 'Settings'],
  ['/roles-permissions', 'Roles and Permissions'],
  ['/ai-analysis', 'AI Medical Analysis'],
  ['/ai-analysis/7', 'AI Medical Analysis'],
];

describe('routes', () => {
  it.each(PUBLIC_PAGES)('%s shows "%s" without a token', async (path, title) => {
    renderAt(path);
    expect(await screen.findByRole('heading', { level: 1, name: title })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to home' })).toHaveAttribute('href', '/');
  });

  it.each(GUARDED_PAGES)('%s shows "%s" with a token', async (path, title) => {
    renderAt(path, { token: 'tok' });
    expect(await screen.findByRole('heading', { level: 1, name: title })).toBeInTheDocument();
  });

  it.each(GUARDED_PAGES)('%s goes to /login without a token', async (path) => {
    const router = renderAt(path);
    expect(await screen.findByRole('heading', { level: 1, name: 'Sign in' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
    expect(router.state.historyAction).toBe('REPLACE');
  });

  it('a persisted user without a token is still sent to /login', async () => {
    const { store } = makeStore();
    store.dispatch(setUser({ user: makeUser() }));
    const router = createMemoryRouter(routes, { initialEntries: ['/profile'] });
    render(
      <Provider store={store}>
        <RouterProvider router={router} />
      </Provider>,
    );
    expect(await screen.findByRole('heading', { level: 1, name: 'Sign in' })).toBeInTheDocument();
  });

  it('shows "Page not found" for an unknown path', async () => {
    renderAt('/no-such-page');
    expect(await screen.findByRole('heading', { level: 1, name: 'Page not found' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to home' })).toHaveAttribute('href', '/');
  });
});

describe('landing page header', () => {
  it('offers Login and Register when signed out', async () => {
    renderAt('/');
    const nav = await screen.findByRole('navigation', { name: 'Account' });
    expect(nav).toHaveTextContent('Login');
    expect(screen.getByRole('link', { name: 'Login' })).toHaveAttribute('href', '/login');
    expect(screen.getByRole('link', { name: 'Register' })).toHaveAttribute('href', '/register');
    expect(screen.queryByRole('link', { name: 'Dashboard' })).not.toBeInTheDocument();
  });

  it('offers Dashboard when a user is held', async () => {
    renderAt('/', { token: 'tok' });
    expect(await screen.findByRole('link', { name: 'Dashboard' })).toHaveAttribute('href', '/dashboard');
    expect(screen.queryByRole('link', { name: 'Login' })).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Register' })).not.toBeInTheDocument();
  });
});
