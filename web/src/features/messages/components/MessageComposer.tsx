import { useId, useState, type FormEvent, type Ref } from 'react';
import { getErrorMessage } from '@/lib/api-client';
import { notifyError } from '@/lib/notify';
import { useGetAttachmentQuery, useSendMessageMutation } from '../api';
import { isSendKey, MESSAGE_MAX_CHARS } from '../compose';
import type { Message } from '../types';

interface MessageComposerProps {
  recipientId: string;
  recipientName: string;
  /** An image to attach to the next message (from "Discuss"), or null. */
  attachmentId: string | null;
  onRemoveAttachment: () => void;
  onSent: (message: Message) => void;
  ref?: Ref<HTMLTextAreaElement>;
}

function AttachmentCaption({ imageId }: { imageId: string }) {
  const { data, isError } = useGetAttachmentQuery(imageId);
  if (data) return <strong>{data.caption?.trim() || 'Untitled'}</strong>;
  return <span>{isError ? 'not available' : 'Loading…'}</span>;
}

/**
 * The text box under a conversation. product.md §4-§5: a message is sent with
 * non-blank text only (blank is ignored without a word), then the box clears.
 */
export function MessageComposer({
  recipientId,
  recipientName,
  attachmentId,
  onRemoveAttachment,
  onSent,
  ref,
}: MessageComposerProps) {
  const id = useId();
  const [text, setText] = useState('');
  const [sendMessage, { isLoading: sending }] = useSendMessageMutation();

  async function send() {
    const content = text.trim();
    if (!content || sending) return;
    try {
      const message = await sendMessage({
        recipientId,
        content,
        ...(attachmentId ? { imageId: attachmentId } : {}),
      }).unwrap();
      setText('');
      onSent(message);
    } catch (error) {
      // 422, 429 and the rest: the server's words, like every other call (product.md §8).
      notifyError(getErrorMessage(error, 'The message could not be sent. Please try again.'));
    }
  }

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    void send();
  }

  return (
    <form className="composer" onSubmit={onSubmit}>
      {attachmentId && (
        <div className="composer__attachment">
          <svg viewBox="0 0 24 24" aria-hidden="true" focusable="false" className="messages-icon">
            <path d="M21 12.5 12.5 21a5 5 0 0 1-7-7L14 5.5a3.5 3.5 0 0 1 5 5L10.5 19a2 2 0 0 1-3-3L15 8.5" />
          </svg>
          <span className="composer__attachment-text">
            Attached image: <AttachmentCaption imageId={attachmentId} />
          </span>
          <button
            type="button"
            className="btn btn--ghost btn--small"
            aria-label="Remove the attached image"
            onClick={onRemoveAttachment}
            disabled={sending}
          >
            Remove
          </button>
        </div>
      )}
      <div className="composer__row">
        <label htmlFor={`${id}-text`} className="visually-hidden">
          {`Message to ${recipientName}`}
        </label>
        <textarea
          ref={ref}
          id={`${id}-text`}
          className="field__control composer__text"
          placeholder="Type a message..."
          rows={2}
          maxLength={MESSAGE_MAX_CHARS}
          value={text}
          readOnly={sending}
          aria-describedby={`${id}-keys`}
          onChange={(event) => setText(event.target.value)}
          onKeyDown={(event) => {
            if (!isSendKey(event)) return;
            event.preventDefault();
            void send();
          }}
        />
        {/* Not disabled while sending: a disabled button would drop the focus. */}
        <button type="submit" className="btn btn--primary composer__send" aria-busy={sending}>
          <svg viewBox="0 0 24 24" aria-hidden="true" focusable="false" className="messages-icon">
            <path d="M4 12 20 4l-6 16-3-7-7-1Z" />
          </svg>
          Send
        </button>
      </div>
      <p id={`${id}-keys`} className="visually-hidden">
        Enter sends the message; Shift and Enter start a new line.
      </p>
    </form>
  );
}
