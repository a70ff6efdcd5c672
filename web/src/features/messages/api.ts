import { baseApi, CHAT_LIST, chatTag, imageTag } from '@/lib/api';
import type { ApiResponse } from '@/types/api';
import { addMessage, clearUnread } from './cache';
import { shareWithOtherTabs } from './open-chat';
import type { AttachedImage, ChatSummary, ConversationPage, Message, SendMessageBody } from './types';

/** api.md "Messages": a conversation pages back 50 messages at a time. */
export const CONVERSATION_PAGE_SIZE = 50;

const chatPath = (userId: string) => `/message/chat/${encodeURIComponent(userId)}`;

type Dispatch = (action: unknown) => unknown;

/**
 * The server marks the messages from `userId` read whenever the caller reads
 * the conversation: the row's unread count drops here and in the other tabs.
 */
function conversationRead(dispatch: Dispatch, userId: string) {
  dispatch(messagesApi.util.updateQueryData('getChatList', undefined, (rows) => clearUnread(rows, userId)));
  shareWithOtherTabs({ type: 'seen', userId });
}

export const messagesApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    /** GET /api/message/chat-list: one row per person, newest conversation first. */
    getChatList: build.query<ChatSummary[], void>({
      query: () => ({ url: '/message/chat-list' }),
      transformResponse: (body: ApiResponse<ChatSummary[]>) => body.data ?? [],
      providesTags: [CHAT_LIST],
    }),

    /**
     * GET /api/message/chat/{userId}: the newest page first; each next page
     * is older (`before` the oldest message shown). The stream and sends add
     * new messages to the newest page.
     */
    getConversation: build.infiniteQuery<ConversationPage, string, string>({
      infiniteQueryOptions: {
        // '' is the newest page (no `before`).
        initialPageParam: '',
        getNextPageParam: (page) => (page.pagination?.hasMore && page.pagination.before) || undefined,
        // Coming back to a conversation asks for its newest page only; older ones load again on scroll.
        refetchCachedPages: false,
      },
      query: ({ queryArg: userId, pageParam: before }) => {
        const params: Record<string, string | number> = { limit: CONVERSATION_PAGE_SIZE };
        if (before) params.before = before;
        return { url: chatPath(userId), params };
      },
      providesTags: (_result, _error, userId) => [chatTag(userId)],
      async onQueryStarted(userId, { dispatch, queryFulfilled }) {
        try {
          await queryFulfilled;
          conversationRead(dispatch, userId);
        } catch {
          // The page reports the failure.
        }
      },
    }),

    /**
     * Tells the server the caller has read what just arrived in the open
     * conversation. The contract has no call of its own for this: reading the
     * conversation marks it read, so this reads its newest message only.
     */
    markConversationRead: build.mutation<void, string>({
      query: (userId) => ({ url: chatPath(userId), params: { limit: 1 } }),
      transformResponse: () => undefined,
      async onQueryStarted(userId, { dispatch, queryFulfilled }) {
        try {
          await queryFulfilled;
          conversationRead(dispatch, userId);
        } catch {
          // Nothing to report: the next read marks it.
        }
      },
    }),

    /** POST /api/message/send: 201 `{message, data: message}`. The message joins its conversation; the list is fetched again. */
    sendMessage: build.mutation<Message, SendMessageBody>({
      query: (body) => ({ url: '/message/send', method: 'POST', body }),
      transformResponse: (body: ApiResponse<Message>) => body.data,
      async onQueryStarted({ recipientId }, { dispatch, queryFulfilled }) {
        try {
          const { data: message } = await queryFulfilled;
          if (message) {
            dispatch(
              messagesApi.util.updateQueryData('getConversation', recipientId, (conversation) =>
                addMessage(conversation, message),
              ),
            );
          }
        } catch {
          // The composer reports the failure.
        }
      },
      invalidatesTags: (_result, error) => (error ? [] : [CHAT_LIST]),
    }),

    /** GET /api/upload/image/{id}, for the caption of the image about to be attached. */
    getAttachment: build.query<AttachedImage, string>({
      query: (id) => ({ url: `/upload/image/${encodeURIComponent(id)}` }),
      transformResponse: (body: ApiResponse<{ id: string; caption?: string | null }>) => ({
        available: true,
        id: body.data.id,
        caption: body.data.caption ?? null,
      }),
      providesTags: (_result, _error, id) => [imageTag(id)],
    }),
  }),
});

export const {
  useGetChatListQuery,
  useGetConversationInfiniteQuery,
  useMarkConversationReadMutation,
  useSendMessageMutation,
  useGetAttachmentQuery,
} = messagesApi;
