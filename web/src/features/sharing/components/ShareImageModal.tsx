import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { SelectField } from '@/components/Field';
import { Modal } from '@/components/Modal';
import { getErrorMessage, getErrorMessages } from '@/lib/api-client';
import { notifyError, notifySuccess } from '@/lib/notify';
import { useApiGet } from '@/lib/use-api-get';
import type { PagedResponse, User } from '@/types/api';
import { DEFAULT_SHARE_HOURS, SHARE_LIFETIMES, shareImage, type ImageShare } from '../api';
import { isOpen, lastFirst, statusLabel, userRole } from '../labels';
import '@/components/forms.css';
import '@/components/user-option.css';
import '../sharing.css';

/** How many users one search shows; a name narrows the list. */
export const USER_LIMIT = 20;
const SEARCH_DELAY_MS = 300;

interface ShareImageModalProps {
  imageId: string;
  /** The caption as the card shows it ('Untitled' fallback applied). */
  caption: string;
  /** The image's current shares, to mark people who already have one. */
  shares?: ImageShare[];
  /** The signed-in user: nobody shares with themself. */
  currentUserId?: string;
  onClose: () => void;
  onShared: () => void;
}

/**
 * product.md §2: 'Share ({caption})' with a search by name over the users the
 * caller may see (GET /api/users), a lifetime (24 hours by default), one
 * chosen person and POST /api/sharing/request.
 */
export function ShareImageModal({
  imageId,
  caption,
  shares = [],
  currentUserId,
  onClose,
  onShared,
}: ShareImageModalProps) {
  const id = useId();
  const [text, setText] = useState('');
  const [search, setSearch] = useState('');
  const [selected, setSelected] = useState<User | null>(null);
  const [hours, setHours] = useState(DEFAULT_SHARE_HOURS);
  const [choiceError, setChoiceError] = useState('');
  const [failure, setFailure] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const listRef = useRef<HTMLUListElement>(null);
  const searchRef = useRef<HTMLInputElement>(null);

  // Wait for a pause in typing before asking the server.
  useEffect(() => {
    const timer = setTimeout(() => setSearch(text.trim()), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [text]);

  const params: Record<string, string | number> = { limit: USER_LIMIT };
  if (search) params.search = search;
  const { data, error: loadError, loading } = useApiGet<PagedResponse<User>>('/users', params);

  useEffect(() => {
    // product.md §8: a failed users list is logged.
    if (loadError !== undefined) console.error('Failed to fetch users', loadError);
  }, [loadError]);

  const received = data?.data ?? [];
  const found = received.filter((user) => user.id !== currentUserId);
  // The chosen person stays in view while another name is searched.
  const options = selected && !found.some((user) => user.id === selected.id) ? [selected, ...found] : found;
  // The total counts the caller too when they are among the matches.
  const total = (data?.pagination?.totalItems ?? received.length) - (received.length - found.length);

  let status: string;
  if (loading) status = 'Loading users…';
  else if (loadError !== undefined) status = 'The users could not be loaded. Type a name to try again.';
  else if (found.length === 0) status = 'No users found';
  else if (total > found.length) status = `Showing ${found.length} of ${total} users: type a name to narrow the list.`;
  else status = found.length === 1 ? '1 user' : `${found.length} users`;

  const shareOf = (user: User) => shares.find((share) => share.sharedWith?.id === user.id && isOpen(share.status));

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (busy) return;
    setFailure([]);
    if (!selected) {
      setChoiceError('Please choose who to share this image with.');
      (listRef.current?.querySelector<HTMLInputElement>('input[type="radio"]') ?? searchRef.current)?.focus();
      return;
    }
    setChoiceError('');
    setBusy(true);
    try {
      const result = await shareImage({ imagemetadataId: imageId, createdfor: selected.id, expiresInHours: hours });
      notifySuccess(result.message || 'Image shared successfully.');
      onShared();
    } catch (error) {
      const message = getErrorMessage(error, 'The image could not be shared. Please try again.');
      const details = getErrorMessages(error, message).filter((item) => item !== message);
      setFailure([message, ...details]);
      notifyError(message);
      setBusy(false);
    }
  }

  const describedBy = [`${id}-status`, choiceError ? `${id}-choice-error` : ''].filter(Boolean).join(' ');

  return (
    <Modal
      title={`Share (${caption})`}
      size="large"
      onClose={() => !busy && onClose()}
      description="The person you choose gets an email with a code. They can see the image after entering it, until the share expires or you revoke it."
    >
      <form className="share-form" onSubmit={(event) => void submit(event)} noValidate>
        <fieldset className="share-form__people" aria-describedby={describedBy}>
          <legend className="field__label">Share with</legend>
          <div className="field">
            <label className="share-form__search-label" htmlFor={`${id}-search`}>
              Search users by name
            </label>
            <input
              ref={searchRef}
              id={`${id}-search`}
              type="search"
              className="field__control"
              placeholder="First or last name"
              autoComplete="off"
              value={text}
              disabled={busy}
              aria-describedby={describedBy}
              onChange={(event) => setText(event.target.value)}
            />
          </div>
          <p id={`${id}-status`} className="share-form__status" aria-live="polite">
            {status}
          </p>
          {options.length > 0 && (
            <ul ref={listRef} className="share-users" aria-busy={loading}>
              {options.map((user) => {
                const checked = selected?.id === user.id;
                const existing = shareOf(user);
                return (
                  <li key={user.id}>
                    <label className={checked ? 'user-option user-option--checked share-user' : 'user-option share-user'}>
                      <input
                        type="radio"
                        name={`${id}-recipient`}
                        value={user.id}
                        checked={checked}
                        disabled={busy}
                        onChange={() => {
                          setSelected(user);
                          setChoiceError('');
                        }}
                      />
                      <span className="user-option__name">{lastFirst(user) || user.username || user.email}</span>
                      <span className="user-option__email">{user.email}</span>
                      <span className="share-user__role">{userRole(user.role)}</span>
                      {existing && (
                        <span className="share-user__note">
                          {`Already shared (${statusLabel(existing.status)}): sharing again sends a new code and ends that share.`}
                        </span>
                      )}
                    </label>
                  </li>
                );
              })}
            </ul>
          )}
          {choiceError && (
            <p id={`${id}-choice-error`} className="field__error">
              {choiceError}
            </p>
          )}
        </fieldset>
        <SelectField
          id={`${id}-lifetime`}
          label="Expires after"
          value={hours}
          disabled={busy}
          onChange={(event) => setHours(Number(event.target.value))}
        >
          {SHARE_LIFETIMES.map((lifetime) => (
            <option key={lifetime.hours} value={lifetime.hours}>
              {lifetime.label}
            </option>
          ))}
        </SelectField>
        {failure.length > 0 && (
          <div className="form-error" role="alert">
            {failure.map((line) => (
              <p key={line}>{line}</p>
            ))}
          </div>
        )}
        <div className="modal__actions">
          <button type="button" className="btn btn--outline" onClick={onClose} disabled={busy}>
            Cancel
          </button>
          <button type="submit" className="btn btn--primary" disabled={busy}>
            {busy ? 'Sharing…' : 'Share'}
          </button>
        </div>
      </form>
    </Modal>
  );
}
