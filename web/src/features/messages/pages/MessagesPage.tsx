import { skipToken } from '@reduxjs/toolkit/query/react';
import { useEffect, useRef, useState } from 'react';
import { useLocation, useNavigate, useSearchParams } from 'react-router';
import { useAppSelector } from '@/app/hooks';
import { selectUser } from '@/lib/session';
import { NARROW_SCREEN, useMediaQuery } from '@/lib/use-media-query';
import { useGetUserQuery } from '@/lib/users-api';
import { useGetChatListQuery } from '../api';
import { ChatList } from '../components/ChatList';
import { Conversation } from '../components/Conversation';
import { NewChatDialog } from '../components/NewChatDialog';
import { chatName, newMessagesText } from '../labels';
import { setOpenChat } from '../open-chat';
import type { ChatSummary } from '../types';
import '@/components/forms.css';
import '../messages.css';

/**
 * Set on the history entry of a conversation opened from the bare list: 'Back
 * to chats' then goes back in history rather than adding an entry.
 */
interface OpenedFromList {
  fromList: true;
}

function openedFromList(state: unknown): state is OpenedFromList {
  return Boolean(state && typeof state === 'object' && 'fromList' in state);
}

/**
 * /messages (product.md §2): the chat list and a conversation. The open
 * conversation is `?with=<userId>`, and `&image=<imageId>` is an image to
 * attach to the next message ("Discuss" on an image card), so both survive
 * a reload and work as links. Under 1024 px one pane shows at a time.
 */
export function MessagesPage() {
  const me = useAppSelector(selectUser);
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const location = useLocation();
  const narrow = useMediaQuery(NARROW_SCREEN);
  const activeId = params.get('with');
  const attachmentId = params.get('image');
  const chatList = useGetChatListQuery();
  const chats = chatList.data;
  const [choosing, setChoosing] = useState(false);

  // Someone without a row yet (a first message, from "Discuss" or a link): the directory has the name.
  const activeRow = chats?.find((chat) => chat.id === activeId);
  const person = useGetUserQuery(activeId && chats && !activeRow ? activeId : skipToken);
  let activeName = 'Unknown User';
  if (activeRow) activeName = chatName(activeRow);
  else if (person.data) activeName = chatName(person.data);
  else if (person.isFetching || chatList.isLoading) activeName = '';

  // The cache updates count a message as unread unless its conversation is on screen here.
  useEffect(() => {
    setOpenChat(activeId);
    return () => setOpenChat(null);
  }, [activeId]);

  // New messages are read out politely: the chat list changes with every one.
  const [announced, setAnnounced] = useState<ChatSummary[] | undefined>(chats);
  const [announcement, setAnnouncement] = useState('');
  if (chats !== announced) {
    setAnnounced(chats);
    const text = announced && chats ? newMessagesText(announced, chats, activeId) : '';
    if (text) setAnnouncement(text);
  }

  // Narrow screens: the pane that appears takes the focus, so that nobody is left on a hidden button.
  const previousActive = useRef(activeId);
  useEffect(() => {
    const previous = previousActive.current;
    previousActive.current = activeId;
    if (!narrow || previous === activeId) return;
    if (activeId) {
      document.getElementById('conversation-title')?.focus();
    } else {
      const rows = Array.from(document.querySelectorAll<HTMLElement>('[data-chat-id]'));
      const row = rows.find((item) => item.dataset.chatId === previous);
      (row ?? document.getElementById('chat-list-title'))?.focus();
    }
  }, [activeId, narrow]);

  function openChat(userId: string) {
    if (userId === activeId) return;
    // Only an entry whose previous one is the bare list may go back to it with history.
    const state: OpenedFromList | undefined = activeId ? undefined : { fromList: true };
    setParams({ with: userId }, { state });
  }

  function backToList() {
    if (openedFromList(location.state)) void navigate(-1);
    else setParams({}, { replace: true });
  }

  function removeAttachment() {
    if (!activeId) return;
    setParams({ with: activeId }, { replace: true, state: location.state });
  }

  const showList = !narrow || !activeId;
  const showConversation = !narrow || Boolean(activeId);

  return (
    <div className="messages-page">
      <title>Messages · MediShare</title>
      <h1 className="page-title messages-page__title">Messages</h1>
      <div className={narrow ? 'messages messages--single' : 'messages'}>
        <ChatList
          hidden={!showList}
          chats={chats}
          loading={chatList.isLoading}
          failed={chatList.isError}
          onRetry={() => void chatList.refetch()}
          meId={me?.id}
          activeId={activeId}
          onOpen={openChat}
          onNewChat={() => setChoosing(true)}
        />
        {activeId ? (
          <Conversation
            key={activeId}
            hidden={!showConversation}
            userId={activeId}
            name={activeName}
            meId={me?.id}
            onBack={narrow ? backToList : undefined}
            attachmentId={attachmentId}
            onRemoveAttachment={removeAttachment}
            // The image went with this message: it is not attached to the next one.
            onSent={() => attachmentId && removeAttachment()}
          />
        ) : (
          <section className="conversation conversation--none" aria-label="Conversation" hidden={!showConversation}>
            <p className="conversation__empty">Select a chat to start messaging</p>
          </section>
        )}
      </div>
      <div className="visually-hidden" aria-live="polite" aria-atomic="true">
        {announcement}
      </div>
      {choosing && (
        <NewChatDialog
          meId={me?.id}
          onClose={() => setChoosing(false)}
          onSent={(userId) => {
            setChoosing(false);
            openChat(userId);
          }}
        />
      )}
    </div>
  );
}
