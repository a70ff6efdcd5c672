import { parseStreamEvent, type StreamEvent } from './events';
import type { SseEvent } from './sse';
import type { MessageStream } from './stream-client';

/** The channel between the tabs of one browser (same origin). */
export const CHANNEL_NAME = 'medishare-messages';

/** Without Web Locks: the leader's heartbeat, and how long its silence lasts before another tab takes over. */
export const HEARTBEAT_MS = 2000;
export const LEADER_TIMEOUT_MS = 5000;

type HubMessage =
  | { kind: 'event'; userId: string; event: StreamEvent; lastEventId: string }
  | { kind: 'heartbeat'; userId: string; tabId: string }
  | { kind: 'resign'; userId: string; tabId: string };

/** What the hub needs of a BroadcastChannel. */
export interface Channel {
  postMessage(message: unknown): void;
  addEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
  close(): void;
}

/** What the hub needs of navigator.locks. */
export interface Locks {
  request(name: string, options: { signal: AbortSignal }, callback: () => Promise<void> | void): Promise<unknown>;
}

export interface TabHubOptions {
  /** The signed-in user: tabs of another user are ignored. */
  userId: string;
  /** Opens the server stream; only the leader tab does. */
  openStream: (lastEventId: string, onEvent: (event: SseEvent) => void) => MessageStream;
  /** Applies an event in this tab (the leader's own and those passed on). */
  apply: (event: StreamEvent) => void;
  /** Defaults: a BroadcastChannel and navigator.locks where the browser has them; null for none. */
  channel?: Channel | null;
  locks?: Locks | null;
}

export interface TabHub {
  /** Passes an event of this tab to the others (not applied here). */
  share(event: StreamEvent): void;
  isLeader(): boolean;
  stop(): void;
}

function defaultChannel(): Channel | null {
  return typeof BroadcastChannel === 'function' ? new BroadcastChannel(CHANNEL_NAME) : null;
}

function defaultLocks(): Locks | null {
  return typeof navigator !== 'undefined' && navigator.locks ? (navigator.locks as unknown as Locks) : null;
}

function newTabId(): string {
  return typeof crypto !== 'undefined' && 'randomUUID' in crypto ? crypto.randomUUID() : String(Math.random()).slice(2);
}

/**
 * One server stream per browser, whatever the number of tabs: one tab leads
 * (it holds a Web Lock, or, without Web Locks, it is the tab whose heartbeat
 * the others hear), opens the stream and passes every event on through a
 * BroadcastChannel. When the leader closes or signs out, another tab takes
 * over and reconnects with the last message id the tabs have seen, so the
 * server replays what was missed. Without BroadcastChannel every tab leads.
 */
export function startTabHub(options: TabHubOptions): TabHub {
  const { userId, openStream, apply } = options;
  const channel = options.channel === undefined ? defaultChannel() : options.channel;
  const locks = options.locks === undefined ? defaultLocks() : options.locks;
  const tabId = newTabId();
  let stream: MessageStream | null = null;
  let lastEventId = '';
  let stopped = false;

  const post = (message: HubMessage) => channel?.postMessage(message);

  function lead() {
    if (stream || stopped) return;
    stream = openStream(lastEventId, (sse) => {
      if (sse.id) lastEventId = sse.id;
      const event = parseStreamEvent(sse);
      if (!event) return;
      apply(event);
      post({ kind: 'event', userId, event, lastEventId });
    });
  }

  function follow() {
    stream?.stop();
    stream = null;
  }

  // Leadership without Web Locks: the lowest tab id among those heard wins.
  let leaderSeenAt = Date.now();
  let heartbeat: ReturnType<typeof setInterval> | null = null;

  channel?.addEventListener('message', ({ data }: MessageEvent) => {
    const message = data as HubMessage | null;
    if (stopped || !message || message.userId !== userId) return;
    if (message.kind === 'event') {
      if (message.lastEventId) lastEventId = message.lastEventId;
      apply(message.event);
    } else if (!locks && message.kind === 'heartbeat') {
      leaderSeenAt = Date.now();
      if (stream && message.tabId < tabId) follow();
    } else if (!locks && message.kind === 'resign') {
      leaderSeenAt = 0;
    }
  });

  let releaseLock: (() => void) | null = null;
  const lockAbort = new AbortController();

  if (!channel) {
    lead();
  } else if (locks) {
    locks
      .request(`${CHANNEL_NAME}:${userId}`, { signal: lockAbort.signal }, () => {
        if (stopped) return;
        lead();
        // Held until this tab stops; a closed tab releases it by itself.
        return new Promise<void>((resolve) => {
          releaseLock = resolve;
        });
      })
      .catch(() => {
        // Aborted while waiting: this tab stopped before its turn.
      });
  } else {
    heartbeat = setInterval(() => {
      if (!stream && Date.now() - leaderSeenAt > LEADER_TIMEOUT_MS) lead();
      if (stream) post({ kind: 'heartbeat', userId, tabId });
    }, HEARTBEAT_MS);
  }

  return {
    share(event) {
      post({ kind: 'event', userId, event, lastEventId: '' });
    },
    isLeader: () => stream !== null,
    stop() {
      if (stopped) return;
      if (stream && !locks) post({ kind: 'resign', userId, tabId });
      stopped = true;
      follow();
      if (heartbeat) clearInterval(heartbeat);
      lockAbort.abort();
      releaseLock?.();
      channel?.close();
    },
  };
}
