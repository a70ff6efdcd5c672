import { useState, type FormEvent } from 'react';
import { TextField } from '@/components/Field';
import { Modal } from '@/components/Modal';
import { Spinner } from '@/components/Spinner';
import { fieldErrorMap, getErrorMessage } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';
import { notifyError, notifySuccess } from '@/lib/notify';
import { createPasskey, passkeyFailureText } from '@/lib/webauthn';
import {
  useBeginPasskeyRegistrationMutation,
  useFinishPasskeyRegistrationMutation,
  useListPasskeysQuery,
  useRemovePasskeyMutation,
  useRenamePasskeyMutation,
  type Passkey,
} from '../security-api';

const NAME_MAX = 64;
const DEFAULT_NAME = 'Passkey';

function nameError(name: string): string | undefined {
  if (name.length > NAME_MAX) return `The name must be at most ${NAME_MAX} characters.`;
  return undefined;
}

interface PasskeysPanelProps {
  /** The passkeys listed: the session's user keeps the count. */
  onCount: (count: number) => void;
  /** The first passkey of an account without an authenticator brings the recovery codes. */
  onRecoveryCodes: (codes: string[]) => void;
}

/** Passkeys: added with the browser's prompt, renamed, removed. */
export function PasskeysPanel({ onCount, onRecoveryCodes }: PasskeysPanelProps) {
  const { data: passkeys, error, isError, isLoading } = useListPasskeysQuery();
  const [begin] = useBeginPasskeyRegistrationMutation();
  const [finish] = useFinishPasskeyRegistrationMutation();
  const [name, setName] = useState('');
  const [formError, setFormError] = useState<string | null>(null);
  const [adding, setAdding] = useState(false);
  const [renaming, setRenaming] = useState<Passkey | null>(null);
  const [removing, setRemoving] = useState<Passkey | null>(null);

  async function onAdd(event: FormEvent) {
    event.preventDefault();
    const trimmed = name.trim();
    const invalid = nameError(trimmed);
    if (invalid) {
      setFormError(invalid);
      document.getElementById('passkey-name')?.focus();
      return;
    }
    setFormError(null);
    setAdding(true);
    try {
      const { data: options } = await begin().unwrap();
      let credential;
      try {
        credential = await createPasskey(options);
      } catch (browserError) {
        setFormError(passkeyFailureText(browserError));
        return;
      }
      const result = await finish({ name: trimmed || DEFAULT_NAME, credential }).unwrap();
      notifySuccess(result.message || 'Passkey added.');
      setName('');
      onCount((passkeys?.length ?? 0) + 1);
      if (result.data.recoveryCodes?.length) onRecoveryCodes(result.data.recoveryCodes);
    } catch (failure) {
      setFormError(fieldErrorMap(failure).name ?? getErrorMessage(failure, 'The passkey could not be added. Please try again.'));
    } finally {
      setAdding(false);
    }
  }

  return (
    <div className="security__factor" role="group" aria-labelledby="passkeys-title">
      <h3 id="passkeys-title" className="access-tokens__subtitle">
        Passkeys
      </h3>
      <p className="security__status">
        Status: <strong>{passkeys?.length ? `On (${passkeys.length} ${passkeys.length === 1 ? 'passkey' : 'passkeys'})` : 'Off'}</strong>
      </p>
      <p className="field__hint">
        A passkey is kept by this device, a phone or a security key, and unlocked with its fingerprint, face or PIN.
      </p>

      {isLoading && <Spinner label="Loading your passkeys…" />}
      {isError && !passkeys && (
        <p className="form-error" role="alert">
          {getErrorMessage(error, 'Your passkeys could not be loaded. Please try again.')}
        </p>
      )}
      {passkeys && passkeys.length > 0 && (
        <ul className="access-tokens__list" aria-labelledby="passkeys-title">
          {passkeys.map((passkey) => (
            <li key={passkey.id} className="access-tokens__item">
              <p className="access-tokens__name">{passkey.name}</p>
              <dl className="access-tokens__facts">
                <div>
                  <dt>Added</dt>
                  <dd>{formatDateTime(passkey.createdAt)}</dd>
                </div>
                <div>
                  <dt>Last used</dt>
                  <dd>{formatDateTime(passkey.lastUsedAt) ?? 'Never'}</dd>
                </div>
              </dl>
              <div className="security__actions">
                <button type="button" className="btn btn--outline btn--small" aria-label={`Rename ${passkey.name}`} onClick={() => setRenaming(passkey)}>
                  Rename
                </button>
                <button
                  type="button"
                  className="btn btn--danger-outline btn--small"
                  aria-label={`Remove ${passkey.name}`}
                  onClick={() => setRemoving(passkey)}
                >
                  Remove
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}

      <form className="security__form" noValidate onSubmit={(event) => void onAdd(event)} aria-label="Add a passkey">
        <TextField
          id="passkey-name"
          label="Passkey name"
          hint={`Optional, such as Work laptop; “${DEFAULT_NAME}” if left empty.`}
          value={name}
          maxLength={NAME_MAX}
          autoComplete="off"
          aria-describedby={formError ? 'passkey-error' : undefined}
          onChange={(event) => setName(event.target.value)}
        />
        {formError && (
          <p className="form-error" id="passkey-error" role="alert">
            {formError}
          </p>
        )}
        <div className="security__actions">
          <button type="submit" className="btn btn--primary" disabled={adding}>
            {adding ? 'Waiting for the passkey…' : 'Add a passkey'}
          </button>
        </div>
      </form>

      {renaming && <RenamePasskeyModal passkey={renaming} onClose={() => setRenaming(null)} />}
      {removing && (
        <RemovePasskeyModal
          passkey={removing}
          onClose={() => setRemoving(null)}
          onRemoved={() => {
            setRemoving(null);
            onCount(Math.max(0, (passkeys?.length ?? 1) - 1));
          }}
        />
      )}
    </div>
  );
}

function RenamePasskeyModal({ passkey, onClose }: { passkey: Passkey; onClose: () => void }) {
  const [rename, { isLoading: busy }] = useRenamePasskeyMutation();
  const [name, setName] = useState(passkey.name);
  const [error, setError] = useState<string | undefined>();

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    const trimmed = name.trim();
    const invalid = trimmed === '' ? 'Please give the passkey a name.' : nameError(trimmed);
    if (invalid) {
      setError(invalid);
      return;
    }
    try {
      const result = await rename({ id: passkey.id, name: trimmed }).unwrap();
      notifySuccess(result.message || 'Passkey renamed.');
      onClose();
    } catch (failure) {
      setError(fieldErrorMap(failure).name ?? getErrorMessage(failure, 'The passkey could not be renamed. Please try again.'));
    }
  }

  return (
    <Modal title="Rename passkey" onClose={onClose}>
      <form noValidate onSubmit={(event) => void onSubmit(event)}>
        <TextField
          id="passkey-rename"
          label="Name"
          value={name}
          maxLength={NAME_MAX}
          required
          autoComplete="off"
          error={error}
          data-autofocus
          onChange={(event) => setName(event.target.value)}
        />
        <div className="modal__actions">
          <button type="button" className="btn btn--outline" onClick={onClose} disabled={busy}>
            Cancel
          </button>
          <button type="submit" className="btn btn--primary" disabled={busy}>
            {busy ? 'Saving…' : 'Save'}
          </button>
        </div>
      </form>
    </Modal>
  );
}

function RemovePasskeyModal({ passkey, onClose, onRemoved }: { passkey: Passkey; onClose: () => void; onRemoved: () => void }) {
  const [remove, { isLoading: busy }] = useRemovePasskeyMutation();

  async function onConfirm() {
    try {
      const result = await remove(passkey.id).unwrap();
      notifySuccess(result.message || 'The passkey is removed.');
      onRemoved();
    } catch (failure) {
      notifyError(getErrorMessage(failure, 'The passkey could not be removed. Please try again.'));
    }
  }

  return (
    <Modal title="Remove passkey" onClose={onClose} description={`“${passkey.name}” will no longer sign you in.`}>
      <div className="modal__actions">
        <button type="button" className="btn btn--outline" onClick={onClose} disabled={busy} data-autofocus>
          Cancel
        </button>
        <button type="button" className="btn btn--danger" onClick={() => void onConfirm()} disabled={busy}>
          {busy ? 'Removing…' : 'Remove passkey'}
        </button>
      </div>
    </Modal>
  );
}
