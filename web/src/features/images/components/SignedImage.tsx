import { useState, type ReactNode } from 'react';
import type { MedicalImage } from '@/types/images';
import { useLazyGetImageQuery } from '../api';

interface SignedImageProps {
  imageId: string;
  /** A signed URL of the list or of GET /api/upload/image/{id}. */
  src: string;
  /** Which URL of a freshly fetched image to use (preview_url or image_url). */
  pick: (image: MedicalImage) => string | null;
  alt: string;
  className?: string;
  /** Shown when the picture cannot be loaded at all. */
  fallback: ReactNode;
  lazy?: boolean;
}

type Attempt = { src: string; retried: boolean } | 'refreshing' | 'failed';

/**
 * An <img> of a signed URL. Signed URLs live 5 minutes: when one fails to
 * load, the image is fetched again once (GET /api/upload/image/{id}) for a
 * fresh URL; a second failure shows the fallback. Give it key={src}.
 */
export function SignedImage({ imageId, src, pick, alt, className, fallback, lazy = false }: SignedImageProps) {
  const [attempt, setAttempt] = useState<Attempt>({ src, retried: false });
  const [fetchImage] = useLazyGetImageQuery();

  async function onError() {
    if (typeof attempt !== 'object' || attempt.retried) {
      setAttempt('failed');
      return;
    }
    setAttempt('refreshing');
    try {
      const next = pick(await fetchImage(imageId).unwrap());
      setAttempt(next ? { src: next, retried: true } : 'failed');
    } catch {
      setAttempt('failed');
    }
  }

  if (attempt === 'failed') return <>{fallback}</>;
  if (attempt === 'refreshing') return null;
  return (
    <img
      src={attempt.src}
      alt={alt}
      className={className}
      loading={lazy ? 'lazy' : undefined}
      decoding="async"
      onError={() => void onError()}
    />
  );
}
