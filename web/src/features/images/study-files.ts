import { parseDicom, readPart10Header, type DataSet } from 'dicom-parser';
import { zipFiles } from './study-zip';

// Loaded by the upload page only when several files, a folder or a ZIP are
// chosen (a dynamic import): the DICOM parser and the unzipper stay out of
// the first load.

/** A file to read: chosen directly, from a folder, or an entry of a ZIP. */
export interface StudyFile {
  /** Where it was found: the folder path or `archive.zip/DIR/IM0001`. */
  path: string;
  name: string;
  /** Bytes (uncompressed, for a ZIP entry). */
  size: number;
  /** The first `bytes` bytes (fewer when the file is shorter). */
  head: (bytes: number) => Promise<Uint8Array>;
  /** The whole file, read only when it is sent. */
  read: () => Promise<Blob>;
}

/** What the header of one DICOM file says. */
export interface InstanceHeader {
  studyInstanceUid: string;
  seriesInstanceUid: string;
  sopInstanceUid: string;
  patientName: string;
  studyDescription: string;
  studyDate: string;
  modality: string;
  seriesNumber: number | null;
  seriesDescription: string;
}

export interface FoundInstance {
  file: StudyFile;
  header: InstanceHeader;
}

export interface FoundSeries {
  seriesInstanceUid: string;
  seriesNumber: number | null;
  modality: string;
  description: string;
  instances: number;
  bytes: number;
}

/** One study as the chosen files make it up. */
export interface FoundStudy {
  studyInstanceUid: string;
  /** As written in the files ('Khan, Ayesha'); several names joined with ' / ' when the files disagree. */
  patientName: string;
  description: string;
  /** YYYYMMDD or ''. */
  date: string;
  modalities: string[];
  series: FoundSeries[];
  instances: FoundInstance[];
  bytes: number;
}

export interface SkippedFile {
  path: string;
  reason: string;
}

export interface ReadResult {
  studies: FoundStudy[];
  skipped: SkippedFile[];
}

/** The header is read from at most this much of a file; pixel data comes after it. */
export const HEADER_BYTES = 64 * 1024;
const PIXEL_DATA = 'x7fe00010';
const DICOMDIR_CLASS = '1.2.840.10008.1.3.10';

export const SKIP_REASONS = {
  empty: 'The file is empty.',
  notDicom: 'Not a DICOM file.',
  dicomdir: 'DICOMDIR: the index of the disc, not an image.',
  unreadable: 'The DICOM header could not be read.',
  noStudy: 'The header names no study (StudyInstanceUID).',
  noInstance: 'The header names no instance (SOPInstanceUID).',
  duplicate: (path: string) => `The same instance as ${path}.`,
} as const;

function hasPart10Marker(head: Uint8Array): boolean {
  return head.length >= 132 && head[128] === 0x44 && head[129] === 0x49 && head[130] === 0x43 && head[131] === 0x4d;
}

/** 'KHAN^AYESHA' -> 'KHAN, AYESHA' (family name first, as DICOM writes it). */
export function personName(value: string): string {
  const [family = '', given = '', middle = ''] = value.split('=')[0].split('^').map((part) => part.trim());
  const first = [given, middle].filter(Boolean).join(' ');
  return [family, first].filter(Boolean).join(', ');
}

function text(dataSet: DataSet, tag: string): string {
  try {
    return (dataSet.string(tag) ?? '').trim();
  } catch {
    return '';
  }
}

/**
 * The facts of a DICOM Part 10 header, or the reason the file is skipped.
 * Parsing stops at the pixel data; a header cut short by HEADER_BYTES still
 * gives what was read before the cut.
 */
export function readHeader(head: Uint8Array): InstanceHeader | { skip: string } {
  if (!hasPart10Marker(head)) return { skip: SKIP_REASONS.notDicom };
  // The meta group alone first: a DICOMDIR is known by it, whatever follows.
  try {
    if (text(readPart10Header(head), 'x00020002') === DICOMDIR_CLASS) return { skip: SKIP_REASONS.dicomdir };
  } catch {
    return { skip: SKIP_REASONS.unreadable };
  }
  let dataSet: DataSet;
  try {
    dataSet = parseDicom(head, { untilTag: PIXEL_DATA });
  } catch (failure) {
    // dicom-parser throws {exception, dataSet} with what it read before the failure.
    const partial = (failure as { dataSet?: DataSet } | null)?.dataSet;
    if (!partial) return { skip: SKIP_REASONS.unreadable };
    dataSet = partial;
  }
  const studyInstanceUid = text(dataSet, 'x0020000d');
  if (!studyInstanceUid) return { skip: SKIP_REASONS.noStudy };
  const sopInstanceUid = text(dataSet, 'x00080018') || text(dataSet, 'x00020003');
  if (!sopInstanceUid) return { skip: SKIP_REASONS.noInstance };
  const seriesNumber = Number.parseInt(text(dataSet, 'x00200011'), 10);
  return {
    studyInstanceUid,
    seriesInstanceUid: text(dataSet, 'x0020000e'),
    sopInstanceUid,
    patientName: personName(text(dataSet, 'x00100010')),
    studyDescription: text(dataSet, 'x00081030'),
    studyDate: text(dataSet, 'x00080020'),
    modality: text(dataSet, 'x00080060'),
    seriesNumber: Number.isNaN(seriesNumber) ? null : seriesNumber,
    seriesDescription: text(dataSet, 'x0008103e'),
  };
}

function isDicomdirName(name: string): boolean {
  return name.toUpperCase() === 'DICOMDIR';
}

/** One file read: its header, or why it is skipped. */
export async function scanFile(file: StudyFile): Promise<FoundInstance | SkippedFile> {
  if (isDicomdirName(file.name)) return { path: file.path, reason: SKIP_REASONS.dicomdir };
  if (file.size === 0) return { path: file.path, reason: SKIP_REASONS.empty };
  let head: Uint8Array;
  try {
    head = await file.head(HEADER_BYTES);
  } catch {
    return { path: file.path, reason: 'The file could not be read.' };
  }
  const header = readHeader(head);
  return 'skip' in header ? { path: file.path, reason: header.skip } : { file, header };
}

function distinct(values: string[]): string[] {
  return [...new Set(values.filter(Boolean))];
}

/**
 * The instances grouped by study, then series (by series number, files
 * without one last), in the order the studies were first met. An instance
 * met twice (the same SOPInstanceUID) is kept once.
 */
export function groupStudies(found: FoundInstance[]): ReadResult {
  const studies = new Map<string, FoundInstance[]>();
  const seen = new Map<string, string>();
  const skipped: SkippedFile[] = [];
  for (const instance of found) {
    const { studyInstanceUid, sopInstanceUid } = instance.header;
    const first = seen.get(sopInstanceUid);
    if (first !== undefined) {
      skipped.push({ path: instance.file.path, reason: SKIP_REASONS.duplicate(first) });
      continue;
    }
    seen.set(sopInstanceUid, instance.file.path);
    const list = studies.get(studyInstanceUid) ?? [];
    list.push(instance);
    studies.set(studyInstanceUid, list);
  }
  const result: FoundStudy[] = [];
  for (const [studyInstanceUid, instances] of studies) {
    const series = new Map<string, FoundSeries>();
    for (const { file, header } of instances) {
      const entry = series.get(header.seriesInstanceUid) ?? {
        seriesInstanceUid: header.seriesInstanceUid,
        seriesNumber: header.seriesNumber,
        modality: header.modality,
        description: header.seriesDescription,
        instances: 0,
        bytes: 0,
      };
      entry.instances += 1;
      entry.bytes += file.size;
      series.set(header.seriesInstanceUid, entry);
    }
    const ordered = [...series.values()].sort(
      (a, b) => (a.seriesNumber ?? Infinity) - (b.seriesNumber ?? Infinity) || a.seriesInstanceUid.localeCompare(b.seriesInstanceUid),
    );
    result.push({
      studyInstanceUid,
      patientName: distinct(instances.map((instance) => instance.header.patientName)).join(' / '),
      description: instances.find((instance) => instance.header.studyDescription)?.header.studyDescription ?? '',
      date: instances.find((instance) => instance.header.studyDate)?.header.studyDate ?? '',
      modalities: distinct(ordered.map((entry) => entry.modality)),
      series: ordered,
      instances,
      bytes: instances.reduce((sum, instance) => sum + instance.file.size, 0),
    });
  }
  return { studies: result, skipped };
}

function isZip(file: File): boolean {
  return /\.zip$/i.test(file.name) || file.type === 'application/zip' || file.type === 'application/x-zip-compressed';
}

/** A chosen file as a study file; a folder's files keep their path inside it. */
export function fromFile(file: File): StudyFile {
  return {
    path: file.webkitRelativePath || file.name,
    name: file.name,
    size: file.size,
    head: async (bytes) => new Uint8Array(await file.slice(0, bytes).arrayBuffer()),
    read: async () => file,
  };
}

/**
 * Reads the chosen files (ZIPs opened entry by entry), a few at a time, and
 * groups them into studies. `onRead` counts the files read so far.
 */
export async function readStudyFiles(chosen: File[], onRead?: (read: number, total: number) => void): Promise<ReadResult> {
  const files: StudyFile[] = [];
  const skipped: SkippedFile[] = [];
  for (const file of chosen) {
    if (!isZip(file)) {
      files.push(fromFile(file));
      continue;
    }
    try {
      const zip = await zipFiles(file, file.webkitRelativePath || file.name);
      files.push(...zip.files);
      skipped.push(...zip.unreadable);
    } catch (failure) {
      skipped.push({ path: file.name, reason: failure instanceof Error ? failure.message : 'The ZIP archive could not be opened.' });
    }
  }
  const found: FoundInstance[] = [];
  let read = 0;
  onRead?.(0, files.length);
  // Four at a time: enough to hide the disk's latency, few enough to hold little.
  const queue = files.entries();
  const outcomes: (FoundInstance | SkippedFile)[] = new Array<FoundInstance | SkippedFile>(files.length);
  async function worker() {
    for (const [index, file] of queue) {
      outcomes[index] = await scanFile(file);
      read += 1;
      onRead?.(read, files.length);
    }
  }
  await Promise.all([worker(), worker(), worker(), worker()]);
  for (const outcome of outcomes) {
    if ('header' in outcome) found.push(outcome);
    else skipped.push(outcome);
  }
  const grouped = groupStudies(found);
  return { studies: grouped.studies, skipped: [...skipped, ...grouped.skipped] };
}
