import type { KeyboardEvent } from 'react';

/** The longest message the server takes (api.md "Messages"), in characters. */
export const MESSAGE_MAX_CHARS = 4000;

/** Enter sends; Shift+Enter adds a line; Enter that ends an IME composition only confirms it. */
export function isSendKey(event: KeyboardEvent<HTMLTextAreaElement>): boolean {
  return event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing;
}
