// Synthetic DICOM Part 10 files for the viewer's spec and bench: explicit VR
// little endian, 16-bit grey pixels with 12 bits stored, a made-up patient
// (like internal/medimg/synth, which the Go tests use). A CT series of any
// length, or one multi-frame instance.
import { randomBytes } from 'node:crypto';

/** A fresh UID under the 2.25 (UUID-derived) root. */
export function newUid(): string {
  const bytes = randomBytes(16);
  bytes[0] |= 0x80;
  return `2.25.${BigInt(`0x${bytes.toString('hex')}`).toString()}`;
}

class Writer {
  private parts: Buffer[] = [];

  element(group: number, element: number, vr: string, value: Buffer): void {
    const head = Buffer.alloc(['OB', 'OW', 'SQ', 'UN', 'UT'].includes(vr) ? 12 : 8);
    head.writeUInt16LE(group, 0);
    head.writeUInt16LE(element, 2);
    head.write(vr, 4, 'latin1');
    if (head.length === 12) head.writeUInt32LE(value.length, 8);
    else head.writeUInt16LE(value.length, 6);
    this.parts.push(head, value);
  }

  text(group: number, element: number, vr: string, value: string): void {
    let bytes = Buffer.from(value, 'latin1');
    if (bytes.length % 2) bytes = Buffer.concat([bytes, Buffer.from(vr === 'UI' ? '\0' : ' ')]);
    this.element(group, element, vr, bytes);
  }

  us(group: number, element: number, value: number): void {
    const bytes = Buffer.alloc(2);
    bytes.writeUInt16LE(value);
    this.element(group, element, 'US', bytes);
  }

  bytes(): Buffer {
    return Buffer.concat(this.parts);
  }
}

export interface SynthInstance {
  study: string;
  series: string;
  sop: string;
  seriesNumber: number;
  instanceNumber: number;
  description: string;
  modality?: string;
  frames?: number;
  rows?: number;
  cols?: number;
}

/** One frame: a bright disc whose place depends on `n`, on a dark gradient. */
function framePixels(rows: number, cols: number, n: number): Buffer {
  const pixels = Buffer.alloc(rows * cols * 2);
  const cy = Math.round(rows / 2 + (rows / 6) * Math.sin(n / 5));
  const cx = Math.round(cols / 2 + (cols / 6) * Math.cos(n / 5));
  const r = Math.min(rows, cols) / 4;
  for (let y = 0; y < rows; y += 1) {
    for (let x = 0; x < cols; x += 1) {
      const dy = y - cy;
      const dx = x - cx;
      let v = 300 + Math.floor((600 * y) / rows);
      if (dy * dy + dx * dx < r * r) v = 2400 + Math.floor((800 * x) / cols);
      pixels.writeUInt16LE(v, 2 * (y * cols + x));
    }
  }
  return pixels;
}

/** A DICOM Part 10 file of one instance. */
export function dicomFile(instance: SynthInstance): Buffer {
  const { rows = 256, cols = 256, frames = 1, modality = 'CT' } = instance;
  const sopClass = frames > 1 ? '1.2.840.10008.5.1.4.1.1.7.3' : '1.2.840.10008.5.1.4.1.1.2';
  const meta = new Writer();
  meta.element(0x0002, 0x0001, 'OB', Buffer.from([0, 1]));
  meta.text(0x0002, 0x0002, 'UI', sopClass);
  meta.text(0x0002, 0x0003, 'UI', instance.sop);
  meta.text(0x0002, 0x0010, 'UI', '1.2.840.10008.1.2.1');
  meta.text(0x0002, 0x0012, 'UI', '1.2.826.0.1.3680043.10.543.1');
  const metaBytes = meta.bytes();
  const group = new Writer();
  const length = Buffer.alloc(4);
  length.writeUInt32LE(metaBytes.length);
  group.element(0x0002, 0x0000, 'UL', length);

  const ds = new Writer();
  ds.text(0x0008, 0x0016, 'UI', sopClass);
  ds.text(0x0008, 0x0018, 'UI', instance.sop);
  ds.text(0x0008, 0x0020, 'DA', '20261123');
  ds.text(0x0008, 0x0050, 'SH', 'A-VIEWER');
  ds.text(0x0008, 0x0060, 'CS', modality);
  ds.text(0x0008, 0x1030, 'LO', instance.description);
  ds.text(0x0008, 0x103e, 'LO', `Viewer series ${instance.seriesNumber}`);
  ds.text(0x0010, 0x0010, 'PN', 'Viewer^Test');
  ds.text(0x0010, 0x0020, 'LO', 'VIEWER-1');
  ds.text(0x0018, 0x0015, 'CS', 'CHEST');
  ds.text(0x0020, 0x000d, 'UI', instance.study);
  ds.text(0x0020, 0x000e, 'UI', instance.series);
  ds.text(0x0020, 0x0011, 'IS', String(instance.seriesNumber));
  ds.text(0x0020, 0x0013, 'IS', String(instance.instanceNumber));
  ds.text(0x0020, 0x0032, 'DS', `0\\0\\${instance.instanceNumber}`);
  ds.text(0x0020, 0x0037, 'DS', '1\\0\\0\\0\\1\\0');
  ds.us(0x0028, 0x0002, 1);
  ds.text(0x0028, 0x0004, 'CS', 'MONOCHROME2');
  if (frames > 1) ds.text(0x0028, 0x0008, 'IS', String(frames));
  ds.us(0x0028, 0x0010, rows);
  ds.us(0x0028, 0x0011, cols);
  ds.text(0x0028, 0x0030, 'DS', '0.5\\0.5');
  ds.us(0x0028, 0x0100, 16);
  ds.us(0x0028, 0x0101, 12);
  ds.us(0x0028, 0x0102, 11);
  ds.us(0x0028, 0x0103, 0);
  ds.text(0x0028, 0x1050, 'DS', '1800');
  ds.text(0x0028, 0x1051, 'DS', '3600');
  ds.text(0x0028, 0x1052, 'DS', '-1024');
  ds.text(0x0028, 0x1053, 'DS', '1');
  const pixels = Buffer.concat(
    Array.from({ length: frames }, (_, frame) => framePixels(rows, cols, frames > 1 ? frame : instance.instanceNumber)),
  );
  ds.element(0x7fe0, 0x0010, 'OW', pixels);
  return Buffer.concat([Buffer.alloc(128), Buffer.from('DICM'), group.bytes(), metaBytes, ds.bytes()]);
}

/** The files of one CT series of `count` instances. */
export function* ctSeries(count: number, description: string, size = 256): Generator<Buffer> {
  const study = newUid();
  const series = newUid();
  for (let n = 1; n <= count; n += 1) {
    yield dicomFile({ study, series, sop: newUid(), seriesNumber: 1, instanceNumber: n, description, rows: size, cols: size });
  }
}

/** One multi-frame instance of `frames` frames. */
export function multiFrame(frames: number, description: string): Buffer {
  return dicomFile({ study: newUid(), series: newUid(), sop: newUid(), seriesNumber: 1, instanceNumber: 1, description, frames, rows: 128, cols: 128, modality: 'OT' });
}

/** STOW-RS body parts: one multipart/related body of the files. */
export function stowBody(files: Buffer[]): { body: Buffer; contentType: string } {
  const boundary = `viewer-${randomBytes(8).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const file of files) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Type: application/dicom\r\n\r\n`), file, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/related; type="application/dicom"; boundary=${boundary}` };
}
