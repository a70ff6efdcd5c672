import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type MockAdapter from 'axios-mock-adapter';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { SHARED_IMAGES } from '@/lib/api';
import { mockApi, renderWithStore } from '@/test/render';
import { watchTag } from '@/test/tag-probe';
import { VerifyImageModal } from './VerifyImageModal';

let mock: MockAdapter;
const SHARE_ID = '7d3c9a8e-1f2b-4c5d-9e6f-0a1b2c3d4e5f';

beforeEach(() => {
  mock = mockApi();
  vi.spyOn(console, 'error').mockImplementation(() => {});
});

async function renderModal(sharingRequestId: string | null = SHARE_ID) {
  const onClose = vi.fn();
  const onVerified = vi.fn();
  const view = renderWithStore(
    <VerifyImageModal sharingRequestId={sharingRequestId} onClose={onClose} onVerified={onVerified} />,
    { token: 't' },
  );
  // The Shared Images list: refetched when a verification changes it.
  const sharedListRuns = await watchTag(view.store, SHARED_IMAGES);
  const dialog = screen.getByRole('dialog', { name: 'Verify Image' });
  return {
    ...view,
    onClose,
    onVerified,
    sharedListRuns,
    dialog,
    sharingId: () => within(dialog).getByLabelText('Enter Image Sharing Id:'),
    code: () => within(dialog).getByLabelText('Enter Code:'),
    verify: () => within(dialog).getByRole('button', { name: 'Verify' }),
  };
}

describe('VerifyImageModal', () => {
  it('has the two labelled fields and the Verify button; the id is prefilled and focus is on the code', async () => {
    const { sharingId, code, verify } = await renderModal();
    expect(sharingId()).toHaveValue(SHARE_ID);
    expect(code()).toHaveValue('');
    expect(code()).toHaveFocus();
    expect(code()).toHaveAttribute('inputmode', 'numeric');
    expect(code()).toHaveAttribute('autocomplete', 'one-time-code');
    expect(verify()).toHaveAttribute('type', 'submit');
  });

  it('lets the id be typed when the card has none', async () => {
    const user = userEvent.setup();
    const { sharingId } = await renderModal(null);
    expect(sharingId()).toHaveValue('');
    expect(sharingId()).toHaveFocus();
    await user.type(sharingId(), 'abc');
    expect(sharingId()).toHaveValue('abc');
  });

  it('posts the sharing id and the code, toasts the message, clears the inputs, reports back and refreshes the list', async () => {
    mock.onPost('/sharing/verify').reply(200, { message: 'Image verified successfully.' });
    const user = userEvent.setup();
    const { code, sharingId, verify, onVerified, sharedListRuns } = await renderModal();
    await user.type(code(), '123456');
    await user.click(verify());

    expect(await screen.findByText('Image verified successfully.')).toBeInTheDocument();
    expect(onVerified).toHaveBeenCalledTimes(1);
    expect(JSON.parse(mock.history.post[0].data as string)).toEqual({
      sharingRequestId: SHARE_ID,
      verificationCode: '123456',
    });
    expect(code()).toHaveValue('');
    expect(sharingId()).toHaveValue('');
    await vi.waitFor(() => expect(sharedListRuns()).toBe(2));
  });

  it("shows the server's text (attempts left) in an alert, keeps the dialog open and selects the code", async () => {
    mock.onPost('/sharing/verify').reply(400, { message: 'Invalid code. 4 attempts left.' });
    const user = userEvent.setup();
    const { dialog, code, verify, onVerified, sharedListRuns } = await renderModal();
    await user.type(code(), '000000');
    await user.click(verify());

    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Invalid code. 4 attempts left.');
    expect(onVerified).not.toHaveBeenCalled();
    expect(sharedListRuns()).toBe(1);
    expect(screen.getByRole('dialog', { name: 'Verify Image' })).toBeInTheDocument();
    await vi.waitFor(() => expect(code()).toHaveFocus());
    expect(code()).toHaveValue('000000');
    expect(console.error).toHaveBeenCalledWith('Image verification failed', expect.anything());
  });

  it.each([
    [410, 'This share has expired.'],
    [410, 'Too many wrong codes: this share is void.'],
    [404, 'Share not found.'],
  ])('shows a %i (%s) and refreshes the list, where the share has ended', async (status, message) => {
    mock.onPost('/sharing/verify').reply(status, { message });
    const user = userEvent.setup();
    const { dialog, code, verify, sharedListRuns, onVerified } = await renderModal();
    await user.type(code(), '123456');
    await user.click(verify());
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(message);
    await vi.waitFor(() => expect(sharedListRuns()).toBe(2));
    expect(onVerified).not.toHaveBeenCalled();
  });

  it('checks the fields before sending', async () => {
    const user = userEvent.setup();
    const { dialog, sharingId, code, verify } = await renderModal();
    await user.type(code(), '12a');
    await user.click(verify());
    expect(within(dialog).getByText('Please enter the 6-digit code from the email.')).toBeInTheDocument();
    expect(code()).toHaveAttribute('aria-invalid', 'true');
    expect(code()).toHaveFocus();

    await user.clear(sharingId());
    await user.click(verify());
    expect(within(dialog).getByText('Please enter the image sharing id.')).toBeInTheDocument();
    expect(sharingId()).toHaveFocus();
    expect(mock.history.post).toHaveLength(0);
  });

  it('trims the id and ignores spaces in the code', async () => {
    mock.onPost('/sharing/verify').reply(200, { message: 'Image verified successfully.' });
    const user = userEvent.setup();
    const { sharingId, code, verify, onVerified } = await renderModal(null);
    await user.type(sharingId(), `  ${SHARE_ID} `);
    await user.type(code(), '123 456');
    await user.click(verify());
    await vi.waitFor(() => expect(onVerified).toHaveBeenCalled());
    expect(JSON.parse(mock.history.post[0].data as string)).toEqual({
      sharingRequestId: SHARE_ID,
      verificationCode: '123456',
    });
  });
});
