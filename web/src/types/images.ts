// The image and share objects of api.md: shared by the images and sharing
// features (and composed by app/), so neither feature owns them.

/** A person as an image or a share names them. */
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

/**
 * A DICOM study (one StudyInstanceUID with its series and instances), which
 * the server keeps as one image object.
 */
export interface StudyFacts {
  studyInstanceUid: string;
  description: string;
  /** YYYYMMDD as DICOM writes it, or '' when the files give none. */
  date: string;
  modalities: string[];
  series: number;
  instances: number;
  bytes: number;
}

/** One series of a study (GET /api/upload/image/{id}/series). */
export interface StudySeries {
  seriesInstanceUid: string;
  seriesNumber: number | null;
  modality: string;
  description: string;
  instances: number;
  bodyPart: string;
}

/** GET /api/upload/limits: what one upload, one study instance and one whole study may weigh. */
export interface UploadLimits {
  maxUploadBytes: number;
  maxInstanceBytes: number;
  maxStudyBytes: number;
}

/**
 * The state of a share: waiting for the recipient's code, open to them,
 * past its lifetime, or void after five wrong codes. Revoked shares are
 * left out of image objects.
 */
export type ShareStatus = 'pending' | 'verified' | 'expired' | 'voided';

/** One entry of `shares` on an image the caller uploaded (admins: any image), newest first. */
export interface ImageShare {
  id: string;
  /** Who made the share: only they (or an admin) may revoke it. */
  sharedBy?: PersonRef;
  sharedWith: PersonRef;
  status: ShareStatus | (string & {});
  createdAt: string;
  expiresAt: string;
}

/**
 * The image object of api.md ("Images"). On an image shared with the caller
 * and not verified yet, the server withholds what the image is about: the
 * fields marked "null until verified" are then null.
 */
export interface MedicalImage {
  id: string;
  /** null until verified. */
  caption: string | null;
  contentType: string;
  /** null until verified. */
  fileName: string | null;
  /** null until verified. */
  size: number | null;
  /** null until verified. */
  createdAt: string | null;
  /** When the share with the caller was made; on images reached through a share. */
  sharedAt?: string | null;
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
  /** null until verified. */
  uploadedBy: PersonRef | null;
  /**
   * null until verified; also null on the uploader's own list for a study
   * that arrived from a PACS without a patient (unassigned).
   */
  patient: PersonRef | null;
  /** null until verified, and for files that are not DICOM. */
  dicom: DicomFacts | null;
  /** The study this image object stands for; null until verified, and for anything but a study. */
  study?: StudyFacts | null;
  /** A study only: the signed, short-lived URL of its download as a ZIP (a folder per series). */
  archive_url?: string | null;
  /**
   * The image's current shares (revoked ones left out), newest first, on
   * images the caller uploaded (admins: every image); [] on the others.
   */
  shares?: ImageShare[];
}
