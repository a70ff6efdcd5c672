// A series as the viewer shows it: its instances' metadata from WADO-RS
// (through the app's HTTP client: bearer token, renewal on a 401), in
// instance order, one image id per frame.
import { api } from '@/lib/api-client';
import { frameImageId, seriesMetadataPath } from './urls';

/** One data set of DICOM JSON (PS3.18 F.2). */
export type DicomJson = Record<string, { vr: string; Value?: unknown[] } | undefined>;

export const TAG = {
  sopInstanceUid: '00080018',
  instanceNumber: '00200013',
  numberOfFrames: '00280008',
  seriesNumber: '00200011',
  seriesDescription: '0008103E',
  modality: '00080060',
  patientName: '00100010',
  patientId: '00100020',
  pixelSpacing: '00280030',
  imagerPixelSpacing: '00181164',
  rows: '00280010',
  columns: '00280011',
  bitsAllocated: '00280100',
  samplesPerPixel: '00280002',
} as const;

/** The first value of a tag, or undefined. */
export function first(data: DicomJson, tag: string): unknown {
  return data[tag]?.Value?.[0];
}

export function numberOf(data: DicomJson, tag: string): number | undefined {
  const value = first(data, tag);
  const number = typeof value === 'string' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) ? number : undefined;
}

export function textOf(data: DicomJson, tag: string): string {
  const value = first(data, tag);
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && 'Alphabetic' in value) return String((value as { Alphabetic: unknown }).Alphabetic ?? '');
  return value === undefined || value === null ? '' : String(value);
}

/** One frame of the stack. */
export interface Frame {
  imageId: string;
  sop: string;
  instanceNumber: number | null;
  /** From 1. */
  frame: number;
  frames: number;
}

export interface LoadedSeries {
  frames: Frame[];
  /** The first instance's data set (series number, description, patient...). */
  head: DicomJson | null;
  /** Whether the images carry Pixel Spacing (measurements in mm). */
  calibrated: boolean;
  /** Bytes of one decoded frame, for the prefetch's bound. */
  bytesPerFrame: number;
}

/** The instances in the order a radiologist scrolls them: by instance number, then UID. */
export function orderInstances(instances: DicomJson[]): DicomJson[] {
  return [...instances].sort((a, b) => {
    const na = numberOf(a, TAG.instanceNumber) ?? Number.MAX_SAFE_INTEGER;
    const nb = numberOf(b, TAG.instanceNumber) ?? Number.MAX_SAFE_INTEGER;
    return na - nb || textOf(a, TAG.sopInstanceUid).localeCompare(textOf(b, TAG.sopInstanceUid));
  });
}

/** The frames of the ordered instances: each instance's frames in turn. */
export function framesOf(study: string, series: string, instances: DicomJson[], origin?: string): Frame[] {
  const frames: Frame[] = [];
  for (const data of orderInstances(instances)) {
    const sop = textOf(data, TAG.sopInstanceUid);
    if (!sop) continue;
    const count = Math.max(1, Math.floor(numberOf(data, TAG.numberOfFrames) ?? 1));
    const instanceNumber = numberOf(data, TAG.instanceNumber) ?? null;
    for (let frame = 1; frame <= count; frame += 1) {
      frames.push({ imageId: frameImageId(study, series, sop, frame, origin), sop, instanceNumber, frame, frames: count });
    }
  }
  return frames;
}

/** GET .../series/{series}/metadata and the series' frames; `register` hands each frame's data set to the loader. */
// A series' metadata is asked for as soon as the series is known (by the
// viewer's page, before Cornerstone's chunk has arrived) and taken once by the
// stack: the request does not wait for the engine, and is not sent twice.
const metadataLoads = new Map<string, Promise<DicomJson[]>>();

function seriesKey(study: string, series: string): string {
  return `${study}/${series}`;
}

/** Asks for a series' metadata (WADO-RS), once until it is taken. */
export function askForSeries(study: string, series: string): Promise<DicomJson[]> {
  const key = seriesKey(study, series);
  let load = metadataLoads.get(key);
  if (!load) {
    load = api
      .get<DicomJson[]>(seriesMetadataPath(study, series), { baseURL: '', headers: { Accept: 'application/dicom+json' } })
      .then((response) => (Array.isArray(response.data) ? response.data : []));
    // Its failure is reported by whoever takes it.
    load.catch(() => undefined);
    metadataLoads.set(key, load);
  }
  return load;
}

/** The metadata asked for (or asked for now), no longer kept for a later taker. */
export function takeSeries(study: string, series: string): Promise<DicomJson[]> {
  const load = askForSeries(study, series);
  forgetSeries(study, series);
  return load;
}

/** Drops a request nobody took (the page closed first). */
export function forgetSeries(study: string, series: string): void {
  metadataLoads.delete(seriesKey(study, series));
}

/** The series' frames in order, each frame's metadata registered for the loader. */
export function stackOf(
  study: string,
  series: string,
  instances: DicomJson[],
  register: (imageId: string, data: DicomJson) => void,
): LoadedSeries {
  const bySop = new Map(instances.map((data) => [textOf(data, TAG.sopInstanceUid), data]));
  const frames = framesOf(study, series, instances);
  for (const frame of frames) {
    const data = bySop.get(frame.sop);
    if (data) register(frame.imageId, data);
  }
  const head = orderInstances(instances)[0] ?? null;
  const calibrated = head ? Boolean(head[TAG.pixelSpacing]?.Value?.length || head[TAG.imagerPixelSpacing]?.Value?.length) : false;
  const rows = head ? (numberOf(head, TAG.rows) ?? 512) : 512;
  const columns = head ? (numberOf(head, TAG.columns) ?? 512) : 512;
  const samples = head ? (numberOf(head, TAG.samplesPerPixel) ?? 1) : 1;
  const bytes = head ? Math.ceil((numberOf(head, TAG.bitsAllocated) ?? 16) / 8) : 2;
  // Decoded 8-bit colour is kept as RGB; grey as 16 or 32 bits.
  return { frames, head, calibrated, bytesPerFrame: rows * columns * samples * Math.max(bytes, samples > 1 ? 1 : 2) };
}
