import { useState } from 'react';
import { Modal } from '@/components/Modal';
import { getErrorMessage } from '@/lib/api-client';
import { notifyError, notifySuccess } from '@/lib/notify';
import { deleteImage, type MedicalImage } from '../api';
import { captionOf, personName } from '../media';

interface DeleteImageModalProps {
  image: MedicalImage;
  onClose: () => void;
  onDeleted: () => void;
}

/** Asks before DELETE /api/upload/image/{id}; toasts the server's answer. */
export function DeleteImageModal({ image, onClose, onDeleted }: DeleteImageModalProps) {
  const [busy, setBusy] = useState(false);
  const patient = personName(image.patient);

  async function confirm() {
    setBusy(true);
    try {
      const result = await deleteImage(image.id);
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
