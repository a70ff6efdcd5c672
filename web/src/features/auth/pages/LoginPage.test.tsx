import { act, fireEvent, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type MockAdapter from 'axios-mock-adapter';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeUser } from '@/test/fixtures';
import { mockApi, renderRoute } from '@/test/render';
import { settle } from '@/test/settle';

let mock: MockAdapter;

beforeEach(() => {
  mock = mockApi();
  // Whatever the landing page asks for after the redirect.
  mock.onGet(/.*/).reply(200, {
    data: [],
    pagination: { currentPage: 1, pageSize: 5, totalPages: 0, totalItems: 0, hasPrevPage: false, hasNextPage: false },
  });
});

afterEach(() => {
  vi.useRealTimers();
});

async function fillIn(email: string, password: string) {
  const user = userEvent.setup();
  if (email) await user.type(screen.getByLabelText('Email'), email);
  if (password) await user.type(screen.getByLabelText('Password'), password);
  return user;
}

describe('/login', () => {
  it.each([
    ['patient', '/view-images'],
    ['healthProvider', '/dashboard'],
    ['admin', '/dashboard'],
  ])('a %s goes to %s 2 seconds after signing in', async (role, destination) => {
    const user = makeUser({ role });
    mock.onPost('/auth/login').reply(200, { message: 'Signed in.', data: { token: 'access-token', user } });
    const { router, store } = renderRoute('/login');
    await fillIn(user.email, 'correct horse battery');

    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));

    // Let the mocked answer arrive without moving the fake clock.
    await settle(() => store.getState().session.token !== null);
    expect(store.getState().session.token).toBe('access-token');
    expect(store.getState().session.user).toEqual(user);
    expect(JSON.parse(mock.history.post[0].data as string)).toEqual({
      email: user.email,
      password: 'correct horse battery',
    });
    expect(screen.getByText('Login successful! Redirecting...')).toBeInTheDocument();

    act(() => vi.advanceTimersByTime(1999));
    expect(router.state.location.pathname).toBe('/login');
    act(() => vi.advanceTimersByTime(1));
    vi.useRealTimers();
    await vi.waitFor(() => expect(router.state.location.pathname).toBe(destination));
  });

  it('checks the email format and that a password is given, without calling the server', async () => {
    renderRoute('/login');
    const user = await fillIn('', '');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(screen.getByLabelText('Email')).toHaveAccessibleDescription('Please enter your email address.');
    expect(screen.getByLabelText('Password')).toHaveAccessibleDescription('Please enter your password.');
    expect(screen.getByLabelText('Email')).toHaveFocus();

    await user.type(screen.getByLabelText('Email'), 'not-an-email');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(screen.getByLabelText('Email')).toHaveAccessibleDescription('Please enter a valid email address.');
    expect(mock.history.post).toHaveLength(0);
  });

  it('shows and hides the password', async () => {
    renderRoute('/login');
    const user = await fillIn('', 'secret');
    expect(screen.getByLabelText('Password')).toHaveAttribute('type', 'password');
    await user.click(screen.getByRole('button', { name: 'Show password' }));
    expect(screen.getByLabelText('Password')).toHaveAttribute('type', 'text');
    await user.click(screen.getByRole('button', { name: 'Hide password' }));
    expect(screen.getByLabelText('Password')).toHaveAttribute('type', 'password');
  });

  it('links to forgot password, register and home', () => {
    renderRoute('/login');
    expect(screen.getByRole('link', { name: 'Forgot password?' })).toHaveAttribute('href', '/forgot-password');
    expect(screen.getByRole('link', { name: 'Register' })).toHaveAttribute('href', '/register');
    expect(screen.getByRole('link', { name: 'Back to home' })).toHaveAttribute('href', '/');
  });

  it('offers account verification to an unverified account', async () => {
    mock.onPost('/auth/login').reply(403, {
      message: 'Please verify your account before logging in.',
      error: 'account_not_verified',
    });
    renderRoute('/login');
    const user = await fillIn('new@example.test', 'correct horse battery');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    const alert = await screen.findByText('Please verify your account before logging in.');
    expect(alert.closest('[role="alert"]')).not.toBeNull();
    expect(screen.getByRole('link', { name: 'Verify your account' })).toHaveAttribute('href', '/verify-account');
    expect(localStorage.getItem('userEmail')).toBe('new@example.test');
  });

  it('shows the server message, else the fallback', async () => {
    mock
      .onPost('/auth/login')
      .replyOnce(401, { message: 'Invalid email or password.' })
      .onPost('/auth/login')
      .replyOnce(500);
    const { router } = renderRoute('/login');
    const user = await fillIn('sara@example.test', 'wrong password');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('Invalid email or password.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('Login failed. Please try again.')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
  });
});
