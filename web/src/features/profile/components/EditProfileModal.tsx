import { useState, type FormEvent } from 'react';
import { SelectField, TextAreaField, TextField } from '@/components/Field';
import { Modal } from '@/components/Modal';
import { getErrorMessages } from '@/lib/api-client';
import { notifyErrors, notifySuccess } from '@/lib/notify';
import type { User } from '@/types/api';
import { useUpdateProfileMutation, type ProfileUpdate } from '../api';

const BLOOD_GROUPS = ['A+', 'A-', 'B+', 'B-', 'AB+', 'AB-', 'O+', 'O-'];

type FormState = Required<Omit<ProfileUpdate, 'dob' | 'gender'>> & { dob: string; gender: string };

function initialState(user: User): FormState {
  const text = (value: string | null | undefined) => value ?? '';
  return {
    firstname: text(user.firstname),
    lastname: text(user.lastname),
    phone: text(user.phone),
    dob: text(user.dob),
    // product.md §2: the edit form lowercases gender; the server takes any case.
    gender: text(user.gender).toLowerCase(),
    taxid: text(user.taxid),
    city: text(user.city),
    country: text(user.country),
    state: text(user.state),
    address: text(user.address),
    zipcode: text(user.zipcode),
    bio: text(user.bio),
    bloodgroup: text(user.bloodgroup),
    insurancenumber: text(user.insurancenumber),
    licensenumber: text(user.licensenumber),
    primphysician: text(user.primphysician),
    specialization: text(user.specialization),
  };
}

/** The body of PUT /api/users/profile: the role's own extra field only. */
function toUpdate(form: FormState, role: string): ProfileUpdate {
  const { primphysician, specialization, dob, gender, ...rest } = form;
  const update: ProfileUpdate = { ...rest, dob: dob || null, gender: gender || null };
  if (role === 'patient') update.primphysician = primphysician;
  if (role === 'healthProvider') update.specialization = specialization;
  return update;
}

interface EditProfileModalProps {
  user: User;
  onClose: () => void;
  onSaved: () => void;
}

export function EditProfileModal({ user, onClose, onSaved }: EditProfileModalProps) {
  const [form, setForm] = useState<FormState>(() => initialState(user));
  const [busy, setBusy] = useState(false);
  const [updateProfile] = useUpdateProfileMutation();

  function bind(key: keyof FormState) {
    return {
      id: `edit-${key}`,
      name: key,
      value: form[key],
      onChange: (event: { target: { value: string } }) =>
        setForm((current) => ({ ...current, [key]: event.target.value })),
    };
  }

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setBusy(true);
    try {
      await updateProfile(toUpdate(form, user.role)).unwrap();
      notifySuccess('Profile updated successfully!');
      onSaved();
    } catch (error) {
      notifyErrors(getErrorMessages(error, 'An error occurred. Please try again.'));
      setBusy(false);
    }
  }

  const bloodGroups = form.bloodgroup && !BLOOD_GROUPS.includes(form.bloodgroup)
    ? [form.bloodgroup, ...BLOOD_GROUPS]
    : BLOOD_GROUPS;

  return (
    <Modal title="Edit Profile" onClose={onClose} size="large">
      <form noValidate onSubmit={onSubmit} aria-label="Edit Profile">
        <div className="form-grid form-grid--two">
          <TextField label="First name" autoComplete="given-name" data-autofocus {...bind('firstname')} />
          <TextField label="Last name" autoComplete="family-name" {...bind('lastname')} />
          <TextField label="Phone" type="tel" autoComplete="tel" {...bind('phone')} />
          <TextField label="Date of birth" type="date" autoComplete="bday" {...bind('dob')} />
          <SelectField label="Gender" {...bind('gender')}>
            <option value="">Select…</option>
            <option value="male">Male</option>
            <option value="female">Female</option>
            <option value="other">Other</option>
          </SelectField>
          <TextField label="Tax ID" {...bind('taxid')} />
          <TextField label="Address" autoComplete="street-address" className="form-grid__wide" {...bind('address')} />
          <TextField label="City" autoComplete="address-level2" {...bind('city')} />
          <TextField label="State" autoComplete="address-level1" {...bind('state')} />
          <TextField label="Country" autoComplete="country-name" {...bind('country')} />
          <TextField label="Zip code" autoComplete="postal-code" {...bind('zipcode')} />
          <SelectField label="Blood group" {...bind('bloodgroup')}>
            <option value="">Select…</option>
            {bloodGroups.map((group) => (
              <option key={group} value={group}>
                {group}
              </option>
            ))}
          </SelectField>
          <TextField label="Insurance number" {...bind('insurancenumber')} />
          <TextField label="License number" {...bind('licensenumber')} />
          {user.role === 'patient' && <TextField label="Primary physician" {...bind('primphysician')} />}
          {user.role === 'healthProvider' && <TextField label="Specialization" {...bind('specialization')} />}
          <TextAreaField label="Bio" className="form-grid__wide" {...bind('bio')} />
        </div>
        <div className="modal__actions">
          <button type="button" className="btn btn--outline" onClick={onClose} disabled={busy}>
            Cancel
          </button>
          <button type="submit" className="btn btn--primary" disabled={busy}>
            {busy ? 'Saving…' : 'Save changes'}
          </button>
        </div>
      </form>
    </Modal>
  );
}
