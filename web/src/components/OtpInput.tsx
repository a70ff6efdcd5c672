import { useRef, type ClipboardEvent, type KeyboardEvent } from 'react';
import './OtpInput.css';

interface OtpInputProps {
  /** Prefix of the boxes' ids; the first box is `${id}-0`. */
  id: string;
  /** The group's accessible name, e.g. "Verification code"... */
  label?: string;
  /** ...or the id of a visible text that names it. */
  labelId?: string;
  /** One entry per box: a digit or ''. */
  value: string[];
  onChange: (value: string[]) => void;
  /** Id of an error text that describes the group. */
  errorId?: string;
  invalid?: boolean;
  disabled?: boolean;
}

const onlyDigits = (text: string) => text.replace(/\D/g, '');

/**
 * One box per digit: only digits are taken, typing moves to the next box,
 * Backspace on an empty box goes back, and pasting a code fills the boxes.
 */
export function OtpInput({ id, label, labelId, value, onChange, errorId, invalid, disabled }: OtpInputProps) {
  const boxes = useRef<(HTMLInputElement | null)[]>([]);
  const length = value.length;

  function focusBox(index: number) {
    const box = boxes.current[Math.max(0, Math.min(length - 1, index))];
    box?.focus();
    box?.select();
  }

  /** Writes `digits` into the boxes from `start` and focuses the box after them. */
  function fill(start: number, digits: string) {
    const next = [...value];
    const room = Math.min(digits.length, length - start);
    for (let offset = 0; offset < room; offset += 1) next[start + offset] = digits[offset];
    onChange(next);
    focusBox(start + room);
  }

  function onInput(index: number, raw: string) {
    const digits = onlyDigits(raw);
    if (raw === '') {
      const next = [...value];
      next[index] = '';
      onChange(next);
      return;
    }
    if (digits === '') return; // letters and signs are refused
    if (digits.length >= length) {
      fill(0, digits); // a whole code, e.g. from autofill
      return;
    }
    if (value[index] !== '' && digits.length === 2) {
      // Typing into a filled box: keep the digit just typed, not the old one.
      fill(index, digits[0] === value[index] ? digits[1] : digits[0]);
      return;
    }
    fill(index, digits);
  }

  function onKeyDown(index: number, event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === 'Backspace' && value[index] === '' && index > 0) {
      event.preventDefault();
      const next = [...value];
      next[index - 1] = '';
      onChange(next);
      focusBox(index - 1);
    } else if (event.key === 'ArrowLeft' && index > 0) {
      event.preventDefault();
      focusBox(index - 1);
    } else if (event.key === 'ArrowRight' && index < length - 1) {
      event.preventDefault();
      focusBox(index + 1);
    }
  }

  function onPaste(index: number, event: ClipboardEvent<HTMLInputElement>) {
    event.preventDefault();
    const digits = onlyDigits(event.clipboardData.getData('text')).slice(0, length);
    if (digits === '') return;
    fill(digits.length === length ? 0 : index, digits);
  }

  return (
    <div
      className="otp"
      role="group"
      aria-label={labelId ? undefined : label}
      aria-labelledby={labelId}
      aria-describedby={errorId}
    >
      {value.map((digit, index) => (
        <input
          // The boxes never reorder, so the position is a stable key.
          key={index}
          ref={(element) => {
            boxes.current[index] = element;
          }}
          id={`${id}-${index}`}
          className="otp__box"
          type="text"
          inputMode="numeric"
          autoComplete={index === 0 ? 'one-time-code' : 'off'}
          pattern="[0-9]*"
          aria-label={`Digit ${index + 1} of ${length}`}
          aria-invalid={invalid ? true : undefined}
          value={digit}
          disabled={disabled}
          onChange={(event) => onInput(index, event.target.value)}
          onKeyDown={(event) => onKeyDown(index, event)}
          onPaste={(event) => onPaste(index, event)}
          onFocus={(event) => event.target.select()}
        />
      ))}
    </div>
  );
}
