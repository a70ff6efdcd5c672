import { emptyProfile, profilePayload, type ProfileValues } from '@/lib/profile-fields';
import type { RegistrableRole, RegistrationPayload } from './api';

/** The wizard's state: the account, every profile field of either role, and the confirmation. */
export interface RegistrationForm extends ProfileValues {
  role: RegistrableRole | '';
  username: string;
  email: string;
  password: string;
  /** A form field only: never sent, and not compared (product.md §3, §5). */
  confirmPassword: string;
}

export const EMPTY_REGISTRATION: RegistrationForm = {
  role: '',
  username: '',
  email: '',
  password: '',
  confirmPassword: '',
  ...emptyProfile(),
};

export const REGISTRATION_STEPS = [
  'Select Role',
  'Personal Details',
  'Medical Details',
  'Security & Submit',
] as const;

/**
 * The registration payload of product.md §3 with `active: true`, carrying
 * only the chosen role's fields (§5). An empty date or gender goes as null,
 * which a typed server reads as "not given".
 */
export function registrationPayload(form: RegistrationForm): RegistrationPayload {
  if (form.role === '') throw new Error('A role must be chosen before registering.');
  return {
    email: form.email.trim(),
    username: form.username.trim(),
    active: true,
    password: form.password,
    role: form.role,
    ...profilePayload(form, form.role),
  };
}
