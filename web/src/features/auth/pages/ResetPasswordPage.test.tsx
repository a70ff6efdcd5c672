import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type MockAdapter from 'axios-mock-adapter';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { mockApi, renderRoute } from '@/test/render';

let mock: MockAdapter;

beforeEach(() => {
  mock = mockApi();
});

describe('/reset-password?token=…', () => {
  it('says "Passwords do not match!" inline, without calling the server', async () => {
    const user = userEvent.setup();
    renderRoute('/reset-password?token=tok-123');
    await user.type(screen.getByLabelText('New password'), 'first password');
    await user.type(screen.getByLabelText('Confirm new password'), 'other password');
    await user.click(screen.getByRole('button', { name: 'Reset password' }));
    expect(screen.getByRole('alert')).toHaveTextContent('Passwords do not match!');
    expect(mock.history.post).toHaveLength(0);
  });

  it('sends {token, password} and goes to /login', async () => {
    const user = userEvent.setup();
    mock.onPost('/auth/reset-password').reply(200, { message: 'Password reset successfully!' });
    const { router } = renderRoute('/reset-password?token=tok-123');
    await user.type(screen.getByLabelText('New password'), 'a new long password');
    await user.type(screen.getByLabelText('Confirm new password'), 'a new long password');
    await user.click(screen.getByRole('button', { name: 'Reset password' }));

    expect(await screen.findByText('Password reset successfully!')).toBeInTheDocument();
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(JSON.parse(mock.history.post[0].data as string)).toEqual({ token: 'tok-123', password: 'a new long password' });
  });

  it('shows the server message on failure', async () => {
    const user = userEvent.setup();
    mock.onPost('/auth/reset-password').reply(410, { message: 'This link has expired.' });
    renderRoute('/reset-password?token=old');
    await user.type(screen.getByLabelText('New password'), 'a new long password');
    await user.type(screen.getByLabelText('Confirm new password'), 'a new long password');
    await user.click(screen.getByRole('button', { name: 'Reset password' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('This link has expired.');
  });

  it('explains a link without a token', () => {
    renderRoute('/reset-password');
    expect(screen.getByRole('link', { name: 'Request a new reset code' })).toHaveAttribute('href', '/forgot-password');
  });
});
