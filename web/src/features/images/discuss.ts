import type { MedicalImage } from '@/types/images';

/**
 * "Discuss" on an image card: the conversation about the image with the
 * other person concerned, `/messages?with=<userId>&image=<imageId>`. On an
 * image the caller uploaded (admins: any image) that is its patient; on an
 * image shared with the caller, the person who shared it. The image is
 * attached only when the caller may see it: a share not verified yet leaves
 * it out (the server would refuse it) but still lets them write. null when
 * there is nobody else to write to.
 */
export function discussLink(image: MedicalImage, variant: 'uploaded' | 'shared', meId: string | undefined): string | null {
  const other = variant === 'uploaded' ? image.patient : image.sharedBy;
  if (!other?.id || other.id === meId) return null;
  const params = new URLSearchParams({ with: other.id });
  if (image.image_url) params.set('image', image.id);
  return `/messages?${params.toString()}`;
}
