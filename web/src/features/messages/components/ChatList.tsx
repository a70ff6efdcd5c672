import { Spinner } from '@/components/Spinner';
import { formatDateTime, formatMessageTime } from '@/lib/format';
import { chatName, unreadLabel } from '../labels';
import type { ChatSummary } from '../types';

interface ChatListProps {
  chats: ChatSummary[] | undefined;
  loading: boolean;
  failed: boolean;
  onRetry: () => void;
  meId: string | undefined;
  activeId: string | null;
  onOpen: (userId: string) => void;
  onNewChat: () => void;
  hidden?: boolean;
}

/** The left pane: the 'Chats' header with New chat, and one row per person, newest first. */
export function ChatList({ chats, loading, failed, onRetry, meId, activeId, onOpen, onNewChat, hidden }: ChatListProps) {
  return (
    <section className="chat-list" aria-labelledby="chat-list-title" hidden={hidden}>
      <div className="chat-list__header">
        <h2 id="chat-list-title" className="chat-list__title" tabIndex={-1}>
          Chats
        </h2>
        <button type="button" className="btn btn--outline btn--small" onClick={onNewChat}>
          <svg viewBox="0 0 24 24" aria-hidden="true" focusable="false" className="messages-icon">
            <path d="M12 5v14M5 12h14" />
          </svg>
          New chat
        </button>
      </div>
      {loading && !chats && <Spinner label="Loading chats…" />}
      {failed && !chats && (
        <div className="form-error chat-list__error" role="alert">
          <p>The chats could not be loaded.</p>
          <button type="button" className="btn btn--outline btn--small" onClick={onRetry}>
            Try again
          </button>
        </div>
      )}
      {chats && chats.length === 0 && <p className="chat-list__empty">No chats available</p>}
      {chats && chats.length > 0 && (
        <ul className="chat-list__items">
          {chats.map((chat) => {
            const last = chat.lastMessage;
            const mine = last?.senderId === meId;
            return (
              <li key={chat.id}>
                <button
                  type="button"
                  className="chat-row"
                  data-chat-id={chat.id}
                  aria-current={chat.id === activeId ? 'true' : undefined}
                  onClick={() => onOpen(chat.id)}
                >
                  <span className="chat-row__name">{chatName(chat)}</span>
                  {last && (
                    <time className="chat-row__time" dateTime={last.createAt} title={formatDateTime(last.createAt) ?? undefined}>
                      {formatMessageTime(last.createAt)}
                    </time>
                  )}
                  <span className="chat-row__preview">
                    {last ? `${mine ? 'You: ' : ''}${last.content}` : ''}
                  </span>
                  {chat.unread > 0 && (
                    <span className="unread-badge chat-row__badge">
                      {unreadLabel(chat.unread)}
                      <span className="visually-hidden"> unread</span>
                    </span>
                  )}
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
