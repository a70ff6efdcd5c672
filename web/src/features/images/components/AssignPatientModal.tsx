import { useState, type FormEvent } from 'react';
import { Modal } from '@/components/Modal';
import { UserPicker } from '@/components/UserPicker';
import { getErrorMessage } from '@/lib/api-client';
import { notifyError, notifySuccess } from '@/lib/notify';
import type { User } from '@/types/api';
import type { MedicalImage } from '@/types/images';
import { useUpdateImageMutation } from '../api';
import { PATIENT_PICKER_TEXTS, UPLOAD_TEXTS } from '../file-rules';
import { captionOf } from '../media';

/**
 * Gives a study that arrived without a patient (from a PACS) its patient:
 * PATCH /api/upload/image/{id} {patientId}. The lists refresh through the
 * cache tags, and the study joins the ordinary ones.
 */
export function AssignPatientModal({ image, onClose }: { image: MedicalImage; onClose: () => void }) {
  const [patient, setPatient] = useState<User | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [updateImage] = useUpdateImageMutation();

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!patient) {
      setError(UPLOAD_TEXTS.noPatient);
      return;
    }
    setBusy(true);
    setFailure(null);
    try {
      const result = await updateImage({ id: image.id, patientId: patient.id }).unwrap();
      notifySuccess(result.message || 'Patient assigned.');
      onClose();
    } catch (failed) {
      const message = getErrorMessage(failed, 'The patient could not be assigned. Please try again.');
      // Kept inside the dialog as well: a toast sits outside the aria-modal dialog.
      setFailure(message);
      notifyError(message);
      setBusy(false);
    }
  }

  return (
    <Modal
      title="Choose patient"
      onClose={() => !busy && onClose()}
      size="large"
      description={
        <>
          Who is <strong>{captionOf(image)}</strong> for? The study then appears under their name, and may be shared
          with them.
        </>
      }
    >
      <form noValidate onSubmit={(event) => void onSubmit(event)} aria-label={`Choose patient for ${captionOf(image)}`}>
        <UserPicker
          texts={PATIENT_PICKER_TEXTS}
          onlyRole="patient"
          selected={patient}
          error={error ?? undefined}
          disabled={busy}
          onSelect={(picked) => {
            setPatient(picked);
            setError(null);
          }}
        />
        {failure && (
          <p className="form-error" role="alert">
            {failure}
          </p>
        )}
        <div className="modal__actions">
          <button type="button" className="btn btn--outline" onClick={onClose} disabled={busy}>
            Cancel
          </button>
          <button type="submit" className="btn btn--primary" disabled={busy}>
            {busy ? 'Saving…' : 'Assign'}
          </button>
        </div>
      </form>
    </Modal>
  );
}
