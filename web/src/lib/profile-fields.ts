/**
 * The profile fields of a user (product.md §3, §5, §7), the one list of
 * them in the app: the registration wizard, the Edit Profile form, the
 * profile page, the payloads and the checks are all drawn from it. The
 * server has the same list, with the same limits
 * (internal/domain/profile.go).
 */

/** How a field is entered. */
export type ProfileInput = 'text' | 'tel' | 'date' | 'gender' | 'bloodgroup' | 'textarea';

/** The roles that have fields of their own. */
export type ProfileRole = 'patient' | 'healthProvider';

/** Where /profile shows a field, under the page's own label (product.md §2). */
export interface ProfileView {
  section: 'personal' | 'address' | 'medical' | 'bio';
  label: string;
  /** Shown only when it has a value (Primphysician, Specialization). */
  onlyIfPresent?: boolean;
}

export interface ProfileFieldSpec {
  /** The member of the user object and of the requests. */
  key: string;
  /** The form's label. */
  label: string;
  /** The only role that has the field; absent: every role. */
  role?: ProfileRole;
  input: ProfileInput;
  /** The longest value in characters (the server refuses more). */
  max?: number;
  required?: boolean;
  autoComplete?: string;
  /** The registration step that asks for it (product.md §2, /register). */
  step: 'personal' | 'medical';
  /** On /profile; absent: not shown there (the names show as Full Name). */
  view?: ProfileView;
  /** Spans both columns of a two-column form. */
  wide?: boolean;
}

export const PROFILE_FIELDS = [
  { key: 'firstname', label: 'First name', input: 'text', max: 100, required: true, autoComplete: 'given-name', step: 'personal' },
  { key: 'lastname', label: 'Last name', input: 'text', max: 100, required: true, autoComplete: 'family-name', step: 'personal' },
  { key: 'phone', label: 'Phone', input: 'tel', max: 30, autoComplete: 'tel', step: 'personal', view: { section: 'personal', label: 'Phone Number' } },
  { key: 'dob', label: 'Date of birth', input: 'date', autoComplete: 'bday', step: 'personal', view: { section: 'personal', label: 'Date of Birth' } },
  { key: 'gender', label: 'Gender', input: 'gender', step: 'personal', view: { section: 'personal', label: 'Gender' } },
  { key: 'address', label: 'Address', input: 'text', max: 200, autoComplete: 'street-address', step: 'personal', wide: true, view: { section: 'address', label: 'Address' } },
  { key: 'country', label: 'Country', input: 'text', max: 100, autoComplete: 'country-name', step: 'personal', view: { section: 'address', label: 'Country' } },
  { key: 'city', label: 'City', input: 'text', max: 100, autoComplete: 'address-level2', step: 'personal', view: { section: 'address', label: 'City' } },
  { key: 'state', label: 'State', input: 'text', max: 100, autoComplete: 'address-level1', step: 'personal', view: { section: 'address', label: 'State' } },
  { key: 'zipcode', label: 'Zip code', input: 'text', max: 20, autoComplete: 'postal-code', step: 'personal', view: { section: 'address', label: 'Zip Code' } },
  { key: 'bloodgroup', label: 'Blood group', role: 'patient', input: 'bloodgroup', max: 10, step: 'medical', view: { section: 'medical', label: 'Blood Group' } },
  { key: 'licensenumber', label: 'License number', role: 'healthProvider', input: 'text', max: 50, step: 'medical', view: { section: 'medical', label: 'License No' } },
  { key: 'insurancenumber', label: 'Insurance number', role: 'healthProvider', input: 'text', max: 50, step: 'medical', view: { section: 'medical', label: 'Insurance No' } },
  { key: 'primphysician', label: 'Primary physician', role: 'patient', input: 'text', max: 100, step: 'medical', view: { section: 'medical', label: 'Primphysician', onlyIfPresent: true } },
  { key: 'taxid', label: 'Tax ID', role: 'healthProvider', input: 'text', max: 50, step: 'medical' },
  { key: 'specialization', label: 'Specialization', role: 'healthProvider', input: 'text', max: 100, step: 'medical', view: { section: 'medical', label: 'Specialization', onlyIfPresent: true } },
  { key: 'bio', label: 'Bio', input: 'textarea', max: 2000, step: 'medical', wide: true, view: { section: 'bio', label: 'User Bio' } },
] as const satisfies readonly ProfileFieldSpec[];

export type ProfileField = (typeof PROFILE_FIELDS)[number];
export type ProfileKey = ProfileField['key'];

/** The profile members of a user object: null or absent when unknown (the names are always there). */
export type ProfileMembers = { firstname: string; lastname: string } & {
  [K in Exclude<ProfileKey, 'firstname' | 'lastname'>]?: string | null;
};

/** A form's values: text for every field. */
export type ProfileValues = Record<ProfileKey, string>;

/** The profile part of a request: the role's fields only; an empty date or gender as null. */
export type ProfilePayload = Partial<Record<ProfileKey, string | null>>;

/** The genders of product.md §3. */
export const GENDERS = ['Male', 'Female', 'Other'] as const;

export const BLOOD_GROUPS = ['A+', 'A-', 'B+', 'B-', 'AB+', 'AB-', 'O+', 'O-'] as const;

/** Whether users of `role` have the field (admins: only those of every role). */
export function hasField(field: ProfileFieldSpec, role: string): boolean {
  return !field.role || field.role === role;
}

/** The fields users of `role` have, in the list's order; of one registration step if given. */
export function fieldsFor(role: string, step?: ProfileFieldSpec['step']): ProfileField[] {
  return PROFILE_FIELDS.filter((field) => hasField(field, role) && (!step || field.step === step));
}

/** Every field empty. */
export function emptyProfile(): ProfileValues {
  return Object.fromEntries(PROFILE_FIELDS.map((field) => [field.key, ''])) as ProfileValues;
}

/** A user's fields as form values (unknown: empty). */
export function profileValuesOf(user: Partial<ProfileMembers>): ProfileValues {
  return Object.fromEntries(PROFILE_FIELDS.map((field) => [field.key, user[field.key] ?? ''])) as ProfileValues;
}

/**
 * The profile part of a request for `role`: only that role's fields (the
 * server refuses another role's), text trimmed, an empty date or gender as
 * null, which the server reads as "not given".
 */
export function profilePayload(values: ProfileValues, role: string): ProfilePayload {
  const payload: ProfilePayload = {};
  for (const field of fieldsFor(role)) {
    const value = values[field.key].trim();
    payload[field.key] = value === '' && (field.input === 'date' || field.input === 'gender') ? null : value;
  }
  return payload;
}

/**
 * What is wrong with a form's values for `role`, by field: a required one
 * left empty, or one longer than its limit.
 */
export function profileErrors(values: ProfileValues, role: string): Partial<Record<ProfileKey, string>> {
  const errors: Partial<Record<ProfileKey, string>> = {};
  for (const field of fieldsFor(role)) {
    const value = values[field.key].trim();
    const max: number | undefined = 'max' in field ? field.max : undefined;
    if ('required' in field && field.required && value === '') errors[field.key] = `Please enter your ${field.label.toLowerCase()}.`;
    else if (max !== undefined && [...value].length > max) errors[field.key] = `${field.label} must be at most ${max} characters.`;
  }
  return errors;
}

/** The form field named by a server field error, if it is a profile field. */
export function isProfileKey(name: string): name is ProfileKey {
  return PROFILE_FIELDS.some((field) => field.key === name);
}
