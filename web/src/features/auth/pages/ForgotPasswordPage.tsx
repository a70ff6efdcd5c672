import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { TextField } from '@/components/Field';
import { errorBody, errorStatus, getErrorMessages } from '@/lib/api-client';
import { notifyErrors, notifySuccess } from '@/lib/notify';
import { isEmail } from '@/lib/validation';
import { useRequestPasswordResetMutation, useResetPasswordWithCodeMutation } from '../api';
import { AuthCard } from '../components/AuthCard';
import { MfaCodeField } from '../components/MfaCodeField';
import { NewPasswordFields } from '../components/NewPasswordFields';
import { OtpInput } from '@/components/OtpInput';
import { useNewPassword } from '../use-new-password';

/** product.md §9: forgot-password code length. */
const CODE_LENGTH = 6;
const emptyCode = () => Array<string>(CODE_LENGTH).fill('');
const INVALID_CODE = 'Please enter a valid 6-digit OTP.';

type Step = 1 | 2 | 3;

const STEP_TITLES: Record<Step, string> = {
  1: 'Enter your email',
  2: 'Enter the code and a new password',
  3: 'Password reset',
};

export function ForgotPasswordPage() {
  const [step, setStep] = useState<Step>(1);
  const [email, setEmail] = useState('');
  const [code, setCode] = useState<string[]>(emptyCode);
  const newPassword = useNewPassword();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  /** Set once the server asks for a second factor's code (an account with one). */
  const [mfaNeeded, setMfaNeeded] = useState(false);
  const [mfaCode, setMfaCode] = useState('');
  const [requestPasswordReset] = useRequestPasswordResetMutation();
  const [resetPasswordWithCode] = useResetPasswordWithCodeMutation();
  const title = useRef<HTMLHeadingElement>(null);
  const moved = useRef(false);

  useEffect(() => {
    if (moved.current) title.current?.focus();
  }, [step]);

  function goTo(next: Step) {
    moved.current = true;
    setError(null);
    setStep(next);
  }

  async function onRequestCode(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!isEmail(email)) {
      setError('Please enter a valid email.');
      return;
    }
    setError(null);
    setBusy(true);
    try {
      await requestPasswordReset({ email: email.trim() }).unwrap();
      notifySuccess('Reset code sent successfully!');
      setCode(emptyCode());
      goTo(2);
    } catch (failure) {
      notifyErrors(getErrorMessages(failure, 'Something went wrong. from handleForgotPassword'));
    } finally {
      setBusy(false);
    }
  }

  async function onReset(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const otp = code.join('');
    if (!/^\d{6}$/.test(otp)) {
      setError(INVALID_CODE);
      return;
    }
    if (!newPassword.isAcceptable(setError)) return;
    if (mfaNeeded && mfaCode.trim() === '') {
      setError('Enter a code from your authenticator app or a recovery code.');
      document.getElementById('forgot-mfa')?.focus();
      return;
    }
    setBusy(true);
    try {
      await resetPasswordWithCode({
        email: email.trim(),
        otp,
        newPassword: newPassword.password,
        ...(mfaNeeded ? { mfaCode: mfaCode.trim() } : {}),
      }).unwrap();
      notifySuccess('Password reset successfully!');
      newPassword.clear();
      setMfaNeeded(false);
      setMfaCode('');
      goTo(3);
    } catch (failure) {
      if (errorStatus(failure) === 401 && (mfaNeeded || errorBody(failure)?.mfaRequired)) {
        // The account has a second factor: ask for its code and send again.
        setMfaNeeded(true);
        setError(getErrorMessages(failure, 'Enter a code from your authenticator app or a recovery code.')[0]);
        setTimeout(() => document.getElementById('forgot-mfa')?.focus(), 0);
      } else {
        notifyErrors(getErrorMessages(failure, 'Something went wrong in handleResetPassword'));
      }
    } finally {
      setBusy(false);
    }
  }

  const errorId = error ? 'forgot-error' : undefined;
  const errorText = error && (
    <p className="form-error" id="forgot-error" role="alert">
      {error}
    </p>
  );

  return (
    <AuthCard
      title="Forgot password"
      intro={
        step === 1
          ? 'Enter the email address of your account and we will send you a 6-digit reset code.'
          : undefined
      }
      footer={
        <>
          {step !== 3 && <Link to="/login">Back to login</Link>}
          <Link to="/">Back to home</Link>
        </>
      }
    >
      <h2 className="wizard-step__title" ref={title} tabIndex={-1}>
        {STEP_TITLES[step]}
      </h2>
      <p className="wizard-step__count">Step {step} of 3</p>

      {step === 1 && (
        <form className="auth-form" noValidate onSubmit={onRequestCode} aria-label="Request a reset code">
          <TextField
            id="forgot-email"
            label="Email"
            type="email"
            autoComplete="email"
            value={email}
            onChange={(event) => setEmail(event.target.value)}
            aria-describedby={errorId}
          />
          {errorText}
          <button type="submit" className="btn btn--primary auth-form__submit" disabled={busy}>
            {busy ? 'Sending…' : 'Send reset code'}
          </button>
        </form>
      )}

      {step === 2 && (
        <form className="auth-form" noValidate onSubmit={onReset} aria-label="Choose a new password">
          <p className="form-note">
            If an account exists for <strong>{email.trim()}</strong>, a 6-digit code is on its way.
          </p>
          <div className="otp-field">
            <span className="otp-field__label" id="forgot-code-label">
              Reset code
            </span>
            <OtpInput
              id="forgot-code"
              labelId="forgot-code-label"
              value={code}
              onChange={setCode}
              errorId={errorId}
              invalid={error === INVALID_CODE}
            />
          </div>
          <NewPasswordFields idPrefix="forgot-new" errorId={errorId} {...newPassword.fields} />
          {mfaNeeded && (
            <MfaCodeField id="forgot-mfa" value={mfaCode} onChange={setMfaCode} errorId={errorId} invalid={Boolean(error)} />
          )}
          {errorText}
          <button type="submit" className="btn btn--primary auth-form__submit" disabled={busy}>
            {busy ? 'Resetting…' : 'Reset password'}
          </button>
          <p className="auth-form__row">
            <span>Wrong address or no code?</span>
            <button type="button" className="link-button" onClick={() => goTo(1)} disabled={busy}>
              Start again
            </button>
          </p>
        </form>
      )}

      {step === 3 && (
        <div className="auth-success">
          <p>Your password has been reset. You can now sign in with your new password.</p>
          <Link to="/login" className="btn btn--primary">
            Back to login
          </Link>
        </div>
      )}
    </AuthCard>
  );
}
