import type { AppStore } from '@/app/store';
import { setEventSharer } from '../open-chat';
import { applyStreamEvent } from './apply-event';
import { openMessageStream } from './stream-client';
import { startTabHub, type TabHub } from './tab-hub';

/**
 * Runs the message stream while someone is signed in (main.tsx): it starts
 * once the session holds a token, and stops when the session clears
 * (logout, or a session that could not be renewed) or another user signs in.
 */
export function connectMessageStream(store: AppStore, start: typeof startTabHub = startTabHub): () => void {
  let hub: TabHub | null = null;
  let hubUserId: string | null = null;

  function stopHub() {
    setEventSharer(null);
    hub?.stop();
    hub = null;
    hubUserId = null;
  }

  function sync() {
    const { user, token } = store.getState().session;
    // A running hub outlives a token renewal; a new one waits for the token.
    const userId = user && (token || user.id === hubUserId) ? user.id : null;
    if (userId === hubUserId) return;
    stopHub();
    if (!userId) return;
    const started = start({
      userId,
      openStream: (lastEventId, onEvent) => openMessageStream({ lastEventId, onEvent }),
      apply: (event) => applyStreamEvent(event, store.dispatch, userId),
    });
    hub = started;
    hubUserId = userId;
    setEventSharer((event) => started.share(event));
  }

  const unsubscribe = store.subscribe(sync);
  sync();
  return () => {
    unsubscribe();
    stopHub();
  };
}
