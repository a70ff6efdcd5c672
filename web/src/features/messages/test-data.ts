import type { ChatSummary, Message } from './types';

// Messages and chat rows for the tests of this feature.

export const ME = 'user-me';
export const AYESHA = 'user-ayesha';
export const SARA = 'user-sara';

let sequence = 0;

/** A message; by default from Ayesha to the caller. */
export function makeMessage(overrides: Partial<Message> = {}): Message {
  sequence += 1;
  return {
    id: `m-${sequence}`,
    senderId: AYESHA,
    recipientId: ME,
    content: `Message ${sequence}`,
    createAt: '2025-05-12T09:00:00Z',
    readAt: null,
    image: null,
    ...overrides,
  };
}

export function makeChat(overrides: Partial<ChatSummary> = {}): ChatSummary {
  return {
    id: AYESHA,
    firstname: 'Ayesha',
    lastname: 'Khan',
    role: 'patient',
    lastMessage: { content: 'Hello doctor', createAt: '2025-05-12T09:00:00Z', senderId: AYESHA },
    unread: 0,
    ...overrides,
  };
}

/** The answer of GET /api/message/chat/{id}. */
export function pageOfMessages(data: Message[], before: string | null = null) {
  return { data, pagination: { hasMore: before !== null, before } };
}
