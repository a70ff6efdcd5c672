import { BLOOD_GROUPS, GENDERS, type ProfileField } from '@/lib/profile-fields';
import { SelectField, TextAreaField, TextField } from './Field';

interface ProfileFieldInputProps {
  field: ProfileField;
  /** The control's id is `${idPrefix}-${field.key}`. */
  idPrefix: string;
  value: string;
  onChange: (value: string) => void;
  error?: string;
  /** product.md §2: the Edit Profile form lowercases gender. */
  lowercaseGender?: boolean;
  /** The Modal focuses the control marked so first. */
  autoFocusInModal?: boolean;
}

/** One profile field as a labelled form control, as lib/profile-fields.ts describes it. */
export function ProfileFieldInput({
  field,
  idPrefix,
  value,
  onChange,
  error,
  lowercaseGender = false,
  autoFocusInModal = false,
}: ProfileFieldInputProps) {
  const common = {
    id: `${idPrefix}-${field.key}`,
    name: field.key,
    label: field.label,
    value,
    error,
    className: 'wide' in field && field.wide ? 'form-grid__wide' : undefined,
    onChange: (event: { target: { value: string } }) => onChange(event.target.value),
    ...(autoFocusInModal ? { 'data-autofocus': true } : {}),
  };
  const maxLength = 'max' in field ? field.max : undefined;

  switch (field.input) {
    case 'gender':
      return (
        <SelectField {...common}>
          <option value="">Select…</option>
          {GENDERS.map((gender) => (
            <option key={gender} value={lowercaseGender ? gender.toLowerCase() : gender}>
              {gender}
            </option>
          ))}
        </SelectField>
      );
    case 'bloodgroup': {
      // A value saved before the list existed stays choosable.
      const groups: readonly string[] = value && !(BLOOD_GROUPS as readonly string[]).includes(value) ? [value, ...BLOOD_GROUPS] : BLOOD_GROUPS;
      return (
        <SelectField {...common}>
          <option value="">Select…</option>
          {groups.map((group) => (
            <option key={group} value={group}>
              {group}
            </option>
          ))}
        </SelectField>
      );
    }
    case 'textarea':
      return <TextAreaField {...common} maxLength={maxLength} />;
    default:
      return (
        <TextField
          {...common}
          type={field.input}
          maxLength={maxLength}
          autoComplete={'autoComplete' in field ? field.autoComplete : undefined}
        />
      );
  }
}
