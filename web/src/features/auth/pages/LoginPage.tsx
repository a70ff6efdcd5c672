import { lazy, Suspense, useEffect, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useAppDispatch } from '@/app/hooks';
import { TextField } from '@/components/Field';
import { PasswordField } from '@/components/PasswordField';
import { Spinner } from '@/components/Spinner';
import { homeRouteFor } from '@/lib/access';
import { errorBody, errorStatus, getErrorMessage } from '@/lib/api-client';
import { notifyError, notifySuccess } from '@/lib/notify';
import { setUser } from '@/lib/session';
import { isEmail } from '@/lib/validation';
import type { MfaChallenge, SessionData } from '@/types/api';
import { useLoginMutation } from '../api';
import { AuthCard } from '../components/AuthCard';
import { LOGIN_REDIRECT_MS } from '../home-route';
import { useDelayedNavigate } from '../use-delayed-navigate';
import { storeUserEmail } from '../user-email';

// The second step is loaded only when a sign-in needs it: the first load stays within its budget.
const MfaStep = lazy(() => import('../components/MfaStep').then((m) => ({ default: m.MfaStep })));

interface Errors {
  email?: string;
  password?: string;
}

function validate(email: string, password: string): Errors {
  const errors: Errors = {};
  if (email.trim() === '') errors.email = 'Please enter your email address.';
  else if (!isEmail(email)) errors.email = 'Please enter a valid email address.';
  if (password === '') errors.password = 'Please enter your password.';
  return errors;
}

export function LoginPage() {
  const dispatch = useAppDispatch();
  const navigateLater = useDelayedNavigate();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);
  const [unverified, setUnverified] = useState<string | null>(null);
  const [challenge, setChallenge] = useState<MfaChallenge | null>(null);
  /** Why the password step shows again (the second step expired). */
  const [notice, setNotice] = useState<string | null>(null);
  const [login] = useLoginMutation();
  /** The password step is drawn again after the second step: its field takes focus. */
  const refocusPassword = useRef(false);

  useEffect(() => {
    if (!challenge && refocusPassword.current) {
      refocusPassword.current = false;
      document.getElementById('login-password')?.focus();
    }
  }, [challenge]);

  function signedIn(session: SessionData) {
    notifySuccess('Login successful! Redirecting...', { autoClose: LOGIN_REDIRECT_MS });
    dispatch(setUser({ user: session.user, token: session.token }));
    setDone(true);
    navigateLater(homeRouteFor(session.user), LOGIN_REDIRECT_MS);
  }

  /** Back to the password step, which the person fills in again. */
  function backToPassword(message: string | null) {
    setChallenge(null);
    setPassword('');
    setNotice(message);
    setBusy(false);
    refocusPassword.current = true;
  }

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const found = validate(email, password);
    setErrors(found);
    setUnverified(null);
    setNotice(null);
    if (found.email || found.password) {
      document.getElementById(found.email ? 'login-email' : 'login-password')?.focus();
      return;
    }
    setBusy(true);
    try {
      const { data } = await login({ email: email.trim(), password }).unwrap();
      if ('mfaRequired' in data && data.mfaRequired) {
        setChallenge(data);
        setBusy(false);
        return;
      }
      signedIn(data as SessionData);
    } catch (error) {
      if (errorStatus(error) === 403 && errorBody(error)?.error === 'account_not_verified') {
        storeUserEmail(email.trim());
        setUnverified(getErrorMessage(error, 'Please verify your account before logging in.'));
      } else {
        notifyError(getErrorMessage(error, 'Login failed. Please try again.'));
      }
      setBusy(false);
    }
  }

  return (
    <AuthCard
      title="Sign in"
      intro="Welcome back. Sign in to see and share your medical images."
      footer={
        <>
          <p>
            No account yet? <Link to="/register">Register</Link>
          </p>
          <Link to="/">Back to home</Link>
        </>
      }
    >
      {challenge ? (
        <Suspense fallback={<Spinner label="Loading the second step…" />}>
          <MfaStep
            challenge={challenge}
            onSignedIn={signedIn}
            onExpired={(message) => backToPassword(message)}
            onCancel={() => backToPassword(null)}
          />
        </Suspense>
      ) : (
        <form className="auth-form" noValidate onSubmit={onSubmit} aria-label="Sign in">
          {notice && (
            <p className="form-error" role="alert">
              {notice}
            </p>
          )}
          {unverified && (
            <div className="form-error" role="alert">
              <p>{unverified}</p>
              <p>
                <Link to="/verify-account">Verify your account</Link>
              </p>
            </div>
          )}
          <TextField
            id="login-email"
            label="Email"
            type="email"
            autoComplete="username"
            value={email}
            error={errors.email}
            onChange={(event) => setEmail(event.target.value)}
          />
          <PasswordField
            id="login-password"
            label="Password"
            autoComplete="current-password"
            value={password}
            error={errors.password}
            onChange={(event) => setPassword(event.target.value)}
          />
          <div className="auth-form__row">
            <Link to="/forgot-password">Forgot password?</Link>
          </div>
          <button type="submit" className="btn btn--primary auth-form__submit" disabled={busy || done}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
      )}
    </AuthCard>
  );
}
