import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { TextField } from '@/components/Field';
import { PasswordField } from '@/components/PasswordField';
import { ProfileFieldInput } from '@/components/ProfileFieldInput';
import { getErrorMessages } from '@/lib/api-client';
import { notifyErrors, notifySuccess } from '@/lib/notify';
import { fieldsFor, type ProfileField } from '@/lib/profile-fields';
import { useRegisterMutation, type RegistrableRole } from '../api';
import { AuthCard } from '../components/AuthCard';
import { REGISTER_REDIRECT_MS } from '../home-route';
import { EMPTY_REGISTRATION, REGISTRATION_STEPS, registrationPayload, type RegistrationForm } from '../registration';
import { useDelayedNavigate } from '../use-delayed-navigate';
import { storeUserEmail } from '../user-email';

const ROLES: { value: RegistrableRole; name: string; text: string }[] = [
  { value: 'patient', name: 'Patient', text: 'Receive and view the images your providers share with you.' },
  {
    value: 'healthProvider',
    name: 'Health Provider',
    text: 'Upload medical images and share them with your patients.',
  },
];

type TextKey = 'username' | 'email' | 'password' | 'confirmPassword';

export function RegisterPage() {
  const navigateLater = useDelayedNavigate();
  const [step, setStep] = useState(0);
  const [form, setForm] = useState<RegistrationForm>(EMPTY_REGISTRATION);
  const [busy, setBusy] = useState(false);
  const [register] = useRegisterMutation();
  const stepTitle = useRef<HTMLHeadingElement>(null);
  const moved = useRef(false);

  // After Next or Back, move focus to the new step's title so that screen
  // reader users hear where they are (not on the first render).
  useEffect(() => {
    if (moved.current) stepTitle.current?.focus();
  }, [step]);

  function goTo(next: number) {
    moved.current = true;
    setStep(next);
  }

  /** Props binding a text control to an account field of the form. */
  function bind(key: TextKey) {
    return {
      id: `register-${key}`,
      name: key,
      value: form[key],
      onChange: (event: { target: { value: string } }) =>
        setForm((current) => ({ ...current, [key]: event.target.value })),
    };
  }

  /** A profile field of the form (lib/profile-fields.ts). */
  function profileInput(field: ProfileField) {
    return (
      <ProfileFieldInput
        key={field.key}
        field={field}
        idPrefix="register"
        value={form[field.key]}
        onChange={(value) => setForm((current) => ({ ...current, [field.key]: value }))}
      />
    );
  }

  async function submit() {
    setBusy(true);
    try {
      const payload = registrationPayload(form);
      const result = await register(payload).unwrap();
      notifySuccess(result.message || 'Registration successful!');
      storeUserEmail(result.data?.email || payload.email);
      setForm(EMPTY_REGISTRATION);
      moved.current = false;
      setStep(0);
      navigateLater('/verify-account', REGISTER_REDIRECT_MS);
    } catch (error) {
      notifyErrors(getErrorMessages(error, 'An error occurred. Please try again.'));
    } finally {
      setBusy(false);
    }
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (step === 0 && form.role === '') return;
    if (step < REGISTRATION_STEPS.length - 1) goTo(step + 1);
    else void submit();
  }

  // Step 1: the names, the account's username and email, then the other personal fields.
  const personal = fieldsFor(form.role, 'personal');
  const isName = (field: ProfileField) => field.key === 'firstname' || field.key === 'lastname';

  return (
    <AuthCard
      title="Create your account"
      intro="Register as a patient or a health provider in four short steps."
      wide
      footer={
        <>
          <p>
            Already registered? <Link to="/login">Sign in</Link>
          </p>
          <Link to="/">Back to home</Link>
        </>
      }
    >
      <ol className="stepper" aria-label="Registration steps">
        {REGISTRATION_STEPS.map((name, index) => (
          <li
            key={name}
            className={[
              'stepper__item',
              index === step ? 'stepper__item--current' : '',
              index < step ? 'stepper__item--done' : '',
            ].join(' ')}
            aria-current={index === step ? 'step' : undefined}
          >
            <span className="stepper__number" aria-hidden="true">
              {index + 1}
            </span>
            {name}
          </li>
        ))}
      </ol>

      <form className="auth-form" noValidate onSubmit={onSubmit} aria-labelledby="register-step-title">
        <div>
          <h2 id="register-step-title" className="wizard-step__title" ref={stepTitle} tabIndex={-1}>
            {REGISTRATION_STEPS[step]}
          </h2>
          <p className="wizard-step__count">
            Step {step + 1} of {REGISTRATION_STEPS.length}
          </p>
        </div>

        {step === 0 && (
          <fieldset className="role-options">
            <legend className="role-options__legend">I am registering as</legend>
            {ROLES.map((role) => (
              <label key={role.value} className="role-option">
                <input
                  type="radio"
                  name="role"
                  value={role.value}
                  checked={form.role === role.value}
                  onChange={() => setForm((current) => ({ ...current, role: role.value }))}
                />
                <span className="role-option__name">{role.name}</span>
                <span className="role-option__text">{role.text}</span>
              </label>
            ))}
          </fieldset>
        )}

        {step === 1 && (
          <div className="form-grid form-grid--two">
            {personal.filter(isName).map(profileInput)}
            <TextField label="Username" autoComplete="username" {...bind('username')} />
            <TextField label="Email" type="email" autoComplete="email" {...bind('email')} />
            {personal.filter((field) => !isName(field)).map(profileInput)}
          </div>
        )}

        {step === 2 && <div className="form-grid form-grid--two">{fieldsFor(form.role, 'medical').map(profileInput)}</div>}

        {step === 3 && (
          <div className="form-grid">
            <PasswordField
              label="Password"
              autoComplete="new-password"
              hint="8 to 128 characters."
              {...bind('password')}
            />
            <PasswordField label="Confirm password" autoComplete="new-password" {...bind('confirmPassword')} />
          </div>
        )}

        <div className="auth-form__actions">
          {step > 0 && (
            <button type="button" className="btn btn--outline" onClick={() => goTo(step - 1)} disabled={busy}>
              Back
            </button>
          )}
          {step < REGISTRATION_STEPS.length - 1 ? (
            <button type="submit" className="btn btn--primary" disabled={step === 0 && form.role === ''}>
              Next
            </button>
          ) : (
            <button type="submit" className="btn btn--primary" disabled={busy}>
              {busy ? 'Registering…' : 'Register'}
            </button>
          )}
        </div>
      </form>
    </AuthCard>
  );
}
