import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type MockAdapter from 'axios-mock-adapter';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { makeUser } from '@/test/fixtures';
import { mockApi, renderRoute } from '@/test/render';

let mock: MockAdapter;

beforeEach(() => {
  mock = mockApi();
  mock.onGet('/users/profile').reply(200, { data: makeUser() });
});

function menuLinks() {
  const nav = screen.getByRole('navigation', { name: 'Main' });
  return within(nav)
    .getAllByRole('link')
    .map((link) => [link.textContent, link.getAttribute('href')]);
}

describe('side menu by role (product.md §2)', () => {
  it('patient: Profile, View Images, Messages, Home', async () => {
    renderRoute('/messages', { user: makeUser({ role: 'patient' }), token: 't' });
    await screen.findByRole('navigation', { name: 'Main' });
    expect(menuLinks()).toEqual([
      ['Profile', '/profile'],
      ['View Images', '/view-images'],
      ['Messages', '/messages'],
      ['Home', '/'],
    ]);
  });

  it('healthProvider: adds Dashboard, Upload Image and Audit Logs', async () => {
    renderRoute('/messages', { user: makeUser({ role: 'healthProvider' }), token: 't' });
    await screen.findByRole('navigation', { name: 'Main' });
    expect(menuLinks()).toEqual([
      ['Dashboard', '/dashboard'],
      ['Profile', '/profile'],
      ['Upload Image', '/upload'],
      ['View Images', '/view-images'],
      ['Messages', '/messages'],
      ['Audit Logs', '/audit-logs'],
      ['Home', '/'],
    ]);
  });

  it('admin: everything, with Roles, Settings and the admin dashboard', async () => {
    renderRoute('/messages', { user: makeUser({ role: 'admin' }), token: 't' });
    await screen.findByRole('navigation', { name: 'Main' });
    expect(menuLinks()).toEqual([
      ['Dashboard', '/dashboard'],
      ['Profile', '/profile'],
      ['Upload Image', '/upload'],
      ['View Images', '/view-images'],
      ['Messages', '/messages'],
      ['Audit Logs', '/audit-logs'],
      ['Roles', '/roles-permissions'],
      ['Settings', '/appsettings'],
      ['Admin Dashboard', '/admin-dashboard'],
      ['Home', '/'],
    ]);
  });

  it('follows the permissions the server states, not the role', async () => {
    // A provider whose role was given the health panel and the whole audit log, and lost uploads.
    const user = makeUser({ role: 'healthProvider', permissions: ['audit:read', 'audit:read-all', 'messages:send', 'system:monitor'] });
    renderRoute('/messages', { user, token: 't' });
    await screen.findByRole('navigation', { name: 'Main' });
    expect(menuLinks()).toEqual([
      ['Dashboard', '/dashboard'],
      ['Profile', '/profile'],
      ['View Images', '/view-images'],
      ['Messages', '/messages'],
      ['Audit Logs', '/audit-logs'],
      ['Admin Dashboard', '/admin-dashboard'],
      ['Home', '/'],
    ]);
  });

  it('marks the current page and carries a Logout entry for narrow screens', async () => {
    renderRoute('/messages', { user: makeUser(), token: 't' });
    const nav = await screen.findByRole('navigation', { name: 'Main' });
    expect(within(nav).getByRole('link', { name: 'Messages' })).toHaveAttribute('aria-current', 'page');
    expect(within(nav).getByRole('link', { name: 'Home' })).not.toHaveAttribute('aria-current');
    expect(within(nav).getByRole('button', { name: 'Logout' })).toBeInTheDocument();
  });
});

describe('top bar', () => {
  it("shows the user's name and a Logout button", async () => {
    renderRoute('/messages', { user: makeUser({ firstname: 'Amina', lastname: 'Khan' }), token: 't' });
    const banner = await screen.findByRole('banner');
    expect(banner).toHaveTextContent('Amina Khan');
    expect(within(banner).getByRole('button', { name: 'Logout' })).toBeInTheDocument();
  });

  it('the Menu button opens and closes the menu; Escape closes it', async () => {
    const user = userEvent.setup();
    renderRoute('/messages', { user: makeUser(), token: 't' });
    const button = await screen.findByRole('button', { name: 'Menu' });
    expect(button).toHaveAttribute('aria-expanded', 'false');
    expect(button).toHaveAttribute('aria-controls', 'main-menu');
    await user.click(button);
    expect(button).toHaveAttribute('aria-expanded', 'true');
    expect(screen.getByRole('navigation', { name: 'Main' })).toHaveClass('shell__nav--open');
    await user.keyboard('{Escape}');
    expect(button).toHaveAttribute('aria-expanded', 'false');
    expect(button).toHaveFocus();
  });

  it('Logout revokes the session, clears it and goes to /login', async () => {
    const user = userEvent.setup();
    mock.onPost('/auth/logout').reply(200, { message: 'Logged out successfully' });
    const { router, store } = renderRoute('/messages', { user: makeUser(), token: 't' });
    await user.click(within(await screen.findByRole('banner')).getByRole('button', { name: 'Logout' }));

    expect(await screen.findByText('Logged out successfully')).toBeInTheDocument();
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(store.getState().session).toMatchObject({ token: null, user: null });
    expect(mock.history.post[0].headers?.Authorization).toBe('Bearer t');
  });

  it('a failed logout still clears the session locally', async () => {
    const user = userEvent.setup();
    mock.onPost('/auth/logout').reply(503, { message: 'Service unavailable.' });
    const { router, store } = renderRoute('/messages', { user: makeUser(), token: 't' });
    await user.click(within(await screen.findByRole('banner')).getByRole('button', { name: 'Logout' }));

    expect(await screen.findByText('Logout failed. Please try again.')).toBeInTheDocument();
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(store.getState().session).toMatchObject({ token: null, user: null });
  });

  it('an expired token is renewed once so that the logout reaches the server', async () => {
    const user = userEvent.setup();
    mock.onPost('/auth/logout').replyOnce(401, { message: 'Invalid or expired token' });
    mock.onPost('/auth/refresh').replyOnce(200, { data: { token: 'fresh', user: makeUser() } });
    mock.onPost('/auth/logout').replyOnce(200, { message: 'Logged out successfully' });
    const { router } = renderRoute('/messages', { user: makeUser(), token: 'stale' });
    await user.click(within(await screen.findByRole('banner')).getByRole('button', { name: 'Logout' }));

    expect(await screen.findByText('Logged out successfully')).toBeInTheDocument();
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(mock.history.post.map((request) => request.url)).toEqual(['/auth/logout', '/auth/refresh', '/auth/logout']);
    expect(mock.history.post[2].headers?.Authorization).toBe('Bearer fresh');
  });
});
