import type { AxiosProgressEvent } from 'axios';
import { api } from '@/lib/api-client';
import type { ImageShare } from '@/features/sharing';
import type { ApiResponse } from '@/types/api';

/** product.md §9: at most 10 MB per file. */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

/** product.md §9: image lists page by 10. */
export const IMAGE_PAGE_SIZE = 10;

/** What api.md calls a person inside an image object. */
export interface PersonRef {
  id: string;
  firstname: string;
  lastname: string;
}

/** The DICOM facts the server reads from a DICOM Part 10 file. */
export interface DicomFacts {
  modality?: string | null;
  bodyPart?: string | null;
  studyDescription?: string | null;
  rows?: number | null;
  columns?: number | null;
  frames?: number | null;
}

/** The image object of api.md ("Images"). */
export interface MedicalImage {
  id: string;
  caption: string | null;
  contentType: string;
  fileName: string;
  size: number;
  createdAt: string;
  /** Signed, short-lived (5 min) URL of the original bytes; null until a share is verified. */
  image_url: string | null;
  /** Signed, short-lived URL of a PNG rendering; null for PDFs and pixel-less DICOM. */
  preview_url: string | null;
  /** Shared with the caller (the Shared Images list). */
  isShared: boolean;
  /** The caller entered the emailed code; until then the URLs are null. */
  isVerified: boolean;
  /** The id of the share with the caller (what the Verify dialog sends). */
  sharingRequestId: string | null;
  /** When the share with the caller ends. */
  expiresAt: string | null;
  sharedBy: PersonRef | null;
  uploadedBy: PersonRef;
  patient: PersonRef;
  dicom: DicomFacts | null;
  /**
   * The image's current shares (revoked ones left out), newest first, on
   * images the caller uploaded (admins: every image); [] on the others.
   */
  shares?: ImageShare[];
}

export interface UploadFields {
  caption: string;
  patientId: string;
  file: File;
}

export interface UploadOptions {
  /** Called with 0..100 as the request body goes out. */
  onProgress?: (percent: number) => void;
  signal?: AbortSignal;
}

/** The share of the body sent, 0..100, from an axios progress event. */
export function progressPercent(event: Pick<AxiosProgressEvent, 'loaded' | 'total' | 'progress'>): number {
  const ratio = event.progress ?? (event.total ? event.loaded / event.total : 0);
  return Math.max(0, Math.min(100, Math.round(ratio * 100)));
}

/**
 * POST /api/upload/image. The text fields go first: the server streams the
 * file part and checks caption and patient before it reads the file.
 */
export async function uploadImage(
  { caption, patientId, file }: UploadFields,
  { onProgress, signal }: UploadOptions = {},
): Promise<ApiResponse<MedicalImage>> {
  const form = new FormData();
  form.append('caption', caption);
  form.append('patientId', patientId);
  form.append('file', file, file.name);
  const response = await api.post<ApiResponse<MedicalImage>>('/upload/image', form, {
    signal,
    onUploadProgress: onProgress ? (event) => onProgress(progressPercent(event)) : undefined,
  });
  return response.data;
}

/** GET /api/upload/image/{id}: one image with freshly signed URLs. */
export async function fetchImage(id: string, signal?: AbortSignal): Promise<MedicalImage> {
  const response = await api.get<ApiResponse<MedicalImage>>(`/upload/image/${encodeURIComponent(id)}`, { signal });
  return response.data.data;
}

/** DELETE /api/upload/image/{id} (uploader or admin). */
export async function deleteImage(id: string): Promise<ApiResponse<unknown>> {
  const response = await api.delete<ApiResponse<unknown>>(`/upload/image/${encodeURIComponent(id)}`);
  return response.data;
}
