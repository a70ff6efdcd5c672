import { useEffect, useRef, useState, type FormEvent } from 'react';
import { TextField } from '@/components/Field';
import { OtpInput } from '@/components/OtpInput';
import { PasswordField } from '@/components/PasswordField';
import { getErrorMessage } from '@/lib/api-client';
import { notifySuccess } from '@/lib/notify';
import {
  useDisableTotpMutation,
  useEnableTotpMutation,
  useRegenerateRecoveryCodesMutation,
  useSetupTotpMutation,
  type TotpSetup,
} from '../security-api';
import { QrCode } from './QrCode';

const emptyCode = () => Array<string>(6).fill('');
const SIX_DIGITS = 'Please enter the 6-digit code from your authenticator app.';

type Step = 'idle' | 'setup' | 'regenerate' | 'disable';

interface AuthenticatorPanelProps {
  on: boolean;
  onEnabled: (recoveryCodes: string[]) => void;
  onDisabled: () => void;
  onNewCodes: (recoveryCodes: string[]) => void;
}

/** The authenticator app: set up with a QR code and a first code, new recovery codes, turned off. */

/** A form's submit button and its Cancel, both held while a call runs. */
function SubmitOrCancel({
  submitClass,
  submit,
  busy,
  onCancel,
}: {
  submitClass: string;
  submit: string;
  busy: boolean;
  onCancel: () => void;
}) {
  return (
    <div className="security__actions">
      <button type="submit" className={`btn ${submitClass}`} disabled={busy}>
        {submit}
      </button>
      <button type="button" className="btn btn--outline" onClick={onCancel} disabled={busy}>
        Cancel
      </button>
    </div>
  );
}

export function AuthenticatorPanel({ on, onEnabled, onDisabled, onNewCodes }: AuthenticatorPanelProps) {
  const [step, setStep] = useState<Step>('idle');
  const [setup, setSetup] = useState<TotpSetup | null>(null);
  const [digits, setDigits] = useState<string[]>(emptyCode);
  const [password, setPassword] = useState('');
  const [anyCode, setAnyCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [startSetup, { isLoading: starting }] = useSetupTotpMutation();
  const [enable, { isLoading: enabling }] = useEnableTotpMutation();
  const [regenerate, { isLoading: regenerating }] = useRegenerateRecoveryCodesMutation();
  const [disable, { isLoading: disabling }] = useDisableTotpMutation();
  const opener = useRef<HTMLButtonElement>(null);
  const busy = starting || enabling || regenerating || disabling;

  // The form's first control takes focus when a step opens.
  useEffect(() => {
    if (step === 'setup' || step === 'regenerate') document.getElementById('totp-code-0')?.focus();
    if (step === 'disable') document.getElementById('totp-off-password')?.focus();
  }, [step, setup]);

  function open(next: Step) {
    setError(null);
    setDigits(emptyCode());
    setPassword('');
    setAnyCode('');
    setStep(next);
  }

  function close() {
    open('idle');
    setSetup(null);
    setTimeout(() => opener.current?.focus(), 0);
  }

  /** The six boxes' code, or null after saying what is wrong. */
  function sixDigits(): string | null {
    const code = digits.join('');
    if (/^\d{6}$/.test(code)) return code;
    setError(SIX_DIGITS);
    document.getElementById('totp-code-0')?.focus();
    return null;
  }

  function refused(failure: unknown, fallback: string) {
    setError(getErrorMessage(failure, fallback));
    setDigits(emptyCode());
  }

  async function onStartSetup() {
    setError(null);
    try {
      const { data } = await startSetup().unwrap();
      setSetup(data);
      open('setup');
    } catch (failure) {
      setError(getErrorMessage(failure, 'The authenticator could not be set up. Please try again.'));
    }
  }

  async function onEnable(event: FormEvent) {
    event.preventDefault();
    const code = sixDigits();
    if (!code) return;
    try {
      const { data, message } = await enable({ code }).unwrap();
      notifySuccess(message || 'The authenticator is turned on.');
      setSetup(null);
      setStep('idle');
      onEnabled(data.recoveryCodes);
    } catch (failure) {
      refused(failure, 'The authenticator could not be turned on. Please try again.');
    }
  }

  async function onRegenerate(event: FormEvent) {
    event.preventDefault();
    const code = sixDigits();
    if (!code) return;
    try {
      const { data, message } = await regenerate({ code }).unwrap();
      notifySuccess(message || 'New recovery codes are ready. The old ones no longer work.');
      setStep('idle');
      onNewCodes(data.recoveryCodes);
    } catch (failure) {
      refused(failure, 'New recovery codes could not be made. Please try again.');
    }
  }

  async function onDisable(event: FormEvent) {
    event.preventDefault();
    if (password === '' || anyCode.trim() === '') {
      setError('Please enter your password and a code from your authenticator app or a recovery code.');
      return;
    }
    try {
      const result = await disable({ password, code: anyCode.trim() }).unwrap();
      notifySuccess(result.message || 'The authenticator is turned off.');
      setStep('idle');
      onDisabled();
    } catch (failure) {
      setError(getErrorMessage(failure, 'The authenticator could not be turned off. Please try again.'));
    }
  }

  const errorId = error ? 'totp-error' : undefined;
  const errorText = error && (
    <p className="form-error" id="totp-error" role="alert">
      {error}
    </p>
  );
  const codeBoxes = (
    <div className="otp-field">
      <span className="otp-field__label" id="totp-code-label">
        Code from the app
      </span>
      <OtpInput id="totp-code" labelId="totp-code-label" value={digits} onChange={setDigits} errorId={errorId} invalid={Boolean(error)} />
    </div>
  );

  return (
    <div className="security__factor" role="group" aria-labelledby="totp-title">
      <h3 id="totp-title" className="access-tokens__subtitle">
        Authenticator app
      </h3>
      <p className="security__status">
        Status: <strong>{on ? 'On' : 'Off'}</strong>
      </p>
      <p className="field__hint">An app such as Google Authenticator, Microsoft Authenticator or 1Password shows a new 6-digit code every 30 seconds.</p>

      {step === 'idle' && (
        <>
          {error && errorText}
          <div className="security__actions">
            {!on && (
              <button ref={opener} type="button" className="btn btn--primary" onClick={() => void onStartSetup()} disabled={busy}>
                {starting ? 'Setting up…' : 'Set up an authenticator'}
              </button>
            )}
            {on && (
              <>
                <button ref={opener} type="button" className="btn btn--outline" onClick={() => open('regenerate')}>
                  New recovery codes
                </button>
                <button type="button" className="btn btn--danger-outline" onClick={() => open('disable')}>
                  Turn off
                </button>
              </>
            )}
          </div>
        </>
      )}

      {step === 'setup' && setup && (
        <form className="security__form" noValidate onSubmit={(event) => void onEnable(event)} aria-label="Set up an authenticator">
          <p className="field__hint">Scan this QR code with your authenticator app.</p>
          <QrCode value={setup.otpauthUrl} label="QR code to scan with your authenticator app" />
          <TextField
            id="totp-secret"
            label="Or type this key into the app"
            readOnly
            value={setup.secret}
            spellCheck={false}
            autoComplete="off"
            className="security__secret"
            onFocus={(event) => event.currentTarget.select()}
          />
          <p className="field__hint">Then enter the code the app shows to turn the authenticator on.</p>
          {codeBoxes}
          {errorText}
          <SubmitOrCancel submitClass="btn--primary" submit={enabling ? 'Turning on…' : 'Turn on'} busy={busy} onCancel={close} />
        </form>
      )}

      {step === 'regenerate' && (
        <form className="security__form" noValidate onSubmit={(event) => void onRegenerate(event)} aria-label="New recovery codes">
          <p className="field__hint">New codes replace the ones you have: the old ones stop working.</p>
          {codeBoxes}
          {errorText}
          <SubmitOrCancel submitClass="btn--primary" submit={regenerating ? 'Making codes…' : 'Get new codes'} busy={busy} onCancel={close} />
        </form>
      )}

      {step === 'disable' && (
        <form className="security__form" noValidate onSubmit={(event) => void onDisable(event)} aria-label="Turn off the authenticator">
          <PasswordField
            id="totp-off-password"
            label="Password"
            autoComplete="current-password"
            value={password}
            aria-describedby={errorId}
            onChange={(event) => setPassword(event.target.value)}
          />
          <TextField
            id="totp-off-code"
            label="Authenticator or recovery code"
            autoComplete="one-time-code"
            spellCheck={false}
            value={anyCode}
            aria-describedby={errorId}
            onChange={(event) => setAnyCode(event.target.value)}
          />
          {errorText}
          <SubmitOrCancel submitClass="btn--danger" submit={disabling ? 'Turning off…' : 'Turn off the authenticator'} busy={busy} onCancel={close} />
        </form>
      )}
    </div>
  );
}
