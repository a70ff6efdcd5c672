import { useState, type FormEvent } from 'react';
import { Modal } from '@/components/Modal';
import { PasswordField } from '@/components/PasswordField';
import { getErrorMessage } from '@/lib/api-client';
import { notifyError, notifySuccess } from '@/lib/notify';
import { useDeleteOwnAccountMutation } from '../api';

interface DeleteAccountModalProps {
  onClose: () => void;
  onDeleted: () => void;
}

/** Confirms the deletion of one's own account with the password (api.md "Users"). */
export function DeleteAccountModal({ onClose, onDeleted }: DeleteAccountModalProps) {
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [deleteOwnAccount] = useDeleteOwnAccountMutation();

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (password === '') {
      setError('Please enter your password to confirm.');
      return;
    }
    setError(null);
    setBusy(true);
    try {
      const result = await deleteOwnAccount(password).unwrap();
      notifySuccess(result.message || 'Your account has been deleted.');
      onDeleted();
    } catch (failure) {
      notifyError(getErrorMessage(failure, 'An error occurred. Please try again.'));
      setBusy(false);
    }
  }

  return (
    <Modal
      title="Delete Account"
      onClose={onClose}
      description="This deactivates your account, erases your profile details and signs you out everywhere. Records and audit entries are kept. This cannot be undone."
    >
      <form noValidate onSubmit={onSubmit} aria-label="Delete Account">
        <PasswordField
          id="delete-password"
          label="Password"
          autoComplete="current-password"
          value={password}
          error={error ?? undefined}
          onChange={(event) => setPassword(event.target.value)}
        />
        <div className="modal__actions">
          <button type="button" className="btn btn--outline" onClick={onClose} disabled={busy}>
            Cancel
          </button>
          <button type="submit" className="btn btn--danger" disabled={busy}>
            {busy ? 'Deleting…' : 'Delete my account'}
          </button>
        </div>
      </form>
    </Modal>
  );
}
