import { currentToken, tokenAfterUnauthorized } from '@/lib/api-client';
import { createSseParser, type SseEvent } from './sse';

/** api.md "Messages": the caller's new messages and read receipts. */
export const STREAM_URL = '/api/message/stream';

/** The event the client itself gives when a connection opens. */
export const CONNECTED = 'connected';

/** Reconnects wait 1 s, doubling up to 30 s. */
export const RETRY_FIRST_MS = 1000;
export const RETRY_MAX_MS = 30_000;

/**
 * The wait before reconnect attempt `attempt` (0 for the first): half of it
 * fixed, half random, so the browsers cut off by one server restart do not
 * all come back in the same second.
 */
export function retryDelay(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** attempt);
  return ceiling / 2 + (random() * ceiling) / 2;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

export interface MessageStreamOptions {
  /** Every event, with `id` the last message id seen so far. */
  onEvent: (event: SseEvent) => void;
  /** The last message id already seen: the server first replays the messages after it. */
  lastEventId?: string;
  // The rest is for tests; the defaults are the app's.
  fetch?: typeof fetch;
  /** The access token (default: the API client's, from the session). */
  getToken?: () => string | null;
  /** After a 401: the token to retry with, or a rejection (default: the API client's renewal and logout). */
  afterUnauthorized?: (sentToken: string, body: unknown, retried: boolean) => Promise<string>;
  wait?: (ms: number, signal: AbortSignal) => Promise<void>;
  random?: () => number;
}

export interface MessageStream {
  stop(): void;
}

/**
 * Reads GET /api/message/stream with fetch (the bearer header rules out
 * EventSource) until stopped, reconnecting after any end or failure with
 * Last-Event-ID so that nothing sent meanwhile is missed. A 401 goes through
 * the API client's session handling: one renewal and an immediate retry; if
 * the session is over, the client clears it (and the stream is stopped by
 * its owner when the session clears).
 */
export function openMessageStream(options: MessageStreamOptions): MessageStream {
  const controller = new AbortController();
  void run(options, controller.signal);
  return { stop: () => controller.abort() };
}

async function run(options: MessageStreamOptions, signal: AbortSignal): Promise<void> {
  const {
    onEvent,
    fetch: fetchFn = (input, init) => fetch(input, init),
    getToken = currentToken,
    afterUnauthorized = tokenAfterUnauthorized,
    wait = sleep,
    random = Math.random,
  } = options;
  let lastEventId = options.lastEventId ?? '';
  let attempt = 0;
  // A renewal was made for the next connection: another 401 ends the session.
  let renewed = false;

  while (!signal.aborted) {
    try {
      const token = getToken();
      // No token: a session being restored; try again later.
      if (!token) throw new Error('No access token.');
      const headers: Record<string, string> = { Accept: 'text/event-stream', Authorization: `Bearer ${token}` };
      if (lastEventId) headers['Last-Event-ID'] = lastEventId;
      const response = await fetchFn(STREAM_URL, { headers, signal, cache: 'no-store', credentials: 'same-origin' });

      if (response.status === 401) {
        const body: unknown = await response.json().catch(() => undefined);
        const wasRenewed = renewed;
        renewed = true;
        // Resolves once a fresh token is held: reconnect at once.
        await afterUnauthorized(token, body, wasRenewed);
        continue;
      }
      if (!response.ok || !response.body) throw new Error(`The message stream answered ${response.status}.`);
      renewed = false;
      // Every (re)connection: what may have changed unseen (unread counts,
      // read receipts, which are not replayed) is fetched again.
      onEvent({ event: CONNECTED, data: '{}', id: lastEventId });

      const parser = createSseParser((event) => {
        try {
          onEvent(event);
        } catch (error) {
          console.error('A message stream event could not be applied', error);
        }
      }, lastEventId);
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        // Bytes arrive (events or keep-alives): the next drop starts the backoff over.
        attempt = 0;
        parser.push(decoder.decode(value, { stream: true }));
        lastEventId = parser.lastEventId;
      }
    } catch {
      // A network failure, an error answer, a refused renewal or the stop itself: retry below unless stopped.
    }
    if (signal.aborted) return;
    await wait(retryDelay(attempt, random), signal);
    attempt++;
  }
}
