import type { Message } from '../types';
import type { SseEvent } from './sse';
import { CONNECTED } from './stream-client';

/**
 * What the stream tells a tab, parsed: a new message (to or from the caller),
 * a read receipt (`userId` read what `senderId` wrote to them: the other
 * person read the caller's messages, or the caller read theirs in another
 * browser), and 'seen',
 * which no server sends: one tab telling the others that the caller read a
 * conversation there, so their unread counts drop too.
 */
export type StreamEvent =
  | { type: 'message'; message: Message }
  | { type: 'read'; userId: string; senderId: string; readAt: string }
  | { type: 'seen'; userId: string }
  | { type: 'connected' };

function isRecord(value: unknown): value is Record<string, unknown> {
  return Boolean(value) && typeof value === 'object';
}

/** The event of api.md "Messages", or null for an unknown or malformed one (skipped). */
export function parseStreamEvent(event: SseEvent): StreamEvent | null {
  let data: unknown;
  try {
    data = JSON.parse(event.data);
  } catch {
    return null;
  }
  if (!isRecord(data)) return null;
  if (event.event === CONNECTED) return { type: 'connected' };
  if (event.event === 'message') {
    const ok = typeof data.id === 'string' && typeof data.senderId === 'string' && typeof data.recipientId === 'string';
    return ok ? { type: 'message', message: { readAt: null, image: null, ...data } as Message } : null;
  }
  if (event.event === 'read') {
    return typeof data.userId === 'string' && typeof data.senderId === 'string' && typeof data.readAt === 'string'
      ? { type: 'read', userId: data.userId, senderId: data.senderId, readAt: data.readAt }
      : null;
  }
  return null;
}
