// Small DICOM Part 10 files for the tests: the preamble, "DICM", a file meta
// group, then explicit VR little endian elements (the transfer syntax the
// meta group names). Strings are padded to an even length as DICOM requires.

export interface DicomFields {
  studyInstanceUid?: string;
  seriesInstanceUid?: string;
  sopInstanceUid?: string;
  patientName?: string;
  studyDescription?: string;
  studyDate?: string;
  modality?: string;
  seriesNumber?: string;
  /** Bytes of pixel data after the header (7FE0,0010). */
  pixels?: number;
  /** (0002,0002): a DICOMDIR's is 1.2.840.10008.1.3.10. */
  mediaStorageClass?: string;
}

const LONG_LENGTH_VRS = new Set(['OB', 'OW', 'SQ', 'UN', 'UT']);

function element(group: number, elementNumber: number, vr: string, value: Uint8Array): Uint8Array {
  const long = LONG_LENGTH_VRS.has(vr);
  const head = new Uint8Array(long ? 12 : 8);
  const view = new DataView(head.buffer);
  view.setUint16(0, group, true);
  view.setUint16(2, elementNumber, true);
  head[4] = vr.charCodeAt(0);
  head[5] = vr.charCodeAt(1);
  if (long) view.setUint32(8, value.length, true);
  else view.setUint16(6, value.length, true);
  const out = new Uint8Array(head.length + value.length);
  out.set(head);
  out.set(value, head.length);
  return out;
}

function text(value: string, vr: string): Uint8Array {
  const padded = value.length % 2 ? value + (vr === 'UI' ? '\0' : ' ') : value;
  return new TextEncoder().encode(padded);
}

function concat(parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** The bytes of one DICOM file with the given facts (each written only when given). */
export function dicomBytes(fields: DicomFields): Uint8Array<ArrayBuffer> {
  const preamble = new Uint8Array(132);
  preamble.set(new TextEncoder().encode('DICM'), 128);
  const meta = [
    element(0x0002, 0x0002, 'UI', text(fields.mediaStorageClass ?? '1.2.840.10008.5.1.4.1.1.2', 'UI')),
    element(0x0002, 0x0003, 'UI', text(fields.sopInstanceUid ?? '1.2.3.999', 'UI')),
    element(0x0002, 0x0010, 'UI', text('1.2.840.10008.1.2.1', 'UI')),
  ];
  // In tag order, as a file has them.
  const body: [number, number, string, string | undefined][] = [
    [0x0008, 0x0018, 'UI', fields.sopInstanceUid],
    [0x0008, 0x0020, 'DA', fields.studyDate],
    [0x0008, 0x0060, 'CS', fields.modality],
    [0x0008, 0x1030, 'LO', fields.studyDescription],
    [0x0010, 0x0010, 'PN', fields.patientName],
    [0x0020, 0x000d, 'UI', fields.studyInstanceUid],
    [0x0020, 0x000e, 'UI', fields.seriesInstanceUid],
    [0x0020, 0x0011, 'IS', fields.seriesNumber],
  ];
  const elements = body.filter(([, , , value]) => value !== undefined).map(([g, e, vr, value]) => element(g, e, vr, text(value ?? '', vr)));
  const pixels = fields.pixels ? [element(0x7fe0, 0x0010, 'OW', new Uint8Array(fields.pixels))] : [];
  return concat([preamble, ...meta, ...elements, ...pixels]);
}

/** A DICOM file of one instance of a study, for the upload page. */
export function dicomFile(name: string, fields: DicomFields, relativePath?: string): File {
  const file = new File([dicomBytes(fields)], name, { type: '' });
  if (relativePath) Object.defineProperty(file, 'webkitRelativePath', { value: relativePath });
  return file;
}
