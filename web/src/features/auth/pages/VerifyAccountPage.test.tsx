import { act, fireEvent, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type MockAdapter from 'axios-mock-adapter';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { mockApi, renderRoute } from '@/test/render';
import { settle } from '@/test/settle';
import { VERIFY_REDIRECT_MS } from '../home-route';

let mock: MockAdapter;

beforeEach(() => {
  mock = mockApi();
});

const INVALID = 'Please enter a valid email and complete the OTP.';

function codeBoxes() {
  return screen.getAllByRole('textbox', { name: /Digit \d of 4/ });
}

describe('/verify-account', () => {
  it('fills the email from localStorage and links home and to login', async () => {
    localStorage.setItem('userEmail', 'sara@example.test');
    renderRoute('/verify-account');
    expect(await screen.findByRole('heading', { level: 1, name: 'Verify Your Account' })).toBeInTheDocument();
    expect(screen.getByLabelText('Email')).toHaveValue('sara@example.test');
    expect(codeBoxes()).toHaveLength(4);
    expect(screen.getByRole('link', { name: 'Back to home' })).toHaveAttribute('href', '/');
    expect(screen.getByRole('link', { name: 'Back to login' })).toHaveAttribute('href', '/login');
  });

  it('refuses an incomplete code or a missing email without calling the server', async () => {
    const user = userEvent.setup();
    localStorage.setItem('userEmail', 'sara@example.test');
    renderRoute('/verify-account');

    await user.click(codeBoxes()[0]);
    await user.keyboard('123');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(screen.getByRole('alert')).toHaveTextContent(INVALID);

    await user.click(codeBoxes()[3]);
    await user.keyboard('4');
    await user.clear(screen.getByLabelText('Email'));
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(screen.getByRole('alert')).toHaveTextContent(INVALID);
    expect(screen.getByLabelText('Email')).toHaveAccessibleDescription(INVALID);
    expect(mock.history.post).toHaveLength(0);
  });

  it('sends {email, code}, toasts the answer and goes to /login after 1 s', async () => {
    const user = userEvent.setup();
    mock.onPost('/auth/confirm').reply(200, { message: 'Your account is confirmed.' });
    const { router } = renderRoute('/verify-account');

    await user.type(screen.getByLabelText('Email'), 'omar@example.test');
    await user.click(codeBoxes()[0]);
    await user.paste('4321');
    // The redirect's second is counted on a fake clock, not waited.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    fireEvent.click(screen.getByRole('button', { name: 'Verify' }));

    await settle(() => screen.queryByText('Your account is confirmed.') !== null);
    expect(JSON.parse(mock.history.post[0].data as string)).toEqual({ email: 'omar@example.test', code: '4321' });
    act(() => vi.advanceTimersByTime(VERIFY_REDIRECT_MS - 1));
    expect(router.state.location.pathname).toBe('/verify-account');
    act(() => vi.advanceTimersByTime(1));
    await settle(() => router.state.location.pathname === '/login');
  });

  it('shows each field error of a failure', async () => {
    const user = userEvent.setup();
    mock.onPost('/auth/confirm').reply(422, {
      message: 'Invalid.',
      errors: [{ field: 'code', message: 'is wrong or expired' }],
    });
    localStorage.setItem('userEmail', 'sara@example.test');
    renderRoute('/verify-account');
    await user.click(codeBoxes()[0]);
    await user.paste('0000');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByText('code: is wrong or expired')).toBeInTheDocument();
  });

  it('resends the code to the given email', async () => {
    const user = userEvent.setup();
    mock.onPost('/auth/resend-confirmation').reply(200, { message: 'If the account exists, a new code is on its way.' });
    localStorage.setItem('userEmail', 'sara@example.test');
    renderRoute('/verify-account');
    await user.click(screen.getByRole('button', { name: 'Resend code' }));
    expect(await screen.findByText('If the account exists, a new code is on its way.')).toBeInTheDocument();
    expect(JSON.parse(mock.history.post[0].data as string)).toEqual({ email: 'sara@example.test' });
  });
});
