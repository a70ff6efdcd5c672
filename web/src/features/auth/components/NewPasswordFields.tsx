import { PasswordField } from '@/components/PasswordField';

interface NewPasswordFieldsProps {
  idPrefix: string;
  password: string;
  confirmation: string;
  onPasswordChange: (value: string) => void;
  onConfirmationChange: (value: string) => void;
  errorId?: string;
}

/** A new password and its confirmation, as both reset screens ask for them. */
export function NewPasswordFields({
  idPrefix,
  password,
  confirmation,
  onPasswordChange,
  onConfirmationChange,
  errorId,
}: NewPasswordFieldsProps) {
  return (
    <>
      <PasswordField
        id={`${idPrefix}-password`}
        label="New password"
        autoComplete="new-password"
        hint="8 to 128 characters."
        value={password}
        onChange={(event) => onPasswordChange(event.target.value)}
        aria-describedby={errorId}
      />
      <PasswordField
        id={`${idPrefix}-confirm-password`}
        label="Confirm new password"
        autoComplete="new-password"
        value={confirmation}
        onChange={(event) => onConfirmationChange(event.target.value)}
        aria-describedby={errorId}
      />
    </>
  );
}
