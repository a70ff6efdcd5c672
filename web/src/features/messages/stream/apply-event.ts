import type { AppDispatch } from '@/app/store';
import { CHAT_LIST } from '@/lib/api';
import { messagesApi } from '../api';
import { addMessage, applyMessageToChatList, clearUnread, markSentRead, otherPersonOf } from '../cache';
import { isChatOpen } from '../open-chat';
import type { StreamEvent } from './events';

/**
 * Feeds one stream event into the RTK Query cache: the caches are the only
 * store of messages. Conversations and lists not loaded are left alone (they
 * are fetched fresh when shown).
 */
export function applyStreamEvent(event: StreamEvent, dispatch: AppDispatch, meId: string): void {
  switch (event.type) {
    case 'message': {
      const { message } = event;
      const otherId = otherPersonOf(message, meId);
      dispatch(
        messagesApi.util.updateQueryData('getConversation', otherId, (conversation) => addMessage(conversation, message)),
      );
      // Stays true when the list is not loaded: nothing to fetch then.
      let listed: boolean = true;
      dispatch(
        messagesApi.util.updateQueryData('getChatList', undefined, (rows) => {
          listed = applyMessageToChatList(rows, message, meId, isChatOpen);
        }),
      );
      // A first message with someone: only the server has their name and role.
      if (!listed) dispatch(messagesApi.util.invalidateTags([CHAT_LIST]));
      break;
    }
    case 'read':
      if (event.userId === meId) {
        // The caller read it in another browser: its unread count goes.
        dispatch(messagesApi.util.updateQueryData('getChatList', undefined, (rows) => clearUnread(rows, event.senderId)));
      } else {
        dispatch(
          messagesApi.util.updateQueryData('getConversation', event.userId, (conversation) =>
            markSentRead(conversation, meId, event.readAt),
          ),
        );
      }
      break;
    case 'connected':
      // A (re)connection: the unread counts are recomputed by the server,
      // and open conversations pick up read receipts sent while away.
      dispatch(messagesApi.util.invalidateTags(['Chat']));
      break;
    case 'seen':
      dispatch(messagesApi.util.updateQueryData('getChatList', undefined, (rows) => clearUnread(rows, event.userId)));
      break;
  }
}
