import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type MockAdapter from 'axios-mock-adapter';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { makeUser } from '@/test/fixtures';
import { mockApi, renderRoute } from '@/test/render';

const webauthn = vi.hoisted(() => ({ startAuthentication: vi.fn(), startRegistration: vi.fn() }));
vi.mock('@simplewebauthn/browser', () => webauthn);

let mock: MockAdapter;
const EXPIRED = 'Your sign-in has expired. Please sign in again.';
const user = makeUser({ role: 'patient', mfa: { totp: true, passkeys: 1, required: false } });
const session = { token: 'access-token', user };

beforeEach(() => {
  mock = mockApi();
  webauthn.startAuthentication.mockReset();
  mock.onGet(/.*/).reply(200, {
    data: [],
    pagination: { currentPage: 1, pageSize: 5, totalPages: 0, totalItems: 0, hasPrevPage: false, hasNextPage: false },
  });
});

function challenge(methods: string[]) {
  mock.onPost('/auth/login').reply(200, { data: { mfaRequired: true, mfaToken: 'mfa-token-1', methods } });
}

async function passwordStep() {
  const actor = userEvent.setup();
  await actor.type(screen.getByLabelText('Email'), user.email);
  await actor.type(screen.getByLabelText('Password'), 'correct horse battery');
  await actor.click(screen.getByRole('button', { name: 'Sign in' }));
  return actor;
}

const sent = (index: number) => JSON.parse(mock.history.post[index].data as string) as Record<string, unknown>;

describe('/login second step', () => {
  it('asks for the authenticator code in six boxes, focused, and signs in with it', async () => {
    challenge(['totp', 'recovery', 'webauthn']);
    mock.onPost('/auth/login/mfa').reply(200, { message: 'Signed in.', data: session });
    const { store, router } = renderRoute('/login');
    const actor = await passwordStep();

    const group = await screen.findByRole('group', { name: 'Authenticator code' });
    const first = within(group).getByRole('textbox', { name: 'Digit 1 of 6' });
    await waitFor(() => expect(first).toHaveFocus());
    expect(store.getState().session.token).toBeNull();
    expect(screen.getByRole('button', { name: 'Use a passkey' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Use a recovery code' })).toBeInTheDocument();

    await actor.keyboard('123456');
    await actor.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByText('Login successful! Redirecting...')).toBeInTheDocument();
    expect(sent(1)).toEqual({ mfaToken: 'mfa-token-1', code: '123456' });
    expect(store.getState().session.token).toBe('access-token');
    await waitFor(() => expect(router.state.location.pathname).toBe('/view-images'), { timeout: 5000 });
  });

  it('takes a recovery code in a single field', async () => {
    challenge(['totp', 'recovery']);
    mock.onPost('/auth/login/mfa').reply(200, { data: session });
    const { store } = renderRoute('/login');
    const actor = await passwordStep();
    await screen.findByRole('group', { name: 'Authenticator code' });
    expect(screen.queryByRole('button', { name: 'Use a passkey' })).not.toBeInTheDocument();

    await actor.click(screen.getByRole('button', { name: 'Use a recovery code' }));
    const field = screen.getByLabelText('Recovery code');
    await waitFor(() => expect(field).toHaveFocus());
    expect(screen.queryByRole('group', { name: 'Authenticator code' })).not.toBeInTheDocument();
    await actor.type(field, ' abcde-12345 ');
    await actor.click(screen.getByRole('button', { name: 'Verify' }));
    await waitFor(() => expect(store.getState().session.token).toBe('access-token'));
    expect(sent(1)).toEqual({ mfaToken: 'mfa-token-1', code: 'abcde-12345' });
  });

  it('says "Invalid code." on a wrong code, announced and tied to the boxes, and stays', async () => {
    challenge(['totp', 'recovery']);
    mock.onPost('/auth/login/mfa').reply(401, { error: 'Invalid code.' });
    const { store, router } = renderRoute('/login');
    const actor = await passwordStep();
    await screen.findByRole('group', { name: 'Authenticator code' });
    await actor.keyboard('000000');
    await actor.click(screen.getByRole('button', { name: 'Verify' }));

    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Invalid code.');
    expect(screen.getByRole('group', { name: 'Authenticator code' })).toHaveAccessibleDescription('Invalid code.');
    expect(screen.getByRole('textbox', { name: 'Digit 1 of 6' })).toHaveValue('');
    expect(store.getState().session.token).toBeNull();
    expect(router.state.location.pathname).toBe('/login');
  });

  it('goes back to the password step when the sign-in has expired', async () => {
    challenge(['totp', 'recovery']);
    mock.onPost('/auth/login/mfa').reply(401, { error: EXPIRED });
    renderRoute('/login');
    const actor = await passwordStep();
    await screen.findByRole('group', { name: 'Authenticator code' });
    await actor.keyboard('654321');
    await actor.click(screen.getByRole('button', { name: 'Verify' }));

    expect(await screen.findByRole('alert')).toHaveTextContent(EXPIRED);
    expect(screen.queryByRole('group', { name: 'Authenticator code' })).not.toBeInTheDocument();
    const password = screen.getByLabelText('Password');
    expect(password).toHaveValue('');
    await waitFor(() => expect(password).toHaveFocus());
    expect(screen.getByLabelText('Email')).toHaveValue(user.email);
  });

  it('signs in with a passkey: the options of go-webauthn, then the assertion', async () => {
    challenge(['recovery', 'webauthn']);
    const publicKey = { challenge: 'Y2hhbGxlbmdl', rpId: 'localhost', allowCredentials: [], userVerification: 'preferred' };
    const credential = { id: 'cred', rawId: 'cred', type: 'public-key', response: {}, clientExtensionResults: {} };
    mock.onPost('/auth/login/webauthn/begin').reply(200, { data: { publicKey } });
    mock.onPost('/auth/login/webauthn/finish').reply(200, { data: session });
    webauthn.startAuthentication.mockResolvedValue(credential);
    const { store } = renderRoute('/login');
    const actor = await passwordStep();

    // Passkeys only: no boxes, the passkey button first.
    const button = await screen.findByRole('button', { name: 'Use a passkey' });
    await waitFor(() => expect(button).toHaveFocus());
    expect(screen.queryByRole('group', { name: 'Authenticator code' })).not.toBeInTheDocument();
    await actor.click(button);
    await waitFor(() => expect(store.getState().session.token).toBe('access-token'));
    expect(webauthn.startAuthentication).toHaveBeenCalledWith({ optionsJSON: publicKey });
    expect(sent(1)).toEqual({ mfaToken: 'mfa-token-1' });
    expect(sent(2)).toEqual({ mfaToken: 'mfa-token-1', credential });
  });

  it('reports a passkey prompt that was closed, and stays', async () => {
    challenge(['recovery', 'webauthn']);
    mock.onPost('/auth/login/webauthn/begin').reply(200, { data: { publicKey: { challenge: 'x' } } });
    webauthn.startAuthentication.mockRejectedValue(Object.assign(new Error('cancelled'), { name: 'NotAllowedError' }));
    renderRoute('/login');
    const actor = await passwordStep();
    await actor.click(await screen.findByRole('button', { name: 'Use a passkey' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('The passkey was not used. Please try again.');
    expect(mock.history.post.map((call) => call.url)).not.toContain('/auth/login/webauthn/finish');
  });

  it('goes to the Security section of /profile when the role requires a second factor the user lacks', async () => {
    const unenrolled = makeUser({ role: 'healthProvider', mfa: { totp: false, passkeys: 0, required: true } });
    mock.onPost('/auth/login').reply(200, { data: { token: 't', user: unenrolled } });
    const { router } = renderRoute('/login');
    await passwordStep();
    await waitFor(() => expect(router.state.location.pathname).toBe('/profile'), { timeout: 5000 });
  });
});
