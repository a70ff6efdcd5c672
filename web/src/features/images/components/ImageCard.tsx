import { useId } from 'react';
import { ShareList, type ImageShare } from '@/features/sharing';
import { formatDate, formatDateTime } from '@/lib/format';
import type { MedicalImage } from '../api';
import { captionOf, mediaOf, personName, typeLabel } from '../media';
import { DocumentIcon, LockIcon, PdfIcon } from './icons';
import { SignedImage } from './SignedImage';

/** 'uploaded': Share and the image's shares; 'shared' (shared with the caller): sharer, expiry, Verify. */
export type CardVariant = 'uploaded' | 'shared';

interface ImageCardProps {
  image: MedicalImage;
  variant: CardVariant;
  /** The uploader and admins may delete (product.md §6, api.md). */
  canDelete: boolean;
  /** The uploader and admins may share, see the shares and revoke them. */
  canShare: boolean;
  onOpen: (image: MedicalImage) => void;
  onDelete: (image: MedicalImage) => void;
  onShare: (image: MedicalImage) => void;
  onVerify: (image: MedicalImage) => void;
  /** A share was revoked: the lists are stale. */
  onSharesChanged: () => void;
  /** Whether the caller may revoke one of the image's shares. */
  canRevoke?: (share: ImageShare) => boolean;
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
  onSharesChanged,
  canRevoke,
}: ImageCardProps) {
  const titleId = useId();
  const caption = captionOf(image);
  const viewable = image.image_url !== null;
  const sharedBy = personName(image.sharedBy);
  const received = variant === 'shared';
  const expires = received ? formatDateTime(image.expiresAt) : null;
  const sharing = variant === 'uploaded' && canShare;

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
              <dd>{personName(image.patient) || 'N/A'}</dd>
            </div>
            <div>
              <dt>Date</dt>
              <dd>
                <time dateTime={image.createdAt}>{formatDate(image.createdAt) ?? 'N/A'}</time>
              </dd>
            </div>
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
          <p className="image-card__type">{typeLabel(image)}</p>
          {sharing && <ShareList shares={image.shares ?? []} onRevoked={onSharesChanged} canRevoke={canRevoke} />}
        </div>
        <div className="image-card__actions">
          {viewable && (
            <button
              type="button"
              className="btn btn--primary btn--small image-card__open"
              aria-label={`View ${caption}`}
              onClick={() => onOpen(image)}
            >
              View
            </button>
          )}
          {sharing && (
            <button
              type="button"
              className="btn btn--outline btn--small"
              aria-label={`Share ${caption}`}
              onClick={() => onShare(image)}
            >
              Share
            </button>
          )}
          {received && !image.isVerified && (
            <button
              type="button"
              className="btn btn--primary btn--small"
              aria-label={`Verify ${caption}`}
              onClick={() => onVerify(image)}
            >
              Verify
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
