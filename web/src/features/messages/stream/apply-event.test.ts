import type MockAdapter from 'axios-mock-adapter';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeStore, type AppStore } from '@/app/store';
import { setUser } from '@/lib/session';
import { makeUser } from '@/test/fixtures';
import { mockApi } from '@/test/render';
import { messagesApi } from '../api';
import { setOpenChat } from '../open-chat';
import { AYESHA, makeChat, makeMessage, ME, pageOfMessages, SARA } from '../test-data';
import type { Message } from '../types';
import { applyStreamEvent } from './apply-event';

let mock: MockAdapter;
let store: AppStore;

const mine = makeMessage({ id: 'm-mine', senderId: ME, recipientId: AYESHA, createAt: '2025-05-12T08:00:00Z', content: 'How are you?' });
const theirs = makeMessage({ id: 'm-theirs', createAt: '2025-05-12T09:00:00Z', content: 'Hello doctor' });

beforeEach(async () => {
  mock = mockApi();
  store = makeStore().store;
  store.dispatch(setUser({ user: makeUser({ id: ME }), token: 't' }));
  mock.onGet('/message/chat-list').reply(200, {
    data: [
      makeChat({ id: SARA, firstname: 'Sara', lastname: 'Malik', unread: 2, lastMessage: { content: 'Report ready', createAt: '2025-05-12T09:30:00Z', senderId: SARA } }),
      makeChat({ id: AYESHA, unread: 1 }),
    ],
  });
  mock.onGet(`/message/chat/${AYESHA}`).reply(200, pageOfMessages([mine, theirs]));
  await store.dispatch(messagesApi.endpoints.getChatList.initiate());
  await store.dispatch(messagesApi.endpoints.getConversation.initiate(AYESHA));
});

afterEach(() => setOpenChat(null));

const chats = () => messagesApi.endpoints.getChatList.select()(store.getState()).data ?? [];
const conversation = (userId = AYESHA) =>
  (messagesApi.endpoints.getConversation.select(userId)(store.getState()).data?.pages ?? []).flatMap((page) => page.data);
const apply = (message: Message) => applyStreamEvent({ type: 'message', message }, store.dispatch, ME);
const listCalls = () => mock.history.get.filter((request) => request.url === '/message/chat-list').length;

describe('applyStreamEvent', () => {
  it('reading a conversation clears its unread count', () => {
    expect(chats().find((row) => row.id === AYESHA)?.unread).toBe(0);
    expect(chats().find((row) => row.id === SARA)?.unread).toBe(2);
  });

  it('appends a new message to its loaded conversation and moves its row to the top, counted unread', () => {
    const incoming = makeMessage({ createAt: '2025-05-12T10:00:00Z', content: 'Are the results in?' });
    apply(incoming);
    expect(conversation().map((message) => message.id)).toEqual(['m-mine', 'm-theirs', incoming.id]);
    expect(chats().map((row) => row.id)).toEqual([AYESHA, SARA]);
    expect(chats()[0]).toMatchObject({
      unread: 1,
      lastMessage: { content: 'Are the results in?', createAt: '2025-05-12T10:00:00Z', senderId: AYESHA },
    });
  });

  it('counts nothing twice: the same message again (an echo or a replay) changes nothing', () => {
    const incoming = makeMessage({ createAt: '2025-05-12T10:00:00Z' });
    apply(incoming);
    apply(incoming);
    expect(conversation().filter((message) => message.id === incoming.id)).toHaveLength(1);
    expect(chats()[0].unread).toBe(1);
  });

  it('does not count a message unread while its conversation is on screen', () => {
    setOpenChat(AYESHA);
    apply(makeMessage({ createAt: '2025-05-12T10:00:00Z' }));
    expect(chats()[0]).toMatchObject({ id: AYESHA, unread: 0 });
  });

  it("shows the caller's own message sent from another tab, without counting it", () => {
    const sent = makeMessage({ senderId: ME, recipientId: AYESHA, createAt: '2025-05-12T10:00:00Z', content: 'On my way' });
    apply(sent);
    expect(conversation().at(-1)?.id).toBe(sent.id);
    expect(chats()[0]).toMatchObject({ id: AYESHA, unread: 0, lastMessage: { content: 'On my way', senderId: ME } });
  });

  it('keeps time order when a message arrives late', () => {
    const late = makeMessage({ createAt: '2025-05-12T08:30:00Z' });
    apply(late);
    expect(conversation().map((message) => message.id)).toEqual(['m-mine', late.id, 'm-theirs']);
  });

  it('updates only the row of a conversation that is not loaded', () => {
    apply(makeMessage({ senderId: SARA, createAt: '2025-05-12T10:00:00Z' }));
    expect(chats()[0]).toMatchObject({ id: SARA, unread: 3 });
    expect(conversation(SARA)).toEqual([]);
  });

  it('fetches the chat list again for a first message from someone new (only the server has their name)', async () => {
    expect(listCalls()).toBe(1);
    apply(makeMessage({ senderId: 'user-new', createAt: '2025-05-12T10:00:00Z' }));
    await vi.waitFor(() => expect(listCalls()).toBe(2));
  });

  it("marks the caller's messages read up to the receipt's time", () => {
    const later = makeMessage({ id: 'm-later', senderId: ME, recipientId: AYESHA, createAt: '2025-05-12T11:00:00Z' });
    apply(later);
    applyStreamEvent({ type: 'read', userId: AYESHA, senderId: ME, readAt: '2025-05-12T10:30:00Z' }, store.dispatch, ME);
    const byId = new Map(conversation().map((message) => [message.id, message]));
    expect(byId.get('m-mine')?.readAt).toBe('2025-05-12T10:30:00Z');
    // Not the caller's to be read, and one sent after the receipt.
    expect(byId.get('m-theirs')?.readAt).toBeNull();
    expect(byId.get('m-later')?.readAt).toBeNull();
  });

  it("clears a row's unread count when the caller read the conversation in another browser", () => {
    applyStreamEvent({ type: 'read', userId: ME, senderId: SARA, readAt: '2025-05-12T10:30:00Z' }, store.dispatch, ME);
    expect(chats().find((row) => row.id === SARA)?.unread).toBe(0);
  });

  it('fetches the chat list again on every (re)connection, so that unread counts never drift', async () => {
    expect(listCalls()).toBe(1);
    applyStreamEvent({ type: 'connected' }, store.dispatch, ME);
    await vi.waitFor(() => expect(listCalls()).toBe(2));
  });

  it("clears a row's unread count when another tab read the conversation", () => {
    applyStreamEvent({ type: 'seen', userId: SARA }, store.dispatch, ME);
    expect(chats().find((row) => row.id === SARA)?.unread).toBe(0);
  });
});
