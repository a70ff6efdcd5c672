import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { SseEvent } from './sse';
import { CONNECTED, openMessageStream, retryDelay, RETRY_MAX_MS, STREAM_URL, type MessageStreamOptions } from './stream-client';

type Answer =
  | { kind: 'stream'; chunks: string[]; stayOpen?: boolean }
  | { kind: 'status'; status: number; body?: unknown }
  | { kind: 'network-error' };

/** A fetch that gives the answers in turn, then a connection that stays open until aborted. */
function fakeFetch(answers: Answer[]) {
  const encoder = new TextEncoder();
  const calls: { headers: Record<string, string>; signal: AbortSignal }[] = [];
  const fetchFn = vi.fn(async (_url: RequestInfo | URL, init?: RequestInit) => {
    const signal = init?.signal as AbortSignal;
    calls.push({ headers: init?.headers as Record<string, string>, signal });
    const answer = answers.shift() ?? { kind: 'stream', chunks: [], stayOpen: true };
    if (answer.kind === 'network-error') throw new TypeError('Failed to fetch');
    if (answer.kind === 'status') {
      return { status: answer.status, ok: false, body: null, json: async () => answer.body } as unknown as Response;
    }
    const chunks = [...answer.chunks];
    const read = () => {
      const chunk = chunks.shift();
      if (chunk !== undefined) return Promise.resolve({ done: false, value: encoder.encode(chunk) });
      if (!answer.stayOpen) return Promise.resolve({ done: true, value: undefined });
      return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))));
    };
    return { status: 200, ok: true, body: { getReader: () => ({ read }) }, json: async () => ({}) } as unknown as Response;
  });
  return { fetchFn, calls };
}

function start(answers: Answer[], overrides: Partial<MessageStreamOptions> = {}) {
  const { fetchFn, calls } = fakeFetch(answers);
  const events: SseEvent[] = [];
  const waits: number[] = [];
  let token = 'token-1';
  const stream = openMessageStream({
    onEvent: (event) => events.push(event),
    fetch: fetchFn as unknown as typeof fetch,
    getToken: () => token,
    afterUnauthorized: vi.fn(async () => {
      token = 'token-2';
      return token;
    }),
    // Recorded, and waited on the test's fake clock (beforeEach), which
    // the tests move on by exactly the time they mean.
    wait: (ms, signal) => {
      waits.push(ms);
      return new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
    random: () => 1,
    ...overrides,
  });
  return { stream, fetchFn, calls, events, waits };
}

const MESSAGE_1 = 'event: message\nid: m-1\ndata: {"id":"m-1"}\n\n';
const MESSAGE_2 = 'event: message\nid: m-2\ndata: {"id":"m-2"}\n\n';

describe('retryDelay', () => {
  it('waits 1 s doubling up to 30 s, half of it random', () => {
    expect([0, 1, 2, 3, 4, 5, 6].map((attempt) => retryDelay(attempt, () => 1))).toEqual([
      1000, 2000, 4000, 8000, 16000, 30000, 30000,
    ]);
    expect(retryDelay(0, () => 0)).toBe(500);
    expect(retryDelay(20, () => 0)).toBe(RETRY_MAX_MS / 2);
  });
});

describe('openMessageStream', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });

  it('connects with the bearer token, says so, and hands over each event', async () => {
    const { stream, calls, events, fetchFn } = start([{ kind: 'stream', chunks: [MESSAGE_1, ': keep-alive\n\n'], stayOpen: true }]);
    await vi.waitFor(() => expect(events).toHaveLength(2));
    expect(fetchFn).toHaveBeenCalledWith(STREAM_URL, expect.objectContaining({ cache: 'no-store' }));
    expect(calls[0].headers).toEqual({ Accept: 'text/event-stream', Authorization: 'Bearer token-1' });
    expect(events[0]).toEqual({ event: CONNECTED, id: '', data: '{}' });
    expect(events[1]).toEqual({ event: 'message', id: 'm-1', data: '{"id":"m-1"}' });
    stream.stop();
    expect(calls[0].signal.aborted).toBe(true);
  });

  it('reconnects after the stream ends, sending Last-Event-ID with the last message id seen', async () => {
    const { stream, calls, events, waits } = start(
      [
        { kind: 'stream', chunks: [MESSAGE_1, 'event: read\ndata: {"userId":"u","readAt":"t"}\n\n'] },
        { kind: 'stream', chunks: [MESSAGE_2] },
      ],
      { lastEventId: 'm-0' },
    );
    await vi.advanceTimersByTimeAsync(999);
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toHaveLength(3);
    expect(calls.map((call) => call.headers['Last-Event-ID'])).toEqual(['m-0', 'm-1', 'm-2']);
    // Each connection first says it is open, so that what may have changed unseen is fetched again.
    expect(events.map((event) => event.event)).toEqual([CONNECTED, 'message', 'read', CONNECTED, 'message', CONNECTED]);
    // Bytes arrived before each end: every reconnect starts the backoff over.
    expect(waits).toEqual([1000, 1000]);
    stream.stop();
  });

  it('backs off 1 s doubling while the server cannot be reached, with jitter', async () => {
    const { stream, calls, waits } = start([
      { kind: 'network-error' },
      { kind: 'network-error' },
      { kind: 'status', status: 503 },
      { kind: 'network-error' },
    ]);
    await vi.advanceTimersByTimeAsync(1000 + 2000 + 4000 + 8000 - 1);
    expect(calls).toHaveLength(4);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toHaveLength(5);
    expect(waits).toEqual([1000, 2000, 4000, 8000]);
    stream.stop();
  });

  it('renews the session on a 401 and reconnects at once with the new token', async () => {
    const body = { message: 'Invalid or expired token', error: 'Invalid or expired token' };
    const afterUnauthorized = vi.fn(async (_sent: string, _body: unknown, _renewed: boolean) => 'token-2');
    let token = 'token-1';
    const { stream, calls, waits } = start([{ kind: 'status', status: 401, body }], {
      afterUnauthorized: async (...args) => {
        token = await afterUnauthorized(...args);
        return token;
      },
      getToken: () => token,
    });
    await vi.waitFor(() => expect(calls).toHaveLength(2));
    expect(afterUnauthorized).toHaveBeenCalledWith('token-1', body, false);
    expect(calls[1].headers.Authorization).toBe('Bearer token-2');
    expect(waits).toEqual([]);
    stream.stop();
  });

  it('tells the session handling when a 401 follows a renewal (which ends the session)', async () => {
    const afterUnauthorized = vi.fn(async (_sent: string, _body: unknown, _renewed: boolean) => 'token-2');
    const { stream } = start(
      [
        { kind: 'status', status: 401, body: { error: 'Invalid or expired token' } },
        { kind: 'status', status: 401, body: { error: 'Invalid or expired token' } },
      ],
      { afterUnauthorized },
    );
    await vi.waitFor(() => expect(afterUnauthorized).toHaveBeenCalledTimes(2));
    expect(afterUnauthorized.mock.calls.map((call) => call[2])).toEqual([false, true]);
    stream.stop();
  });

  it('waits and tries again when a renewal is refused', async () => {
    const afterUnauthorized = vi.fn(() => Promise.reject(new Error('session over')));
    const { stream, calls, waits } = start([{ kind: 'status', status: 401, body: {} }], { afterUnauthorized });
    await vi.advanceTimersByTimeAsync(999);
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toHaveLength(2);
    expect(waits).toEqual([1000]);
    stream.stop();
  });

  it('does not connect without a token, and stops for good when stopped', async () => {
    let token: string | null = null;
    const { stream, calls, waits } = start([], { getToken: () => token });
    await vi.advanceTimersByTimeAsync(1000);
    expect(waits).toEqual([1000, 2000]);
    expect(calls).toHaveLength(0);
    token = 't';
    await vi.advanceTimersByTimeAsync(2000);
    expect(calls).toHaveLength(1);
    stream.stop();
    // However long it is left: no connection, no wait.
    await vi.advanceTimersByTimeAsync(10 * RETRY_MAX_MS);
    expect(calls).toHaveLength(1);
    expect(waits).toEqual([1000, 2000]);
  });
});
