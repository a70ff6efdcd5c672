import { useEffect, useId, useState, type ReactNode } from 'react';
import { Spinner } from '@/components/Spinner';
import type { MedicalImage } from '@/types/images';
import { useListImagesQuery, useListUnassignedQuery, type ImageList } from '../api';
import { ImageCard, type CardVariant } from './ImageCard';

interface ImageSectionProps {
  title: string;
  list: ImageList;
  emptyText: string;
  /** A line under the title. */
  note?: string;
  /** Which sharing parts the cards show. */
  variant: CardVariant;
  canDelete: (image: MedicalImage) => boolean;
  canShare: (image: MedicalImage) => boolean;
  onOpen: (image: MedicalImage) => void;
  onDelete: (image: MedicalImage, context: { lastOnPage: boolean; goBack: () => void }) => void;
  onShare?: (image: MedicalImage) => void;
  onVerify?: (image: MedicalImage) => void;
  /** Who an image is shared with, on the cards the caller may share. */
  renderShares?: (image: MedicalImage) => ReactNode;
  /** Where a card's "Discuss" leads, or null for none. */
  discussHref?: (image: MedicalImage) => string | null;
  /** Opens an image's "Who has seen this", for the images whose history the caller may read. */
  onHistory?: (image: MedicalImage) => void;
  canSeeHistory?: (image: MedicalImage) => boolean;
  /** Where a card's "AI analysis" leads, or null for none. */
  analysisHref?: (image: MedicalImage) => string | null;
  /** Where "Open viewer" leads (the DICOM viewer page); without it cards offer no viewer. */
  viewerHref?: (image: MedicalImage) => string | null;
  /**
   * Offers "Choose patient" on the caller's studies without a patient
   * (GET /api/upload/unassigned; their list leaves them out), listed first,
   * under "Unassigned".
   */
  onAssign?: (image: MedicalImage) => void;
  canAssign?: (image: MedicalImage) => boolean;
}

/**
 * A titled, paged list of image cards (product.md §2 /view-images). The list
 * reloads itself when a write changes it (cache tags).
 */
export function ImageSection({
  title,
  list,
  emptyText,
  note,
  variant,
  canDelete,
  canShare,
  onOpen,
  onDelete,
  onShare,
  onVerify,
  renderShares,
  discussHref,
  onHistory,
  canSeeHistory,
  analysisHref,
  viewerHref,
  onAssign,
  canAssign,
}: ImageSectionProps) {
  const titleId = useId();
  const unassignedId = useId();
  const [page, setPage] = useState(1);
  // currentData is this page's answer only: another page's never shows while the next one loads.
  const { data, currentData, error, isError, isFetching, refetch } = useListImagesQuery({ list, page });
  const { data: waiting } = useListUnassignedQuery(undefined, { skip: !onAssign || list !== 'my-images' });

  useEffect(() => {
    // product.md §8: an image list failure is logged.
    if (isError) console.error('Failed to fetch images', error);
  }, [isError, error]);

  const pagination = data?.pagination;
  const all = currentData?.data ?? [];
  const unassigned = (waiting ?? []).filter((image) => canAssign?.(image) ?? false);
  const images = all;
  const totalPages = Math.max(1, pagination?.totalPages ?? 1);
  const showSpinner = isFetching && !currentData;

  const card = (image: MedicalImage, assign: boolean) => (
    <ImageCard
      key={`${image.id}:${image.preview_url ?? ''}`}
      image={image}
      variant={variant}
      canDelete={canDelete(image)}
      canShare={canShare(image)}
      onOpen={onOpen}
      onShare={onShare}
      onVerify={onVerify}
      shares={renderShares?.(image)}
      discussHref={discussHref?.(image)}
      onHistory={canSeeHistory?.(image) ? onHistory : undefined}
      analysisHref={analysisHref?.(image)}
      viewerHref={viewerHref?.(image)}
      onAssign={assign ? onAssign : undefined}
      onDelete={(target) =>
        onDelete(target, {
          lastOnPage: all.length === 1 && page > 1,
          goBack: () => setPage((n) => Math.max(1, n - 1)),
        })
      }
    />
  );

  return (
    <section className="image-section" aria-labelledby={titleId} aria-busy={isFetching}>
      <h2 id={titleId} className="image-section__title">
        {title}
      </h2>
      {note && <p className="image-section__note">{note}</p>}
      {showSpinner && <Spinner label={`Loading ${title.toLowerCase()}…`} />}
      {!isFetching && isError && (
        <div className="form-error image-section__error" role="alert">
          <p>The images could not be loaded.</p>
          <button type="button" className="btn btn--outline btn--small" onClick={() => void refetch()}>
            Try again
          </button>
        </div>
      )}
      {!showSpinner && !isError && currentData && all.length === 0 && (
        <p className="image-section__empty">{emptyText}</p>
      )}
      {unassigned.length > 0 && (
        <section className="image-subsection" aria-labelledby={unassignedId}>
          <h3 id={unassignedId} className="image-subsection__title">
            Unassigned
          </h3>
          <p className="image-subsection__note">
            Studies that arrived without a patient. Choose who each is for; it then joins the list below.
          </p>
          <ul className="image-grid" aria-label="Unassigned">
            {unassigned.map((image) => card(image, true))}
          </ul>
        </section>
      )}
      {images.length > 0 && (
        <ul className="image-grid" aria-label={title}>
          {images.map((image) => card(image, false))}
        </ul>
      )}
      {pagination && pagination.totalItems > 0 && (
        <nav className="pager" aria-label={`${title} pages`}>
          <button
            type="button"
            className="btn btn--outline btn--small"
            disabled={isFetching || !pagination.hasPrevPage}
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
            disabled={isFetching || !pagination.hasNextPage}
            onClick={() => setPage(pagination.currentPage + 1)}
          >
            Next
          </button>
        </nav>
      )}
    </section>
  );
}
