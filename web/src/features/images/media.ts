import type { MedicalImage, StudyFacts } from '@/types/images';

/** What a card or the viewer can show of an image. */
export type Media =
  | { kind: 'locked' }
  | { kind: 'picture'; src: string }
  | { kind: 'pdf' }
  | { kind: 'no-preview' }
  | { kind: 'unsupported'; type: string };

const TYPE_LABELS: Record<string, string> = {
  'image/jpeg': 'JPEG',
  'image/png': 'PNG',
  'application/pdf': 'PDF',
  'application/dicom': 'DICOM',
};

/**
 * product.md §2: the image, a PDF icon, 'Unsupported file type: {type}', or
 * 'Image not Verified' (no image_url: a share not verified yet). A DICOM
 * file without pixels gets a document icon and 'Preview not available.'.
 */
export function mediaOf(image: MedicalImage): Media {
  if (!image.image_url) return { kind: 'locked' };
  if (image.preview_url) return { kind: 'picture', src: image.preview_url };
  switch (image.contentType) {
    case 'application/pdf':
      return { kind: 'pdf' };
    case 'application/dicom':
      return { kind: 'no-preview' };
    case 'image/jpeg':
    case 'image/png':
      return { kind: 'picture', src: image.image_url };
    default:
      return { kind: 'unsupported', type: image.contentType || 'unknown' };
  }
}

/** "DICOM · CT", "PDF", "JPEG". */
export function typeLabel(image: MedicalImage): string {
  const label = TYPE_LABELS[image.contentType] ?? image.contentType;
  const modality = image.dicom?.modality?.trim();
  return modality ? `${label} · ${modality}` : label;
}

/** product.md §2: the caption falls back to 'Untitled'. */
export function captionOf(image: Pick<MedicalImage, 'caption'>): string {
  return image.caption && image.caption.trim() ? image.caption : 'Untitled';
}

/** A DICOM date (YYYYMMDD) as an ISO date (YYYY-MM-DD), or null when it is not one. */
export function dicomDate(value: string | null | undefined): string | null {
  const match = /^(\d{4})(\d{2})(\d{2})$/.exec(value?.trim() ?? '');
  return match ? `${match[1]}-${match[2]}-${match[3]}` : null;
}

/** "3 series · 6 instances", "1 series · 1 instance". */
export function studyCounts(series: number, instances: number): string {
  return `${series} series · ${instances} ${instances === 1 ? 'instance' : 'instances'}`;
}

/**
 * The study a card or the viewer shows as one, or null. Every DICOM upload
 * is a study on the server; one of a single instance is shown as the DICOM
 * file it is (its preview and facts in the viewer), as single uploads
 * always were.
 */
export function studyOf(image: Pick<MedicalImage, 'study'>): StudyFacts | null {
  return image.study && image.study.instances > 1 ? image.study : null;
}

/** Whether the DICOM viewer opens it: a study (or single DICOM instance) with pixels to fetch, a JPEG or a PNG. */
export function inViewer(image: Pick<MedicalImage, 'study' | 'contentType' | 'image_url'>): boolean {
  if (!image.image_url) return false;
  return Boolean(image.study) || image.contentType === 'image/jpeg' || image.contentType === 'image/png';
}
