import { useEffect, useId, useState } from 'react';
import { Spinner } from '@/components/Spinner';
import type { ImageShare } from '@/features/sharing';
import { useApiGet } from '@/lib/use-api-get';
import type { PagedResponse } from '@/types/api';
import { IMAGE_PAGE_SIZE, type MedicalImage } from '../api';
import { ImageCard, type CardVariant } from './ImageCard';

interface ImageSectionProps {
  title: string;
  /** The list endpoint, e.g. '/upload/my-images'. */
  url: string;
  emptyText: string;
  /** A line under the title. */
  note?: string;
  /** Which sharing parts the cards show. */
  variant: CardVariant;
  /** Bumped by the page to load the list again (after a delete, share, verify or revoke). */
  version: number;
  canDelete: (image: MedicalImage) => boolean;
  canShare: (image: MedicalImage) => boolean;
  onOpen: (image: MedicalImage) => void;
  onDelete: (image: MedicalImage, context: { lastOnPage: boolean; goBack: () => void }) => void;
  onShare: (image: MedicalImage) => void;
  onVerify: (image: MedicalImage) => void;
  onSharesChanged: () => void;
  canRevoke?: (share: ImageShare) => boolean;
}

/** A titled, paged list of image cards (product.md §2 /view-images). */
export function ImageSection({
  title,
  url,
  emptyText,
  note,
  variant,
  version,
  canDelete,
  canShare,
  onOpen,
  onDelete,
  onShare,
  onVerify,
  onSharesChanged,
  canRevoke,
}: ImageSectionProps) {
  const titleId = useId();
  const [page, setPage] = useState(1);
  const [retries, setRetries] = useState(0);
  const { data, error, loading } = useApiGet<PagedResponse<MedicalImage>>(
    url,
    { page, limit: IMAGE_PAGE_SIZE },
    version + retries,
  );

  useEffect(() => {
    // product.md §8: an image list failure is logged.
    if (error !== undefined) console.error('Failed to fetch images', error);
  }, [error]);

  const pagination = data?.pagination;
  // The answer on screen may be of the page before while the next one loads.
  const current = pagination && pagination.currentPage === page ? data : undefined;
  const images = current?.data ?? [];
  const totalPages = Math.max(1, pagination?.totalPages ?? 1);
  const showSpinner = loading && !current;

  return (
    <section className="image-section" aria-labelledby={titleId} aria-busy={loading}>
      <h2 id={titleId} className="image-section__title">
        {title}
      </h2>
      {note && <p className="image-section__note">{note}</p>}
      {showSpinner && <Spinner label={`Loading ${title.toLowerCase()}…`} />}
      {!loading && error !== undefined && (
        <div className="form-error image-section__error" role="alert">
          <p>The images could not be loaded.</p>
          <button type="button" className="btn btn--outline btn--small" onClick={() => setRetries((n) => n + 1)}>
            Try again
          </button>
        </div>
      )}
      {!showSpinner && error === undefined && current && images.length === 0 && (
        <p className="image-section__empty">{emptyText}</p>
      )}
      {images.length > 0 && (
        <ul className="image-grid" aria-label={title}>
          {images.map((image) => (
            <ImageCard
              key={`${image.id}:${image.preview_url ?? ''}`}
              image={image}
              variant={variant}
              canDelete={canDelete(image)}
              canShare={canShare(image)}
              onOpen={onOpen}
              onShare={onShare}
              onVerify={onVerify}
              onSharesChanged={onSharesChanged}
              canRevoke={canRevoke}
              onDelete={(target) =>
                onDelete(target, {
                  lastOnPage: images.length === 1 && page > 1,
                  goBack: () => setPage((n) => Math.max(1, n - 1)),
                })
              }
            />
          ))}
        </ul>
      )}
      {pagination && pagination.totalItems > 0 && (
        <nav className="pager" aria-label={`${title} pages`}>
          <button
            type="button"
            className="btn btn--outline btn--small"
            disabled={loading || !pagination.hasPrevPage}
            onClick={() => setPage(pagination.currentPage - 1)}
          >
            Previous
          </button>
          <p className="pager__position">
            <span className="visually-hidden">Page </span>
            <span>{`${pagination.currentPage} / ${totalPages}`}</span>
          </p>
          <button
            type="button"
            className="btn btn--outline btn--small"
            disabled={loading || !pagination.hasNextPage}
            onClick={() => setPage(pagination.currentPage + 1)}
          >
            Next
          </button>
        </nav>
      )}
    </section>
  );
}
