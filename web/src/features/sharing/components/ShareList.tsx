import { useId, useState } from 'react';
import { getErrorMessage } from '@/lib/api-client';
import { formatDateTime, fullName } from '@/lib/format';
import { notifyError, notifySuccess } from '@/lib/notify';
import type { ImageShare } from '@/types/images';
import { useExtendShareMutation, useRevokeShareMutation } from '../api';
import { isOpen, statusLabel } from '../labels';
import '../sharing.css';

interface ShareListProps {
  /** The image the shares belong to. */
  imageId: string;
  shares: ImageShare[];
  /** Whether the caller may revoke a share (its sharer or an admin); all by default. */
  canRevoke?: (share: ImageShare) => boolean;
  /** Whether the caller may extend a share (its sharer only); none by default. */
  canExtend?: (share: ImageShare) => boolean;
}

/** What "Extend by a day" adds; the server keeps the whole lifetime within the admin's maximum. */
const EXTEND_HOURS = 24;

function Expiry({ share }: { share: ImageShare }) {
  if (share.status === 'voided') return null;
  const when = formatDateTime(share.expiresAt);
  if (!when) return null;
  return (
    <span className="share-item__expiry">
      {share.status === 'expired' ? 'Expired ' : 'Expires '}
      <time dateTime={share.expiresAt}>{when}</time>
    </span>
  );
}

/**
 * Who an image is shared with (uploader and admins): each current share with
 * its status and expiry, Revoke (DELETE /api/sharing/{id}) for the ones
 * that still give access, and, for their sender, "Extend by a day" (an
 * expired share opens again).
 */
export function ShareList({ imageId, shares, canRevoke = () => true, canExtend = () => false }: ShareListProps) {
  const titleId = useId();
  const [busyId, setBusyId] = useState<string | null>(null);
  const [revokeShare] = useRevokeShareMutation();
  const [extendShare] = useExtendShareMutation();

  async function extend(share: ImageShare) {
    setBusyId(share.id);
    try {
      const result = await extendShare({ id: share.id, imageId, hours: EXTEND_HOURS }).unwrap();
      notifySuccess(result.message || 'Share extended.');
    } catch (error) {
      notifyError(getErrorMessage(error, 'The share could not be extended. Please try again.'));
    } finally {
      setBusyId(null);
    }
  }

  async function revoke(share: ImageShare) {
    setBusyId(share.id);
    try {
      // The card's image is refetched with its shares (cache tags).
      const result = await revokeShare({ id: share.id, imageId }).unwrap();
      notifySuccess(result.message || 'Share revoked.');
    } catch (error) {
      notifyError(getErrorMessage(error, 'The share could not be revoked. Please try again.'));
    } finally {
      setBusyId(null);
    }
  }

  return (
    <div className="share-list">
      <p id={titleId} className="share-list__title">
        Shared with
      </p>
      {shares.length === 0 ? (
        <p className="share-list__none">Not shared.</p>
      ) : (
        <ul className="share-list__items" aria-labelledby={titleId}>
          {shares.map((share) => {
            const name = fullName(share.sharedWith) || 'Unknown user';
            const busy = busyId === share.id;
            return (
              <li key={share.id} className="share-item">
                <span className="share-item__name">{name}</span>
                <span className={`share-status share-status--${share.status}`}>{statusLabel(share.status)}</span>
                <Expiry share={share} />
                {(isOpen(share.status) || share.status === 'expired') && canExtend(share) && (
                  <button
                    type="button"
                    className="btn btn--outline btn--small share-item__extend"
                    aria-label={`Extend share with ${name} by a day`}
                    disabled={busyId !== null}
                    onClick={() => void extend(share)}
                  >
                    Extend by a day
                  </button>
                )}
                {isOpen(share.status) && canRevoke(share) && (
                  <button
                    type="button"
                    className="btn btn--danger-outline btn--small share-item__revoke"
                    aria-label={busy ? `Revoking share with ${name}` : `Revoke share with ${name}`}
                    disabled={busyId !== null}
                    onClick={() => void revoke(share)}
                  >
                    {busy ? 'Revoking…' : 'Revoke'}
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
