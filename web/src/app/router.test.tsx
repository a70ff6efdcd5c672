import { screen } from '@testing-library/react';
import type MockAdapter from 'axios-mock-adapter';
import { beforeEach, describe, expect, it } from 'vitest';
import { makeHealth, makeSettings, makeUser } from '@/test/fixtures';
import { mockApi, renderRoute } from '@/test/render';

let mock: MockAdapter;

beforeEach(() => {
  mock = mockApi();
  // Pages that load data get plausible empty answers.
  mock.onGet('/users/profile').reply(200, { data: makeUser() });
  mock.onGet(/\/users\/[^/]+$/).reply(200, { data: makeUser() });
  mock.onGet('/dashboard/stats').reply(200, { data: { totalImages: 0, sharedImages: 0, totalUsers: 1 } });
  mock.onGet('/users').reply(200, {
    data: [],
    pagination: { currentPage: 1, pageSize: 5, totalPages: 0, totalItems: 0, hasPrevPage: false, hasNextPage: false },
  });
  mock.onGet(/^\/upload\/(my-images|shared-images|images)$/).reply(200, {
    data: [],
    pagination: { currentPage: 1, pageSize: 10, totalPages: 0, totalItems: 0, hasPrevPage: false, hasNextPage: false },
  });
});

function renderAt(path: string, session?: { token?: string; role?: string }) {
  return renderRoute(path, session ? { user: makeUser({ role: session.role ?? 'patient' }), token: session.token } : {}).router;
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
  ['/profile', 'My Profile'],
  ['/user-profile', 'User Profile'],
  ['/user-profile/42', 'User Profile'],
  ['/upload', 'Upload Medical Image'],
  ['/view-images', 'View Medical Images'],
  ['/messages', 'Messages'],
  ['/audit-logs', 'Audit Logs'],
];

/** Screens for providers and admins (the dashboard, AI analysis): patients see "Not allowed". */
const PROVIDER_PAGES: [string, string, string][] = [
  ['/dashboard', 'Welcome, Amina Khan', 'The dashboard is for providers and administrators.'],
  ['/ai-analysis', 'AI Medical Analysis', 'AI analysis is for health providers and administrators.'],
  ['/ai-analysis/7', 'AI Medical Analysis', 'AI analysis is for health providers and administrators.'],
];

/** The admin screens: anyone else sees "Not allowed". */
const ADMIN_PAGES: [string, string][] = [
  ['/admin-dashboard', 'Secure Medical Image Sharing Dashboard'],
  ['/appsettings', 'Settings'],
  ['/roles-permissions', 'Roles and Permissions'],
];

/** Calls only the admin screens make. */
const ADMIN_CALLS = /^\/(admin\/|settings|roles)/;

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

  it.each(PROVIDER_PAGES)('%s shows "%s" to a provider', async (path, title) => {
    mock.onGet(/^\/analyze\//).reply(503, { message: 'The analysis service is not available right now. Please try again later.' });
    renderAt(path, { token: 'tok', role: 'healthProvider' });
    expect(await screen.findByRole('heading', { level: 1, name: title })).toBeInTheDocument();
  });

  it.each(PROVIDER_PAGES)('%s is not allowed for a patient', async (path, _title, reason) => {
    renderAt(path, { token: 'tok', role: 'patient' });
    expect(await screen.findByRole('heading', { level: 1, name: 'Not allowed' })).toBeInTheDocument();
    expect(screen.getByText(reason)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to your start page' })).toHaveAttribute('href', '/view-images');
    expect(mock.history.get.filter((request) => /^\/(analyze|dashboard)/.test(request.url ?? ''))).toEqual([]);
  });

  it.each(ADMIN_PAGES)('%s shows "%s" to an admin', async (path, title) => {
    mock.onGet('/admin/health').reply(200, { data: makeHealth() });
    mock.onGet('/admin/activity').reply(200, { data: [] });
    mock.onGet('/settings').reply(200, { data: makeSettings() });
    mock.onGet('/roles').reply(200, { data: [] });
    mock.onGet('/roles/permissions').reply(200, { data: [] });
    renderAt(path, { token: 'tok', role: 'admin' });
    expect(await screen.findByRole('heading', { level: 1, name: title })).toBeInTheDocument();
  });

  it.each(ADMIN_PAGES.flatMap(([path]) => [
    [path, 'patient'],
    [path, 'healthProvider'],
  ]))('%s is not allowed for a %s, and calls nothing of the admin API', async (path, role) => {
    renderAt(path, { token: 'tok', role });
    expect(await screen.findByRole('heading', { level: 1, name: 'Not allowed' })).toBeInTheDocument();
    expect(screen.getByText('This page is for administrators only.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to your start page' })).toHaveAttribute(
      'href',
      role === 'patient' ? '/view-images' : '/dashboard',
    );
    expect(mock.history.get.filter((request) => ADMIN_CALLS.test(request.url ?? ''))).toEqual([]);
  });

  it.each([...GUARDED_PAGES, ...PROVIDER_PAGES.map(([path, title]) => [path, title]), ...ADMIN_PAGES])('%s goes to /login without a token', async (path) => {
    const router = renderAt(path);
    expect(await screen.findByRole('heading', { level: 1, name: 'Sign in' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
    expect(router.state.historyAction).toBe('REPLACE');
  });

  it('a persisted user without a token renews the session, then is sent to /login when that fails', async () => {
    mock.onPost('/auth/refresh').reply(401, { message: 'Unauthenticated.' });
    const { router, store } = renderRoute('/profile', { user: makeUser() });
    expect(screen.getByRole('status')).toHaveTextContent('Restoring your session…');
    expect(await screen.findByRole('heading', { level: 1, name: 'Sign in' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
    expect(store.getState().session.user).toBeNull();
    expect(mock.history.post.filter((request) => request.url === '/auth/refresh')).toHaveLength(1);
  });

  it('a persisted user without a token stays on the page when the renewal succeeds', async () => {
    const user = makeUser({ firstname: 'Renewed' });
    mock.onPost('/auth/refresh').reply(200, { data: { token: 'fresh-token', user } });
    const { router, store } = renderRoute('/profile', { user: makeUser() });
    expect(await screen.findByRole('heading', { level: 1, name: 'My Profile' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/profile');
    expect(store.getState().session.token).toBe('fresh-token');
    expect(store.getState().session.user?.firstname).toBe('Renewed');
  });

  it('a persisted record from before permissions were stated is renewed, with a token or without, before any screen draws on it', async () => {
    const stale = makeUser({ role: 'admin' });
    delete stale.permissions;
    mock.onPost('/auth/refresh').reply(200, { data: { token: 'fresh-token', user: makeUser({ role: 'admin' }) } });
    mock.onGet('/settings').reply(200, { data: makeSettings() });
    const { router, store } = renderRoute('/appsettings', { user: stale, token: 'old-token' });
    expect(screen.getByRole('status')).toHaveTextContent('Restoring your session…');
    expect(await screen.findByRole('heading', { level: 1, name: 'Settings' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/appsettings');
    expect(store.getState().session.user?.permissions).toContain('settings:manage');
    expect(mock.history.post.filter((request) => request.url === '/auth/refresh')).toHaveLength(1);
  });

  it('guards follow the permissions the server states, not the role', async () => {
    // An admin whose role lost settings:manage, and a provider given roles:read.
    const admin = makeUser({ role: 'admin', permissions: ['roles:read', 'system:monitor'] });
    renderRoute('/appsettings', { user: admin, token: 'tok' });
    expect(await screen.findByRole('heading', { level: 1, name: 'Not allowed' })).toBeInTheDocument();
    expect(mock.history.get.filter((request) => request.url === '/settings')).toEqual([]);
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

  it.each([
    ['patient', '/view-images'],
    ['healthProvider', '/dashboard'],
    ['admin', '/dashboard'],
  ])('offers a %s Dashboard, leading home (%s), when a user is held', async (role, home) => {
    renderAt('/', { token: 'tok', role });
    expect(await screen.findByRole('link', { name: 'Dashboard' })).toHaveAttribute('href', home);
    expect(screen.queryByRole('link', { name: 'Login' })).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Register' })).not.toBeInTheDocument();
  });
});
