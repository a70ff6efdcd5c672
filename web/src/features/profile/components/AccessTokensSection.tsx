import { useEffect, useRef, useState, type FormEvent } from 'react';
import { TextField } from '@/components/Field';
import { Modal } from '@/components/Modal';
import { Spinner } from '@/components/Spinner';
import { fieldErrorMap, getErrorMessage } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';
import { notifyError, notifySuccess } from '@/lib/notify';
import {
  useCreateAccessTokenMutation,
  useListAccessTokensQuery,
  useRevokeAccessTokenMutation,
  type AccessToken,
  type CreatedAccessToken,
} from '../api';

const NAME_MAX = 100;
const MIN_DAYS = 1;
const MAX_DAYS = 365;
const DEFAULT_DAYS = '90';

interface FormErrors {
  name?: string;
  expiresInDays?: string;
}

/** The form's own checks, the server's rules (api.md "Personal access tokens"). */
function validate(name: string, days: string): FormErrors {
  const errors: FormErrors = {};
  const trimmed = name.trim();
  if (trimmed === '') errors.name = 'Please give the token a name.';
  else if (trimmed.length > NAME_MAX) errors.name = `The name must be at most ${NAME_MAX} characters.`;
  const value = Number(days);
  if (days.trim() === '' || !Number.isInteger(value) || value < MIN_DAYS || value > MAX_DAYS) {
    errors.expiresInDays = `The lifetime must be a whole number of days from ${MIN_DAYS} to ${MAX_DAYS}.`;
  }
  return errors;
}

function focusField(id: string) {
  document.getElementById(id)?.focus();
}

/**
 * Access tokens on /profile: the caller's live personal access tokens, with
 * which a machine (a PACS) sends and fetches studies through DICOMweb as
 * them; a form that makes one and shows its secret once; and revocation
 * behind a confirmation.
 */
export function AccessTokensSection() {
  const { data: tokens, error, isError, isLoading } = useListAccessTokensQuery();
  const [createToken, { isLoading: creating }] = useCreateAccessTokenMutation();
  const [name, setName] = useState('');
  const [days, setDays] = useState(DEFAULT_DAYS);
  const [errors, setErrors] = useState<FormErrors>({});
  const [created, setCreated] = useState<CreatedAccessToken | null>(null);
  const [revoking, setRevoking] = useState<AccessToken | null>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const secretRef = useRef<HTMLInputElement>(null);
  // A token just revoked: once it has left the list, its Revoke button is
  // gone, so focus goes to the section's heading.
  const revokedId = useRef<string | null>(null);

  useEffect(() => {
    if (created) {
      secretRef.current?.focus();
      secretRef.current?.select();
    }
  }, [created]);

  useEffect(() => {
    if (revokedId.current && tokens && !tokens.some((token) => token.id === revokedId.current)) {
      revokedId.current = null;
      headingRef.current?.focus();
    }
  }, [tokens]);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const found = validate(name, days);
    setErrors(found);
    if (found.name) {
      focusField('token-name');
      return;
    }
    if (found.expiresInDays) {
      focusField('token-days');
      return;
    }
    try {
      const result = await createToken({ name: name.trim(), expiresInDays: Number(days) }).unwrap();
      notifySuccess(result.message || 'Token created.');
      setCreated(result.data);
      setName('');
      setDays(DEFAULT_DAYS);
    } catch (failure) {
      const fields = fieldErrorMap(failure);
      if (fields.name || fields.expiresInDays) {
        setErrors({ name: fields.name, expiresInDays: fields.expiresInDays });
      } else {
        notifyError(getErrorMessage(failure, 'The token could not be created. Please try again.'));
      }
    }
  }

  async function copySecret() {
    if (!created) return;
    try {
      await navigator.clipboard.writeText(created.token);
      notifySuccess('Token copied.');
    } catch {
      secretRef.current?.select();
      notifyError('The token could not be copied. Please select it and copy it yourself.');
    }
  }

  function dismissSecret() {
    setCreated(null);
    focusField('token-name');
  }

  return (
    <section className="profile-section profile-section--wide access-tokens" aria-labelledby="access-tokens-title">
      <h2 id="access-tokens-title" className="profile-section__title" ref={headingRef} tabIndex={-1}>
        Access tokens
      </h2>
      <p className="access-tokens__intro">
        A token lets a machine, such as a PACS, send and fetch studies through DICOMweb as you. Whoever holds it can
        see what you can see there, so give each machine its own and revoke it when it is no longer used.
      </p>

      {created && (
        <div className="access-tokens__secret">
          <label id="new-token-label" className="field__label" htmlFor="new-token">
            Your new token “{created.name}”
          </label>
          <p className="access-tokens__warning" id="new-token-warning">
            Copy this token now. You will not be able to see it again.
          </p>
          <div className="access-tokens__secret-row">
            <input
              ref={secretRef}
              id="new-token"
              className="field__control access-tokens__secret-value"
              type="text"
              readOnly
              value={created.token}
              aria-describedby="new-token-warning"
              spellCheck={false}
              autoComplete="off"
              onFocus={(event) => event.currentTarget.select()}
            />
            <button type="button" className="btn btn--primary" onClick={() => void copySecret()}>
              Copy
            </button>
            <button type="button" className="btn btn--outline" onClick={dismissSecret}>
              Done
            </button>
          </div>
        </div>
      )}

      <form className="access-tokens__form" noValidate onSubmit={(event) => void onSubmit(event)} aria-labelledby="create-token-title">
        <h3 id="create-token-title" className="access-tokens__subtitle">
          Create token
        </h3>
        <div className="access-tokens__fields">
          <TextField
            id="token-name"
            label="Name"
            hint="What the token is for, such as Radiology PACS."
            value={name}
            maxLength={NAME_MAX}
            required
            autoComplete="off"
            error={errors.name}
            onChange={(event) => setName(event.target.value)}
          />
          <TextField
            id="token-days"
            label="Lifetime in days"
            hint={`From ${MIN_DAYS} to ${MAX_DAYS}.`}
            type="number"
            inputMode="numeric"
            min={MIN_DAYS}
            max={MAX_DAYS}
            step={1}
            required
            value={days}
            error={errors.expiresInDays}
            onChange={(event) => setDays(event.target.value)}
          />
        </div>
        <button type="submit" className="btn btn--primary" disabled={creating}>
          {creating ? 'Creating…' : 'Create token'}
        </button>
      </form>

      <h3 className="access-tokens__subtitle" id="token-list-title">
        Your tokens
      </h3>
      {isLoading && <Spinner label="Loading your tokens…" />}
      {isError && !tokens && (
        <p className="form-error" role="alert">
          {getErrorMessage(error, 'Your tokens could not be loaded. Please try again.')}
        </p>
      )}
      {tokens && tokens.length === 0 && <p className="access-tokens__empty">You have no active tokens.</p>}
      {tokens && tokens.length > 0 && (
        <ul className="access-tokens__list" aria-labelledby="token-list-title">
          {tokens.map((token) => (
            <li key={token.id} className="access-tokens__item">
              <p className="access-tokens__name">{token.name}</p>
              <dl className="access-tokens__facts">
                <div>
                  <dt>Created</dt>
                  <dd>{formatDateTime(token.createdAt)}</dd>
                </div>
                <div>
                  <dt>Expires</dt>
                  <dd>{formatDateTime(token.expiresAt)}</dd>
                </div>
                <div>
                  <dt>Last used</dt>
                  <dd>{formatDateTime(token.lastUsedAt) ?? 'Never'}</dd>
                </div>
              </dl>
              <button
                type="button"
                className="btn btn--danger-outline"
                aria-label={`Revoke ${token.name}`}
                onClick={() => setRevoking(token)}
              >
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}

      {revoking && (
        <RevokeTokenModal
          token={revoking}
          onClose={() => setRevoking(null)}
          onRevoked={() => {
            revokedId.current = revoking.id;
            setRevoking(null);
          }}
        />
      )}
    </section>
  );
}

interface RevokeTokenModalProps {
  token: AccessToken;
  onClose: () => void;
  onRevoked: () => void;
}

/** Confirms a revocation: machines using the token stop at once. */
function RevokeTokenModal({ token, onClose, onRevoked }: RevokeTokenModalProps) {
  const [revokeToken, { isLoading: busy }] = useRevokeAccessTokenMutation();

  async function onConfirm() {
    try {
      const result = await revokeToken(token.id).unwrap();
      notifySuccess(result.message || 'Token revoked.');
      onRevoked();
    } catch (failure) {
      notifyError(getErrorMessage(failure, 'The token could not be revoked. Please try again.'));
    }
  }

  return (
    <Modal
      title="Revoke token"
      onClose={onClose}
      description={`Machines using “${token.name}” will stop working at once. This cannot be undone.`}
    >
      <div className="modal__actions">
        <button type="button" className="btn btn--outline" onClick={onClose} disabled={busy} data-autofocus>
          Cancel
        </button>
        <button type="button" className="btn btn--danger" onClick={() => void onConfirm()} disabled={busy}>
          {busy ? 'Revoking…' : 'Revoke token'}
        </button>
      </div>
    </Modal>
  );
}
