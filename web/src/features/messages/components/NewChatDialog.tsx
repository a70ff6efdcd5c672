import { useId, useRef, useState, type FormEvent } from 'react';
import { Modal } from '@/components/Modal';
import { UserPicker, type UserPickerHandle, type UserPickerTexts } from '@/components/UserPicker';
import { getErrorMessage } from '@/lib/api-client';
import { roleLabel } from '@/lib/format';
import { notifyError } from '@/lib/notify';
import type { User } from '@/types/api';
import { useSendMessageMutation } from '../api';
import { isSendKey, MESSAGE_MAX_CHARS } from '../compose';
import { chatName } from '../labels';
import '@/components/forms.css';

const PICKER_TEXTS: UserPickerTexts = {
  legend: 'Write to',
  searchLabel: 'Search users by name or email',
  placeholder: 'Name or email',
  one: 'user',
  many: 'users',
  none: () => 'No users found',
};

interface NewChatDialogProps {
  /** The caller: nobody writes to themself. */
  meId: string | undefined;
  onClose: () => void;
  /** The first message went out: open the conversation with that person. */
  onSent: (userId: string) => void;
}

/**
 * product.md §2: 'Select User to Chat' lists the people the caller may write
 * to (the directory, searched by name or email); picking one opens 'Send
 * Message' with a text box and Send. A blank message is ignored.
 */
export function NewChatDialog({ meId, onClose, onSent }: NewChatDialogProps) {
  const id = useId();
  const [picked, setPicked] = useState<User | null>(null);
  const [writing, setWriting] = useState(false);
  const [text, setText] = useState('');
  const [choiceError, setChoiceError] = useState('');
  const pickerRef = useRef<UserPickerHandle>(null);
  const [sendMessage, { isLoading: sending }] = useSendMessageMutation();

  async function send() {
    const content = text.trim();
    if (!picked || !content || sending) return;
    try {
      await sendMessage({ recipientId: picked.id, content }).unwrap();
      onSent(picked.id);
    } catch (error) {
      notifyError(getErrorMessage(error, 'The message could not be sent. Please try again.'));
    }
  }

  function onPick(event: FormEvent) {
    event.preventDefault();
    if (picked) {
      setWriting(true);
      return;
    }
    setChoiceError('Please choose who to write to.');
    pickerRef.current?.focus();
  }

  if (writing && picked) {
    return (
      // Keyed: each step is a dialog of its own, which takes the focus when it opens.
      <Modal key="write" title="Send Message" onClose={() => !sending && onClose()} description={`To ${chatName(picked)}`}>
        <form
          className="new-chat-form"
          onSubmit={(event) => {
            event.preventDefault();
            void send();
          }}
        >
          <div className="field">
            <label className="field__label" htmlFor={`${id}-text`}>
              Message
            </label>
            <textarea
              id={`${id}-text`}
              className="field__control field__control--area"
              placeholder="Type a message..."
              rows={4}
              maxLength={MESSAGE_MAX_CHARS}
              value={text}
              readOnly={sending}
              data-autofocus
              onChange={(event) => setText(event.target.value)}
              onKeyDown={(event) => {
                if (!isSendKey(event)) return;
                event.preventDefault();
                void send();
              }}
            />
          </div>
          <div className="modal__actions">
            <button type="button" className="btn btn--outline" onClick={() => setWriting(false)} disabled={sending}>
              Back
            </button>
            <button type="submit" className="btn btn--primary" aria-busy={sending}>
              Send
            </button>
          </div>
        </form>
      </Modal>
    );
  }

  return (
    <Modal key="pick" title="Select User to Chat" size="large" onClose={onClose}>
      <form className="new-chat-form" onSubmit={onPick}>
        <UserPicker
          ref={pickerRef}
          texts={PICKER_TEXTS}
          excludeId={meId}
          selected={picked}
          onSelect={(user) => {
            setPicked(user);
            setChoiceError('');
          }}
          error={choiceError || undefined}
          describe={(user) => ({ badge: user.role ? roleLabel(user.role) : 'User' })}
        />
        <div className="modal__actions">
          <button type="button" className="btn btn--outline" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn--primary">
            Next
          </button>
        </div>
      </form>
    </Modal>
  );
}
