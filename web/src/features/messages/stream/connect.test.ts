import { describe, expect, it, vi } from 'vitest';
import { makeStore } from '@/app/store';
import { clearUser, setUser } from '@/lib/session';
import { makeUser } from '@/test/fixtures';
import { connectMessageStream } from './connect';
import type { startTabHub, TabHub } from './tab-hub';

function fakeStart() {
  const hubs: { userId: string; hub: TabHub }[] = [];
  const start = vi.fn((options: Parameters<typeof startTabHub>[0]) => {
    const hub: TabHub = { share: vi.fn(), isLeader: () => true, stop: vi.fn() };
    hubs.push({ userId: options.userId, hub });
    return hub;
  });
  return { start, hubs };
}

describe('connectMessageStream', () => {
  it('runs the stream while signed in, and stops it when the session clears', () => {
    const { store } = makeStore();
    const { start, hubs } = fakeStart();
    const disconnect = connectMessageStream(store, start);
    expect(start).not.toHaveBeenCalled();

    // A user kept from an earlier visit waits for the renewed token.
    store.dispatch(setUser({ user: makeUser({ id: 'u-1' }) }));
    expect(start).not.toHaveBeenCalled();
    store.dispatch(setUser({ user: makeUser({ id: 'u-1' }), token: 't-1' }));
    expect(hubs.map((entry) => entry.userId)).toEqual(['u-1']);

    // A renewed token keeps the same stream.
    store.dispatch(setUser({ user: makeUser({ id: 'u-1' }), token: 't-2' }));
    expect(start).toHaveBeenCalledTimes(1);

    store.dispatch(clearUser());
    expect(hubs[0].hub.stop).toHaveBeenCalled();
    disconnect();
  });

  it('starts over for another user, and stops on disconnect', () => {
    const { store } = makeStore();
    const { start, hubs } = fakeStart();
    const disconnect = connectMessageStream(store, start);
    store.dispatch(setUser({ user: makeUser({ id: 'u-1' }), token: 't' }));
    store.dispatch(setUser({ user: makeUser({ id: 'u-2' }), token: 't' }));
    expect(hubs.map((entry) => entry.userId)).toEqual(['u-1', 'u-2']);
    expect(hubs[0].hub.stop).toHaveBeenCalled();
    disconnect();
    expect(hubs[1].hub.stop).toHaveBeenCalled();
  });
});
