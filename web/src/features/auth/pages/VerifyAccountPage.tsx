import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { TextField } from '@/components/Field';
import { getErrorMessage, getErrorMessages } from '@/lib/api-client';
import { notifyError, notifyErrors, notifySuccess } from '@/lib/notify';
import { useConfirmAccountMutation, useResendConfirmationMutation } from '../api';
import { AuthCard } from '../components/AuthCard';
import { OtpInput } from '@/components/OtpInput';
import { VERIFY_REDIRECT_MS } from '../home-route';
import { useDelayedNavigate } from '../use-delayed-navigate';
import { readUserEmail } from '../user-email';

/** product.md §9: account verification code length. */
const CODE_LENGTH = 4;
const INVALID = 'Please enter a valid email and complete the OTP.';

export function VerifyAccountPage() {
  const navigateLater = useDelayedNavigate();
  const [email, setEmail] = useState(readUserEmail);
  const [code, setCode] = useState<string[]>(() => Array<string>(CODE_LENGTH).fill(''));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [resending, setResending] = useState(false);
  const [confirmAccount] = useConfirmAccountMutation();
  const [resendConfirmation] = useResendConfirmationMutation();

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const joined = code.join('');
    if (email.trim() === '' || !/^\d{4}$/.test(joined)) {
      setError(INVALID);
      return;
    }
    setError(null);
    setBusy(true);
    try {
      const result = await confirmAccount({ email: email.trim(), code: joined }).unwrap();
      notifySuccess(result.message || 'Your account is verified. You can sign in now.');
      navigateLater('/login', VERIFY_REDIRECT_MS);
    } catch (failure) {
      notifyErrors(getErrorMessages(failure, 'An error occurred. Please try again.'));
      setBusy(false);
    }
  }

  async function onResend() {
    if (email.trim() === '') {
      setError('Please enter your email address to receive a new code.');
      return;
    }
    setError(null);
    setResending(true);
    try {
      const result = await resendConfirmation({ email: email.trim() }).unwrap();
      notifySuccess(result.message || 'A new code is on its way if the account exists.');
    } catch (failure) {
      notifyError(getErrorMessage(failure, 'An error occurred. Please try again.'));
    } finally {
      setResending(false);
    }
  }

  return (
    <AuthCard
      title="Verify Your Account"
      intro="Enter the 4-digit code we sent to your email address."
      footer={
        <>
          <Link to="/">Back to home</Link>
          <Link to="/login">Back to login</Link>
        </>
      }
    >
      <form className="auth-form" noValidate onSubmit={onSubmit} aria-label="Verify your account">
        <TextField
          id="verify-email"
          label="Email"
          type="email"
          autoComplete="email"
          value={email}
          onChange={(event) => setEmail(event.target.value)}
          aria-describedby={error ? 'verify-error' : undefined}
        />
        <div className="otp-field">
          <span className="otp-field__label" id="verify-code-label">
            Verification code
          </span>
          <OtpInput
            id="verify-code"
            labelId="verify-code-label"
            value={code}
            onChange={setCode}
            errorId={error ? 'verify-error' : undefined}
            invalid={error === INVALID}
          />
        </div>
        {error && (
          <p className="form-error" id="verify-error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="btn btn--primary auth-form__submit" disabled={busy}>
          {busy ? 'Verifying' : 'Verify'}
        </button>
        <p className="auth-form__row">
          <span>Didn&apos;t get a code?</span>
          <button type="button" className="link-button" onClick={() => void onResend()} disabled={resending}>
            {resending ? 'Sending…' : 'Resend code'}
          </button>
        </p>
      </form>
    </AuthCard>
  );
}
