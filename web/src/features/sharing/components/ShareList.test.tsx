import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type MockAdapter from 'axios-mock-adapter';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { imageTag } from '@/lib/api';
import { formatDateTime } from '@/lib/format';
import { mockApi, renderWithStore } from '@/test/render';
import { watchTag } from '@/test/tag-probe';
import type { ImageShare } from '@/types/images';
import { ShareList } from './ShareList';

let mock: MockAdapter;

function share(id: string, firstname: string, status: ImageShare['status']): ImageShare {
  return {
    id,
    sharedWith: { id: `user-${id}`, firstname, lastname: 'Khan' },
    status,
    createdAt: '2025-05-12T09:30:00Z',
    expiresAt: '2025-05-13T09:30:00Z',
  };
}

const SHARES = [
  share('s1', 'Ayesha', 'pending'),
  share('s2', 'Bilal', 'verified'),
  share('s3', 'Hina', 'expired'),
  share('s4', 'Zara', 'voided'),
];

beforeEach(() => {
  mock = mockApi();
});

async function renderList(shares: ImageShare[] = SHARES) {
  const { store } = renderWithStore(<ShareList imageId="img-1" shares={shares} />, { token: 't' });
  // The card that lists these shares: its image is refetched after a revoke.
  const imageRuns = await watchTag(store, imageTag('img-1'));
  return { imageRuns, list: screen.queryByRole('list', { name: 'Shared with' }) };
}

describe('ShareList', () => {
  it('shows each share with its status and expiry, and Revoke only where access is still open', async () => {
    const { list } = await renderList();
    const items = within(list!).getAllByRole('listitem');
    const when = formatDateTime('2025-05-13T09:30:00Z');
    expect(items[0]).toHaveTextContent(`Ayesha KhanWaiting for codeExpires ${when}Revoke`);
    expect(items[1]).toHaveTextContent(`Bilal KhanVerifiedExpires ${when}Revoke`);
    expect(items[2]).toHaveTextContent(`Hina KhanExpiredExpired ${when}`);
    expect(items[3]).toHaveTextContent('Zara KhanVoided');
    expect(within(items[0]).getByRole('button', { name: 'Revoke share with Ayesha Khan' })).toBeInTheDocument();
    expect(within(items[2]).queryByRole('button')).not.toBeInTheDocument();
    expect(within(items[3]).queryByRole('button')).not.toBeInTheDocument();
    expect(items[0].querySelector('time')).toHaveAttribute('datetime', '2025-05-13T09:30:00Z');
  });

  it('offers Revoke only on the shares the caller may revoke', () => {
    renderWithStore(<ShareList imageId="img-1" shares={SHARES} canRevoke={(share) => share.id === 's2'} />);
    expect(screen.queryByRole('button', { name: 'Revoke share with Ayesha Khan' })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Revoke share with Bilal Khan' })).toBeInTheDocument();
  });

  it('offers Extend by a day to the sender, on open and expired shares, and refreshes the card', async () => {
    mock.onPost('/sharing/s3/extend').reply(200, { message: 'Share extended.', data: {} });
    const user = userEvent.setup();
    const { store } = renderWithStore(<ShareList imageId="img-1" shares={SHARES} canExtend={() => true} />, { token: 't' });
    const imageRuns = await watchTag(store, imageTag('img-1'));
    expect(screen.getByRole('button', { name: 'Extend share with Ayesha Khan by a day' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Extend share with Zara Khan by a day' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Extend share with Hina Khan by a day' }));
    expect(await screen.findByText('Share extended.')).toBeInTheDocument();
    expect(JSON.parse(mock.history.post[0].data as string)).toEqual({ hours: 24 });
    await vi.waitFor(() => expect(imageRuns()).toBe(2));
  });

  it('says why a share could not be extended', async () => {
    mock.onPost('/sharing/s2/extend').reply(422, { message: 'A share can last at most 168 hours from when it was made.' });
    const user = userEvent.setup();
    renderWithStore(<ShareList imageId="img-1" shares={SHARES} canExtend={() => true} />, { token: 't' });
    await user.click(screen.getByRole('button', { name: 'Extend share with Bilal Khan by a day' }));
    expect(await screen.findByText('A share can last at most 168 hours from when it was made.')).toBeInTheDocument();
  });

  it("says 'Not shared.' when there are no shares", async () => {
    await renderList([]);
    expect(screen.getByText('Not shared.')).toBeInTheDocument();
    expect(screen.queryByRole('list')).not.toBeInTheDocument();
  });

  it("revokes a share, toasts the message and refreshes the image's card", async () => {
    mock.onDelete('/sharing/s2').reply(200, { message: 'Share revoked.' });
    const user = userEvent.setup();
    const { imageRuns } = await renderList();
    expect(imageRuns()).toBe(1);
    await user.click(screen.getByRole('button', { name: 'Revoke share with Bilal Khan' }));
    expect(await screen.findByText('Share revoked.')).toBeInTheDocument();
    await vi.waitFor(() => expect(imageRuns()).toBe(2));
    expect(mock.history.delete.map((request) => request.url)).toEqual(['/sharing/s2']);
  });

  it('toasts a failed revoke and keeps the share', async () => {
    mock.onDelete('/sharing/s1').reply(404, { message: 'Share not found.' });
    const user = userEvent.setup();
    const { imageRuns } = await renderList();
    await user.click(screen.getByRole('button', { name: 'Revoke share with Ayesha Khan' }));
    expect(await screen.findByText('Share not found.')).toBeInTheDocument();
    expect(imageRuns()).toBe(1);
    expect(screen.getByRole('button', { name: 'Revoke share with Ayesha Khan' })).toBeEnabled();
  });
});
