import type { InputHTMLAttributes, ReactNode, SelectHTMLAttributes, TextareaHTMLAttributes } from 'react';
import { describedBy } from './field-ids';
import './forms.css';

interface FieldBaseProps {
  id: string;
  label: string;
  /** Shown under the control and tied to it with aria-describedby. */
  error?: string;
  hint?: string;
  className?: string;
}

function FieldShell({
  id,
  label,
  error,
  hint,
  className,
  children,
}: FieldBaseProps & { children: ReactNode }) {
  return (
    <div className={['field', error ? 'field--invalid' : '', className ?? ''].filter(Boolean).join(' ')}>
      <label className="field__label" htmlFor={id}>
        {label}
      </label>
      {hint && (
        <p className="field__hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {children}
      {error && (
        <p className="field__error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'id'>;

export function TextField({ id, label, error, hint, className, ...rest }: FieldBaseProps & InputProps) {
  return (
    <FieldShell id={id} label={label} error={error} hint={hint} className={className}>
      <input
        type="text"
        {...rest}
        id={id}
        className="field__control"
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, hint, error, rest['aria-describedby'])}
      />
    </FieldShell>
  );
}

type SelectProps = Omit<SelectHTMLAttributes<HTMLSelectElement>, 'id'>;

export function SelectField({
  id,
  label,
  error,
  hint,
  className,
  children,
  ...rest
}: FieldBaseProps & SelectProps) {
  return (
    <FieldShell id={id} label={label} error={error} hint={hint} className={className}>
      <select
        {...rest}
        id={id}
        className="field__control"
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, hint, error, rest['aria-describedby'])}
      >
        {children}
      </select>
    </FieldShell>
  );
}

type TextAreaProps = Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'id'>;

export function TextAreaField({ id, label, error, hint, className, ...rest }: FieldBaseProps & TextAreaProps) {
  return (
    <FieldShell id={id} label={label} error={error} hint={hint} className={className}>
      <textarea
        rows={4}
        {...rest}
        id={id}
        className="field__control field__control--area"
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, hint, error, rest['aria-describedby'])}
      />
    </FieldShell>
  );
}
