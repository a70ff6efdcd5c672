import { useId, useRef, useState, type FormEvent } from 'react';
import { SelectField } from '@/components/Field';
import { Modal } from '@/components/Modal';
import { UserPicker, type UserPickerHandle, type UserPickerTexts } from '@/components/UserPicker';
import { getErrorMessage, getErrorMessages } from '@/lib/api-client';
import { notifyError, notifySuccess } from '@/lib/notify';
import type { User } from '@/types/api';
import type { ImageShare } from '@/types/images';
import { lifetimeChoices, lifetimeLabel, useGetShareLimitsQuery, useShareImageMutation } from '../api';
import { isOpen, statusLabel, userRole } from '../labels';
import '@/components/forms.css';
import '../sharing.css';

const PICKER_TEXTS: UserPickerTexts = {
  legend: 'Share with',
  searchLabel: 'Search users by name',
  one: 'user',
  many: 'users',
  none: () => 'No users found',
};

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
 * caller may see (GET /api/users), a lifetime within the admin's limits
 * (GET /api/sharing/limits; the default preselected, 24 hours unless an
 * admin changed it), one chosen person and POST /api/sharing/request.
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
  const [selected, setSelected] = useState<User | null>(null);
  const { data: limits, isError: limitsFailed } = useGetShareLimitsQuery();
  const [picked, setPicked] = useState<number | null>(null);
  const choices = limits ? lifetimeChoices(limits) : [];
  // The admin's default until the person picks another (and again should
  // the limits change under a pick they no longer allow).
  const hours = picked !== null && choices.includes(picked) ? picked : limits?.shareLifetimeDefaultHours;
  const [choiceError, setChoiceError] = useState('');
  const [failure, setFailure] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const pickerRef = useRef<UserPickerHandle>(null);
  const [shareImage] = useShareImageMutation();

  function describe(user: User) {
    const existing = shares.find((share) => share.sharedWith?.id === user.id && isOpen(share.status));
    return {
      badge: userRole(user.role),
      note: existing
        ? `Already shared (${statusLabel(existing.status)}): sharing again sends a new code and ends that share.`
        : undefined,
    };
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (busy) return;
    setFailure([]);
    if (!selected) {
      setChoiceError('Please choose who to share this image with.');
      pickerRef.current?.focus();
      return;
    }
    setChoiceError('');
    setBusy(true);
    try {
      // Without the limits (not loaded yet, or failed) the server's default applies.
      const result = await shareImage({ imagemetadataId: imageId, createdfor: selected.id, expiresInHours: hours }).unwrap();
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

  return (
    <Modal
      title={`Share (${caption})`}
      size="large"
      onClose={() => !busy && onClose()}
      description="The person you choose gets an email with a code. They can see the image after entering it, until the share expires or you revoke it."
    >
      <form className="share-form" onSubmit={(event) => void submit(event)} noValidate>
        <UserPicker
          ref={pickerRef}
          texts={PICKER_TEXTS}
          excludeId={currentUserId}
          selected={selected}
          onSelect={(user) => {
            setSelected(user);
            setChoiceError('');
          }}
          error={choiceError || undefined}
          disabled={busy}
          describe={describe}
        />
        <SelectField
          id={`${id}-lifetime`}
          label="Expires after"
          value={hours ?? ''}
          disabled={busy || !limits}
          onChange={(event) => setPicked(Number(event.target.value))}
        >
          {limits ? (
            choices.map((choice) => (
              <option key={choice} value={choice}>
                {lifetimeLabel(choice)}
              </option>
            ))
          ) : (
            <option value="">{limitsFailed ? 'The default lifetime' : 'Loading…'}</option>
          )}
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
