import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type MockAdapter from 'axios-mock-adapter';
import { beforeEach, describe, expect, it } from 'vitest';
import { makeUser } from '@/test/fixtures';
import { mockApi, renderWithStore } from '@/test/render';
import type { AccessToken } from '../api';
import { AccessTokensSection } from './AccessTokensSection';

let mock: MockAdapter;

beforeEach(() => {
  mock = mockApi();
});

const SECRET = 'msp_' + 'A'.repeat(43);

const PACS: AccessToken = {
  id: '6f1d0c34-6a8c-4c55-9d0b-8d8f0f3c1a01',
  name: 'Radiology PACS',
  createdAt: '2025-05-01T10:00:00Z',
  expiresAt: '2025-07-30T10:00:00Z',
  lastUsedAt: null,
};

function renderSection() {
  return renderWithStore(<AccessTokensSection />, { user: makeUser(), token: 't' });
}

function region() {
  return screen.getByRole('region', { name: 'Access tokens' });
}

describe('Access tokens on /profile', () => {
  it('lists the live tokens with their dates, never a secret', async () => {
    mock.onGet('/tokens').reply(200, { data: [{ ...PACS, lastUsedAt: '2025-05-02T08:30:00Z' }, { ...PACS, id: 'b', name: 'Viewer' }] });
    renderSection();

    const items = await within(region()).findAllByRole('listitem');
    expect(items.map((item) => within(item).getByText(/PACS|Viewer/).textContent)).toEqual(['Radiology PACS', 'Viewer']);
    const first = within(items[0]);
    expect(first.getByText('Created').nextElementSibling).toHaveTextContent(
      new Date(PACS.createdAt).toLocaleString('en-PK', { timeZone: 'Asia/Karachi', dateStyle: 'medium', timeStyle: 'short' }),
    );
    expect(first.getByText('Last used').nextElementSibling).not.toHaveTextContent('Never');
    expect(within(items[1]).getByText('Last used').nextElementSibling).toHaveTextContent('Never');
    expect(first.getByRole('button', { name: 'Revoke Radiology PACS' })).toBeInTheDocument();
    expect(screen.queryByText(/msp_/)).not.toBeInTheDocument();
  });

  it('says when there is none', async () => {
    mock.onGet('/tokens').reply(200, { data: [] });
    renderSection();
    expect(await screen.findByText('You have no active tokens.')).toBeInTheDocument();
  });

  it('creates a token and shows its secret once, focused, with a Copy button', async () => {
    let listed: AccessToken[] = [];
    mock.onGet('/tokens').reply(() => [200, { data: listed }]);
    mock.onPost('/tokens').reply(() => {
      listed = [PACS];
      return [201, { message: 'Token created.', data: { ...PACS, token: SECRET } }];
    });
    const actor = userEvent.setup();
    renderSection();
    await screen.findByText('You have no active tokens.');

    expect(screen.getByLabelText('Lifetime in days')).toHaveValue(90);
    await actor.type(screen.getByLabelText('Name'), '  Radiology PACS ');
    await actor.click(screen.getByRole('button', { name: 'Create token' }));

    const secret = await screen.findByLabelText(/Your new token/);
    expect(secret).toHaveValue(SECRET);
    expect(secret).toHaveAttribute('readonly');
    expect(secret).toHaveFocus();
    expect(secret).toHaveAccessibleDescription('Copy this token now. You will not be able to see it again.');
    expect(await screen.findByText('Token created.')).toBeInTheDocument();
    expect(JSON.parse(mock.history.post[0].data as string)).toEqual({ name: 'Radiology PACS', expiresInDays: 90 });
    // The list is asked again (its cache tag), and the form is empty again.
    expect(await within(region()).findByRole('button', { name: 'Revoke Radiology PACS' })).toBeInTheDocument();
    expect(screen.getByLabelText('Name')).toHaveValue('');

    await actor.click(screen.getByRole('button', { name: 'Copy' }));
    expect(await navigator.clipboard.readText()).toBe(SECRET);
    expect(await screen.findByText('Token copied.')).toBeInTheDocument();

    await actor.click(screen.getByRole('button', { name: 'Done' }));
    expect(screen.queryByLabelText(/Your new token/)).not.toBeInTheDocument();
    expect(screen.queryByDisplayValue(SECRET)).not.toBeInTheDocument();
    expect(screen.getByLabelText('Name')).toHaveFocus();
  });

  it('checks the fields before sending, under each field, with focus there', async () => {
    mock.onGet('/tokens').reply(200, { data: [] });
    const actor = userEvent.setup();
    renderSection();
    await screen.findByText('You have no active tokens.');

    await actor.click(screen.getByRole('button', { name: 'Create token' }));
    const name = screen.getByLabelText('Name');
    expect(name).toHaveAccessibleDescription(expect.stringContaining('Please give the token a name.'));
    expect(name).toHaveAttribute('aria-invalid', 'true');
    expect(name).toHaveFocus();

    await actor.type(name, 'PACS');
    const days = screen.getByLabelText('Lifetime in days');
    await actor.clear(days);
    await actor.type(days, '366');
    await actor.click(screen.getByRole('button', { name: 'Create token' }));
    expect(days).toHaveAccessibleDescription(expect.stringContaining('The lifetime must be a whole number of days from 1 to 365.'));
    expect(days).toHaveFocus();
    expect(mock.history.post).toHaveLength(0);
  });

  it("shows the server's refusal: a field error under its field, the cap as a toast", async () => {
    mock.onGet('/tokens').reply(200, { data: [] });
    const cap = 'You already have 20 active tokens, the most you may hold. Please revoke one you no longer use.';
    mock
      .onPost('/tokens')
      .replyOnce(422, { message: 'The name must be one line of text.', errors: [{ field: 'name', message: 'The name must be one line of text.' }] })
      .onPost('/tokens')
      .replyOnce(422, { message: cap });
    const actor = userEvent.setup();
    renderSection();
    await screen.findByText('You have no active tokens.');

    await actor.type(screen.getByLabelText('Name'), 'PACS');
    await actor.click(screen.getByRole('button', { name: 'Create token' }));
    await waitFor(() =>
      expect(screen.getByLabelText('Name')).toHaveAccessibleDescription(expect.stringContaining('The name must be one line of text.')),
    );
    await actor.click(screen.getByRole('button', { name: 'Create token' }));
    expect(await screen.findByText(cap)).toBeInTheDocument();
    expect(screen.queryByLabelText(/Your new token/)).not.toBeInTheDocument();
  });

  it('revokes a token after a confirmation, by keyboard too', async () => {
    let listed = [PACS];
    mock.onGet('/tokens').reply(() => [200, { data: listed }]);
    mock.onDelete(`/tokens/${PACS.id}`).reply(() => {
      listed = [];
      return [200, { message: 'Token revoked.' }];
    });
    const actor = userEvent.setup();
    renderSection();

    const revoke = await screen.findByRole('button', { name: 'Revoke Radiology PACS' });
    await actor.click(revoke);
    let dialog = screen.getByRole('dialog', { name: 'Revoke token' });
    expect(dialog).toHaveAccessibleDescription('Machines using “Radiology PACS” will stop working at once. This cannot be undone.');
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveFocus();
    await actor.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(revoke).toHaveFocus();
    expect(mock.history.delete).toHaveLength(0);

    await actor.keyboard('{Enter}');
    dialog = screen.getByRole('dialog', { name: 'Revoke token' });
    await actor.click(within(dialog).getByRole('button', { name: 'Revoke token' }));
    expect(await screen.findByText('Token revoked.')).toBeInTheDocument();
    expect(await screen.findByText('You have no active tokens.')).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Access tokens' })).toHaveFocus();
  });
});
