import { describe, expect, it } from 'vitest';
import { MAX_UPLOAD_BYTES, progressPercent } from './api';
import { fileProblem, formatBytes, kindOf, UPLOAD_TEXTS } from './file-rules';

function dicomBytes(): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(200);
  bytes.set([0x44, 0x49, 0x43, 0x4d], 128); // "DICM"
  return bytes;
}

function sized(file: File, size: number): File {
  Object.defineProperty(file, 'size', { value: size });
  return file;
}

describe('kindOf', () => {
  it.each([
    ['scan.jpg', 'jpeg'],
    ['scan.JPEG', 'jpeg'],
    ['xray.png', 'png'],
    ['report.pdf', 'pdf'],
    ['ct.dcm', 'dicom'],
    ['ct.dicom', 'dicom'],
  ])('%s is %s by its extension', async (name, kind) => {
    expect(await kindOf(new File(['x'], name))).toBe(kind);
  });

  it('reads the type when the name has no known extension', async () => {
    expect(await kindOf(new File(['x'], 'scan', { type: 'image/png' }))).toBe('png');
  });

  it('finds DICOM by its marker in files without an extension or with a UID name', async () => {
    expect(await kindOf(new File([dicomBytes()], 'IM0001'))).toBe('dicom');
    expect(await kindOf(new File([dicomBytes()], '1.2.840.113619.2.55'))).toBe('dicom');
  });

  it('refuses anything else', async () => {
    expect(await kindOf(new File(['GIF89a'], 'anim.gif', { type: 'image/gif' }))).toBeNull();
    expect(await kindOf(new File(['hello'], 'notes.txt', { type: 'text/plain' }))).toBeNull();
    expect(await kindOf(new File(['hello'], 'README'))).toBeNull();
  });
});

describe('fileProblem (product.md §5)', () => {
  it('uses the exact texts', () => {
    expect(fileProblem(null, null)).toBe('Please select a file to upload.');
    expect(fileProblem(new File(['x'], 'a.gif'), null)).toBe('Invalid file type. Allowed: .jpg, .png, .pdf, .dicom');
    expect(fileProblem(sized(new File(['x'], 'a.png'), MAX_UPLOAD_BYTES + 1), 'png')).toBe(
      'File size exceeds 10MB limit.',
    );
    expect(UPLOAD_TEXTS.noCaption).toBe('Please provide a caption.');
  });

  it('takes a file of exactly 10 MB', () => {
    expect(fileProblem(sized(new File(['x'], 'a.png'), 10 * 1024 * 1024), 'png')).toBeNull();
  });

  it('checks the type before the size', () => {
    expect(fileProblem(sized(new File(['x'], 'a.gif'), MAX_UPLOAD_BYTES + 1), null)).toBe(UPLOAD_TEXTS.invalidType);
  });
});

describe('helpers', () => {
  it('formats sizes', () => {
    expect(formatBytes(12)).toBe('12 bytes');
    expect(formatBytes(39_206)).toBe('38 KB');
    expect(formatBytes(2.5 * 1024 * 1024)).toBe('2.5 MB');
  });

  it('turns progress events into whole percents', () => {
    expect(progressPercent({ loaded: 50, total: 200, progress: 0.25 })).toBe(25);
    expect(progressPercent({ loaded: 50, total: 200, progress: undefined })).toBe(25);
    expect(progressPercent({ loaded: 50, total: undefined, progress: undefined })).toBe(0);
    expect(progressPercent({ loaded: 300, total: 200, progress: 1.5 })).toBe(100);
  });
});
