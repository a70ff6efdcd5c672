import type { AxiosProgressEvent } from 'axios';
import { api as httpClient } from '@/lib/api-client';

// DICOMweb sits beside /api on the server, under /dicomweb. These calls go
// through the app's HTTP client (its bearer token and session renewal) but
// not through the data layer's cache: an instance sent or a thumbnail drawn
// is nothing to keep, and an upload needs its own progress, retry and cancel.

/** The header naming the image object a stored instance joined. */
export const IMAGE_ID_HEADER = 'medishare-image-id';

export interface StoreOptions {
  signal?: AbortSignal;
  /** Bytes of this instance sent so far. */
  onProgress?: (loaded: number) => void;
}

export interface StoreAnswer {
  /** The study's image object, from the MediShare-Image-Id header. */
  imageId: string | null;
  /** Why an instance was not stored, in the product's words (the Warning header), or null. */
  warning: string | null;
  /** The DICOM JSON answer; on a 202 it lists the instance as failed. */
  body: unknown;
  status: number;
}

function boundary(): string {
  const random = new Uint8Array(16);
  crypto.getRandomValues(random);
  return `medishare-${Array.from(random, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * STOW-RS: POST /dicomweb/studies?patient=… with one DICOM instance as a
 * multipart/related body. One instance per request, so that each file has
 * its own progress, retry and cancel.
 */
export async function storeInstance(file: Blob, patientId: string, { signal, onProgress }: StoreOptions = {}): Promise<StoreAnswer> {
  const mark = boundary();
  const body = new Blob(
    [`--${mark}\r\nContent-Type: application/dicom\r\n\r\n`, file, `\r\n--${mark}--\r\n`],
    { type: `multipart/related; type="application/dicom"; boundary=${mark}` },
  );
  const response = await httpClient.post('/dicomweb/studies', body, {
    // Not under /api.
    baseURL: '',
    params: { patient: patientId },
    headers: {
      'Content-Type': `multipart/related; type="application/dicom"; boundary=${mark}`,
      Accept: 'application/dicom+json',
    },
    signal,
    onUploadProgress: onProgress
      ? (event: AxiosProgressEvent) => {
          // The body is the file plus a few lines of framing: report the file's share.
          const ratio = event.total ? event.loaded / event.total : (event.progress ?? 0);
          onProgress(Math.min(file.size, Math.round(ratio * file.size)));
        }
      : undefined,
  });
  const ids = response.headers[IMAGE_ID_HEADER] as unknown;
  // The server lists one id per study of the request, comma-separated; one instance makes one.
  const imageId = typeof ids === 'string' ? (ids.split(',')[0]?.trim() ?? '') : '';
  return { imageId: imageId || null, warning: warningOf(response.headers.warning), body: response.data, status: response.status };
}

/**
 * The reason a STOW-RS answer gives for an instance it did not store: its
 * Warning header, `299 medishare "..."`, or null.
 */
export function warningOf(header: unknown): string | null {
  if (typeof header !== 'string') return null;
  const match = /299 medishare "((?:[^"\\]|\\.)*)"/.exec(header);
  return match ? match[1].replace(/\\(.)/g, '$1') : null;
}

/** A series' thumbnail (PNG) as a Blob; it needs the bearer token, so no plain <img src>. */
export async function fetchSeriesThumbnail(studyUid: string, seriesUid: string, signal?: AbortSignal): Promise<Blob> {
  const path = `/dicomweb/studies/${encodeURIComponent(studyUid)}/series/${encodeURIComponent(seriesUid)}/thumbnail`;
  const response = await httpClient.get<Blob>(path, {
    baseURL: '',
    responseType: 'blob',
    headers: { Accept: 'image/png' },
    signal,
  });
  return response.data;
}
