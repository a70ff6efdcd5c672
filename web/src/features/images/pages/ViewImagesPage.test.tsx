import { fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type MockAdapter from 'axios-mock-adapter';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { formatDate, formatDateTime } from '@/lib/format';
import { deferred } from '@/test/deferred';
import { makeImage, makeUser, pageOf } from '@/test/fixtures';
import { mockApi, renderRoute } from '@/test/render';
import type { User } from '@/types/api';
import type { MedicalImage } from '@/types/images';

const pdf = vi.hoisted(() => ({
  openPdf: vi.fn(),
}));
vi.mock('../pdf', () => pdf);

let mock: MockAdapter;
const provider = makeUser({ id: 'provider-1', role: 'healthProvider', firstname: 'Imran', lastname: 'Siddiqui' });
const otherProvider = { id: 'provider-2', firstname: 'Sara', lastname: 'Malik' };
const admin = makeUser({ id: 'admin-1', role: 'admin' });
const patient = makeUser({ id: 'patient-1', role: 'patient' });

function image(n: number, overrides: Partial<MedicalImage> = {}): MedicalImage {
  return makeImage({ id: `img-${n}`, caption: `Scan ${n}`, ...overrides });
}

const EMPTY = pageOf([]);

beforeEach(() => {
  mock = mockApi();
});

function renderAs(user: User) {
  return renderRoute('/view-images', { user, token: 't' });
}

function section(name: string) {
  return screen.getByRole('region', { name });
}

function listCalls(url: string) {
  return mock.history.get.filter((request) => request.url === url);
}

describe('/view-images', () => {
  it('shows a spinner while loading', async () => {
    const answer = deferred<[number, unknown]>();
    mock.onGet('/upload/my-images').reply(() => answer.promise);
    mock.onGet('/upload/shared-images').reply(200, EMPTY);
    renderAs(provider);
    expect(screen.getByRole('heading', { level: 1, name: 'View Medical Images' })).toBeInTheDocument();
    expect(within(section('Uploaded Images')).getByRole('status')).toHaveTextContent('Loading uploaded images…');
    // Still loading once the list has been asked for, until its answer comes.
    await vi.waitFor(() => expect(listCalls('/upload/my-images')).toHaveLength(1));
    expect(within(section('Uploaded Images')).getByRole('status')).toHaveTextContent('Loading uploaded images…');
    answer.resolve([200, EMPTY]);
    expect(await within(section('Uploaded Images')).findByText('No uploaded images found.')).toBeInTheDocument();
    expect(within(section('Uploaded Images')).queryByRole('status')).not.toBeInTheDocument();
  });

  it('gives a provider an Uploaded and a Shared section, with their empty texts', async () => {
    mock.onGet('/upload/my-images').reply(200, EMPTY);
    mock.onGet('/upload/shared-images').reply(200, EMPTY);
    renderAs(provider);
    expect(await screen.findByText('No uploaded images found.')).toBeInTheDocument();
    expect(await screen.findByText('No shared images found.')).toBeInTheDocument();
    expect(screen.getAllByRole('heading', { level: 2 }).map((heading) => heading.textContent)).toEqual([
      'Uploaded Images',
      'Shared Images',
    ]);
    expect(listCalls('/upload/my-images')[0].params).toEqual({ page: 1, limit: 10 });
    expect(listCalls('/upload/shared-images')[0].params).toEqual({ page: 1, limit: 10 });
    expect(screen.queryByRole('navigation', { name: /pages/ })).not.toBeInTheDocument();
  });

  it('gives a patient the Shared section only', async () => {
    mock.onGet('/upload/shared-images').reply(200, EMPTY);
    renderAs(patient);
    expect(await screen.findByText('No shared images found.')).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Uploaded Images' })).not.toBeInTheDocument();
    expect(listCalls('/upload/my-images')).toHaveLength(0);
  });

  it("lists every image in an admin's Uploaded section", async () => {
    mock.onGet('/upload/images').reply(200, pageOf([image(1, { uploadedBy: otherProvider })]));
    mock.onGet('/upload/shared-images').reply(200, EMPTY);
    renderAs(admin);
    const uploaded = section('Uploaded Images');
    expect(await within(uploaded).findByRole('heading', { level: 3, name: 'Scan 1' })).toBeInTheDocument();
    expect(within(uploaded).getByText('Every image in MediShare, whoever uploaded it.')).toBeInTheDocument();
    // An admin may delete anyone's image.
    expect(within(uploaded).getByRole('button', { name: 'Delete Scan 1' })).toBeInTheDocument();
    expect(listCalls('/upload/my-images')).toHaveLength(0);
  });

  it("pages 10 at a time with 'current / total', previous and next disabled at the ends", async () => {
    mock.onGet('/upload/my-images').reply((config) => {
      const page = Number((config.params as { page: number }).page);
      return [200, pageOf([image(page * 100)], page, 3)];
    });
    mock.onGet('/upload/shared-images').reply(200, EMPTY);
    const user = userEvent.setup();
    renderAs(provider);
    const uploaded = section('Uploaded Images');
    await within(uploaded).findByRole('heading', { name: 'Scan 100' });
    const pager = within(uploaded).getByRole('navigation', { name: 'Uploaded Images pages' });
    expect(within(pager).getByText('1 / 3')).toBeInTheDocument();
    expect(within(pager).getByRole('button', { name: 'Previous' })).toBeDisabled();
    expect(within(pager).getByRole('button', { name: 'Next' })).toBeEnabled();

    await user.click(within(pager).getByRole('button', { name: 'Next' }));
    await within(uploaded).findByRole('heading', { name: 'Scan 200' });
    expect(within(pager).getByText('2 / 3')).toBeInTheDocument();
    expect(within(pager).getByRole('button', { name: 'Previous' })).toBeEnabled();

    await user.click(within(pager).getByRole('button', { name: 'Next' }));
    await within(uploaded).findByRole('heading', { name: 'Scan 300' });
    expect(within(pager).getByText('3 / 3')).toBeInTheDocument();
    expect(within(pager).getByRole('button', { name: 'Next' })).toBeDisabled();
    expect(listCalls('/upload/my-images').map((request) => request.params)).toEqual([
      { page: 1, limit: 10 },
      { page: 2, limit: 10 },
      { page: 3, limit: 10 },
    ]);
  });

  it('draws each kind of card', async () => {
    mock.onGet('/upload/my-images').reply(
      200,
      pageOf([
        image(1, { caption: 'CT with preview' }),
        image(2, {
          caption: 'Discharge letter',
          contentType: 'application/pdf',
          fileName: 'letter.pdf',
          preview_url: null,
          dicom: null,
        }),
        image(3, { caption: null }),
        image(4, { caption: 'Structured report', preview_url: null, dicom: { modality: 'SR' } }),
        image(5, { caption: 'Animation', contentType: 'image/gif', preview_url: null, dicom: null }),
      ]),
    );
    mock.onGet('/upload/shared-images').reply(
      200,
      pageOf([
        image(6, {
          caption: 'From Dr. Malik',
          image_url: null,
          preview_url: null,
          isShared: true,
          isVerified: false,
          uploadedBy: otherProvider,
          sharedBy: otherProvider,
        }),
      ]),
    );
    renderAs(provider);
    const uploaded = section('Uploaded Images');
    const cards = await within(uploaded).findAllByRole('article');
    const card = (name: string) => cards.find((item) => within(item).queryByRole('heading', { name }))!;

    const withPreview = card('CT with preview');
    expect(within(withPreview).getByRole('img', { name: 'Preview: CT with preview' })).toHaveAttribute(
      'src',
      '/api/upload/image/img-1/preview?s=s1&exp=1&sig=p',
    );
    expect(withPreview).toHaveTextContent('PatientAyesha Khan');
    expect(withPreview).toHaveTextContent('Date12/05/2025');
    expect(withPreview).toHaveTextContent('DICOM · CT');

    const letter = card('Discharge letter');
    expect(within(letter).queryByRole('img')).not.toBeInTheDocument();
    expect(letter.querySelector('svg.media-icon--pdf')).not.toBeNull();
    expect(letter).toHaveTextContent('PDF document');

    expect(card('Untitled')).toBeDefined();
    expect(within(card('Structured report')).getByText('Preview not available.')).toBeInTheDocument();
    expect(within(card('Animation')).getByText('Unsupported file type: image/gif')).toBeInTheDocument();

    const shared = within(section('Shared Images'));
    const locked = await shared.findByRole('article');
    expect(within(locked).getByText('Image not Verified')).toBeInTheDocument();
    expect(within(locked).queryByRole('button', { name: /View/ })).not.toBeInTheDocument();
    expect(locked).toHaveTextContent('Shared bySara Malik');
  });

  it('offers Delete to the uploader only (and admins), never to a patient', async () => {
    mock.onGet('/upload/my-images').reply(200, pageOf([image(1)]));
    mock.onGet('/upload/shared-images').reply(200, pageOf([image(2, { uploadedBy: otherProvider, sharedBy: otherProvider })]));
    renderAs(provider);
    await screen.findByRole('heading', { name: 'Scan 2' });
    expect(within(section('Uploaded Images')).getByRole('button', { name: 'Delete Scan 1' })).toBeInTheDocument();
    expect(within(section('Shared Images')).queryByRole('button', { name: /Delete/ })).not.toBeInTheDocument();
  });

  it('a patient sees no Delete', async () => {
    mock.onGet('/upload/shared-images').reply(200, pageOf([image(2, { uploadedBy: otherProvider })]));
    renderAs(patient);
    await screen.findByRole('heading', { name: 'Scan 2' });
    expect(screen.queryByRole('button', { name: /Delete/ })).not.toBeInTheDocument();
  });

  it('deletes after confirming, toasts the server message and reloads', async () => {
    mock.onGet('/upload/my-images').replyOnce(200, pageOf([image(1), image(2)]));
    mock.onGet('/upload/my-images').reply(200, pageOf([image(2)]));
    mock.onGet('/upload/shared-images').reply(200, EMPTY);
    mock.onDelete('/upload/image/img-1').reply(200, { message: 'Image deleted successfully.' });
    const user = userEvent.setup();
    renderAs(provider);
    await user.click(await screen.findByRole('button', { name: 'Delete Scan 1' }));
    const dialog = screen.getByRole('dialog', { name: 'Delete image' });
    expect(dialog).toHaveTextContent('Delete Scan 1 (patient: Ayesha Khan)?');
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveFocus();
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));

    expect(await screen.findByText('Image deleted successfully.')).toBeInTheDocument();
    expect(mock.history.delete.map((request) => request.url)).toEqual(['/upload/image/img-1']);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    await vi.waitFor(() => expect(screen.queryByRole('heading', { name: 'Scan 1' })).not.toBeInTheDocument());
    expect(listCalls('/upload/my-images')).toHaveLength(2);
    expect(listCalls('/upload/shared-images')).toHaveLength(2);
  });

  it('toasts a failed delete and keeps the image', async () => {
    mock.onGet('/upload/my-images').reply(200, pageOf([image(1)]));
    mock.onGet('/upload/shared-images').reply(200, EMPTY);
    mock.onDelete('/upload/image/img-1').reply(403, { message: 'You may not delete this image.' });
    const user = userEvent.setup();
    renderAs(provider);
    await user.click(await screen.findByRole('button', { name: 'Delete Scan 1' }));
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('You may not delete this image.')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Scan 1' })).toBeInTheDocument();
  });

  it("logs 'Failed to fetch images' when a list fails, and offers to try again", async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    mock.onGet('/upload/my-images').replyOnce(500, { message: 'Internal server error.' });
    mock.onGet('/upload/my-images').reply(200, EMPTY);
    mock.onGet('/upload/shared-images').reply(200, EMPTY);
    const user = userEvent.setup();
    renderAs(provider);
    const uploaded = section('Uploaded Images');
    expect(await within(uploaded).findByRole('alert')).toHaveTextContent('The images could not be loaded.');
    expect(log).toHaveBeenCalledWith('Failed to fetch images', expect.anything());
    await user.click(within(uploaded).getByRole('button', { name: 'Try again' }));
    expect(await within(uploaded).findByText('No uploaded images found.')).toBeInTheDocument();
  });

  it('asks for a fresh signed URL when a preview stops loading', async () => {
    mock.onGet('/upload/my-images').reply(200, pageOf([image(1)]));
    mock.onGet('/upload/shared-images').reply(200, EMPTY);
    mock.onGet('/upload/image/img-1').reply(200, {
      data: image(1, { preview_url: '/api/upload/image/img-1/preview?s=s2&exp=2&sig=fresh' }),
    });
    renderAs(provider);
    const preview = await screen.findByRole('img', { name: 'Preview: Scan 1' });
    fireEvent.error(preview);
    await vi.waitFor(() =>
      expect(screen.getByRole('img', { name: 'Preview: Scan 1' })).toHaveAttribute(
        'src',
        '/api/upload/image/img-1/preview?s=s2&exp=2&sig=fresh',
      ),
    );
    fireEvent.error(screen.getByRole('img', { name: 'Preview: Scan 1' }));
    expect(await screen.findByText('Preview not available.')).toBeInTheDocument();
    expect(listCalls('/upload/image/img-1')).toHaveLength(1);
  });

  it('opens a DICOM image in a dialog with its facts and a Download link; Escape closes it', async () => {
    const fresh = image(1, {
      image_url: '/api/upload/image/img-1/content?s=s2&sig=new',
      preview_url: '/api/upload/image/img-1/preview?s=s2&sig=new',
    });
    mock.onGet('/upload/my-images').reply(200, pageOf([image(1)]));
    mock.onGet('/upload/shared-images').reply(200, EMPTY);
    mock.onGet('/upload/image/img-1').reply(200, { data: fresh });
    const user = userEvent.setup();
    renderAs(provider);
    const open = await screen.findByRole('button', { name: 'View Scan 1' });
    await user.click(open);

    const dialog = screen.getByRole('dialog', { name: 'Scan 1' });
    const picture = await within(dialog).findByRole('img', { name: 'DICOM preview: Scan 1' });
    expect(picture).toHaveAttribute('src', fresh.preview_url);
    const facts = within(dialog).getByRole('region', { name: 'DICOM' });
    expect(facts).toHaveTextContent('ModalityCT');
    expect(facts).toHaveTextContent('Body partCHEST');
    expect(facts).toHaveTextContent('Study descriptione+1');
    expect(facts).toHaveTextContent('Rows × Columns128 × 128');
    expect(facts).toHaveTextContent('Frames1');
    const download = within(dialog).getByRole('link', { name: 'Download' });
    expect(download).toHaveAttribute('href', fresh.image_url);
    expect(download).toHaveAttribute('download', 'CT_small.dcm');
    expect(within(dialog).getByRole('link', { name: 'AI analysis' })).toHaveAttribute('href', '/ai-analysis/img-1');

    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(open).toHaveFocus();
  });

  it('shows a JPEG at full size from its content URL', async () => {
    const photo = image(1, {
      caption: 'Knee',
      contentType: 'image/jpeg',
      fileName: 'knee.jpg',
      dicom: null,
    });
    mock.onGet('/upload/my-images').reply(200, pageOf([photo]));
    mock.onGet('/upload/shared-images').reply(200, EMPTY);
    mock.onGet('/upload/image/img-1').reply(200, { data: photo });
    const user = userEvent.setup();
    renderAs(provider);
    await user.click(await screen.findByRole('button', { name: 'View Knee' }));
    const dialog = screen.getByRole('dialog', { name: 'Knee' });
    expect(await within(dialog).findByRole('img', { name: 'Knee' })).toHaveAttribute('src', photo.image_url);
    expect(within(dialog).queryByRole('region', { name: 'DICOM' })).not.toBeInTheDocument();
  });

  it('draws a PDF with pdf.js, one canvas per page, from the fetched bytes', async () => {
    const letter = image(1, {
      caption: 'Letter',
      contentType: 'application/pdf',
      fileName: 'letter.pdf',
      preview_url: null,
      dicom: null,
    });
    mock.onGet('/upload/my-images').reply(200, pageOf([letter]));
    mock.onGet('/upload/shared-images').reply(200, EMPTY);
    mock.onGet('/upload/image/img-1').reply(200, { data: letter });
    const fetchSpy = vi.fn(async () => new Response(new Uint8Array([0x25, 0x50, 0x44, 0x46])));
    vi.stubGlobal('fetch', fetchSpy);
    const render = vi.fn(() => ({ promise: Promise.resolve(), cancel: vi.fn() }));
    const page = { getViewport: ({ scale }: { scale: number }) => ({ width: 600 * scale, height: 800 * scale }), render };
    pdf.openPdf.mockResolvedValue({ numPages: 2, getPage: vi.fn(async () => page), destroy: vi.fn() });

    const user = userEvent.setup();
    renderAs(provider);
    await user.click(await screen.findByRole('button', { name: 'View Letter' }));
    const dialog = screen.getByRole('dialog', { name: 'Letter' });
    expect(await within(dialog).findByRole('img', { name: 'Letter, page 1 of 2' })).toBeInTheDocument();
    expect(within(dialog).getByRole('img', { name: 'Letter, page 2 of 2' })).toBeInTheDocument();
    expect(within(dialog).getByText('2 pages')).toBeInTheDocument();
    expect(fetchSpy).toHaveBeenCalledWith(letter.image_url, expect.objectContaining({ credentials: 'same-origin' }));
    expect(pdf.openPdf).toHaveBeenCalledWith(new Uint8Array([0x25, 0x50, 0x44, 0x46]));
    await vi.waitFor(() => expect(render).toHaveBeenCalledTimes(2));
    vi.unstubAllGlobals();
  });

  it('says so when an image is gone by the time it is opened', async () => {
    mock.onGet('/upload/my-images').reply(200, pageOf([image(1)]));
    mock.onGet('/upload/shared-images').reply(200, EMPTY);
    mock.onGet('/upload/image/img-1').reply(404, { message: 'Image not found.' });
    const user = userEvent.setup();
    renderAs(provider);
    await user.click(await screen.findByRole('button', { name: 'View Scan 1' }));
    expect(await within(screen.getByRole('dialog')).findByText('This image is no longer available.')).toBeInTheDocument();
  });
});

describe('/view-images and messages', () => {
  it("offers Discuss: with the patient on an uploader's card, with the sharer on a shared one", async () => {
    mock.onGet('/upload/my-images').reply(200, pageOf([image(1)]));
    mock.onGet('/upload/shared-images').reply(
      200,
      pageOf([image(2, { isShared: true, sharedBy: otherProvider, uploadedBy: otherProvider })]),
    );
    mock.onGet('/message/chat-list').reply(200, { data: [] });
    mock.onGet('/message/chat/patient-1').reply(200, { data: [], pagination: { hasMore: false, before: null } });
    mock.onGet('/upload/image/img-1').reply(200, { data: image(1) });
    const user = userEvent.setup();
    const { router } = renderAs(provider);
    const discussOwn = await within(section('Uploaded Images')).findByRole('link', { name: 'Discuss Scan 1' });
    expect(discussOwn).toHaveAttribute('href', '/messages?with=patient-1&image=img-1');
    const discussShared = await within(section('Shared Images')).findByRole('link', { name: 'Discuss Scan 2' });
    expect(discussShared).toHaveAttribute('href', '/messages?with=provider-2&image=img-2');

    await user.click(discussOwn);
    expect(router.state.location.pathname).toBe('/messages');
    expect(router.state.location.search).toBe('?with=patient-1&image=img-1');
  });

  it('opens the image of ?image= in the viewer (the link of a message) and drops it on close', async () => {
    mock.onGet('/upload/my-images').reply(200, EMPTY);
    mock.onGet('/upload/shared-images').reply(200, EMPTY);
    mock.onGet('/upload/image/img-7').reply(200, { data: image(7, { caption: 'Knee MRI' }) });
    const user = userEvent.setup();
    const { router } = renderRoute('/view-images?image=img-7', { user: provider, token: 't' });
    const dialog = await screen.findByRole('dialog', { name: 'Knee MRI' });
    expect(within(dialog).getByText('Ayesha Khan')).toBeInTheDocument();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(router.state.location.search).toBe('');
  });

  it('says so when the image of ?image= cannot be seen', async () => {
    mock.onGet('/upload/my-images').reply(200, EMPTY);
    mock.onGet('/upload/shared-images').reply(200, EMPTY);
    mock.onGet('/upload/image/img-8').reply(404, { message: 'Image not found.' });
    const { router } = renderRoute('/view-images?image=img-8', { user: provider, token: 't' });
    expect(await screen.findByText('Image not found.')).toBeInTheDocument();
    await vi.waitFor(() => expect(router.state.location.search).toBe(''));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });
});

describe('/view-images sharing', () => {
  const share = {
    id: 'share-1',
    sharedBy: { id: 'provider-1', firstname: 'Imran', lastname: 'Siddiqui' },
    sharedWith: { id: 'patient-1', firstname: 'Ayesha', lastname: 'Khan' },
    status: 'pending',
    createdAt: '2025-05-12T09:30:00Z',
    expiresAt: '2025-05-13T09:30:00Z',
  } as const;

  function lockedShare(n: number, overrides: Partial<MedicalImage> = {}): MedicalImage {
    return image(n, {
      image_url: null,
      preview_url: null,
      isShared: true,
      isVerified: false,
      sharingRequestId: `share-${n}`,
      expiresAt: '2025-05-13T09:30:00Z',
      uploadedBy: otherProvider,
      sharedBy: otherProvider,
      ...overrides,
    });
  }

  it('offers Share on the uploader’s cards only, never in Shared Images', async () => {
    mock.onGet('/upload/my-images').reply(200, pageOf([image(1, { shares: [] }), image(3, { caption: null })]));
    mock.onGet('/upload/shared-images').reply(200, pageOf([image(2, { uploadedBy: otherProvider, sharedBy: otherProvider })]));
    mock.onGet('/users').reply(200, pageOf([]));
    const user = userEvent.setup();
    renderAs(provider);
    await screen.findByRole('heading', { name: 'Scan 2' });
    expect(within(section('Shared Images')).queryByRole('button', { name: /^Share/ })).not.toBeInTheDocument();
    expect(within(section('Uploaded Images')).getAllByText('Not shared.')).toHaveLength(2);

    await user.click(within(section('Uploaded Images')).getByRole('button', { name: 'Share Untitled' }));
    const dialog = screen.getByRole('dialog', { name: 'Share (Untitled)' });
    expect(await within(dialog).findByText('No users found')).toBeInTheDocument();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(within(section('Uploaded Images')).getByRole('button', { name: 'Share Untitled' })).toHaveFocus();
  });

  it('shares from a card, closes the dialog and reloads the list showing the image', async () => {
    mock.onGet('/upload/my-images').replyOnce(200, pageOf([image(1, { shares: [] })]));
    mock.onGet('/upload/my-images').reply(200, pageOf([image(1, { shares: [share] })]));
    mock.onGet('/upload/shared-images').reply(200, EMPTY);
    mock.onGet('/users').reply(200, pageOf([provider, patient], 1, 1, 20));
    mock.onGet('/sharing/limits').reply(200, { data: { shareLifetimeDefaultHours: 24, shareLifetimeMaxHours: 168 } });
    mock.onPost('/sharing/request').reply(201, { message: 'Image shared successfully.', data: { id: 'share-1', expiresAt: share.expiresAt } });
    const user = userEvent.setup();
    renderAs(provider);
    await user.click(await screen.findByRole('button', { name: 'Share Scan 1' }));
    const dialog = screen.getByRole('dialog', { name: 'Share (Scan 1)' });
    // The caller is left out of the list.
    expect(await within(dialog).findAllByRole('radio')).toHaveLength(1);
    await user.click(within(dialog).getByRole('radio', { name: /Khan, Amina/ }));
    await vi.waitFor(() => expect(within(dialog).getByRole('combobox', { name: 'Expires after' })).toHaveValue('24'));
    await user.click(within(dialog).getByRole('button', { name: 'Share' }));

    expect(await screen.findByText('Image shared successfully.')).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(JSON.parse(mock.history.post[0].data as string)).toEqual({
      imagemetadataId: 'img-1',
      createdfor: 'patient-1',
      expiresInHours: 24,
    });
    const uploaded = section('Uploaded Images');
    expect(await within(uploaded).findByRole('button', { name: 'Revoke share with Ayesha Khan' })).toBeInTheDocument();
    expect(within(uploaded).getByRole('list', { name: 'Shared with' })).toHaveTextContent('Ayesha KhanWaiting for code');
    expect(listCalls('/upload/my-images')).toHaveLength(2);
    // The cache tags reload only the lists the share changed.
    expect(listCalls('/upload/shared-images')).toHaveLength(1);
  });

  it('revokes a share from the card and reloads', async () => {
    mock.onGet('/upload/my-images').replyOnce(200, pageOf([image(1, { shares: [share] })]));
    mock.onGet('/upload/my-images').reply(200, pageOf([image(1, { shares: [] })]));
    mock.onGet('/upload/shared-images').reply(200, EMPTY);
    mock.onDelete('/sharing/share-1').reply(200, { message: 'Share revoked.' });
    const user = userEvent.setup();
    renderAs(provider);
    await user.click(await screen.findByRole('button', { name: 'Revoke share with Ayesha Khan' }));
    expect(await screen.findByText('Share revoked.')).toBeInTheDocument();
    expect(await within(section('Uploaded Images')).findByText('Not shared.')).toBeInTheDocument();
    expect(listCalls('/upload/my-images')).toHaveLength(2);
  });

  it("offers no Revoke on a share an admin made of the provider's image", async () => {
    const adminShare = { ...share, sharedBy: { id: admin.id, firstname: 'Admin', lastname: 'Person' } };
    mock.onGet('/upload/my-images').reply(200, pageOf([image(1, { shares: [adminShare] })]));
    mock.onGet('/upload/shared-images').reply(200, EMPTY);
    renderAs(provider);
    const uploaded = section('Uploaded Images');
    expect(await within(uploaded).findByRole('list', { name: 'Shared with' })).toHaveTextContent('Ayesha Khan');
    expect(within(uploaded).queryByRole('button', { name: 'Revoke share with Ayesha Khan' })).not.toBeInTheDocument();
  });

  it('lets an admin share and revoke on any image', async () => {
    mock.onGet('/upload/images').reply(200, pageOf([image(1, { uploadedBy: otherProvider, shares: [share] })]));
    mock.onGet('/upload/shared-images').reply(200, EMPTY);
    renderAs(admin);
    const uploaded = section('Uploaded Images');
    expect(await within(uploaded).findByRole('button', { name: 'Share Scan 1' })).toBeInTheDocument();
    expect(within(uploaded).getByRole('button', { name: 'Revoke share with Ayesha Khan' })).toBeInTheDocument();
  });

  it('shows who shared an image and when the share expires', async () => {
    mock.onGet('/upload/shared-images').reply(
      200,
      pageOf([lockedShare(1), image(2, { isShared: true, isVerified: true, sharedBy: otherProvider, expiresAt: '2025-05-14T09:30:00Z' })]),
    );
    renderAs(patient);
    const shared = section('Shared Images');
    const [locked, open] = await within(shared).findAllByRole('article');
    expect(locked).toHaveTextContent('Image not Verified');
    expect(locked).toHaveTextContent('Shared bySara Malik');
    expect(locked).toHaveTextContent(`Expires${formatDateTime('2025-05-13T09:30:00Z')}`);
    expect(within(locked).getByRole('button', { name: 'Verify Scan 1' })).toBeInTheDocument();
    expect(within(locked).queryByRole('button', { name: /^Share/ })).not.toBeInTheDocument();
    // Verified: View, no Verify.
    expect(within(open).getByRole('button', { name: 'View Scan 2' })).toBeInTheDocument();
    expect(within(open).queryByRole('button', { name: /Verify/ })).not.toBeInTheDocument();
    expect(open).toHaveTextContent(`Expires${formatDateTime('2025-05-14T09:30:00Z')}`);
    // A patient neither shares nor sees anyone's shares.
    expect(screen.queryByText('Shared with')).not.toBeInTheDocument();
  });

  it('shows an admin a share not verified yet with its image and no Verify (images:read-all)', async () => {
    // "The sender or an admin sees image content without verification" (product.md): the server sends the links.
    mock.onGet('/upload/images').reply(200, EMPTY);
    mock.onGet('/upload/shared-images').reply(200, pageOf([image(1, { isShared: true, isVerified: false, sharingRequestId: 'share-1', uploadedBy: otherProvider, sharedBy: otherProvider })]));
    renderAs(admin);
    const card = await within(section('Shared Images')).findByRole('article');
    expect(within(card).getByRole('button', { name: 'View Scan 1' })).toBeInTheDocument();
    expect(within(card).queryByRole('button', { name: /Verify/ })).not.toBeInTheDocument();
    expect(card).not.toHaveTextContent('Image not Verified');
  });

  it('offers Verify to whoever holds no images:read-all, whatever their role', async () => {
    mock.onGet('/upload/images').reply(200, EMPTY);
    mock.onGet('/upload/my-images').reply(200, EMPTY);
    mock.onGet('/upload/shared-images').reply(200, pageOf([lockedShare(1)]));
    renderAs(makeUser({ id: 'admin-2', role: 'admin', permissions: ['images:upload', 'images:view-shared'] }));
    const card = await within(section('Shared Images')).findByRole('article');
    expect(within(card).getByRole('button', { name: 'Verify Scan 1' })).toBeInTheDocument();
    expect(listCalls('/upload/my-images')).toHaveLength(1);
    expect(listCalls('/upload/images')).toHaveLength(0);
  });

  it('lists a share not verified yet whose details the server withholds (nulls and sharedAt)', async () => {
    mock.onGet('/upload/shared-images').reply(
      200,
      pageOf([
        lockedShare(1, {
          caption: null,
          fileName: null,
          size: null,
          createdAt: null,
          sharedAt: '2025-05-12T09:30:00Z',
          patient: null,
          uploadedBy: null,
          dicom: null,
          contentType: 'application/pdf',
        }),
      ]),
    );
    renderAs(patient);
    const locked = await within(section('Shared Images')).findByRole('article');
    expect(within(locked).getByRole('heading', { name: 'Untitled' })).toBeInTheDocument();
    expect(locked).toHaveTextContent('Image not Verified');
    expect(locked).toHaveTextContent('PatientN/A');
    expect(locked).toHaveTextContent('Date12/05/2025');
    expect(locked).toHaveTextContent('Shared bySara Malik');
    expect(locked).toHaveTextContent('PDF');
    expect(within(locked).getByRole('button', { name: 'Verify Untitled' })).toBeInTheDocument();
  });

  it('verifies a shared image with the emailed code, then shows it', async () => {
    mock.onGet('/upload/shared-images').replyOnce(200, pageOf([lockedShare(1)]));
    mock.onGet('/upload/shared-images').reply(
      200,
      pageOf([image(1, { isShared: true, isVerified: true, sharingRequestId: 'share-1', sharedBy: otherProvider })]),
    );
    mock.onPost('/sharing/verify').reply(200, { message: 'Image verified successfully.' });
    const user = userEvent.setup();
    renderAs(patient);
    await user.click(await screen.findByRole('button', { name: 'Verify Scan 1' }));
    const dialog = screen.getByRole('dialog', { name: 'Verify Image' });
    expect(within(dialog).getByLabelText('Enter Image Sharing Id:')).toHaveValue('share-1');
    await user.type(within(dialog).getByLabelText('Enter Code:'), '482913');
    await user.click(within(dialog).getByRole('button', { name: 'Verify' }));

    expect(await screen.findByText('Image verified successfully.')).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(JSON.parse(mock.history.post[0].data as string)).toEqual({
      sharingRequestId: 'share-1',
      verificationCode: '482913',
    });
    expect(await screen.findByRole('img', { name: 'Preview: Scan 1' })).toBeInTheDocument();
    expect(screen.queryByText('Image not Verified')).not.toBeInTheDocument();
    expect(listCalls('/upload/shared-images')).toHaveLength(2);
  });

  it('keeps the Verify dialog open with the server text after a wrong code', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    mock.onGet('/upload/shared-images').reply(200, pageOf([lockedShare(1)]));
    mock.onPost('/sharing/verify').reply(400, { message: 'Invalid code. 4 attempts left.' });
    const user = userEvent.setup();
    renderAs(patient);
    await user.click(await screen.findByRole('button', { name: 'Verify Scan 1' }));
    const dialog = screen.getByRole('dialog', { name: 'Verify Image' });
    await user.type(within(dialog).getByLabelText('Enter Code:'), '111111');
    await user.click(within(dialog).getByRole('button', { name: 'Verify' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Invalid code. 4 attempts left.');
    expect(listCalls('/upload/shared-images')).toHaveLength(1);
  });
});

describe('AI analysis on the cards', () => {
  it('is offered to providers on pictures they may open, never on PDFs, never to patients', async () => {
    const picture = image(1, { contentType: 'image/jpeg', uploadedBy: { id: 'provider-1', firstname: 'Imran', lastname: 'Siddiqui' } });
    const report = image(2, { contentType: 'application/pdf', uploadedBy: { id: 'provider-1', firstname: 'Imran', lastname: 'Siddiqui' } });
    mock.onGet('/upload/my-images').reply(200, pageOf([picture, report]));
    mock.onGet('/upload/shared-images').reply(200, EMPTY);
    renderAs(provider);
    expect(await screen.findByRole('link', { name: 'AI analysis: Scan 1' })).toHaveAttribute('href', '/ai-analysis/img-1');
    expect(screen.queryByRole('link', { name: 'AI analysis: Scan 2' })).not.toBeInTheDocument();
  });

  it('is not offered to a patient', async () => {
    mock.onGet('/upload/shared-images').reply(200, pageOf([image(1, { contentType: 'image/jpeg', isVerified: true })]));
    renderAs(patient);
    await screen.findByRole('heading', { level: 3, name: 'Scan 1' });
    expect(screen.queryByRole('link', { name: /^AI analysis/ })).not.toBeInTheDocument();
  });
});

describe('studies', () => {
  const STUDY_UID = '1.2.826.0.1.3680043.8.498.7';
  const mine = { id: 'provider-1', firstname: 'Imran', lastname: 'Siddiqui' };
  function study(n: number, overrides: Partial<MedicalImage> = {}): MedicalImage {
    return image(n, {
      caption: `Study ${n}`,
      uploadedBy: mine,
      study: { studyInstanceUid: STUDY_UID, description: 'CT CHEST', date: '20250512', modalities: ['CT'], series: 2, instances: 3, bytes: 9000 },
      ...overrides,
    });
  }

  it('lists the studies without a patient first, under Unassigned, and assigns one to a patient', async () => {
    const ayesha = makeUser({ id: 'patient-1', firstname: 'Ayesha', lastname: 'Khan', email: 'ayesha@example.test' });
    let assigned = false;
    // The server lists a study waiting for a patient apart, and leaves it out of the uploader's list.
    mock.onGet('/upload/my-images').reply(() => [200, pageOf(assigned ? [image(1, { uploadedBy: mine }), study(2)] : [image(1, { uploadedBy: mine })])]);
    mock.onGet('/upload/unassigned').reply(() => [200, { data: assigned ? [] : [study(2, { patient: null })] }]);
    mock.onGet('/upload/shared-images').reply(200, EMPTY);
    mock.onGet('/users').reply(200, pageOf([ayesha], 1, 1, 20));
    mock.onPatch('/upload/image/img-2').reply(() => {
      assigned = true;
      return [200, { message: 'Image updated.', data: study(2) }];
    });
    const user = userEvent.setup();
    renderAs(provider);

    const unassigned = await screen.findByRole('region', { name: 'Unassigned' });
    expect(within(unassigned).getByRole('heading', { level: 3, name: 'Study 2' })).toBeInTheDocument();
    const uploaded = section('Uploaded Images');
    // Unassigned comes before the other cards of the section.
    expect(uploaded.querySelector('h3')?.textContent).toBe('Unassigned');
    expect(within(within(uploaded).getByRole('list', { name: 'Uploaded Images' })).getAllByRole('heading').map((h) => h.textContent)).toEqual([
      'Scan 1',
    ]);

    await user.click(within(unassigned).getByRole('button', { name: 'Choose patient for Study 2' }));
    const dialog = screen.getByRole('dialog', { name: 'Choose patient' });
    await user.click(within(dialog).getByRole('button', { name: 'Assign' }));
    expect(within(dialog).getByText('Please choose the patient this image is for.')).toBeInTheDocument();
    expect(mock.history.patch).toHaveLength(0);
    await user.click(await within(dialog).findByRole('radio', { name: /Khan, Ayesha/ }));
    await user.click(within(dialog).getByRole('button', { name: 'Assign' }));

    await vi.waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(JSON.parse(mock.history.patch[0].data as string)).toEqual({ patientId: 'patient-1' });
    expect(await screen.findByText('Image updated.')).toBeInTheDocument();
    // The list is asked again and the study joins the ordinary cards.
    await vi.waitFor(() => expect(screen.queryByRole('region', { name: 'Unassigned' })).not.toBeInTheDocument());
    expect(within(within(section('Uploaded Images')).getByRole('list', { name: 'Uploaded Images' })).getAllByRole('heading').map((h) => h.textContent)).toEqual([
      'Scan 1',
      'Study 2',
    ]);
  });

  it('keeps the dialog open with the server text when the patient cannot be assigned', async () => {
    const ayesha = makeUser({ id: 'patient-1', firstname: 'Ayesha', lastname: 'Khan' });
    mock.onGet('/upload/my-images').reply(200, EMPTY);
    mock.onGet('/upload/unassigned').reply(200, { data: [study(2, { patient: null })] });
    mock.onGet('/upload/shared-images').reply(200, EMPTY);
    mock.onGet('/users').reply(200, pageOf([ayesha], 1, 1, 20));
    mock.onPatch('/upload/image/img-2').reply(422, { message: 'patientId must name a patient.' });
    const user = userEvent.setup();
    renderAs(provider);
    await user.click(await screen.findByRole('button', { name: 'Choose patient for Study 2' }));
    const dialog = screen.getByRole('dialog', { name: 'Choose patient' });
    await user.click(await within(dialog).findByRole('radio', { name: /Khan, Ayesha/ }));
    await user.click(within(dialog).getByRole('button', { name: 'Assign' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('patientId must name a patient.');
  });

  it('opens a study: its series with a thumbnail each (fetched with the token, shown from an object URL revoked on close)', async () => {
    const created: string[] = [];
    const revoked: string[] = [];
    URL.createObjectURL = vi.fn(() => {
      created.push(`blob:thumb-${created.length + 1}`);
      return created[created.length - 1];
    });
    URL.revokeObjectURL = vi.fn((url: string) => void revoked.push(url));
    mock.onGet('/upload/my-images').reply(200, pageOf([study(2, { archive_url: '/api/upload/image/img-2/archive?s=x&exp=1&sig=y' })]));
    mock.onGet('/upload/shared-images').reply(200, EMPTY);
    mock.onGet('/upload/image/img-2/series').reply(200, {
      data: [
        { seriesInstanceUid: `${STUDY_UID}.1`, seriesNumber: 1, modality: 'CT', description: 'AXIAL', instances: 2, bodyPart: 'CHEST' },
        { seriesInstanceUid: `${STUDY_UID}.2`, seriesNumber: null, modality: 'CT', description: '', instances: 1, bodyPart: '' },
      ],
    });
    mock.onGet(new RegExp('^/dicomweb/studies/.+/series/.+/thumbnail$')).reply(200, new Blob([new Uint8Array([137, 80, 78, 71])], { type: 'image/png' }));
    const user = userEvent.setup();
    renderAs(provider);
    await user.click(await screen.findByRole('button', { name: 'Open study Study 2' }));
    const dialog = screen.getByRole('dialog', { name: 'Study 2' });
    expect(dialog).toHaveTextContent(`${formatDate('2025-05-12')} · CT · 2 series · 3 instances`);
    expect(within(dialog).getByRole('link', { name: 'Download the study (ZIP)' })).toHaveAttribute('href', '/api/upload/image/img-2/archive?s=x&exp=1&sig=y');
    const series = await within(dialog).findByRole('list', { name: 'Series of Study 2' });
    expect(within(series).getAllByRole('heading', { level: 3 }).map((h) => h.textContent)).toEqual(['Series 1: AXIAL', 'Series']);
    expect(series).toHaveTextContent('CT · CHEST · 2 instances');
    expect(await within(series).findByRole('img', { name: 'Thumbnail: Series 1: AXIAL' })).toHaveAttribute('src', expect.stringMatching(/^blob:thumb-/));
    await vi.waitFor(() => expect(created).toHaveLength(2));
    const thumbs = mock.history.get.filter((request) => request.url?.endsWith('/thumbnail'));
    expect(thumbs[0].url).toBe(`/dicomweb/studies/${STUDY_UID}/series/${STUDY_UID}.1/thumbnail`);
    expect(thumbs[0].baseURL).toBe('');
    expect(thumbs[0].responseType).toBe('blob');
    expect(thumbs[0].headers?.Authorization).toBe('Bearer t');
    await user.click(within(dialog).getByRole('button', { name: 'Close' }));
    expect(revoked.sort()).toEqual([...created].sort());
  });
});
