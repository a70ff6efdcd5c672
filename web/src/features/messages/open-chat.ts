import type { StreamEvent } from './stream/events';

// Two facts of this tab that the cache updates need and the cache does not
// hold: which conversation is on screen, and how to tell the other tabs.

let openChatId: string | null = null;

/** The conversation on screen in this tab (MessagesPage sets it), or null. */
export function setOpenChat(userId: string | null): void {
  openChatId = userId;
}

/** Whether the caller is looking at the conversation with `userId` now: open, in a visible tab. */
export function isChatOpen(userId: string): boolean {
  return openChatId === userId && document.visibilityState !== 'hidden';
}

let shareEvent: ((event: StreamEvent) => void) | null = null;

/** The tab hub registers how to pass an event to the other tabs while it runs. */
export function setEventSharer(share: ((event: StreamEvent) => void) | null): void {
  shareEvent = share;
}

/** Passes an event of this tab (such as 'seen') to the other tabs, when the hub runs. */
export function shareWithOtherTabs(event: StreamEvent): void {
  shareEvent?.(event);
}
