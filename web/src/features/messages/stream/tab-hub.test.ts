import { afterEach, describe, expect, it, vi } from 'vitest';
import type { StreamEvent } from './events';
import type { SseEvent } from './sse';
import { HEARTBEAT_MS, LEADER_TIMEOUT_MS, startTabHub, type Channel, type Locks, type TabHub } from './tab-hub';

/** BroadcastChannels of one browser: a message reaches every other open channel, a task later. */
function makeBus() {
  const open = new Set<FakeChannel>();
  class FakeChannel implements Channel {
    listeners: ((event: MessageEvent) => void)[] = [];
    constructor() {
      open.add(this);
    }
    postMessage(message: unknown) {
      const copy = structuredClone(message);
      for (const channel of open) {
        if (channel !== this) queueMicrotask(() => channel.listeners.forEach((listen) => listen({ data: copy } as MessageEvent)));
      }
    }
    addEventListener(_type: 'message', listener: (event: MessageEvent) => void) {
      this.listeners.push(listener);
    }
    close() {
      open.delete(this);
    }
  }
  return () => new FakeChannel();
}

/** navigator.locks with exclusive locks, granted in request order, released when the callback's promise settles. */
function makeLocks(): Locks {
  const held = new Set<string>();
  const waiting = new Map<string, (() => void)[]>();
  const grantNext = (name: string) => waiting.get(name)?.shift()?.();
  return {
    request(name, { signal }, callback) {
      return new Promise((resolve, reject) => {
        const run = () => {
          held.add(name);
          Promise.resolve(callback())
            .then(resolve, reject)
            .finally(() => {
              held.delete(name);
              grantNext(name);
            });
        };
        if (!held.has(name)) {
          run();
          return;
        }
        const queue = waiting.get(name) ?? [];
        queue.push(run);
        waiting.set(name, queue);
        signal.addEventListener('abort', () => {
          queue.splice(queue.indexOf(run), 1);
          reject(new DOMException('aborted', 'AbortError'));
        });
      });
    },
  };
}

interface Tab {
  hub: TabHub;
  applied: StreamEvent[];
  streams: { lastEventId: string; emit: (event: SseEvent) => void; stop: ReturnType<typeof vi.fn> }[];
}

const hubs: TabHub[] = [];
afterEach(() => {
  hubs.splice(0).forEach((hub) => hub.stop());
  vi.useRealTimers();
});

function openTab(options: { channel: Channel | null; locks: Locks | null; userId?: string }): Tab {
  const tab: Tab = { hub: undefined as unknown as TabHub, applied: [], streams: [] };
  tab.hub = startTabHub({
    userId: options.userId ?? 'me',
    channel: options.channel,
    locks: options.locks,
    apply: (event) => tab.applied.push(event),
    openStream: (lastEventId, emit) => {
      const stream = { lastEventId, emit, stop: vi.fn() };
      tab.streams.push(stream);
      return stream;
    },
  });
  hubs.push(tab.hub);
  return tab;
}

const message = (id: string) => ({
  event: 'message',
  id,
  data: JSON.stringify({ id, senderId: 'u-2', recipientId: 'me', content: 'Hi', createAt: '2025-05-12T09:30:00Z' }),
});

// The fake locks grant a free lock at once, so the first tab leads as it
// opens; what crosses the channel arrives a microtask later, which the
// tests wait for as an effect (vi.waitFor), not as time.

describe('startTabHub with Web Locks', () => {
  it('opens one stream for all tabs and passes its events to the others', async () => {
    const channel = makeBus();
    const locks = makeLocks();
    const first = openTab({ channel: channel(), locks });
    const second = openTab({ channel: channel(), locks });
    expect(first.hub.isLeader()).toBe(true);
    expect(second.hub.isLeader()).toBe(false);
    expect(first.streams).toHaveLength(1);
    expect(second.streams).toHaveLength(0);

    first.streams[0].emit(message('m-1'));
    expect(first.applied).toEqual([expect.objectContaining({ type: 'message', message: expect.objectContaining({ id: 'm-1' }) })]);
    await vi.waitFor(() => expect(second.applied).toEqual(first.applied));
  });

  it('hands the stream to another tab when the leader stops, resuming after the last message seen', async () => {
    const channel = makeBus();
    const locks = makeLocks();
    const first = openTab({ channel: channel(), locks });
    const second = openTab({ channel: channel(), locks });
    first.streams[0].emit(message('m-1'));
    first.streams[0].emit({ event: 'read', id: 'm-1', data: '{"userId":"u-2","senderId":"me","readAt":"2025-05-12T10:00:00Z"}' });
    await vi.waitFor(() => expect(second.applied).toHaveLength(2));

    first.hub.stop();
    expect(first.streams[0].stop).toHaveBeenCalled();
    await vi.waitFor(() => expect(second.hub.isLeader()).toBe(true));
    expect(second.streams).toEqual([expect.objectContaining({ lastEventId: 'm-1' })]);
  });

  it("passes a tab's own event (seen) to the others only", async () => {
    const channel = makeBus();
    const locks = makeLocks();
    const first = openTab({ channel: channel(), locks });
    const second = openTab({ channel: channel(), locks });
    second.hub.share({ type: 'seen', userId: 'u-2' });
    await vi.waitFor(() => expect(first.applied).toEqual([{ type: 'seen', userId: 'u-2' }]));
    expect(second.applied).toEqual([]);
  });

  it("ignores the tabs of another user and skips events it cannot read", async () => {
    const channel = makeBus();
    const locks = makeLocks();
    const mine = openTab({ channel: channel(), locks });
    const theirs = openTab({ channel: channel(), locks, userId: 'someone-else' });
    // Another tab of theirs: its copy of the event is queued after mine's.
    const theirsToo = openTab({ channel: channel(), locks, userId: 'someone-else' });
    // Each user has a leader of their own.
    expect(mine.hub.isLeader()).toBe(true);
    expect(theirs.hub.isLeader()).toBe(true);
    theirs.streams[0].emit(message('m-5'));
    mine.streams[0].emit({ event: 'message', id: 'm-6', data: 'not json' });
    await vi.waitFor(() => expect(theirsToo.applied).toHaveLength(1));
    expect(mine.applied).toEqual([]);
  });
});

describe('startTabHub without Web Locks or BroadcastChannel', () => {
  it('leads at once when there is no channel between tabs', () => {
    const tab = openTab({ channel: null, locks: null });
    expect(tab.hub.isLeader()).toBe(true);
    expect(tab.streams).toHaveLength(1);
  });

  it('elects one leader by heartbeat, and another takes over when it goes quiet', async () => {
    vi.useFakeTimers();
    const channel = makeBus();
    const first = openTab({ channel: channel(), locks: null });
    const second = openTab({ channel: channel(), locks: null });
    expect(first.hub.isLeader() || second.hub.isLeader()).toBe(false);

    await vi.advanceTimersByTimeAsync(LEADER_TIMEOUT_MS + 3 * HEARTBEAT_MS);
    expect([first, second].filter((tab) => tab.hub.isLeader())).toHaveLength(1);

    const leader = first.hub.isLeader() ? first : second;
    const follower = leader === first ? second : first;
    leader.streams.at(-1)?.emit(message('m-3'));
    await vi.advanceTimersByTimeAsync(0);
    expect(follower.applied).toHaveLength(1);

    leader.hub.stop();
    await vi.advanceTimersByTimeAsync(HEARTBEAT_MS);
    expect(follower.hub.isLeader()).toBe(true);
    expect(follower.streams.at(-1)?.lastEventId).toBe('m-3');
  });
});
