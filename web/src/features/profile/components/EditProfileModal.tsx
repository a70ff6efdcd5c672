import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Modal } from '@/components/Modal';
import { ProfileFieldInput } from '@/components/ProfileFieldInput';
import { errorBody, getErrorMessages } from '@/lib/api-client';
import { notifyErrors, notifySuccess } from '@/lib/notify';
import {
  fieldsFor,
  isProfileKey,
  profileErrors,
  profilePayload,
  profileValuesOf,
  type ProfileKey,
  type ProfileValues,
} from '@/lib/profile-fields';
import type { User } from '@/types/api';
import { useUpdateProfileMutation } from '../api';

type Errors = Partial<Record<ProfileKey, string>>;

function initialValues(user: User): ProfileValues {
  const values = profileValuesOf(user);
  // product.md §2: the edit form lowercases gender; the server takes any case.
  return { ...values, gender: values.gender.toLowerCase() };
}

/** The server's field errors that name a field of the form. */
function serverErrors(error: unknown): Errors {
  const errors: Errors = {};
  const items = errorBody(error)?.errors;
  for (const item of Array.isArray(items) ? items : []) {
    if (isProfileKey(item.field)) errors[item.field] = item.message;
  }
  return errors;
}

interface EditProfileModalProps {
  user: User;
  onClose: () => void;
  onSaved: () => void;
}

/** Edit Profile (product.md §2, §4): the fields of the user's role, from lib/profile-fields.ts. */
export function EditProfileModal({ user, onClose, onSaved }: EditProfileModalProps) {
  const [values, setValues] = useState<ProfileValues>(() => initialValues(user));
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);
  const [updateProfile] = useUpdateProfileMutation();
  const focusFirstError = useRef(false);
  const fields = fieldsFor(user.role);

  /** Shows the errors under their fields; focus then moves to the first. */
  function show(found: Errors) {
    focusFirstError.current = true;
    setErrors(found);
  }

  // Once the errors are on screen (each field describes itself with its own).
  useEffect(() => {
    if (!focusFirstError.current) return;
    focusFirstError.current = false;
    const first = fieldsFor(user.role).find((field) => errors[field.key]);
    if (first) document.getElementById(`edit-${first.key}`)?.focus();
  }, [errors, user.role]);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const found = profileErrors(values, user.role);
    if (Object.keys(found).length > 0) {
      show(found);
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      // Only the fields of the user's role: the server refuses another role's.
      await updateProfile(profilePayload(values, user.role)).unwrap();
      notifySuccess('Profile updated successfully!');
      onSaved();
    } catch (error) {
      // product.md §8: one toast per field error; each also sits under its field.
      notifyErrors(getErrorMessages(error, 'An error occurred. Please try again.'));
      show(serverErrors(error));
      setBusy(false);
    }
  }

  return (
    <Modal title="Edit Profile" onClose={onClose} size="large">
      <form noValidate onSubmit={onSubmit} aria-label="Edit Profile">
        <div className="form-grid form-grid--two">
          {fields.map((field, index) => (
            <ProfileFieldInput
              key={field.key}
              field={field}
              idPrefix="edit"
              value={values[field.key]}
              error={errors[field.key]}
              lowercaseGender
              autoFocusInModal={index === 0}
              onChange={(value) => setValues((current) => ({ ...current, [field.key]: value }))}
            />
          ))}
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
