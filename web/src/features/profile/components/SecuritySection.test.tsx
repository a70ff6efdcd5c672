import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type MockAdapter from 'axios-mock-adapter';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { makeUser } from '@/test/fixtures';
import { mockApi, renderRoute, renderWithStore } from '@/test/render';
import type { Passkey } from '../security-api';
import { SecuritySection } from './SecuritySection';

const webauthn = vi.hoisted(() => ({ startAuthentication: vi.fn(), startRegistration: vi.fn() }));
vi.mock('@simplewebauthn/browser', () => webauthn);

let mock: MockAdapter;
const SECRET = 'JBSWY3DPEHPK3PXP';
const OTPAUTH = `otpauth://totp/MediShare:amina.khan%40example.test?secret=${SECRET}&issuer=MediShare`;
const CODES = Array.from({ length: 10 }, (_, n) => `abcd${n}-efgh${n}`);
const LAPTOP: Passkey = { id: 'pk-1', name: 'Work laptop', createdAt: '2025-05-01T10:00:00Z', lastUsedAt: null };

beforeEach(() => {
  mock = mockApi();
  webauthn.startRegistration.mockReset();
});

function renderSection(mfa = { totp: false, passkeys: 0, required: false }) {
  return renderWithStore(<SecuritySection />, { user: makeUser({ mfa }), token: 't' });
}

const sent = (method: 'post' | 'patch' | 'delete', index = 0) =>
  JSON.parse(mock.history[method][index].data as string) as Record<string, unknown>;

describe('Security on /profile', () => {
  it('sets up an authenticator with a QR code and the key, then shows the recovery codes once', async () => {
    mock.onGet('/auth/webauthn').reply(200, { data: [] });
    mock.onPost('/auth/mfa/totp/setup').reply(200, { data: { secret: SECRET, otpauthUrl: OTPAUTH } });
    mock.onPost('/auth/mfa/totp/enable').reply(200, { data: { recoveryCodes: CODES } });
    const actor = userEvent.setup();
    const { store } = renderSection();
    const region = screen.getByRole('region', { name: 'Security' });
    const totp = within(region).getByRole('group', { name: 'Authenticator app' });
    expect(totp).toHaveTextContent('Status: Off');

    await actor.click(within(totp).getByRole('button', { name: 'Set up an authenticator' }));
    const qr = await within(totp).findByRole('img', { name: 'QR code to scan with your authenticator app' });
    expect(qr.getAttribute('src')).toMatch(/^data:image\/svg\+xml/);
    expect(within(totp).getByLabelText('Or type this key into the app')).toHaveValue(SECRET);
    const first = within(totp).getByRole('textbox', { name: 'Digit 1 of 6' });
    await waitFor(() => expect(first).toHaveFocus());

    await actor.keyboard('123456');
    await actor.click(within(totp).getByRole('button', { name: 'Turn on' }));
    const codes = await screen.findByRole('group', { name: 'Your recovery codes' });
    expect(within(codes).getAllByRole('listitem').map((item) => item.textContent)).toEqual(CODES);
    expect(sent('post', 1)).toEqual({ code: '123456' });
    expect(store.getState().session.user?.mfa).toEqual({ totp: true, passkeys: 0, required: false });
    expect(totp).toHaveTextContent('Status: On');
    expect(screen.queryByRole('img', { name: /QR code/ })).not.toBeInTheDocument();

    const download = within(codes).getByRole('link', { name: 'Download' });
    expect(download).toHaveAttribute('download', 'medishare-recovery-codes.txt');
    expect(decodeURIComponent(download.getAttribute('href') ?? '')).toContain(CODES.join('\n'));
    await actor.click(within(codes).getByRole('button', { name: 'Copy' }));
    expect(await navigator.clipboard.readText()).toBe(CODES.join('\n'));

    await actor.click(within(codes).getByRole('button', { name: 'Done' }));
    expect(screen.queryByRole('group', { name: 'Your recovery codes' })).not.toBeInTheDocument();
    expect(screen.queryByText(CODES[0])).not.toBeInTheDocument();
  });

  it('says "Invalid code." when the first code is wrong, and stays on the setup', async () => {
    mock.onGet('/auth/webauthn').reply(200, { data: [] });
    mock.onPost('/auth/mfa/totp/setup').reply(200, { data: { secret: SECRET, otpauthUrl: OTPAUTH } });
    mock.onPost('/auth/mfa/totp/enable').reply(422, { error: 'Invalid code.' });
    const actor = userEvent.setup();
    const { store } = renderSection();
    await actor.click(screen.getByRole('button', { name: 'Set up an authenticator' }));
    await screen.findByLabelText('Or type this key into the app');
    await actor.keyboard('999999');
    await actor.click(screen.getByRole('button', { name: 'Turn on' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid code.');
    expect(screen.getByRole('group', { name: 'Code from the app' })).toHaveAccessibleDescription('Invalid code.');
    expect(store.getState().session.user?.mfa?.totp).toBe(false);
    expect(screen.queryByRole('group', { name: 'Your recovery codes' })).not.toBeInTheDocument();
  });

  it('makes new recovery codes with a code, and turns the authenticator off with the password and a code', async () => {
    mock.onGet('/auth/webauthn').reply(200, { data: [] });
    mock.onPost('/auth/mfa/recovery-codes').reply(200, { data: { recoveryCodes: CODES } });
    mock.onDelete('/auth/mfa/totp').reply(200, { message: 'The authenticator is turned off.' });
    const actor = userEvent.setup();
    const { store } = renderSection({ totp: true, passkeys: 0, required: false });

    await actor.click(screen.getByRole('button', { name: 'New recovery codes' }));
    await actor.keyboard('246810');
    await actor.click(screen.getByRole('button', { name: 'Get new codes' }));
    expect(await screen.findByRole('group', { name: 'Your recovery codes' })).toHaveTextContent(CODES[9]);
    expect(sent('post')).toEqual({ code: '246810' });

    await actor.click(screen.getByRole('button', { name: 'Turn off' }));
    await actor.type(screen.getByLabelText('Password'), 'correct horse battery');
    await actor.type(screen.getByLabelText('Authenticator or recovery code'), 'abcd0-efgh0');
    await actor.click(screen.getByRole('button', { name: 'Turn off the authenticator' }));
    expect(await screen.findByText('The authenticator is turned off.')).toBeInTheDocument();
    expect(sent('delete')).toEqual({ password: 'correct horse battery', code: 'abcd0-efgh0' });
    expect(store.getState().session.user?.mfa?.totp).toBe(false);
  });

  it('adds a passkey with the options go-webauthn gives, then shows the first recovery codes', async () => {
    let listed: Passkey[] = [];
    const publicKey = { challenge: 'Y2hhbGxlbmdl', rp: { name: 'MediShare', id: 'localhost' }, user: { id: 'dQ', name: 'a', displayName: 'A' }, pubKeyCredParams: [] };
    const credential = { id: 'cred', rawId: 'cred', type: 'public-key', response: {}, clientExtensionResults: {} };
    mock.onGet('/auth/webauthn').reply(() => [200, { data: listed }]);
    mock.onPost('/auth/webauthn/register/begin').reply(200, { data: { publicKey } });
    mock.onPost('/auth/webauthn/register/finish').reply(() => {
      listed = [LAPTOP];
      return [201, { data: { passkey: LAPTOP, recoveryCodes: CODES } }];
    });
    webauthn.startRegistration.mockResolvedValue(credential);
    const actor = userEvent.setup();
    const { store } = renderSection();
    const passkeys = screen.getByRole('group', { name: 'Passkeys' });
    await waitFor(() => expect(mock.history.get).toHaveLength(1));

    await actor.type(within(passkeys).getByLabelText('Passkey name'), ' Work laptop ');
    await actor.click(within(passkeys).getByRole('button', { name: 'Add a passkey' }));
    expect(await within(passkeys).findByRole('button', { name: 'Rename Work laptop' })).toBeInTheDocument();
    expect(webauthn.startRegistration).toHaveBeenCalledWith({ optionsJSON: publicKey });
    expect(sent('post', 1)).toEqual({ name: 'Work laptop', credential });
    expect(screen.getByRole('group', { name: 'Your recovery codes' })).toHaveTextContent(CODES[0]);
    expect(store.getState().session.user?.mfa?.passkeys).toBe(1);
    expect(passkeys).toHaveTextContent('Status: On (1 passkey)');
  });

  it('reports a closed passkey prompt without calling finish', async () => {
    mock.onGet('/auth/webauthn').reply(200, { data: [] });
    mock.onPost('/auth/webauthn/register/begin').reply(200, { data: { publicKey: { challenge: 'x' } } });
    webauthn.startRegistration.mockRejectedValue(Object.assign(new Error('no'), { name: 'NotAllowedError' }));
    const actor = userEvent.setup();
    renderSection();
    await actor.click(screen.getByRole('button', { name: 'Add a passkey' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('The passkey was not used. Please try again.');
    expect(mock.history.post).toHaveLength(1);
  });

  it('renames and removes a passkey', async () => {
    let listed: Passkey[] = [LAPTOP];
    mock.onGet('/auth/webauthn').reply(() => [200, { data: listed }]);
    mock.onPatch(`/auth/webauthn/${LAPTOP.id}`).reply((config) => {
      listed = [{ ...LAPTOP, name: (JSON.parse(config.data as string) as { name: string }).name }];
      return [200, { data: listed[0] }];
    });
    mock.onDelete(`/auth/webauthn/${LAPTOP.id}`).reply(() => {
      listed = [];
      return [200, { message: 'The passkey is removed.' }];
    });
    const actor = userEvent.setup();
    const { store } = renderSection({ totp: false, passkeys: 1, required: false });

    await actor.click(await screen.findByRole('button', { name: 'Rename Work laptop' }));
    const dialog = screen.getByRole('dialog', { name: 'Rename passkey' });
    const name = within(dialog).getByLabelText('Name');
    await actor.clear(name);
    await actor.type(name, 'Phone');
    await actor.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await screen.findByRole('button', { name: 'Remove Phone' })).toBeInTheDocument();
    expect(sent('patch')).toEqual({ name: 'Phone' });

    await actor.click(screen.getByRole('button', { name: 'Remove Phone' }));
    const confirm = screen.getByRole('dialog', { name: 'Remove passkey' });
    await actor.click(within(confirm).getByRole('button', { name: 'Remove passkey' }));
    expect(await screen.findByText('The passkey is removed.')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Remove Phone' })).not.toBeInTheDocument());
    expect(store.getState().session.user?.mfa?.passkeys).toBe(0);
  });
});

describe('/profile in an enrolment-only session', () => {
  it('says the role requires a second factor, shows only Security, and lets go once one is set up', async () => {
    const provider = makeUser({ role: 'healthProvider', mfa: { totp: false, passkeys: 0, required: true } });
    mock.onGet('/auth/webauthn').reply(200, { data: [] });
    mock.onGet('/users/profile').reply(200, { data: { ...provider, mfa: { totp: true, passkeys: 0, required: true } } });
    mock.onGet('/tokens').reply(200, { data: [] });
    mock.onGet(/.*/).reply(200, { data: [] });
    mock.onPost('/auth/mfa/totp/setup').reply(200, { data: { secret: SECRET, otpauthUrl: OTPAUTH } });
    mock.onPost('/auth/mfa/totp/enable').reply(200, { data: { recoveryCodes: CODES } });
    const actor = userEvent.setup();
    const { router } = renderRoute('/dashboard', { user: provider, token: 't' });

    await waitFor(() => expect(router.state.location.pathname).toBe('/profile'));
    expect(await screen.findByRole('alert')).toHaveTextContent('Your role requires a second factor.');
    expect(await screen.findByRole('heading', { name: 'Security' })).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Personal Information' })).not.toBeInTheDocument();
    expect(mock.history.get.map((call) => call.url)).not.toContain('/users/profile');

    // Kept there.
    await router.navigate('/view-images');
    await waitFor(() => expect(router.state.location.pathname).toBe('/profile'));

    await actor.click(await screen.findByRole('button', { name: 'Set up an authenticator' }));
    await screen.findByLabelText('Or type this key into the app');
    await actor.click(screen.getByRole('textbox', { name: 'Digit 1 of 6' }));
    await actor.keyboard('123456');
    await actor.click(screen.getByRole('button', { name: 'Turn on' }));

    // The codes stay on screen as the rest of the profile comes back.
    expect(await screen.findByRole('heading', { name: 'Personal Information' })).toBeInTheDocument();
    expect(screen.getByRole('group', { name: 'Your recovery codes' })).toHaveTextContent(CODES[0]);
    expect(screen.queryByText(/Your role requires a second factor/)).not.toBeInTheDocument();
    await router.navigate('/view-images');
    expect(router.state.location.pathname).toBe('/view-images');
  });

  it('a 403 mfa_enrollment_required leads to the Security section', async () => {
    const patient = makeUser({ mfa: { totp: false, passkeys: 0, required: false } });
    mock.onGet(/.*/).reply(403, { error: 'mfa_enrollment_required' });
    const { router, store } = renderRoute('/messages', { user: patient, token: 't' });
    await waitFor(() => expect(router.state.location.pathname).toBe('/profile'));
    expect(store.getState().session.user?.mfa).toEqual({ totp: false, passkeys: 0, required: true });
    expect(await screen.findByText(/Your role requires a second factor/)).toBeInTheDocument();
  });
});
