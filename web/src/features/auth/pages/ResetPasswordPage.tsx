import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { errorBody, errorStatus, getErrorMessage } from '@/lib/api-client';
import { notifySuccess } from '@/lib/notify';
import { useResetPasswordWithTokenMutation } from '../api';
import { AuthCard } from '../components/AuthCard';
import { MfaCodeField } from '../components/MfaCodeField';
import { NewPasswordFields } from '../components/NewPasswordFields';
import { useNewPassword } from '../use-new-password';

/** /reset-password?token=...: the link of the reset mail (api.md). */
export function ResetPasswordPage() {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const newPassword = useNewPassword();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  /** Set once the server asks for a second factor's code (an account with one). */
  const [mfaNeeded, setMfaNeeded] = useState(false);
  const [mfaCode, setMfaCode] = useState('');
  const [resetPasswordWithToken] = useResetPasswordWithTokenMutation();

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!newPassword.isAcceptable(setError)) return;
    if (mfaNeeded && mfaCode.trim() === '') {
      setError('Enter a code from your authenticator app or a recovery code.');
      return;
    }
    setBusy(true);
    try {
      await resetPasswordWithToken({
        token,
        password: newPassword.password,
        ...(mfaNeeded ? { mfaCode: mfaCode.trim() } : {}),
      }).unwrap();
      notifySuccess('Password reset successfully!');
      void navigate('/login', { replace: true });
    } catch (failure) {
      if (errorStatus(failure) === 401 && (mfaNeeded || errorBody(failure)?.mfaRequired)) {
        setMfaNeeded(true);
        setTimeout(() => document.getElementById('reset-mfa')?.focus(), 0);
      }
      setError(getErrorMessage(failure, 'Something went wrong. Please try again.'));
      setBusy(false);
    }
  }

  const errorId = error ? 'reset-error' : undefined;

  return (
    <AuthCard
      title="Reset password"
      intro={token ? 'Choose a new password for your account.' : undefined}
      footer={
        <>
          <Link to="/login">Back to login</Link>
          <Link to="/">Back to home</Link>
        </>
      }
    >
      {token ? (
        <form className="auth-form" noValidate onSubmit={onSubmit} aria-label="Choose a new password">
          <NewPasswordFields idPrefix="reset" errorId={errorId} {...newPassword.fields} />
          {mfaNeeded && (
            <MfaCodeField id="reset-mfa" value={mfaCode} onChange={setMfaCode} errorId={errorId} invalid={Boolean(error)} />
          )}
          {error && (
            <p className="form-error" id="reset-error" role="alert">
              {error}
            </p>
          )}
          <button type="submit" className="btn btn--primary auth-form__submit" disabled={busy}>
            {busy ? 'Resetting…' : 'Reset password'}
          </button>
        </form>
      ) : (
        <div className="form-error" role="alert">
          <p>This reset link is incomplete. Open the link from the email again, or ask for a new code.</p>
          <p>
            <Link to="/forgot-password">Request a new reset code</Link>
          </p>
        </div>
      )}
    </AuthCard>
  );
}
