import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type MockAdapter from 'axios-mock-adapter';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { deferred } from '@/test/deferred';
import { dicomFile, type DicomFields } from '@/test/dicom';
import { makeUser, pageOf } from '@/test/fixtures';
import { mockApi, renderRoute } from '@/test/render';
// The page loads this part lazily; loading it here first, as a browser that
// has it cached would, keeps a busy machine's first import out of the waits.
import './StudyUpload';

let mock: MockAdapter;
const provider = makeUser({ id: 'provider-1', role: 'healthProvider', firstname: 'Imran', lastname: 'Siddiqui' });
const ayesha = makeUser({ id: 'patient-1', firstname: 'Ayesha', lastname: 'Khan', email: 'ayesha@example.test' });
const STUDY = '1.2.826.0.1.3680043.8.498.7';

function instance(series: number, n: number): DicomFields {
  return {
    studyInstanceUid: STUDY,
    seriesInstanceUid: `${STUDY}.${series}`,
    sopInstanceUid: `${STUDY}.${series}.${n}`,
    patientName: 'KHAN^AYESHA',
    studyDescription: 'CT CHEST',
    studyDate: '20250512',
    modality: 'CT',
    seriesNumber: String(series),
  };
}

function folder(): File[] {
  const files = [1, 2, 3].flatMap((series) =>
    [1, 2].map((n) => dicomFile(`IM0000${n}.dcm`, instance(series, n), `study/SERIES${series}/IM0000${n}.dcm`)),
  );
  const readme = new File(['not DICOM'], 'README.txt', { type: 'text/plain' });
  Object.defineProperty(readme, 'webkitRelativePath', { value: 'study/README.txt' });
  return [...files, readme];
}

beforeEach(() => {
  mock = mockApi();
  mock.onGet('/users').reply(200, pageOf([ayesha], 1, 1, 20));
  mock.onGet('/upload/limits').reply(200, { data: { maxUploadBytes: 10_485_760, maxInstanceBytes: 2000, maxStudyBytes: 1e9 } });
});

const stowCalls = () => mock.history.post.filter((request) => request.url === '/dicomweb/studies');

async function chooseFolder(user: ReturnType<typeof userEvent.setup>, files = folder()) {
  renderRoute('/upload', { user: provider, token: 't' });
  await user.upload(await screen.findByLabelText('A folder'), files);
  return screen.findByRole('article', { name: 'CT CHEST' });
}

describe('/upload: a whole study', () => {
  it('offers files, a folder and a ZIP beside the single-file form', async () => {
    renderRoute('/upload', { user: provider, token: 't' });
    const region = await screen.findByRole('region', { name: 'Upload a whole DICOM study' });
    expect(within(region).getByLabelText('DICOM files or a ZIP')).toHaveAttribute('multiple');
    expect(within(region).getByLabelText('A folder')).toHaveAttribute('webkitdirectory');
    // The single-file form is as it was.
    expect(screen.getByLabelText('Medical image file')).not.toHaveAttribute('multiple');
  });

  it('shows what the folder holds: the study with its series and instances, and the README skipped', async () => {
    const user = userEvent.setup();
    const study = await chooseFolder(user);
    expect(screen.getByText('Found 1 study: 3 series, 6 instances.')).toBeInTheDocument();
    const facts = within(study);
    expect(facts.getByText('KHAN, AYESHA')).toBeInTheDocument();
    expect(facts.getByText('3 series · 6 instances')).toBeInTheDocument();
    expect(facts.getByText('CT')).toBeInTheDocument();
    expect(within(facts.getByRole('list', { name: 'Series of CT CHEST' })).getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      'Series 1 · CT · 2 instances',
      'Series 2 · CT · 2 instances',
      'Series 3 · CT · 2 instances',
    ]);
    expect(facts.getByRole('textbox', { name: 'Caption' })).toHaveValue('CT CHEST');
    expect(within(screen.getByRole('list', { name: 'Skipped files' })).getByRole('listitem')).toHaveTextContent(
      'study/README.txt — Not a DICOM file.',
    );
  });

  it('flags an instance over the instance limit before the upload, and does not send it', async () => {
    const user = userEvent.setup();
    const big = dicomFile('BIG.dcm', { ...instance(4, 1), pixels: 4000 }, 'study/SERIES4/BIG.dcm');
    const study = await chooseFolder(user, [...folder(), big]);
    expect(within(study).getByText(/1 file is over the 2 KB limit for one instance/)).toBeInTheDocument();
    expect(within(study).getByText(/study\/SERIES4\/BIG\.dcm/)).toBeInTheDocument();
    mock.onPost('/dicomweb/studies').reply(200, {}, { 'medishare-image-id': 'img-9' });
    mock.onPatch('/upload/image/img-9').reply(200, { message: 'Updated', data: {} });
    await user.click(await within(study).findByRole('radio', { name: /Khan, Ayesha/ }));
    await user.click(screen.getByRole('button', { name: 'Upload study' }));
    expect(await screen.findByText('Upload finished.')).toBeInTheDocument();
    expect(stowCalls()).toHaveLength(6);
    expect(screen.getByText('study/SERIES4/BIG.dcm: over the 2 KB limit for one instance, not sent.')).toBeInTheDocument();
  });

  it('asks for the patient before sending anything', async () => {
    const user = userEvent.setup();
    const study = await chooseFolder(user);
    await user.click(screen.getByRole('button', { name: 'Upload study' }));
    expect(within(study).getByText('Please choose the patient this image is for.')).toBeInTheDocument();
    expect(await within(study).findByRole('radio', { name: /Khan, Ayesha/ })).toHaveFocus();
    expect(stowCalls()).toHaveLength(0);
  });

  it('sends each instance over STOW-RS for the patient, sets the caption, and sums up with a link to the images', async () => {
    const user = userEvent.setup();
    const study = await chooseFolder(user);
    mock.onPost('/dicomweb/studies').reply(200, {}, { 'medishare-image-id': 'img-9' });
    mock.onPatch('/upload/image/img-9').reply(200, { message: 'Updated', data: {} });
    await user.click(await within(study).findByRole('radio', { name: /Khan, Ayesha/ }));
    const caption = within(study).getByRole('textbox', { name: 'Caption' });
    await user.clear(caption);
    await user.type(caption, 'Chest CT, follow-up');
    await user.click(screen.getByRole('button', { name: 'Upload study' }));

    expect(await screen.findByText('Upload finished.')).toBeInTheDocument();
    expect(screen.getByText('Upload finished.').closest('[role="status"]')).toHaveFocus();
    expect(screen.getByText('“Chest CT, follow-up” for Khan, Ayesha: 6 of 6 files stored.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'See the studies in View Images' })).toHaveAttribute('href', '/view-images');
    const calls = stowCalls();
    expect(calls).toHaveLength(6);
    expect(calls[0].params).toEqual({ patient: 'patient-1' });
    expect(calls[0].baseURL).toBe('');
    expect(String(calls[0].headers?.['Content-Type'])).toMatch(/^multipart\/related; type="application\/dicom"; boundary=medishare-[0-9a-f]{32}$/);
    expect(calls[0].headers?.Authorization).toBe('Bearer t');
    expect(calls[0].data).toBeInstanceOf(Blob);
    expect(JSON.parse(mock.history.patch[0].data as string)).toEqual({ caption: 'Chest CT, follow-up' });
  });

  // Tries again after failures that may pass are the upload loop's (study-upload.test.ts).
  it('reports a refused file by name with the server message, never dropping it', async () => {
    const user = userEvent.setup();
    const study = await chooseFolder(user);
    let tries = 0;
    mock.onPost('/dicomweb/studies').reply(() => {
      tries += 1;
      return [415, { message: 'This is not a DICOM file.' }];
    });
    mock.onPatch('/upload/image/img-9').reply(200, { message: 'Updated', data: {} });
    await user.click(await within(study).findByRole('radio', { name: /Khan, Ayesha/ }));
    await user.click(screen.getByRole('button', { name: 'Upload study' }));
    expect(await screen.findByText('Upload finished.')).toBeInTheDocument();
    expect(tries).toBe(6);
    const failures = screen.getByRole('list', { name: 'Files of “CT CHEST” not stored' });
    expect(within(failures).getAllByRole('listitem')[0]).toHaveTextContent('study/SERIES1/IM00001.dcm: This is not a DICOM file.');
    expect(await screen.findByText('6 files could not be uploaded.')).toBeInTheDocument();
  });

  it('cancels at once and says what was stored', async () => {
    const user = userEvent.setup();
    const study = await chooseFolder(user);
    const held = deferred<[number, unknown]>();
    let answered = 0;
    mock.onPost('/dicomweb/studies').reply(() => {
      answered += 1;
      return answered === 1 ? [200, {}, { 'medishare-image-id': 'img-9' }] : held.promise;
    });
    await user.click(await within(study).findByRole('radio', { name: /Khan, Ayesha/ }));
    await user.click(screen.getByRole('button', { name: 'Upload study' }));
    expect(await screen.findByRole('progressbar', { name: 'Study upload progress' })).toBeInTheDocument();
    await vi.waitFor(() => expect(answered).toBe(4));
    await user.click(screen.getByRole('button', { name: 'Cancel upload' }));
    expect(await screen.findByText('Upload cancelled.', { selector: 'p' })).toBeInTheDocument();
    expect(screen.getByText('“CT CHEST” for Khan, Ayesha: 1 of 6 files stored.')).toBeInTheDocument();
    expect(screen.getByText('5 files were not sent: the upload was cancelled.')).toBeInTheDocument();
    expect(answered).toBe(4);
    expect(mock.history.patch).toHaveLength(0);
  });
});
