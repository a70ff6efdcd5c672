import { screen } from '@testing-library/react';
import userEvent, { type UserEvent } from '@testing-library/user-event';
import type MockAdapter from 'axios-mock-adapter';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { mockApi, renderRoute } from '@/test/render';

let mock: MockAdapter;

beforeEach(() => {
  mock = mockApi();
});

async function toStepTwo(user: UserEvent) {
  mock.onPost('/auth/forgot-password').reply(200, { message: 'If the account exists, a code is on its way.' });
  renderRoute('/forgot-password');
  await user.type(screen.getByLabelText('Email'), 'sara@example.test');
  await user.click(screen.getByRole('button', { name: 'Send reset code' }));
  expect(await screen.findByText('Reset code sent successfully!')).toBeInTheDocument();
  expect(await screen.findByRole('heading', { level: 2, name: 'Enter the code and a new password' })).toHaveFocus();
}

/** The inline validation message (toasts are alerts too). */
function inlineError() {
  return screen.getAllByRole('alert').find((alert) => alert.id === 'forgot-error');
}

function codeBoxes() {
  return screen.getAllByRole('textbox', { name: /Digit \d of 6/ });
}

describe('/forgot-password', () => {
  it.each(['', 'not-an-email'])('step 1 refuses the email %j', async (email) => {
    const user = userEvent.setup();
    renderRoute('/forgot-password');
    if (email) await user.type(screen.getByLabelText('Email'), email);
    await user.click(screen.getByRole('button', { name: 'Send reset code' }));
    expect(inlineError()).toHaveTextContent('Please enter a valid email.');
    expect(mock.history.post).toHaveLength(0);
  });

  it('step 1 shows the fallback text when the server gives none', async () => {
    const user = userEvent.setup();
    mock.onPost('/auth/forgot-password').reply(500);
    renderRoute('/forgot-password');
    await user.type(screen.getByLabelText('Email'), 'sara@example.test');
    await user.click(screen.getByRole('button', { name: 'Send reset code' }));
    expect(await screen.findByText('Something went wrong. from handleForgotPassword')).toBeInTheDocument();
  });

  it('step 2 checks the code, then empty passwords, then the match', async () => {
    const user = userEvent.setup();
    await toStepTwo(user);
    expect(codeBoxes()).toHaveLength(6);
    const submit = () => user.click(screen.getByRole('button', { name: 'Reset password' }));

    await user.click(codeBoxes()[0]);
    await user.keyboard('12345');
    await submit();
    expect(inlineError()).toHaveTextContent('Please enter a valid 6-digit OTP.');

    await user.click(codeBoxes()[5]);
    await user.keyboard('6');
    await submit();
    expect(inlineError()).toHaveTextContent('Password fields cannot be empty.');

    await user.type(screen.getByLabelText('New password'), 'first password');
    await submit();
    expect(inlineError()).toHaveTextContent('Password fields cannot be empty.');

    await user.type(screen.getByLabelText('Confirm new password'), 'second password');
    await submit();
    expect(inlineError()).toHaveTextContent('Passwords do not match!');
    expect(mock.history.post.filter((request) => request.url === '/auth/reset-password')).toHaveLength(0);
  });

  it('step 2 sends {email, otp, newPassword} and shows the success step', async () => {
    const user = userEvent.setup();
    mock.onPost('/auth/reset-password').reply(200, { message: 'Password reset successfully!' });
    await toStepTwo(user);
    await user.click(codeBoxes()[0]);
    await user.paste('123456');
    await user.type(screen.getByLabelText('New password'), 'a new long password');
    await user.type(screen.getByLabelText('Confirm new password'), 'a new long password');
    await user.click(screen.getByRole('button', { name: 'Reset password' }));

    expect(await screen.findByText('Password reset successfully!')).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 2, name: 'Password reset' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to login' })).toHaveAttribute('href', '/login');
    const request = mock.history.post.find((entry) => entry.url === '/auth/reset-password');
    expect(JSON.parse(request?.data as string)).toEqual({
      email: 'sara@example.test',
      otp: '123456',
      newPassword: 'a new long password',
    });
  });

  it('step 2 asks for a second factor when the account has one, and sends it as mfaCode', async () => {
    const user = userEvent.setup();
    const ask = 'Enter a code from your authenticator app or a recovery code.';
    mock
      .onPost('/auth/reset-password')
      .replyOnce(401, { error: ask, mfaRequired: true })
      .onPost('/auth/reset-password')
      .replyOnce(401, { error: 'Invalid code.' })
      .onPost('/auth/reset-password')
      .replyOnce(200, { message: 'Password reset successfully!' });
    await toStepTwo(user);
    await user.click(codeBoxes()[0]);
    await user.paste('123456');
    await user.type(screen.getByLabelText('New password'), 'a new long password');
    await user.type(screen.getByLabelText('Confirm new password'), 'a new long password');
    await user.click(screen.getByRole('button', { name: 'Reset password' }));

    const field = await screen.findByLabelText('Authenticator or recovery code');
    expect(inlineError()).toHaveTextContent(ask);
    expect(field).toHaveAccessibleDescription(ask);
    await user.type(field, '000000');
    await user.click(screen.getByRole('button', { name: 'Reset password' }));
    await vi.waitFor(() => expect(inlineError()).toHaveTextContent('Invalid code.'));

    await user.clear(field);
    await user.type(field, 'abcde-12345');
    await user.click(screen.getByRole('button', { name: 'Reset password' }));
    expect(await screen.findByRole('heading', { level: 2, name: 'Password reset' })).toBeInTheDocument();
    const bodies = mock.history.post.filter((entry) => entry.url === '/auth/reset-password').map((entry) => JSON.parse(entry.data as string) as unknown);
    expect(bodies).toEqual([
      { email: 'sara@example.test', otp: '123456', newPassword: 'a new long password' },
      { email: 'sara@example.test', otp: '123456', newPassword: 'a new long password', mfaCode: '000000' },
      { email: 'sara@example.test', otp: '123456', newPassword: 'a new long password', mfaCode: 'abcde-12345' },
    ]);
  });

  it('step 2 shows the server text, else its own fallback', async () => {
    const user = userEvent.setup();
    mock
      .onPost('/auth/reset-password')
      .replyOnce(400, { message: 'The code is wrong. 4 tries left.' })
      .onPost('/auth/reset-password')
      .replyOnce(502);
    await toStepTwo(user);
    await user.click(codeBoxes()[0]);
    await user.paste('000000');
    await user.type(screen.getByLabelText('New password'), 'a new long password');
    await user.type(screen.getByLabelText('Confirm new password'), 'a new long password');
    await user.click(screen.getByRole('button', { name: 'Reset password' }));
    expect(await screen.findByText('The code is wrong. 4 tries left.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Reset password' }));
    expect(await screen.findByText('Something went wrong in handleResetPassword')).toBeInTheDocument();
  });
});
