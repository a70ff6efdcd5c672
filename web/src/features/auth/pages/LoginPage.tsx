import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useAppDispatch } from '@/app/hooks';
import { TextField } from '@/components/Field';
import { PasswordField } from '@/components/PasswordField';
import { homeRouteFor } from '@/lib/access';
import { errorBody, errorStatus, getErrorMessage } from '@/lib/api-client';
import { notifyError, notifySuccess } from '@/lib/notify';
import { setUser } from '@/lib/session';
import { isEmail } from '@/lib/validation';
import { useLoginMutation } from '../api';
import { AuthCard } from '../components/AuthCard';
import { LOGIN_REDIRECT_MS } from '../home-route';
import { useDelayedNavigate } from '../use-delayed-navigate';
import { storeUserEmail } from '../user-email';

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
  const [login] = useLoginMutation();

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const found = validate(email, password);
    setErrors(found);
    setUnverified(null);
    if (found.email || found.password) {
      document.getElementById(found.email ? 'login-email' : 'login-password')?.focus();
      return;
    }
    setBusy(true);
    try {
      const { data } = await login({ email: email.trim(), password }).unwrap();
      notifySuccess('Login successful! Redirecting...', { autoClose: LOGIN_REDIRECT_MS });
      dispatch(setUser({ user: data.user, token: data.token }));
      setDone(true);
      navigateLater(homeRouteFor(data.user), LOGIN_REDIRECT_MS);
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
      <form className="auth-form" noValidate onSubmit={onSubmit} aria-label="Sign in">
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
    </AuthCard>
  );
}
