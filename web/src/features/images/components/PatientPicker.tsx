import { useEffect, useId, useState } from 'react';
import { useApiGet } from '@/lib/use-api-get';
import type { PagedResponse, User } from '@/types/api';
import { patientLabel } from '../media';
import '@/components/user-option.css';

/** How many patients one search shows; a name narrows the list. */
export const PATIENT_LIMIT = 20;
const SEARCH_DELAY_MS = 300;

interface PatientPickerProps {
  /** The list is fetched only once a file is chosen (product.md §2). */
  enabled: boolean;
  selected: User | null;
  onSelect: (user: User) => void;
  error?: string;
  disabled?: boolean;
}

/**
 * Picks exactly one target patient: a search box (first or last name, sent
 * to GET /api/users?role=patient) over a radio list of the matches.
 */
export function PatientPicker({ enabled, selected, onSelect, error, disabled = false }: PatientPickerProps) {
  const id = useId();
  const [text, setText] = useState('');
  const [search, setSearch] = useState('');

  // Wait for a pause in typing before asking the server.
  useEffect(() => {
    const timer = setTimeout(() => setSearch(text.trim()), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [text]);

  const params: Record<string, string | number> = { role: 'patient', limit: PATIENT_LIMIT };
  if (search) params.search = search;
  const { data, error: loadError, loading } = useApiGet<PagedResponse<User>>(enabled ? '/users' : null, params);

  useEffect(() => {
    if (loadError !== undefined) console.error('Failed to fetch patients', loadError);
  }, [loadError]);

  const found = enabled ? (data?.data ?? []) : [];
  // The chosen patient stays in view while another name is searched.
  const options = selected && !found.some((user) => user.id === selected.id) ? [selected, ...found] : found;
  const total = data?.pagination?.totalItems ?? found.length;

  let status: string;
  if (!enabled) status = 'Choose a file first; the list of patients appears then.';
  else if (loading) status = 'Loading patients…';
  else if (loadError !== undefined) status = 'The patients could not be loaded. Type a name to try again.';
  else if (found.length === 0) status = search ? `No patients match “${search}”.` : 'No patients found.';
  else if (total > found.length) status = `Showing ${found.length} of ${total} patients: type a name to narrow the list.`;
  else status = found.length === 1 ? '1 patient' : `${found.length} patients`;

  const describedBy = [`${id}-status`, error ? `${id}-error` : ''].filter(Boolean).join(' ');

  return (
    <fieldset
      className={['patient-picker', error ? 'patient-picker--invalid' : ''].filter(Boolean).join(' ')}
      aria-describedby={describedBy}
    >
      <legend className="field__label">Patient</legend>
      <div className="field">
        <label className="patient-picker__search-label" htmlFor={`${id}-search`}>
          Search patients
        </label>
        <input
          id={`${id}-search`}
          type="search"
          className="field__control"
          placeholder="First or last name"
          autoComplete="off"
          value={text}
          disabled={!enabled || disabled}
          aria-describedby={describedBy}
          onChange={(event) => setText(event.target.value)}
          data-patient-search
        />
      </div>
      <p id={`${id}-status`} className="patient-picker__status" aria-live="polite">
        {status}
      </p>
      {options.length > 0 && (
        <ul className="patient-picker__list" aria-busy={loading}>
          {options.map((user) => {
            const checked = selected?.id === user.id;
            return (
              <li key={user.id}>
                <label className={checked ? 'user-option user-option--checked' : 'user-option'}>
                  <input
                    type="radio"
                    name="patientId"
                    value={user.id}
                    checked={checked}
                    disabled={disabled}
                    onChange={() => onSelect(user)}
                  />
                  <span className="user-option__name">{patientLabel(user) || user.username}</span>
                  <span className="user-option__email">{user.email}</span>
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
