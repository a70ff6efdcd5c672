import { useEffect, useRef, useState, type FormEvent } from 'react';
import { TextField } from '@/components/Field';
import { errorStatus, getErrorMessage } from '@/lib/api-client';
import { passkeyFailureText, signWithPasskey } from '@/lib/webauthn';
import type { MfaChallenge, SessionData } from '@/types/api';
import { useBeginPasskeyLoginMutation, useFinishPasskeyLoginMutation, useLoginWithCodeMutation } from '../mfa-api';
import { OtpInput } from '@/components/OtpInput';

/** The contract's answer to a wrong code; any other 401 ends the second step. */
const INVALID_CODE = 'Invalid code.';
const CODE_LENGTH = 6;
const emptyCode = () => Array<string>(CODE_LENGTH).fill('');

type Mode = 'totp' | 'recovery' | 'passkey';

interface MfaStepProps {
  challenge: MfaChallenge;
  /** The login answer: the same as a sign-in without a second factor. */
  onSignedIn: (session: SessionData) => void;
  /** The mfaToken is spent (too many wrong codes, too old, used): start again with the password. */
  onExpired: (message: string) => void;
  /** Back to the password step. */
  onCancel: () => void;
}

/**
 * The sign-in's second step: a code from the authenticator app in six boxes,
 * a passkey, or a recovery code in a single field.
 */
export function MfaStep({ challenge, onSignedIn, onExpired, onCancel }: MfaStepProps) {
  const { mfaToken, methods } = challenge;
  const hasTotp = methods.includes('totp');
  const hasPasskey = methods.includes('webauthn');
  const hasRecovery = methods.includes('recovery');
  const [mode, setMode] = useState<Mode>(hasTotp ? 'totp' : hasPasskey ? 'passkey' : 'recovery');
  const [digits, setDigits] = useState<string[]>(emptyCode);
  const [recoveryCode, setRecoveryCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const passkeyButton = useRef<HTMLButtonElement>(null);
  const [loginWithCode] = useLoginWithCodeMutation();
  const [beginPasskeyLogin] = useBeginPasskeyLoginMutation();
  const [finishPasskeyLogin] = useFinishPasskeyLoginMutation();

  function focusEntry(which: Mode = mode) {
    if (which === 'totp') document.getElementById('mfa-code-0')?.focus();
    else if (which === 'recovery') document.getElementById('mfa-recovery')?.focus();
    else passkeyButton.current?.focus();
  }

  // Focus goes to the step's first control when it appears and when the way changes.
  useEffect(() => {
    focusEntry(mode);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [mode]);

  function switchTo(next: Mode) {
    setError(null);
    setMode(next);
  }

  /** A refused code stays on this step; a spent mfaToken goes back to the password. */
  function onFailure(failure: unknown) {
    const text = getErrorMessage(failure, 'The code could not be checked. Please try again.');
    if (errorStatus(failure) === 401 && text !== INVALID_CODE) {
      onExpired(text);
      return;
    }
    setError(text);
    setBusy(false);
    if (mode === 'totp') setDigits(emptyCode());
    focusEntry();
  }

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const code = mode === 'totp' ? digits.join('') : recoveryCode.trim();
    if (mode === 'totp' && !/^\d{6}$/.test(code)) {
      setError('Please enter the 6-digit code from your authenticator app.');
      focusEntry();
      return;
    }
    if (mode === 'recovery' && code === '') {
      setError('Please enter a recovery code.');
      focusEntry();
      return;
    }
    setError(null);
    setBusy(true);
    try {
      const { data } = await loginWithCode({ mfaToken, code }).unwrap();
      onSignedIn(data);
    } catch (failure) {
      onFailure(failure);
    }
  }

  async function onPasskey() {
    setError(null);
    setBusy(true);
    try {
      const { data: options } = await beginPasskeyLogin({ mfaToken }).unwrap();
      let credential;
      try {
        credential = await signWithPasskey(options);
      } catch (browserError) {
        setError(passkeyFailureText(browserError));
        setBusy(false);
        return;
      }
      const { data } = await finishPasskeyLogin({ mfaToken, credential }).unwrap();
      onSignedIn(data);
    } catch (failure) {
      onFailure(failure);
    }
  }

  const errorId = error ? 'mfa-error' : undefined;

  return (
    <div className="mfa-step">
      <h2 className="wizard-step__title">Two-step verification</h2>
      <p className="form-note">
        {mode === 'totp' && 'Enter the 6-digit code from your authenticator app.'}
        {mode === 'recovery' && 'Enter one of the recovery codes you saved when you set up your second factor.'}
        {mode === 'passkey' && 'Use your passkey to finish signing in.'}
      </p>
      {mode !== 'passkey' && (
        <form className="auth-form" noValidate onSubmit={(event) => void onSubmit(event)} aria-label="Second step">
          {mode === 'totp' ? (
            <div className="otp-field">
              <span className="otp-field__label" id="mfa-code-label">
                Authenticator code
              </span>
              <OtpInput
                id="mfa-code"
                labelId="mfa-code-label"
                value={digits}
                onChange={setDigits}
                errorId={errorId}
                invalid={Boolean(error)}
                disabled={busy}
              />
            </div>
          ) : (
            <TextField
              id="mfa-recovery"
              label="Recovery code"
              hint="Ten letters and digits, such as abcde-12345."
              autoComplete="off"
              autoCapitalize="none"
              spellCheck={false}
              value={recoveryCode}
              disabled={busy}
              aria-invalid={error ? true : undefined}
              aria-describedby={errorId}
              onChange={(event) => setRecoveryCode(event.target.value)}
            />
          )}
          {error && (
            <p className="form-error" id="mfa-error" role="alert">
              {error}
            </p>
          )}
          <button type="submit" className="btn btn--primary auth-form__submit" disabled={busy}>
            {busy ? 'Verifying…' : 'Verify'}
          </button>
        </form>
      )}
      {mode === 'passkey' && error && (
        <p className="form-error" id="mfa-error" role="alert">
          {error}
        </p>
      )}
      <div className="mfa-step__others">
        {hasPasskey && (
          <button
            ref={passkeyButton}
            type="button"
            className={mode === 'passkey' ? 'btn btn--primary' : 'btn btn--outline'}
            onClick={() => void onPasskey()}
            disabled={busy}
            aria-describedby={mode === 'passkey' ? errorId : undefined}
          >
            Use a passkey
          </button>
        )}
        {hasRecovery && mode !== 'recovery' && (
          <button type="button" className="link-button" onClick={() => switchTo('recovery')} disabled={busy}>
            Use a recovery code
          </button>
        )}
        {hasTotp && mode !== 'totp' && (
          <button type="button" className="link-button" onClick={() => switchTo('totp')} disabled={busy}>
            Use your authenticator app
          </button>
        )}
        <button type="button" className="link-button" onClick={onCancel} disabled={busy}>
          Back to password
        </button>
      </div>
    </div>
  );
}
