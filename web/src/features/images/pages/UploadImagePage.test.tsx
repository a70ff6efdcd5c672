import { act, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { AxiosRequestConfig } from 'axios';
import type MockAdapter from 'axios-mock-adapter';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeImage, makeUser, pageOf } from '@/test/fixtures';
import { mockApi, renderRoute } from '@/test/render';
import { searchFor } from '@/test/search';
import type { User } from '@/types/api';

let mock: MockAdapter;
const provider = makeUser({ id: 'provider-1', role: 'healthProvider', firstname: 'Imran', lastname: 'Siddiqui' });
const ayesha = makeUser({ id: 'patient-1', firstname: 'Ayesha', lastname: 'Khan', email: 'ayesha@example.test' });
const bilal = makeUser({ id: 'patient-2', firstname: 'Bilal', lastname: 'Ahmed', email: 'bilal@example.test' });

function patients(search?: string): User[] {
  const all = [bilal, ayesha];
  if (!search) return all;
  return all.filter((user) => `${user.firstname} ${user.lastname}`.toLowerCase().includes(search.toLowerCase()));
}

const created: string[] = [];
const revoked: string[] = [];

beforeEach(() => {
  mock = mockApi();
  mock.onGet('/users').reply((config) => {
    const { search } = (config.params ?? {}) as { search?: string };
    const list = patients(search);
    return [200, pageOf(list, 1, 1, 20)];
  });
  created.length = 0;
  revoked.length = 0;
  // jsdom has no object URLs.
  URL.createObjectURL = vi.fn(() => {
    const url = `blob:preview-${created.length + 1}`;
    created.push(url);
    return url;
  });
  URL.revokeObjectURL = vi.fn((url: string) => {
    revoked.push(url);
  });
});

afterEach(() => {
  vi.useRealTimers();
});

function renderUpload(user: User = provider) {
  return renderRoute('/upload', { user, token: 't' });
}

function jpeg(name = 'knee.jpg'): File {
  return new File([new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3])], name, { type: 'image/jpeg' });
}

function dicom(name = 'CT_small.dcm'): File {
  const bytes = new Uint8Array(200);
  bytes.set([0x44, 0x49, 0x43, 0x4d], 128);
  return new File([bytes], name, { type: '' });
}

const fileInput = () => screen.getByLabelText('Medical image file');
const caption = () => screen.getByRole('textbox', { name: 'Caption' });
const submit = () => screen.getByRole('button', { name: /Upload Image|Uploading\.\.\./ });
const userLists = () => mock.history.get.filter((request) => request.url === '/users');

async function fillForm(user: ReturnType<typeof userEvent.setup>, file: File = dicom()) {
  await user.upload(fileInput(), file);
  await user.click(await screen.findByRole('radio', { name: /Khan, Ayesha/ }));
  await user.type(caption(), 'Chest CT, follow-up');
}

describe('/upload', () => {
  it('shows the form: file picker with the accepted types, caption, patient search and the button', () => {
    renderUpload();
    expect(screen.getByRole('heading', { level: 1, name: 'Upload Medical Image' })).toBeInTheDocument();
    expect(fileInput()).toHaveAttribute('type', 'file');
    expect(fileInput()).toHaveAttribute('accept', '.jpeg,.jpg,.png,.pdf,.dicom,.dcm');
    expect(caption()).toBeInTheDocument();
    expect(screen.getByRole('searchbox', { name: 'Search patients' })).toBeDisabled();
    expect(submit()).toHaveTextContent('Upload Image');
  });

  it('tells a patient that providers upload, without a form', () => {
    renderUpload(makeUser({ role: 'patient' }));
    expect(screen.queryByLabelText('Medical image file')).not.toBeInTheDocument();
    expect(within(screen.getByRole('main')).getByRole('link', { name: 'View Images' })).toHaveAttribute(
      'href',
      '/view-images',
    );
  });

  it('fetches the patients only after a file is chosen, then filters them by name', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    renderUpload();
    // Well past the pause a search waits for, on a fake clock.
    await act(() => vi.advanceTimersByTimeAsync(1000));
    expect(userLists()).toHaveLength(0);
    expect(screen.getByText('Choose a file first; the list of patients appears then.')).toBeInTheDocument();
    vi.useRealTimers();

    const user = userEvent.setup();
    await user.upload(fileInput(), dicom());
    const list = await screen.findAllByRole('radio');
    expect(list.map((radio) => radio.closest('label')?.textContent)).toEqual([
      'Ahmed, Bilalbilal@example.test',
      'Khan, Ayeshaayesha@example.test',
    ]);
    expect(userLists()[0].params).toEqual({ role: 'patient', limit: 20 });

    await searchFor(screen.getByRole('searchbox', { name: 'Search patients' }), 'ayesha');
    await vi.waitFor(() => expect(screen.getAllByRole('radio')).toHaveLength(1));
    expect(userLists().at(-1)?.params).toEqual({ role: 'patient', limit: 20, search: 'ayesha' });
  });

  it('keeps the chosen patient in view while another name is searched', async () => {
    const user = userEvent.setup();
    renderUpload();
    await user.upload(fileInput(), dicom());
    await user.click(await screen.findByRole('radio', { name: /Khan, Ayesha/ }));
    await searchFor(screen.getByRole('searchbox', { name: 'Search patients' }), 'bilal');
    await vi.waitFor(() => expect(userLists().at(-1)?.params).toMatchObject({ search: 'bilal' }));
    await vi.waitFor(() => expect(screen.getAllByRole('radio')).toHaveLength(2));
    expect(screen.getByRole('radio', { name: /Khan, Ayesha/ })).toBeChecked();
  });

  it('validates before sending, with the texts of the spec', async () => {
    const user = userEvent.setup();
    renderUpload();
    await user.click(submit());
    expect(await screen.findByText('Please select a file to upload.')).toBeInTheDocument();
    expect(screen.getByText('Please provide a caption.')).toBeInTheDocument();
    expect(screen.getByText('Please choose the patient this image is for.')).toBeInTheDocument();
    expect(fileInput()).toHaveFocus();
    expect(fileInput()).toHaveAttribute('aria-invalid', 'true');
    expect(fileInput()).toHaveAccessibleDescription(expect.stringContaining('Please select a file to upload.'));
    expect(mock.history.post).toHaveLength(0);
  });

  it('a blank caption is refused', async () => {
    const user = userEvent.setup();
    renderUpload();
    await user.upload(fileInput(), dicom());
    await user.click(await screen.findByRole('radio', { name: /Khan, Ayesha/ }));
    await user.type(caption(), '   ');
    await user.click(submit());
    expect(await screen.findByText('Please provide a caption.')).toBeInTheDocument();
    expect(caption()).toHaveFocus();
    expect(mock.history.post).toHaveLength(0);
  });

  it('refuses a file type that is not allowed', async () => {
    const user = userEvent.setup({ applyAccept: false });
    renderUpload();
    await user.upload(fileInput(), new File(['GIF89a'], 'anim.gif', { type: 'image/gif' }));
    expect(await screen.findByText('Invalid file type. Allowed: .jpg, .png, .pdf, .dicom')).toBeInTheDocument();
    await user.click(await screen.findByRole('radio', { name: /Khan, Ayesha/ }));
    await user.type(caption(), 'Animation');
    await user.click(submit());
    expect(mock.history.post).toHaveLength(0);
  });

  it('refuses a file over 10 MB', async () => {
    const user = userEvent.setup();
    renderUpload();
    const big = jpeg('huge.jpg');
    Object.defineProperty(big, 'size', { value: 10 * 1024 * 1024 + 1 });
    await user.upload(fileInput(), big);
    expect(await screen.findByText('File size exceeds 10MB limit.')).toBeInTheDocument();
    expect(screen.queryByRole('img', { name: /Preview of/ })).not.toBeInTheDocument();
  });

  it('previews a JPEG at its object URL and revokes it when the file changes', async () => {
    const user = userEvent.setup();
    renderUpload();
    await user.upload(fileInput(), jpeg());
    const preview = await screen.findByRole('img', { name: 'Preview of knee.jpg' });
    expect(preview).toHaveAttribute('src', 'blob:preview-1');
    expect(preview).toHaveClass('upload-preview__image');

    await user.upload(fileInput(), dicom());
    await vi.waitFor(() => expect(revoked).toEqual(['blob:preview-1']));
    expect(screen.queryByRole('img', { name: /Preview of/ })).not.toBeInTheDocument();
    expect(screen.getByText('The server renders a preview of DICOM files after the upload.')).toBeInTheDocument();
  });

  it('sends caption and patientId before the file, shows real progress and "Uploading...", then resets', async () => {
    const user = userEvent.setup();
    let progress: AxiosRequestConfig['onUploadProgress'];
    let finish: (value: [number, unknown]) => void = () => {};
    mock.onPost('/upload/image').reply((config) => {
      progress = config.onUploadProgress;
      return new Promise((resolve) => {
        finish = resolve;
      });
    });
    renderUpload();
    await fillForm(user);
    await user.click(submit());

    const bar = await screen.findByRole('progressbar', { name: 'Upload progress' });
    expect(bar).toHaveAttribute('aria-valuenow', '0');
    expect(submit()).toHaveTextContent('Uploading...');
    expect(submit()).toBeDisabled();

    const sent = mock.history.post[0].data as FormData;
    expect(sent).toBeInstanceOf(FormData);
    expect([...sent.keys()]).toEqual(['caption', 'patientId', 'file']);
    expect(sent.get('caption')).toBe('Chest CT, follow-up');
    expect(sent.get('patientId')).toBe('patient-1');
    expect((sent.get('file') as File).name).toBe('CT_small.dcm');

    act(() => progress?.({ loaded: 40, total: 100, progress: 0.4, bytes: 40, upload: true, lengthComputable: true }));
    expect(bar).toHaveAttribute('aria-valuenow', '40');
    expect(bar).toHaveValue(40);
    expect(screen.getByText('40% sent')).toBeInTheDocument();
    act(() => progress?.({ loaded: 100, total: 100, progress: 1, bytes: 60, upload: true, lengthComputable: true }));
    expect(bar).toHaveAttribute('aria-valuenow', '100');

    await act(async () => finish([201, { message: 'Image uploaded successfully!', data: makeImage() }]));
    expect(await screen.findByText('Image uploaded successfully!')).toBeInTheDocument();
    expect(screen.queryByRole('progressbar', { name: 'Upload progress' })).not.toBeInTheDocument();
    expect(submit()).toHaveTextContent('Upload Image');
    expect(caption()).toHaveValue('');
    expect(screen.queryByText('CT_small.dcm')).not.toBeInTheDocument();
    const done = screen.getByText(/was uploaded for Khan, Ayesha/).closest('[role="status"]') as HTMLElement;
    expect(done).toHaveFocus();
    expect(within(done).getByRole('link', { name: 'See it in View Images' })).toHaveAttribute('href', '/view-images');
  });

  it('toasts each field error of the server as "field: message"', async () => {
    const user = userEvent.setup();
    mock.onPost('/upload/image').reply(422, {
      message: 'Please choose an active patient.',
      errors: [
        { field: 'patientId', message: 'Please choose an active patient.' },
        { field: 'caption', message: 'must be at most 500 characters' },
      ],
    });
    renderUpload();
    await fillForm(user);
    await user.click(submit());
    expect(await screen.findByText('patientId: Please choose an active patient.')).toBeInTheDocument();
    expect(screen.getByText('caption: must be at most 500 characters')).toBeInTheDocument();
    // The same texts also sit under their fields.
    expect(caption()).toHaveAccessibleDescription('must be at most 500 characters');
    expect(caption()).toHaveValue('Chest CT, follow-up');
  });

  it('toasts the server message of a 415', async () => {
    const user = userEvent.setup();
    mock.onPost('/upload/image').reply(415, { message: 'Invalid file type. Allowed: .jpg, .png, .pdf, .dicom' });
    renderUpload();
    await fillForm(user, jpeg('fake.jpg'));
    await user.click(submit());
    const texts = await screen.findAllByText('Invalid file type. Allowed: .jpg, .png, .pdf, .dicom');
    expect(texts.length).toBeGreaterThanOrEqual(2); // toast and field
  });

  it('falls back to "Something went wrong while uploading."', async () => {
    const user = userEvent.setup();
    mock.onPost('/upload/image').networkError();
    renderUpload();
    await fillForm(user);
    await user.click(submit());
    expect(await screen.findByText('Something went wrong while uploading.')).toBeInTheDocument();
    expect(submit()).toHaveTextContent('Upload Image');
  });

  it('cancels an upload in flight', async () => {
    const user = userEvent.setup();
    mock.onPost('/upload/image').reply(
      (config) =>
        new Promise((_, reject) => {
          config.signal?.addEventListener?.('abort', () => reject(new DOMException('aborted', 'AbortError')));
        }),
    );
    renderUpload();
    await fillForm(user);
    await user.click(submit());
    await user.click(await screen.findByRole('button', { name: 'Cancel upload' }));
    expect(await screen.findByText('Upload cancelled.')).toBeInTheDocument();
    expect(submit()).toHaveTextContent('Upload Image');
  });
});
