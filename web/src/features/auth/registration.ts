import type { RegistrableRole, RegistrationPayload } from './api';

/** The wizard's state: every field of every step, plus the confirmation. */
export interface RegistrationForm {
  role: RegistrableRole | '';
  firstname: string;
  lastname: string;
  username: string;
  email: string;
  phone: string;
  dob: string;
  gender: string;
  address: string;
  city: string;
  state: string;
  country: string;
  zipcode: string;
  licensenumber: string;
  insurancenumber: string;
  taxid: string;
  specialization: string;
  primphysician: string;
  bloodgroup: string;
  bio: string;
  password: string;
  /** A form field only: never sent, and not compared (product.md §3, §5). */
  confirmPassword: string;
}

export const EMPTY_REGISTRATION: RegistrationForm = {
  role: '',
  firstname: '',
  lastname: '',
  username: '',
  email: '',
  phone: '',
  dob: '',
  gender: '',
  address: '',
  city: '',
  state: '',
  country: '',
  zipcode: '',
  licensenumber: '',
  insurancenumber: '',
  taxid: '',
  specialization: '',
  primphysician: '',
  bloodgroup: '',
  bio: '',
  password: '',
  confirmPassword: '',
};

export const REGISTRATION_STEPS = [
  'Select Role',
  'Personal Details',
  'Medical Details',
  'Security & Submit',
] as const;

export const BLOOD_GROUPS = ['A+', 'A-', 'B+', 'B-', 'AB+', 'AB-', 'O+', 'O-'];

/**
 * The registration payload of product.md §3 with `active: true`, carrying
 * only the chosen role's fields (§5). An empty date or gender goes as null,
 * which a typed server reads as "not given".
 */
export function registrationPayload(form: RegistrationForm): RegistrationPayload {
  if (form.role === '') throw new Error('A role must be chosen before registering.');
  const common: RegistrationPayload = {
    email: form.email.trim(),
    username: form.username.trim(),
    active: true,
    password: form.password,
    role: form.role,
    firstname: form.firstname.trim(),
    lastname: form.lastname.trim(),
    phone: form.phone.trim(),
    dob: form.dob || null,
    gender: form.gender || null,
    address: form.address.trim(),
    city: form.city.trim(),
    state: form.state.trim(),
    country: form.country.trim(),
    zipcode: form.zipcode.trim(),
    bio: form.bio.trim(),
  };
  if (form.role === 'healthProvider') {
    return {
      ...common,
      licensenumber: form.licensenumber.trim(),
      insurancenumber: form.insurancenumber.trim(),
      taxid: form.taxid.trim(),
      specialization: form.specialization.trim(),
    };
  }
  return { ...common, primphysician: form.primphysician.trim(), bloodgroup: form.bloodgroup };
}
