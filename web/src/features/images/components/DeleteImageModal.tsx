import { useState } from 'react';
import { Modal } from '@/components/Modal';
import { getErrorMessage } from '@/lib/api-client';
import { fullName } from '@/lib/format';
import { notifyError, notifySuccess } from '@/lib/notify';
import type { MedicalImage } from '@/types/images';
import { useDeleteImageMutation } from '../api';
import { captionOf } from '../media';

interface DeleteImageModalProps {
  image: MedicalImage;
  onClose: () => void;
  onDeleted: () => void;
}

/** Asks before DELETE /api/upload/image/{id}; toasts the server's answer. The lists refresh through the cache tags. */
export function DeleteImageModal({ image, onClose, onDeleted }: DeleteImageModalProps) {
  const [busy, setBusy] = useState(false);
  const [deleteImage] = useDeleteImageMutation();
  const patient = fullName(image.patient);

  async function confirm() {
    setBusy(true);
    try {
      const result = await deleteImage(image.id).unwrap();
      notifySuccess(result.message || 'Image deleted successfully.');
      onDeleted();
    } catch (error) {
      notifyError(getErrorMessage(error, 'The image could not be deleted. Please try again.'));
      setBusy(false);
    }
  }

  return (
    <Modal
      title="Delete image"
      onClose={() => !busy && onClose()}
      description={
        <>
          Delete <strong>{captionOf(image)}</strong>
          {patient ? ` (patient: ${patient})` : ''}? It is removed for everyone it was shared with. This cannot be
          undone.
        </>
      }
    >
      <div className="modal__actions">
        <button type="button" className="btn btn--outline" onClick={onClose} disabled={busy} data-autofocus>
          Cancel
        </button>
        <button type="button" className="btn btn--danger" onClick={() => void confirm()} disabled={busy}>
          {busy ? 'Deleting…' : 'Delete'}
        </button>
      </div>
    </Modal>
  );
}
