import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { SelectField, TextAreaField, TextField } from '@/components/Field';
import { PasswordField } from '@/components/PasswordField';
import { getErrorMessages } from '@/lib/api-client';
import { notifyErrors, notifySuccess } from '@/lib/notify';
import { useRegisterMutation, type RegistrableRole } from '../api';
import { AuthCard } from '../components/AuthCard';
import { REGISTER_REDIRECT_MS } from '../home-route';
import {
  BLOOD_GROUPS,
  EMPTY_REGISTRATION,
  REGISTRATION_STEPS,
  registrationPayload,
  type RegistrationForm,
} from '../registration';
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

type TextKey = Exclude<keyof RegistrationForm, 'role'>;

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

  /** Props binding a text control to a field of the form. */
  function bind(key: TextKey) {
    return {
      id: `register-${key}`,
      name: key,
      value: form[key],
      onChange: (event: { target: { value: string } }) =>
        setForm((current) => ({ ...current, [key]: event.target.value })),
    };
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

  const isProvider = form.role === 'healthProvider';

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
            <TextField label="First name" autoComplete="given-name" {...bind('firstname')} />
            <TextField label="Last name" autoComplete="family-name" {...bind('lastname')} />
            <TextField label="Username" autoComplete="username" {...bind('username')} />
            <TextField label="Email" type="email" autoComplete="email" {...bind('email')} />
            <TextField label="Phone" type="tel" autoComplete="tel" {...bind('phone')} />
            <TextField label="Date of birth" type="date" autoComplete="bday" {...bind('dob')} />
            <SelectField label="Gender" {...bind('gender')}>
              <option value="">Select…</option>
              <option value="Male">Male</option>
              <option value="Female">Female</option>
              <option value="Other">Other</option>
            </SelectField>
            <TextField label="Address" autoComplete="street-address" {...bind('address')} />
            <TextField label="City" autoComplete="address-level2" {...bind('city')} />
            <TextField label="State" autoComplete="address-level1" {...bind('state')} />
            <TextField label="Country" autoComplete="country-name" {...bind('country')} />
            <TextField label="Zip code" autoComplete="postal-code" {...bind('zipcode')} />
          </div>
        )}

        {step === 2 && (
          <div className="form-grid form-grid--two">
            {isProvider ? (
              <>
                <TextField label="License number" {...bind('licensenumber')} />
                <TextField label="Insurance number" {...bind('insurancenumber')} />
                <TextField label="Tax ID" {...bind('taxid')} />
                <TextField label="Specialization" {...bind('specialization')} />
              </>
            ) : (
              <>
                <TextField label="Primary physician" {...bind('primphysician')} />
                <SelectField label="Blood group" {...bind('bloodgroup')}>
                  <option value="">Select…</option>
                  {BLOOD_GROUPS.map((group) => (
                    <option key={group} value={group}>
                      {group}
                    </option>
                  ))}
                </SelectField>
              </>
            )}
            <TextAreaField label="Bio" className="form-grid__wide" {...bind('bio')} />
          </div>
        )}

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
