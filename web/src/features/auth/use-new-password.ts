import { useState } from 'react';

/**
 * The new password both reset screens ask for: its two entries (the props of
 * NewPasswordFields) and the check of product.md §5.
 */
export function useNewPassword() {
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');

  return {
    password,
    fields: { password, confirmation, onPasswordChange: setPassword, onConfirmationChange: setConfirmation },
    /**
     * Both entries given and equal: true. Otherwise false, after `report`
     * got the text to show ('Password fields cannot be empty.' or
     * 'Passwords do not match!'); it gets null when all is well.
     */
    isAcceptable(report: (problem: string | null) => void): boolean {
      let problem: string | null = null;
      if (password === '' || confirmation === '') problem = 'Password fields cannot be empty.';
      else if (password !== confirmation) problem = 'Passwords do not match!';
      report(problem);
      return problem === null;
    },
    clear() {
      setPassword('');
      setConfirmation('');
    },
  };
}
