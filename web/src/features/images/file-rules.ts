import type { UserPickerTexts } from '@/components/UserPicker';
import { MAX_UPLOAD_BYTES } from './api';

/** The kinds of file the product takes (product.md §9). */
export type FileKind = 'jpeg' | 'png' | 'pdf' | 'dicom';

/** The file picker's filter; DICOM files often end in .dcm (or have no extension at all). */
export const ACCEPT = '.jpeg,.jpg,.png,.pdf,.dicom,.dcm';

/** The texts of product.md §5 (and one of our own for the patient). */
export const UPLOAD_TEXTS = {
  invalidType: 'Invalid file type. Allowed: .jpg, .png, .pdf, .dicom',
  tooLarge: 'File size exceeds 10MB limit.',
  noFile: 'Please select a file to upload.',
  noCaption: 'Please provide a caption.',
  noPatient: 'Please choose the patient this image is for.',
  emptyFile: 'The file is empty.',
} as const;

/** The patient picker of the upload page, for one file and for each study alike. */
export const PATIENT_PICKER_TEXTS: UserPickerTexts = {
  legend: 'Patient',
  searchLabel: 'Search patients',
  one: 'patient',
  many: 'patients',
  none: (search) => (search ? `No patients match “${search}”.` : 'No patients found.'),
  // product.md §2: the users list is fetched after a file is chosen.
  waiting: 'Choose a file first; the list of patients appears then.',
};

const BY_EXTENSION: Record<string, FileKind> = {
  jpg: 'jpeg',
  jpeg: 'jpeg',
  png: 'png',
  pdf: 'pdf',
  dcm: 'dicom',
  dicom: 'dicom',
};

const BY_MIME: Record<string, FileKind> = {
  'image/jpeg': 'jpeg',
  'image/png': 'png',
  'application/pdf': 'pdf',
  'application/dicom': 'dicom',
};

function extensionOf(name: string): string | null {
  const dot = name.lastIndexOf('.');
  return dot > 0 && dot < name.length - 1 ? name.slice(dot + 1).toLowerCase() : null;
}

/** DICOM Part 10: a 128-byte preamble, then "DICM". */
async function hasDicomMagic(file: Blob): Promise<boolean> {
  if (file.size < 132) return false;
  try {
    const bytes = new Uint8Array(await file.slice(128, 132).arrayBuffer());
    return String.fromCharCode(...bytes) === 'DICM';
  } catch {
    return false;
  }
}

/**
 * The kind of a chosen file, or null when the product does not take it. A
 * known extension decides; otherwise the browser's type; otherwise (names
 * like "IM0001" or "1.2.840.113619.2.55") the DICOM marker in the bytes.
 * The server decides from the bytes in the end.
 */
export async function kindOf(file: File): Promise<FileKind | null> {
  const extension = extensionOf(file.name);
  if (extension && BY_EXTENSION[extension]) return BY_EXTENSION[extension];
  if (BY_MIME[file.type]) return BY_MIME[file.type];
  return (await hasDicomMagic(file)) ? 'dicom' : null;
}

/** The problem with a chosen file, or null when it may be sent. */
export function fileProblem(file: File | null, kind: FileKind | null): string | null {
  if (!file) return UPLOAD_TEXTS.noFile;
  if (!kind) return UPLOAD_TEXTS.invalidType;
  if (file.size > MAX_UPLOAD_BYTES) return UPLOAD_TEXTS.tooLarge;
  if (file.size === 0) return UPLOAD_TEXTS.emptyFile;
  return null;
}

/** "1.3 GB", "2.4 MB", "830 KB", "12 bytes". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  return `${(bytes / (1024 * 1024 * 1024)).toFixed(1)} GB`;
}
