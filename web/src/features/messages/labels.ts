import { fullName } from '@/lib/format';
import type { ChatSummary } from './types';

/** product.md §2: a person's name, or 'Unknown User' when the server gives none. */
export function chatName(person: { firstname?: string | null; lastname?: string | null } | null | undefined): string {
  return fullName(person) || 'Unknown User';
}

/**
 * What to read out when the chat list changes (an aria-live region): each
 * person with a message to the caller that is newer than the list before.
 * The open conversation's message is read in full. '' when nothing new.
 */
export function newMessagesText(previous: ChatSummary[], rows: ChatSummary[], openId: string | null): string {
  const before = new Map(previous.map((row) => [row.id, row.lastMessage?.createAt]));
  return rows
    .filter((row) => row.lastMessage && row.lastMessage.senderId === row.id && row.lastMessage.createAt !== before.get(row.id))
    .map((row) =>
      row.id === openId
        ? `New message from ${chatName(row)}: ${row.lastMessage?.content ?? ''}`
        : `New message from ${chatName(row)}`,
    )
    .join('. ');
}

/** An unread count on a badge: more than 99 shows as '99+'. */
export function unreadLabel(count: number): string {
  return count > 99 ? '99+' : String(count);
}
