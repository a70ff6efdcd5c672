import { zipSync } from 'fflate';
import { describe, expect, it, vi } from 'vitest';
import { dicomBytes, dicomFile, type DicomFields } from '@/test/dicom';
import { HEADER_BYTES, readHeader, readStudyFiles, scanFile, SKIP_REASONS, type StudyFile } from './study-files';

const STUDY_A = '1.2.826.0.1.3680043.8.498.1';
const STUDY_B = '1.2.826.0.1.3680043.8.498.2';

function instance(study: string, series: number, n: number, overrides: DicomFields = {}): DicomFields {
  return {
    studyInstanceUid: study,
    seriesInstanceUid: `${study}.${series}`,
    sopInstanceUid: `${study}.${series}.${n}`,
    patientName: 'KHAN^AYESHA',
    studyDescription: study === STUDY_A ? 'CT CHEST' : 'MR KNEE',
    studyDate: study === STUDY_A ? '20250512' : '20240101',
    modality: study === STUDY_A ? 'CT' : 'MR',
    seriesNumber: String(series),
    ...overrides,
  };
}

describe('readHeader', () => {
  it('reads the study, series and instance, the patient name, description, date, modality and series number', () => {
    expect(readHeader(dicomBytes(instance(STUDY_A, 2, 1)))).toEqual({
      studyInstanceUid: STUDY_A,
      seriesInstanceUid: `${STUDY_A}.2`,
      sopInstanceUid: `${STUDY_A}.2.1`,
      patientName: 'KHAN, AYESHA',
      studyDescription: 'CT CHEST',
      studyDate: '20250512',
      modality: 'CT',
      seriesNumber: 2,
      seriesDescription: '',
    });
  });

  it('skips what is not DICOM, a DICOMDIR and a file without a study', () => {
    expect(readHeader(new TextEncoder().encode('hello'))).toEqual({ skip: SKIP_REASONS.notDicom });
    expect(readHeader(dicomBytes({ mediaStorageClass: '1.2.840.10008.1.3.10' }))).toEqual({ skip: SKIP_REASONS.dicomdir });
    expect(readHeader(dicomBytes({ sopInstanceUid: '1.2.3' }))).toEqual({ skip: SKIP_REASONS.noStudy });
  });
});

describe('scanFile', () => {
  it('reads only the first 64 KiB of a large file, never the whole of it', async () => {
    const bytes = dicomBytes(instance(STUDY_A, 1, 1, { pixels: 1024 * 1024 }));
    const head = vi.fn(async (n: number) => bytes.slice(0, n));
    const read = vi.fn();
    const file: StudyFile = { path: 'big.dcm', name: 'big.dcm', size: bytes.length, head, read };
    const found = await scanFile(file);
    expect(head).toHaveBeenCalledWith(HEADER_BYTES);
    expect(read).not.toHaveBeenCalled();
    expect('header' in found && found.header.sopInstanceUid).toBe(`${STUDY_A}.1.1`);
  });

  it('skips a file named DICOMDIR and an empty file without reading them', async () => {
    const head = vi.fn();
    expect(await scanFile({ path: 'CD/DICOMDIR', name: 'DICOMDIR', size: 10, head, read: vi.fn() })).toEqual({
      path: 'CD/DICOMDIR',
      reason: SKIP_REASONS.dicomdir,
    });
    expect(await scanFile({ path: 'x.dcm', name: 'x.dcm', size: 0, head, read: vi.fn() })).toEqual({
      path: 'x.dcm',
      reason: SKIP_REASONS.empty,
    });
    expect(head).not.toHaveBeenCalled();
  });
});

describe('readStudyFiles', () => {
  it('groups files by study and series, with counts, sizes and the files skipped', async () => {
    const files = [
      dicomFile('IM3', instance(STUDY_A, 3, 1), 'CD/S3/IM3'),
      dicomFile('IM1', instance(STUDY_A, 1, 1), 'CD/S1/IM1'),
      dicomFile('IM2', instance(STUDY_A, 1, 2), 'CD/S1/IM2'),
      dicomFile('KNEE1', instance(STUDY_B, 7, 1), 'CD/K/KNEE1'),
      // The same instance copied twice.
      dicomFile('IM2copy', instance(STUDY_A, 1, 2), 'CD/S1/IM2copy'),
      new File(['Patient CD'], 'README.txt', { type: 'text/plain' }),
      dicomFile('DICOMDIR', { mediaStorageClass: '1.2.840.10008.1.3.10' }, 'CD/DICOMDIR'),
    ];
    const progress: number[] = [];
    const { studies, skipped } = await readStudyFiles(files, (read) => progress.push(read));

    expect(studies.map((study) => study.studyInstanceUid)).toEqual([STUDY_A, STUDY_B]);
    const [chest, knee] = studies;
    expect(chest).toMatchObject({
      patientName: 'KHAN, AYESHA',
      description: 'CT CHEST',
      date: '20250512',
      modalities: ['CT'],
      bytes: files[0].size + files[1].size + files[2].size,
    });
    expect(chest.series.map((series) => [series.seriesNumber, series.instances])).toEqual([
      [1, 2],
      [3, 1],
    ]);
    expect(chest.instances.map((found) => found.file.path)).toEqual(['CD/S3/IM3', 'CD/S1/IM1', 'CD/S1/IM2']);
    expect(knee).toMatchObject({ description: 'MR KNEE', modalities: ['MR'], series: [expect.objectContaining({ instances: 1 })] });
    expect(skipped).toEqual([
      { path: 'README.txt', reason: SKIP_REASONS.notDicom },
      { path: 'CD/DICOMDIR', reason: SKIP_REASONS.dicomdir },
      { path: 'CD/S1/IM2copy', reason: SKIP_REASONS.duplicate('CD/S1/IM2') },
    ]);
    expect(progress.at(-1)).toBe(7);
  });

  it('joins the patient names when the files of one study disagree', async () => {
    const { studies } = await readStudyFiles([
      dicomFile('a', instance(STUDY_A, 1, 1)),
      dicomFile('b', instance(STUDY_A, 1, 2, { patientName: 'KHAN^A' })),
    ]);
    expect(studies[0].patientName).toBe('KHAN, AYESHA / KHAN, A');
  });

  it('opens a ZIP entry by entry: stored and deflated files, its DICOMDIR and its folders', async () => {
    const zip = zipSync({
      'CD/DICOMDIR': [dicomBytes({ mediaStorageClass: '1.2.840.10008.1.3.10' }), { level: 6 }],
      'CD/S1/IM1': [dicomBytes(instance(STUDY_A, 1, 1, { pixels: 200_000 })), { level: 0 }],
      'CD/S1/IM2': [dicomBytes(instance(STUDY_A, 1, 2, { pixels: 200_000 })), { level: 6 }],
      'CD/NOTES.TXT': [new TextEncoder().encode('not an image'), { level: 6 }],
    });
    const archive = new File([zip as Uint8Array<ArrayBuffer>], 'patient-cd.zip', { type: 'application/zip' });
    const { studies, skipped } = await readStudyFiles([archive]);
    expect(studies).toHaveLength(1);
    expect(studies[0].instances.map((found) => [found.file.path, found.file.size])).toEqual([
      ['patient-cd.zip/CD/S1/IM1', dicomBytes(instance(STUDY_A, 1, 1, { pixels: 200_000 })).length],
      ['patient-cd.zip/CD/S1/IM2', dicomBytes(instance(STUDY_A, 1, 2, { pixels: 200_000 })).length],
    ]);
    expect(skipped).toEqual([
      { path: 'patient-cd.zip/CD/DICOMDIR', reason: SKIP_REASONS.dicomdir },
      { path: 'patient-cd.zip/CD/NOTES.TXT', reason: SKIP_REASONS.notDicom },
    ]);
    // A deflated entry comes out whole when it is sent.
    const sent = await studies[0].instances[1].file.read();
    expect(new Uint8Array(await sent.arrayBuffer())).toEqual(dicomBytes(instance(STUDY_A, 1, 2, { pixels: 200_000 })));
  });

  it('lists a damaged ZIP as skipped', async () => {
    const { studies, skipped } = await readStudyFiles([new File(['not a zip at all'], 'broken.zip')]);
    expect(studies).toEqual([]);
    expect(skipped).toEqual([{ path: 'broken.zip', reason: 'This is not a ZIP archive, or it is damaged.' }]);
  });
});
