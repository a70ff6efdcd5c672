import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { TextField } from '@/components/Field';
import { Modal } from '@/components/Modal';
import { errorStatus, getErrorMessage } from '@/lib/api-client';
import { notifySuccess } from '@/lib/notify';
import { useVerifyShareMutation } from '../api';
import '@/components/forms.css';
import '../sharing.css';

/** The emailed code: six digits. */
const CODE_PATTERN = /^\d{6}$/;

interface VerifyImageModalProps {
  /** Prefilled from the card (editable). */
  sharingRequestId?: string | null;
  onClose: () => void;
  /** The code was right: the image can be seen now. */
  onVerified: () => void;
}

interface FieldErrors {
  sharingId?: string;
  code?: string;
}

/**
 * product.md §2 'Verify Image': the sharing id and the emailed code, sent to
 * POST /api/sharing/verify. A failure keeps the dialog open with the server's
 * text (attempts left, expired, voided) in an alert. The shared list refreshes
 * itself through the cache tags, also when the share turns out to have ended.
 */
export function VerifyImageModal({ sharingRequestId, onClose, onVerified }: VerifyImageModalProps) {
  const id = useId();
  const [verifyShare] = useVerifyShareMutation();
  const [sharingId, setSharingId] = useState(sharingRequestId ?? '');
  const [code, setCode] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState('');
  const [busy, setBusy] = useState(false);
  // The field to focus after the next render (the inputs are disabled while busy).
  const pendingFocus = useRef<{ name: 'sharing-id' | 'code'; select: boolean } | null>(null);

  useEffect(() => {
    const target = pendingFocus.current;
    if (!target) return;
    const input = document.getElementById(`${id}-${target.name}`);
    if (!(input instanceof HTMLInputElement) || input.disabled) return;
    pendingFocus.current = null;
    input.focus();
    if (target.select) input.select();
  });

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (busy) return;
    const shareId = sharingId.trim();
    const digits = code.replace(/\s+/g, '');
    const found: FieldErrors = {};
    if (!shareId) found.sharingId = 'Please enter the image sharing id.';
    if (!CODE_PATTERN.test(digits)) found.code = 'Please enter the 6-digit code from the email.';
    setErrors(found);
    setFailure('');
    if (found.sharingId || found.code) {
      pendingFocus.current = { name: found.sharingId ? 'sharing-id' : 'code', select: false };
      return;
    }
    setBusy(true);
    try {
      const result = await verifyShare({ sharingRequestId: shareId, verificationCode: digits }).unwrap();
      // product.md §4: success clears the inputs, closes the dialog and reloads the lists.
      setSharingId('');
      setCode('');
      notifySuccess(result.message || 'Image verified successfully.');
      onVerified();
    } catch (error) {
      // product.md §8: a failed verification is logged; it is also shown here.
      console.error('Image verification failed', error);
      setFailure(getErrorMessage(error, 'The image could not be verified. Please try again.'));
      setBusy(false);
      const status = errorStatus(error);
      // A share that has ended cannot be retried with another code.
      if (status !== 404 && status !== 410) pendingFocus.current = { name: 'code', select: true };
    }
  }

  return (
    <Modal
      title="Verify Image"
      onClose={() => !busy && onClose()}
      description="Enter the image sharing id and the 6-digit code from the email you received."
    >
      <form className="verify-form" onSubmit={(event) => void submit(event)} noValidate>
        <TextField
          id={`${id}-sharing-id`}
          label="Enter Image Sharing Id:"
          value={sharingId}
          autoComplete="off"
          spellCheck={false}
          autoCapitalize="off"
          disabled={busy}
          error={errors.sharingId}
          onChange={(event) => setSharingId(event.target.value)}
        />
        <TextField
          id={`${id}-code`}
          label="Enter Code:"
          value={code}
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={12}
          disabled={busy}
          error={errors.code}
          onChange={(event) => setCode(event.target.value)}
          data-autofocus={sharingRequestId ? true : undefined}
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
            {busy ? 'Verifying…' : 'Verify'}
          </button>
        </div>
      </form>
    </Modal>
  );
}
