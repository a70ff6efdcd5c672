import { TextField } from '@/components/Field';

/**
 * The second factor a password reset asks for when the account has one: a
 * code from the authenticator app or a recovery code, in one field.
 */
export function MfaCodeField({
  id,
  value,
  onChange,
  errorId,
  invalid,
}: {
  id: string;
  value: string;
  onChange: (value: string) => void;
  errorId: string | undefined;
  invalid: boolean;
}) {
  return (
    <TextField
      id={id}
      label="Authenticator or recovery code"
      autoComplete="one-time-code"
      spellCheck={false}
      value={value}
      aria-describedby={errorId}
      aria-invalid={invalid ? true : undefined}
      onChange={(event) => onChange(event.target.value)}
    />
  );
}
