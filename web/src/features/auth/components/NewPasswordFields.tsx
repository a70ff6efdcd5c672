import { PasswordField } from '@/components/PasswordField';

interface NewPasswordFieldsProps {
  idPrefix: string;
  password: string;
  confirmation: string;
  onPasswordChange: (value: string) => void;
  onConfirmationChange: (value: string) => void;
  errorId?: string;
}

/** A new password and its confirmation, as both reset screens ask for them (state: useNewPassword). */
export function NewPasswordFields({
  idPrefix,
  password,
  confirmation,
  onPasswordChange,
  onConfirmationChange,
  errorId,
}: NewPasswordFieldsProps) {
  const entries = [
    { id: `${idPrefix}-password`, label: 'New password', hint: '8 to 128 characters.', value: password, set: onPasswordChange },
    { id: `${idPrefix}-confirm-password`, label: 'Confirm new password', value: confirmation, set: onConfirmationChange },
  ];
  return entries.map(({ id, label, hint, value, set }) => (
    <PasswordField
      key={id}
      id={id}
      label={label}
      hint={hint}
      autoComplete="new-password"
      value={value}
      onChange={(event) => set(event.target.value)}
      aria-describedby={errorId}
    />
  ));
}
