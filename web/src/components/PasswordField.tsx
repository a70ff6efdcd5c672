import { useState, type InputHTMLAttributes } from 'react';
import { describedBy } from './field-ids';
import './forms.css';

interface PasswordFieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'type'> {
  id: string;
  label: string;
  error?: string;
  hint?: string;
}

/** A password input with a show/hide toggle (product.md §2, /login). */
export function PasswordField({ id, label, error, hint, ...rest }: PasswordFieldProps) {
  const [visible, setVisible] = useState(false);
  return (
    <div className={error ? 'field field--invalid' : 'field'}>
      <label className="field__label" htmlFor={id}>
        {label}
      </label>
      {hint && (
        <p className="field__hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      <div className="password-field">
        <input
          {...rest}
          id={id}
          type={visible ? 'text' : 'password'}
          className="field__control password-field__input"
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy(id, hint, error, rest['aria-describedby'])}
        />
        <button
          type="button"
          className="password-field__toggle"
          aria-controls={id}
          aria-label={visible ? `Hide ${label.toLowerCase()}` : `Show ${label.toLowerCase()}`}
          onClick={() => setVisible((shown) => !shown)}
        >
          {visible ? 'Hide' : 'Show'}
        </button>
      </div>
      {error && (
        <p className="field__error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}
