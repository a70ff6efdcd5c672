import type { InfiniteData } from '@reduxjs/toolkit/query';
import type { ChatSummary, ConversationPage, Message } from './types';

// Changes to the cached chat list and conversations, written for immer
// drafts (updateQueryData). Pure, so the stream's effects can be tested alone.

/** A loaded conversation: pages[0] is the newest page, each page oldest first. */
export type Conversation = InfiniteData<ConversationPage, string>;

function timeOf(value: string | null | undefined): number {
  const time = value ? Date.parse(value) : NaN;
  return Number.isNaN(time) ? 0 : time;
}

/** The other person of a message, seen from `meId`. */
export function otherPersonOf(message: Message, meId: string): string {
  return message.senderId === meId ? message.recipientId : message.senderId;
}

/** The messages of a conversation, oldest first. */
export function messagesOf(conversation: Conversation | undefined): Message[] {
  if (!conversation) return [];
  return [...conversation.pages].reverse().flatMap((page) => page.data);
}

/**
 * Adds a message to the newest page in time order. A message already there
 * (one sent from this tab and then echoed by the stream, or replayed after a
 * reconnect) is left as it is.
 */
export function addMessage(conversation: Conversation, message: Message): void {
  if (conversation.pages.some((page) => page.data.some((item) => item.id === message.id))) return;
  const newest = conversation.pages[0];
  if (!newest) return;
  let at = newest.data.length;
  while (at > 0 && timeOf(newest.data[at - 1].createAt) > timeOf(message.createAt)) at--;
  newest.data.splice(at, 0, message);
}

/** A read receipt: the caller's messages to that person, sent up to `readAt`, are read. */
export function markSentRead(conversation: Conversation, meId: string, readAt: string): void {
  const until = timeOf(readAt);
  for (const page of conversation.pages) {
    for (const message of page.data) {
      if (message.senderId === meId && !message.readAt && timeOf(message.createAt) <= until) message.readAt = readAt;
    }
  }
}

/**
 * Moves the person's row to the top with the message as its last one, and
 * counts it unread when it is to the caller and not being read right now.
 * A message no newer than the row's last one is already counted (the list was
 * fetched after it). Returns false when the person has no row yet: only the
 * server knows their name, so the list must be fetched again.
 */
export function applyMessageToChatList(
  rows: ChatSummary[],
  message: Message,
  meId: string,
  isOpen: (userId: string) => boolean,
): boolean {
  const otherId = otherPersonOf(message, meId);
  const index = rows.findIndex((row) => row.id === otherId);
  if (index < 0) return false;
  const row = rows[index];
  if (row.lastMessage && timeOf(row.lastMessage.createAt) >= timeOf(message.createAt)) return true;
  row.lastMessage = { content: message.content, createAt: message.createAt, senderId: message.senderId };
  if (message.senderId === otherId && !isOpen(otherId)) row.unread += 1;
  rows.splice(index, 1);
  rows.unshift(row);
  return true;
}

/** The caller has read the conversation with `userId`. */
export function clearUnread(rows: ChatSummary[], userId: string): void {
  const row = rows.find((item) => item.id === userId);
  if (row) row.unread = 0;
}

/** The badge of the side menu: every unread message. */
export function totalUnread(rows: ChatSummary[] | undefined): number {
  return (rows ?? []).reduce((sum, row) => sum + (row.unread > 0 ? row.unread : 0), 0);
}
