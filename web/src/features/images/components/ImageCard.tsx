import { useId, type ReactNode } from 'react';
import { Link } from 'react-router';
import { formatDate, formatDateTime, fullName } from '@/lib/format';
import type { MedicalImage } from '@/types/images';
import { captionOf, dicomDate, mediaOf, studyCounts, studyOf, typeLabel } from '../media';
import { DocumentIcon, LockIcon, PdfIcon } from './icons';
import { SignedImage } from './SignedImage';

/** 'uploaded': Share and the image's shares; 'shared' (shared with the caller): sharer, expiry, Verify. */
export type CardVariant = 'uploaded' | 'shared';

interface ImageCardProps {
  image: MedicalImage;
  variant: CardVariant;
  /** The uploader and admins may delete (product.md §6, api.md). */
  canDelete: boolean;
  /** The uploader and admins may share and see the shares. */
  canShare: boolean;
  onOpen: (image: MedicalImage) => void;
  onDelete: (image: MedicalImage) => void;
  /** Without it the card offers no Share. */
  onShare?: (image: MedicalImage) => void;
  /** Without it the card offers no Verify. */
  onVerify?: (image: MedicalImage) => void;
  /** Who the image is shared with, shown when the caller may share it. */
  shares?: ReactNode;
  /** Where "Discuss" leads (a conversation about the image); without it the card offers no Discuss. */
  discussHref?: string | null;
  /** Opens "Who has seen this"; without it the card does not offer it. */
  onHistory?: (image: MedicalImage) => void;
  /** Where "AI analysis" leads; without it the card does not offer it. */
  analysisHref?: string | null;
  /** Where "Open viewer" leads (the DICOM viewer); without it the card does not offer it. */
  viewerHref?: string | null;
  /** Opens the patient picker of a study without a patient; without it the card does not offer it. */
  onAssign?: (image: MedicalImage) => void;
}

function NoPreview() {
  return (
    <div className="image-card__placeholder">
      <DocumentIcon />
      <p>Preview not available.</p>
    </div>
  );
}

function CardMedia({ image }: { image: MedicalImage }) {
  const media = mediaOf(image);
  const caption = captionOf(image);
  switch (media.kind) {
    case 'locked':
      return (
        <div className="image-card__placeholder image-card__placeholder--locked">
          <LockIcon />
          <p>Image not Verified</p>
        </div>
      );
    case 'picture':
      return (
        <SignedImage
          key={media.src}
          imageId={image.id}
          src={media.src}
          pick={(fresh) => fresh.preview_url ?? (fresh.contentType.startsWith('image/') ? fresh.image_url : null)}
          alt={`Preview: ${caption}`}
          className="image-card__image"
          fallback={<NoPreview />}
          lazy
        />
      );
    case 'pdf':
      return (
        <div className="image-card__placeholder">
          <PdfIcon className="media-icon media-icon--pdf" />
          <p className="visually-hidden">PDF document</p>
        </div>
      );
    case 'no-preview':
      return <NoPreview />;
    case 'unsupported':
      return (
        <div className="image-card__placeholder">
          <DocumentIcon />
          <p>{`Unsupported file type: ${media.type}`}</p>
        </div>
      );
  }
}

/** One image of a list: its media, caption, patient and date, its sharing, and its actions. */
export function ImageCard({
  image,
  variant,
  canDelete,
  canShare,
  onOpen,
  onDelete,
  onShare,
  onVerify,
  shares,
  discussHref,
  onHistory,
  analysisHref,
  viewerHref,
  onAssign,
}: ImageCardProps) {
  const titleId = useId();
  const caption = captionOf(image);
  const viewable = image.image_url !== null;
  const sharedBy = fullName(image.sharedBy);
  const received = variant === 'shared';
  const expires = received ? formatDateTime(image.expiresAt) : null;
  const sharing = variant === 'uploaded' && canShare;
  // A share not verified yet withholds the upload date: show when it was shared.
  const date = image.createdAt ?? image.sharedAt ?? null;
  const study = studyOf(image);
  const studyDate = dicomDate(study?.date);

  return (
    <li className="image-card">
      <article className="image-card__inner" aria-labelledby={titleId}>
        <div className="image-card__media">
          <CardMedia image={image} />
        </div>
        <div className="image-card__body">
          <h3 id={titleId} className="image-card__title">
            {caption}
          </h3>
          <dl className="image-card__facts">
            <div>
              <dt>Patient</dt>
              <dd>{fullName(image.patient) || 'N/A'}</dd>
            </div>
            <div>
              <dt>Date</dt>
              <dd>{date ? <time dateTime={date}>{formatDate(date)}</time> : 'N/A'}</dd>
            </div>
            {study && (
              <div>
                <dt>Study date</dt>
                <dd>{studyDate ? <time dateTime={studyDate}>{formatDate(studyDate)}</time> : 'N/A'}</dd>
              </div>
            )}
            {sharedBy && (
              <div>
                <dt>Shared by</dt>
                <dd>{sharedBy}</dd>
              </div>
            )}
            {expires && image.expiresAt && (
              <div>
                <dt>Expires</dt>
                <dd>
                  <time dateTime={image.expiresAt}>{expires}</time>
                </dd>
              </div>
            )}
          </dl>
          {study ? (
            <>
              <p className="image-card__type">{['DICOM study', study.modalities.join(', ')].filter(Boolean).join(' · ')}</p>
              <p className="image-card__counts">{studyCounts(study.series, study.instances)}</p>
            </>
          ) : (
            <p className="image-card__type">{typeLabel(image)}</p>
          )}
          {sharing && shares}
        </div>
        <div className="image-card__actions">
          {viewable && study && (
            <button
              type="button"
              className="btn btn--primary btn--small image-card__open"
              aria-label={`Open study ${caption}`}
              onClick={() => onOpen(image)}
            >
              Open study
            </button>
          )}
          {viewable && !study && (
            <button
              type="button"
              className="btn btn--primary btn--small image-card__open"
              aria-label={`View ${caption}`}
              onClick={() => onOpen(image)}
            >
              View
            </button>
          )}
          {viewable && viewerHref && (
            <Link className="btn btn--outline btn--small" to={viewerHref} aria-label={`Open viewer: ${caption}`}>
              Open viewer
            </Link>
          )}
          {onAssign && (
            <button
              type="button"
              className="btn btn--primary btn--small"
              aria-label={`Choose patient for ${caption}`}
              onClick={() => onAssign(image)}
            >
              Choose patient
            </button>
          )}
          {sharing && onShare && (
            <button
              type="button"
              className="btn btn--outline btn--small"
              aria-label={`Share ${caption}`}
              onClick={() => onShare(image)}
            >
              Share
            </button>
          )}
          {received && !image.isVerified && onVerify && (
            <button
              type="button"
              className="btn btn--primary btn--small"
              aria-label={`Verify ${caption}`}
              onClick={() => onVerify(image)}
            >
              Verify
            </button>
          )}
          {discussHref && (
            <Link className="btn btn--outline btn--small" to={discussHref} aria-label={`Discuss ${caption}`}>
              Discuss
            </Link>
          )}
          {analysisHref && (
            <Link className="btn btn--outline btn--small" to={analysisHref} aria-label={`AI analysis: ${caption}`}>
              AI analysis
            </Link>
          )}
          {onHistory && (
            <button
              type="button"
              className="btn btn--outline btn--small"
              aria-label={`Who has seen this: ${caption}`}
              onClick={() => onHistory(image)}
            >
              Who has seen this
            </button>
          )}
          {canDelete && (
            <button
              type="button"
              className="btn btn--danger-outline btn--small"
              aria-label={`Delete ${caption}`}
              onClick={() => onDelete(image)}
            >
              Delete
            </button>
          )}
        </div>
      </article>
    </li>
  );
}
