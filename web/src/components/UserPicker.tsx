import { skipToken } from '@reduxjs/toolkit/query/react';
import { useEffect, useId, useImperativeHandle, useRef, useState, type Ref } from 'react';
import { nameLastFirst } from '@/lib/format';
import { useDebouncedValue } from '@/lib/use-debounced-value';
import { useListUsersQuery } from '@/lib/users-api';
import type { RoleName, User } from '@/types/api';
import './forms.css';
import './UserPicker.css';

/** How many people one search shows; a name narrows the list. */
const PICKER_LIMIT = 20;

/** The words of one picker: its legend, search label and status lines. */
export interface UserPickerTexts {
  legend: string;
  searchLabel: string;
  /** The people listed, as the status line counts them: 'patient', 'patients'. */
  one: string;
  many: string;
  /** The status when nobody matches `search` ('' when nothing was typed). */
  none: (search: string) => string;
  /** The status while the picker is not enabled yet. */
  waiting?: string;
  /** The search box's placeholder; 'First or last name' unless given. */
  placeholder?: string;
}

export interface UserPickerHandle {
  /** Focuses the first person of the list, else the search box. */
  focus: () => void;
}

interface UserPickerProps {
  texts: UserPickerTexts;
  /** Only people of this role (GET /api/users?role=...). */
  onlyRole?: RoleName;
  /** Someone never listed (the caller: nobody shares with themself). */
  excludeId?: string;
  /** The list is fetched only once enabled. */
  enabled?: boolean;
  selected: User | null;
  onSelect: (user: User) => void;
  error?: string;
  disabled?: boolean;
  /** Extra facts of a row: a badge beside the name, a note under it. */
  describe?: (user: User) => { badge?: string; note?: string };
  ref?: Ref<UserPickerHandle>;
}

/**
 * Picks exactly one person: a search box (first or last name, sent to
 * GET /api/users after a pause in typing) over a radio list of the matches.
 */
export function UserPicker({
  texts,
  onlyRole,
  excludeId,
  enabled = true,
  selected,
  onSelect,
  error,
  disabled = false,
  describe,
  ref,
}: UserPickerProps) {
  const id = useId();
  const [text, setText] = useState('');
  const search = useDebouncedValue(text.trim());
  const searchRef = useRef<HTMLInputElement>(null);
  const listRef = useRef<HTMLUListElement>(null);
  const { data, error: loadError, isError, isFetching } = useListUsersQuery(
    enabled ? { role: onlyRole, limit: PICKER_LIMIT, search: search || undefined } : skipToken,
  );

  useImperativeHandle(ref, () => ({
    focus: () =>
      (listRef.current?.querySelector<HTMLInputElement>('input[type="radio"]:not([disabled])') ?? searchRef.current)?.focus(),
  }));

  useEffect(() => {
    // product.md §8: a failed users list is logged.
    if (isError) console.error(`Failed to fetch ${texts.many}`, loadError);
  }, [isError, loadError, texts.many]);

  const received = enabled ? (data?.data ?? []) : [];
  const found = received.filter((user) => user.id !== excludeId);
  // The chosen person stays in view while another name is searched.
  const options = selected && !found.some((user) => user.id === selected.id) ? [selected, ...found] : found;
  // The server's total counts the excluded person too when they match.
  const total = (data?.pagination?.totalItems ?? received.length) - (received.length - found.length);
  const more = data?.pagination?.totalAtLeast ? '+' : '';

  let status: string;
  if (!enabled) status = texts.waiting ?? '';
  else if (isFetching) status = `Loading ${texts.many}…`;
  else if (isError) status = `The ${texts.many} could not be loaded. Type a name to try again.`;
  else if (found.length === 0) status = texts.none(search);
  else if (total > found.length)
    status = `Showing ${found.length} of ${total}${more} ${texts.many}: type a name to narrow the list.`;
  else status = found.length === 1 ? `1 ${texts.one}` : `${found.length} ${texts.many}`;

  const describedBy = [`${id}-status`, error ? `${id}-error` : ''].filter(Boolean).join(' ');

  return (
    <fieldset
      className={['user-picker', error ? 'user-picker--invalid' : ''].filter(Boolean).join(' ')}
      aria-describedby={describedBy}
    >
      <legend className="field__label">{texts.legend}</legend>
      <div className="field">
        <label className="user-picker__search-label" htmlFor={`${id}-search`}>
          {texts.searchLabel}
        </label>
        <input
          ref={searchRef}
          id={`${id}-search`}
          type="search"
          className="field__control"
          placeholder={texts.placeholder ?? 'First or last name'}
          autoComplete="off"
          value={text}
          disabled={!enabled || disabled}
          aria-describedby={describedBy}
          onChange={(event) => setText(event.target.value)}
        />
      </div>
      <p id={`${id}-status`} className="user-picker__status" aria-live="polite">
        {status}
      </p>
      {options.length > 0 && (
        <ul ref={listRef} className="user-picker__list" aria-busy={isFetching}>
          {options.map((user) => {
            const checked = selected?.id === user.id;
            const { badge, note } = describe?.(user) ?? {};
            const className = ['user-option', checked ? 'user-option--checked' : '', badge ? 'user-option--badged' : '']
              .filter(Boolean)
              .join(' ');
            return (
              <li key={user.id}>
                <label className={className}>
                  <input
                    type="radio"
                    name={`${id}-person`}
                    value={user.id}
                    checked={checked}
                    disabled={disabled}
                    onChange={() => onSelect(user)}
                  />
                  <span className="user-option__name">{nameLastFirst(user) || user.username || user.email}</span>
                  <span className="user-option__email">{user.email}</span>
                  {badge && <span className="user-option__badge">{badge}</span>}
                  {note && <span className="user-option__note">{note}</span>}
                </label>
              </li>
            );
          })}
        </ul>
      )}
      {error && (
        <p id={`${id}-error`} className="field__error">
          {error}
        </p>
      )}
    </fieldset>
  );
}
