import { useEffect, useLayoutEffect, useRef } from 'react';
import { Link } from 'react-router';
import { Spinner } from '@/components/Spinner';
import { errorStatus } from '@/lib/api-client';
import { formatDateTime, formatMessageTime } from '@/lib/format';
import { useGetConversationInfiniteQuery, useMarkConversationReadMutation } from '../api';
import { messagesOf } from '../cache';
import type { Message } from '../types';
import { MessageComposer } from './MessageComposer';

/** Scrolled this close to the top, the older messages load. */
const LOAD_OLDER_AT_PX = 48;

interface ConversationProps {
  userId: string;
  name: string;
  meId: string | undefined;
  /** Narrow screens show one pane: the conversation then has a way back to the list. */
  onBack?: () => void;
  attachmentId: string | null;
  onRemoveAttachment: () => void;
  onSent: () => void;
  hidden?: boolean;
}

function ImageIcon() {
  return (
    <svg viewBox="0 0 24 24" aria-hidden="true" focusable="false" className="messages-icon">
      <rect x="3" y="4" width="18" height="16" rx="2" />
      <path d="m3 16 5-5 4 4 3-3 6 6" />
    </svg>
  );
}

function MessageItem({ message, mine, name }: { message: Message; mine: boolean; name: string }) {
  const sent = formatMessageTime(message.createAt);
  return (
    <li className={mine ? 'message message--mine' : 'message'}>
      <div className="message__bubble">
        <span className="visually-hidden">{mine ? 'You:' : `${name}:`}</span>
        <p className="message__text">{message.content}</p>
        {message.image?.available === true && (
          <Link className="message__image" to={`/view-images?image=${encodeURIComponent(message.image.id)}`}>
            <ImageIcon />
            <span>
              <span className="visually-hidden">Attached image:</span> {message.image.caption?.trim() || 'Untitled'}
            </span>
          </Link>
        )}
        {/* No longer the reader's to see: no caption and no link, as the server sends neither. */}
        {message.image?.available === false && (
          <p className="message__image message__image--gone">
            <ImageIcon />
            <span>
              <span className="visually-hidden">Attached image:</span> This image is no longer available.
            </span>
          </p>
        )}
      </div>
      <p className="message__meta">
        <time dateTime={message.createAt} title={formatDateTime(message.createAt) ?? undefined}>
          {sent}
        </time>
        {mine && <span>{message.readAt ? ' · Read' : ' · Sent'}</span>}
      </p>
    </li>
  );
}

/**
 * The right pane: the messages with one person, newest at the bottom, older
 * pages as the reader scrolls up, and the composer.
 */
export function Conversation({
  userId,
  name,
  meId,
  onBack,
  attachmentId,
  onRemoveAttachment,
  onSent,
  hidden,
}: ConversationProps) {
  const { data, error, isError, isLoading, isSuccess, hasNextPage, isFetchingNextPage, fetchNextPage, refetch } =
    useGetConversationInfiniteQuery(userId);
  const [markRead] = useMarkConversationReadMutation();
  const scrollRef = useRef<HTMLDivElement>(null);
  const composerRef = useRef<HTMLTextAreaElement>(null);
  // Distance from the bottom before older messages load, to keep the reader's place.
  const keepFromBottom = useRef<number | null>(null);
  // The newest message from the other person already read (undefined until the first load).
  const readUpTo = useRef<string | undefined>(undefined);

  const messages = messagesOf(data);
  const firstId = messages[0]?.id;
  const lastId = messages.at(-1)?.id;
  const lastIncomingId = messages.findLast((message) => message.senderId === userId)?.id;

  // Older messages went on top: the same message stays under the reader's eyes.
  useLayoutEffect(() => {
    const scroller = scrollRef.current;
    if (!scroller || keepFromBottom.current === null) return;
    scroller.scrollTop = scroller.scrollHeight - keepFromBottom.current;
    keepFromBottom.current = null;
  }, [firstId]);

  // On opening and on each new message: the newest in view.
  useLayoutEffect(() => {
    const scroller = scrollRef.current;
    if (scroller && lastId) scroller.scrollTop = scroller.scrollHeight;
  }, [lastId, hidden]);

  // Reading the conversation marked the earlier messages read; a later one is
  // marked once this tab is visible (the sender then sees 'Read').
  useEffect(() => {
    if (!isSuccess) return;
    if (readUpTo.current === undefined) {
      readUpTo.current = lastIncomingId ?? '';
      return;
    }
    if (!lastIncomingId || lastIncomingId === readUpTo.current) return;
    const markNow = () => {
      readUpTo.current = lastIncomingId;
      void markRead(userId);
    };
    if (document.visibilityState !== 'hidden') {
      markNow();
      return;
    }
    const onVisible = () => {
      if (document.visibilityState === 'visible') markNow();
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => document.removeEventListener('visibilitychange', onVisible);
  }, [isSuccess, lastIncomingId, userId, markRead]);

  function loadOlder() {
    const scroller = scrollRef.current;
    if (!hasNextPage || isFetchingNextPage) return;
    if (scroller) keepFromBottom.current = scroller.scrollHeight - scroller.scrollTop;
    void fetchNextPage();
  }

  function onScroll() {
    const scroller = scrollRef.current;
    if (scroller && scroller.scrollTop < LOAD_OLDER_AT_PX && scroller.scrollHeight > scroller.clientHeight) loadOlder();
  }

  const gone = isError && !data && (errorStatus(error) === 404 || errorStatus(error) === 403);

  return (
    <section className="conversation" aria-labelledby="conversation-title" hidden={hidden}>
      <div className="conversation__header">
        {onBack && (
          <button type="button" className="btn btn--ghost btn--small conversation__back" onClick={onBack}>
            <svg viewBox="0 0 24 24" aria-hidden="true" focusable="false" className="messages-icon">
              <path d="M15 5 8 12l7 7" />
            </svg>
            Back to chats
          </button>
        )}
        <h2 id="conversation-title" className="conversation__title" tabIndex={-1}>
          {name}
        </h2>
      </div>
      <div
        ref={scrollRef}
        className="conversation__scroller"
        role="region"
        aria-label={`Messages with ${name}`}
        aria-busy={isLoading || isFetchingNextPage}
        // eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex -- a scrolling region must take the focus for the keyboard to scroll it (WCAG 2.1.1)
        tabIndex={0}
        onScroll={onScroll}
      >
        {isLoading && <Spinner label="Loading messages…" />}
        {gone && <p className="conversation__empty">This conversation is not available.</p>}
        {isError && !data && !gone && (
          <div className="form-error conversation__error" role="alert">
            <p>The messages could not be loaded.</p>
            <button type="button" className="btn btn--outline btn--small" onClick={() => void refetch()}>
              Try again
            </button>
          </div>
        )}
        {isSuccess && messages.length === 0 && <p className="conversation__empty">No messages yet</p>}
        {hasNextPage && (
          <div className="conversation__older">
            {isFetchingNextPage ? (
              <Spinner label="Loading older messages…" />
            ) : (
              <button type="button" className="btn btn--ghost btn--small" onClick={loadOlder}>
                Load older messages
              </button>
            )}
          </div>
        )}
        {messages.length > 0 && (
          <ol className="message-list">
            {messages.map((message) => (
              <MessageItem key={message.id} message={message} mine={message.senderId === meId} name={name} />
            ))}
          </ol>
        )}
      </div>
      {!gone && (
        <MessageComposer
          ref={composerRef}
          recipientId={userId}
          recipientName={name}
          attachmentId={attachmentId}
          onRemoveAttachment={() => {
            onRemoveAttachment();
            composerRef.current?.focus();
          }}
          onSent={onSent}
        />
      )}
    </section>
  );
}
