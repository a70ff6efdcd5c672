import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type MockAdapter from 'axios-mock-adapter';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { imageTag } from '@/lib/api';
import { makeUser, pageOf } from '@/test/fixtures';
import { mockApi, renderWithStore } from '@/test/render';
import { searchFor } from '@/test/search';
import { watchTag } from '@/test/tag-probe';
import type { User } from '@/types/api';
import type { ImageShare } from '@/types/images';
import { ShareImageModal } from './ShareImageModal';

let mock: MockAdapter;
const me = makeUser({ id: 'provider-1', role: 'healthProvider', firstname: 'Imran', lastname: 'Siddiqui', email: 'imran@example.test' });
const ayesha = makeUser({ id: 'patient-1', firstname: 'Ayesha', lastname: 'Khan', email: 'ayesha@example.test', role: 'patient' });
const sara = makeUser({ id: 'provider-2', firstname: 'Sara', lastname: 'Malik', email: 'sara@example.test', role: 'healthProvider' });
const nobody = makeUser({ id: 'user-9', firstname: 'Omar', lastname: 'Farooq', email: 'omar@example.test', role: '' });

function directory(search?: string): User[] {
  const all = [me, ayesha, sara, nobody];
  if (!search) return all;
  return all.filter((user) => `${user.firstname} ${user.lastname}`.toLowerCase().includes(search.toLowerCase()));
}

beforeEach(() => {
  mock = mockApi();
  // The server's own defaults (docs/api.md "Settings").
  mock.onGet('/sharing/limits').reply(200, { data: { shareLifetimeDefaultHours: 24, shareLifetimeMaxHours: 168 } });
  mock.onGet('/users').reply((config) => {
    const { search } = (config.params ?? {}) as { search?: string };
    const list = directory(search);
    return [200, pageOf(list, 1, 1, 20)];
  });
});

function renderModal(props: { shares?: ImageShare[] } = {}) {
  const onClose = vi.fn();
  const onShared = vi.fn();
  const { store } = renderWithStore(
    <ShareImageModal
      imageId="img-1"
      caption="Chest CT"
      currentUserId={me.id}
      onClose={onClose}
      onShared={onShared}
      {...props}
    />,
    { user: me, token: 't' },
  );
  return { store, onClose, onShared, dialog: screen.getByRole('dialog', { name: 'Share (Chest CT)' }) };
}

const userCalls = () => mock.history.get.filter((request) => request.url === '/users');

/** The lifetime select, once the admin's limits have arrived. */
async function lifetimeSelect(dialog: HTMLElement): Promise<HTMLElement> {
  const lifetime = within(dialog).getByRole('combobox', { name: 'Expires after' });
  await vi.waitFor(() => expect(lifetime).toBeEnabled());
  return lifetime;
}

const optionTexts = (select: HTMLElement) => within(select).getAllByRole('option').map((option) => option.textContent);

describe('ShareImageModal', () => {
  it('lists the users by last name, first name, email and role, without the caller', async () => {
    const { dialog } = renderModal();
    const ayeshaRow = await within(dialog).findByRole('radio', { name: /Khan, Ayesha/ });
    expect(ayeshaRow.closest('label')).toHaveTextContent('Khan, Ayeshaayesha@example.testPatient');
    expect(within(dialog).getByRole('radio', { name: /Malik, Sara/ }).closest('label')).toHaveTextContent(
      'Malik, Sarasara@example.testHealth Provider',
    );
    // product.md §2: the role falls back to 'User'.
    expect(within(dialog).getByRole('radio', { name: /Farooq, Omar/ }).closest('label')).toHaveTextContent(
      'Farooq, Omaromar@example.testUser',
    );
    expect(within(dialog).queryByRole('radio', { name: /Siddiqui/ })).not.toBeInTheDocument();
    expect(within(dialog).getByText('3 users')).toBeInTheDocument();
    expect(userCalls()[0].params).toEqual({ limit: 20 });
    // Focus starts in the search box, which has a label.
    expect(within(dialog).getByRole('searchbox', { name: 'Search users by name' })).toHaveFocus();
  });

  it("searches by name after a pause in typing and says 'No users found' when none match", async () => {
    const { dialog } = renderModal();
    await within(dialog).findByRole('radio', { name: /Khan, Ayesha/ });
    await searchFor(within(dialog).getByRole('searchbox', { name: 'Search users by name' }), 'mal');
    await vi.waitFor(() => expect(within(dialog).queryByRole('radio', { name: /Khan, Ayesha/ })).not.toBeInTheDocument());
    expect(within(dialog).getByRole('radio', { name: /Malik, Sara/ })).toBeInTheDocument();
    expect(userCalls().at(-1)?.params).toEqual({ limit: 20, search: 'mal' });

    await searchFor(within(dialog).getByRole('searchbox', { name: 'Search users by name' }), 'zzz');
    expect(await within(dialog).findByText('No users found')).toBeInTheDocument();
    expect(within(dialog).queryByRole('radio')).not.toBeInTheDocument();
  });

  it("offers lifetimes up to the admin's maximum, the admin's default (24 hours unless changed) chosen", async () => {
    const { dialog } = renderModal();
    const lifetime = await lifetimeSelect(dialog);
    expect(lifetime).toHaveValue('24');
    expect(optionTexts(lifetime)).toEqual(['1 hour', '12 hours', '24 hours', '3 days', '7 days']);
    await screen.findByRole('radio', { name: /Khan, Ayesha/ });
  });

  it("preselects an admin's default of 48 hours and offers nothing beyond a maximum of 72", async () => {
    mock.onGet('/sharing/limits').reply(200, { data: { shareLifetimeDefaultHours: 48, shareLifetimeMaxHours: 72 } });
    const { dialog } = renderModal();
    const lifetime = await lifetimeSelect(dialog);
    expect(lifetime).toHaveValue('48');
    expect(optionTexts(lifetime)).toEqual(['1 hour', '12 hours', '24 hours', '2 days', '3 days']);
    await screen.findByRole('radio', { name: /Khan, Ayesha/ });
  });

  it('offers a maximum above 7 days, and one between the usual steps', async () => {
    mock.onGet('/sharing/limits').reply(200, { data: { shareLifetimeDefaultHours: 24, shareLifetimeMaxHours: 720 } });
    const { dialog } = renderModal();
    expect(optionTexts(await lifetimeSelect(dialog))).toEqual(['1 hour', '12 hours', '24 hours', '3 days', '7 days', '14 days', '30 days']);
    await screen.findByRole('radio', { name: /Khan, Ayesha/ });
  });

  it('leaves the lifetime to the server when the limits cannot be read', async () => {
    mock.onGet('/sharing/limits').reply(503, { message: 'The service is temporarily unavailable.' });
    mock.onPost('/sharing/request').reply(201, { message: 'Image shared successfully.', data: { id: 's', expiresAt: '' } });
    const user = userEvent.setup();
    const { dialog, onShared } = renderModal();
    const lifetime = within(dialog).getByRole('combobox', { name: 'Expires after' });
    expect(await within(lifetime).findByRole('option', { name: 'The default lifetime' })).toBeInTheDocument();
    expect(lifetime).toBeDisabled();
    await user.click(await within(dialog).findByRole('radio', { name: /Khan, Ayesha/ }));
    await user.click(within(dialog).getByRole('button', { name: 'Share' }));
    await vi.waitFor(() => expect(onShared).toHaveBeenCalled());
    expect(JSON.parse(mock.history.post[0].data as string)).toEqual({ imagemetadataId: 'img-1', createdfor: 'patient-1' });
  });

  it("shares with the chosen person for 24 hours, toasts the message, reports back and refreshes the image's card", async () => {
    mock.onPost('/sharing/request').reply(201, {
      message: 'Image shared successfully.',
      data: { id: 'share-1', expiresAt: '2025-05-13T09:30:00Z' },
    });
    const user = userEvent.setup();
    const { dialog, onShared, store } = renderModal();
    const imageRuns = await watchTag(store, imageTag('img-1'));
    await user.click(await within(dialog).findByRole('radio', { name: /Khan, Ayesha/ }));
    await lifetimeSelect(dialog);
    await user.click(within(dialog).getByRole('button', { name: 'Share' }));

    expect(await screen.findByText('Image shared successfully.')).toBeInTheDocument();
    expect(onShared).toHaveBeenCalledTimes(1);
    await vi.waitFor(() => expect(imageRuns()).toBe(2));
    expect(mock.history.post).toHaveLength(1);
    expect(JSON.parse(mock.history.post[0].data as string)).toEqual({
      imagemetadataId: 'img-1',
      createdfor: 'patient-1',
      expiresInHours: 24,
    });
  });

  it('sends the chosen lifetime in hours', async () => {
    mock.onPost('/sharing/request').reply(201, { message: 'Image shared successfully.', data: { id: 's', expiresAt: '' } });
    const user = userEvent.setup();
    const { dialog, onShared } = renderModal();
    await user.click(await within(dialog).findByRole('radio', { name: /Malik, Sara/ }));
    await user.selectOptions(await lifetimeSelect(dialog), '3 days');
    await user.click(within(dialog).getByRole('button', { name: 'Share' }));
    await vi.waitFor(() => expect(onShared).toHaveBeenCalled());
    expect(JSON.parse(mock.history.post[0].data as string)).toEqual({
      imagemetadataId: 'img-1',
      createdfor: 'provider-2',
      expiresInHours: 72,
    });
  });

  it('asks for a person before sending anything', async () => {
    const user = userEvent.setup();
    const { dialog } = renderModal();
    await within(dialog).findByRole('radio', { name: /Khan, Ayesha/ });
    await user.click(within(dialog).getByRole('button', { name: 'Share' }));
    expect(within(dialog).getByText('Please choose who to share this image with.')).toBeInTheDocument();
    expect(within(dialog).getAllByRole('radio')[0]).toHaveFocus();
    expect(mock.history.post).toHaveLength(0);
  });

  it("shows the server's refusal in the dialog and keeps it open", async () => {
    mock.onPost('/sharing/request').reply(400, {
      message: 'The share lifetime is too long.',
      errors: [{ field: 'expiresInHours', message: 'must be at most 72' }],
    });
    const user = userEvent.setup();
    const { dialog, onShared, store } = renderModal();
    const imageRuns = await watchTag(store, imageTag('img-1'));
    await user.click(await within(dialog).findByRole('radio', { name: /Khan, Ayesha/ }));
    await user.selectOptions(await lifetimeSelect(dialog), '7 days');
    await user.click(within(dialog).getByRole('button', { name: 'Share' }));

    const alert = await within(dialog).findByRole('alert');
    expect(alert).toHaveTextContent('The share lifetime is too long.');
    expect(alert).toHaveTextContent('expiresInHours: must be at most 72');
    expect(onShared).not.toHaveBeenCalled();
    expect(imageRuns()).toBe(1);
    expect(within(dialog).getByRole('button', { name: 'Share' })).toBeEnabled();
    // Also toasted, like the other failed calls (product.md §8).
    expect(screen.getAllByText('The share lifetime is too long.')).toHaveLength(2);
  });

  it('marks a person who already has a share of the image', async () => {
    const { dialog } = renderModal({
      shares: [
        {
          id: 'share-1',
          sharedWith: { id: 'patient-1', firstname: 'Ayesha', lastname: 'Khan' },
          status: 'pending',
          createdAt: '2025-05-12T09:30:00Z',
          expiresAt: '2025-05-13T09:30:00Z',
        },
      ],
    });
    const row = (await within(dialog).findByRole('radio', { name: /Khan, Ayesha/ })).closest('label');
    expect(row).toHaveTextContent('Already shared (Waiting for code)');
  });

  it('closes with Cancel and with Escape', async () => {
    const user = userEvent.setup();
    const { dialog, onClose } = renderModal();
    await within(dialog).findByRole('radio', { name: /Khan, Ayesha/ });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(onClose).toHaveBeenCalledTimes(1);
    await user.keyboard('{Escape}');
    expect(onClose).toHaveBeenCalledTimes(2);
  });
});
