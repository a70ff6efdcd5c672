import { act, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type MockAdapter from 'axios-mock-adapter';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { formatMessageTime } from '@/lib/format';
import { deferred } from '@/test/deferred';
import { makeUser, pageOf } from '@/test/fixtures';
import { mockApi, renderRoute } from '@/test/render';
import { applyStreamEvent } from '../stream/apply-event';
import { AYESHA, makeChat, makeMessage, ME, pageOfMessages, SARA } from '../test-data';
import type { ChatSummary, Message } from '../types';

let mock: MockAdapter;
const me = makeUser({ id: ME, role: 'healthProvider', firstname: 'Imran', lastname: 'Siddiqui' });
const ayesha = makeUser({ id: AYESHA, firstname: 'Ayesha', lastname: 'Khan', email: 'ayesha@example.test', role: 'patient' });
const sara = makeUser({ id: SARA, firstname: 'Sara', lastname: 'Malik', email: 'sara@example.test', role: 'healthProvider' });

const OLD_DAY = '2025-05-10T09:30:00Z';

let chatRows: ChatSummary[];
let conversations: Record<string, Message[]>;
/** The page of older messages before a message id, with the id of the page before it (or null). */
let olderPages: Record<string, { data: Message[]; before: string | null }>;

beforeEach(() => {
  mock = mockApi();
  chatRows = [
    makeChat({ id: AYESHA, unread: 2, lastMessage: { content: 'Are my results in?', createAt: OLD_DAY, senderId: AYESHA } }),
    makeChat({
      id: SARA,
      firstname: 'Sara',
      lastname: 'Malik',
      role: 'healthProvider',
      unread: 0,
      lastMessage: { content: 'See you at 3', createAt: '2025-05-09T09:30:00Z', senderId: ME },
    }),
  ];
  conversations = {
    [AYESHA]: [
      makeMessage({ id: 'a-1', senderId: ME, recipientId: AYESHA, content: 'How are you feeling?', createAt: '2025-05-10T09:00:00Z' }),
      makeMessage({ id: 'a-2', content: 'Are my results in?', createAt: OLD_DAY }),
    ],
    [SARA]: [],
  };
  mock.onGet('/message/chat-list').reply(() => [200, { data: chatRows }]);
  olderPages = {};
  mock.onGet(/^\/message\/chat\/[^/]+$/).reply((config) => {
    const userId = decodeURIComponent(config.url?.split('/').pop() ?? '');
    const { before } = (config.params ?? {}) as { before?: string };
    if (before) return [200, pageOfMessages(olderPages[before]?.data ?? [], olderPages[before]?.before ?? null)];
    const messages = conversations[userId] ?? [];
    const first = messages[0]?.id;
    return [200, pageOfMessages(messages, first && olderPages[first] ? first : null)];
  });
  mock.onGet('/users').reply(200, pageOf([me, ayesha, sara], 1, 1, 20));
});

afterEach(() => {
  delete (window as { matchMedia?: unknown }).matchMedia;
});

/** Screens under 1024 px (the app reads the width through matchMedia). */
function narrowScreen() {
  window.matchMedia = vi.fn((query: string) => ({
    matches: query.includes('max-width: 1023.98px'),
    media: query,
    onchange: null,
    addEventListener: vi.fn(),
    removeEventListener: vi.fn(),
    addListener: vi.fn(),
    removeListener: vi.fn(),
    dispatchEvent: vi.fn(),
  })) as unknown as typeof window.matchMedia;
}

function renderPage(path = '/messages') {
  return renderRoute(path, { user: me, token: 't' });
}

const chatList = () => screen.getByRole('region', { name: 'Chats' });
const conversationPane = () => screen.getByRole('region', { name: /^(Ayesha Khan|Sara Malik|Unknown User)$/ });
/** The conversation opened by the address: named once the chat list has come. */
const findConversation = (name = 'Ayesha Khan') => screen.findByRole('region', { name });
/** The panes, hidden or not (a hidden pane has no accessible name to find it by). */
const listPane = () => document.querySelector<HTMLElement>('.chat-list');
const composer = () => screen.getByRole('textbox', { name: /^Message to/ });
const listCalls = () => mock.history.get.filter((request) => request.url === '/message/chat-list').length;
const posts = () => mock.history.post.filter((request) => request.url === '/message/send');

function sent(message: Partial<Message> & { content: string; recipientId: string }) {
  return makeMessage({ senderId: ME, createAt: new Date().toISOString(), ...message });
}

describe('/messages', () => {
  it("shows a spinner, then 'No chats available' and 'Select a chat to start messaging'", async () => {
    const answer = deferred<[number, unknown]>();
    mock.onGet('/message/chat-list').reply(() => answer.promise);
    renderPage();
    expect(screen.getByRole('heading', { level: 1, name: 'Messages' })).toBeInTheDocument();
    expect(within(chatList()).getByRole('status')).toHaveTextContent('Loading chats…');
    // Still loading once the list has been asked for, until its answer comes.
    await vi.waitFor(() => expect(listCalls()).toBe(1));
    expect(within(chatList()).getByRole('status')).toHaveTextContent('Loading chats…');
    answer.resolve([200, { data: [] }]);
    expect(await within(chatList()).findByText('No chats available')).toBeInTheDocument();
    expect(screen.getByText('Select a chat to start messaging')).toBeInTheDocument();
    expect(screen.queryByRole('textbox', { name: /^Message to/ })).not.toBeInTheDocument();
  });

  it("lists the chats: name ('Unknown User' without one), last message, time and unread count", async () => {
    const today = new Date().toISOString();
    chatRows.push(
      makeChat({ id: 'user-x', firstname: null, lastname: '', unread: 120, lastMessage: { content: 'Hi', createAt: today, senderId: 'user-x' } }),
    );
    renderPage();
    const rows = await within(chatList()).findAllByRole('button', { name: /Khan|Malik|Unknown/ });
    expect(rows.map((row) => row.textContent)).toEqual([
      'Ayesha Khan10/05/2025Are my results in?2 unread',
      'Sara Malik09/05/2025You: See you at 3',
      `Unknown User${formatMessageTime(today)}Hi99+ unread`,
    ]);
    expect(rows[0].querySelector('time')).toHaveAttribute('datetime', OLD_DAY);
  });

  it('opens a conversation: the messages, the caller\'s marked, and the composer', async () => {
    const user = userEvent.setup();
    renderPage();
    await user.click(await within(chatList()).findByRole('button', { name: /Ayesha Khan/ }));
    const pane = conversationPane();
    expect(within(pane).getByRole('heading', { level: 2, name: 'Ayesha Khan' })).toBeInTheDocument();
    const items = await within(pane).findAllByRole('listitem');
    expect(items.map((item) => item.textContent)).toEqual([
      'You:How are you feeling?10/05/2025 · Sent',
      'Ayesha Khan:Are my results in?10/05/2025',
    ]);
    expect(items[0]).toHaveClass('message--mine');
    expect(within(chatList()).getByRole('button', { name: /Ayesha Khan/ })).toHaveAttribute('aria-current', 'true');
    expect(composer()).toHaveAttribute('placeholder', 'Type a message...');
    expect(within(pane).getByRole('button', { name: 'Send' })).toBeInTheDocument();
    // Reading the conversation cleared its unread count.
    await vi.waitFor(() => expect(within(chatList()).getByRole('button', { name: /Ayesha Khan/ })).not.toHaveTextContent('unread'));
  });

  it("says 'No messages yet' for an empty conversation", async () => {
    const user = userEvent.setup();
    renderPage();
    await user.click(await within(chatList()).findByRole('button', { name: /Sara Malik/ }));
    expect(await within(conversationPane()).findByText('No messages yet')).toBeInTheDocument();
  });

  it('sends with Enter, clears the box, shows the message and refreshes the list', async () => {
    const user = userEvent.setup();
    mock.onPost('/message/send').reply((config) => {
      const body = JSON.parse(config.data as string) as { recipientId: string; content: string };
      return [201, { message: 'Message sent.', data: sent({ id: 'new-1', ...body }) }];
    });
    renderPage(`/messages?with=${AYESHA}`);
    await within(await findConversation()).findByText('Are my results in?', { selector: 'p' });
    const callsBefore = listCalls();

    await user.type(composer(), '  The results look fine.{Enter}');
    await vi.waitFor(() => expect(posts()).toHaveLength(1));
    expect(JSON.parse(posts()[0].data as string)).toEqual({ recipientId: AYESHA, content: 'The results look fine.' });
    await vi.waitFor(() => expect(composer()).toHaveValue(''));
    expect(await within(conversationPane()).findByText('The results look fine.')).toBeInTheDocument();
    await vi.waitFor(() => expect(listCalls()).toBe(callsBefore + 1));
    expect(composer()).toHaveFocus();
  });

  it('adds a line with Shift+Enter and ignores a blank message without a request', async () => {
    const user = userEvent.setup();
    renderPage(`/messages?with=${AYESHA}`);
    await within(await findConversation()).findAllByRole('listitem');

    await user.type(composer(), '   {Enter}');
    await user.click(within(conversationPane()).getByRole('button', { name: 'Send' }));
    expect(posts()).toHaveLength(0);

    await user.clear(composer());
    await user.type(composer(), 'Line one{Shift>}{Enter}{/Shift}Line two');
    expect(composer()).toHaveValue('Line one\nLine two');
    expect(posts()).toHaveLength(0);
  });

  it("shows the server's refusal in a toast and keeps the text (429)", async () => {
    const user = userEvent.setup();
    mock.onPost('/message/send').reply(429, { message: 'Too many messages. Please wait a minute.' }, { 'Retry-After': '42' });
    renderPage(`/messages?with=${AYESHA}`);
    await within(await findConversation()).findAllByRole('listitem');
    await user.type(composer(), 'Hello{Enter}');
    expect(await screen.findByText('Too many messages. Please wait a minute.')).toBeInTheDocument();
    expect(composer()).toHaveValue('Hello');
  });

  it('loads older messages above, asking for the page before the oldest shown', async () => {
    const user = userEvent.setup();
    const older = makeMessage({ id: 'a-0', content: 'My first message', createAt: '2025-05-01T09:00:00Z' });
    olderPages['a-1'] = { data: [older], before: null };
    renderPage(`/messages?with=${AYESHA}`);
    await user.click(await within(await findConversation()).findByRole('button', { name: 'Load older messages' }));
    await within(conversationPane()).findByText('My first message');
    const calls = mock.history.get.filter((request) => request.url === `/message/chat/${AYESHA}`);
    expect(calls.map((request) => request.params)).toEqual([{ limit: 50 }, { limit: 50, before: 'a-1' }]);
    expect(within(conversationPane()).getAllByRole('listitem')[0]).toHaveTextContent('My first message');
    expect(within(conversationPane()).queryByRole('button', { name: 'Load older messages' })).not.toBeInTheDocument();
  });

  it('names someone without a chat yet from the directory', async () => {
    mock.onGet('/users/user-new').reply(200, { data: makeUser({ id: 'user-new', firstname: 'Bilal', lastname: 'Ahmed' }) });
    conversations['user-new'] = [];
    renderPage('/messages?with=user-new');
    expect(await screen.findByRole('heading', { level: 2, name: 'Bilal Ahmed' })).toBeInTheDocument();
    expect(await screen.findByText('No messages yet')).toBeInTheDocument();
  });

  it('shows a message from the stream in the open conversation, reads it out, and marks it read', async () => {
    const { store } = renderPage(`/messages?with=${AYESHA}`);
    await within(await findConversation()).findAllByRole('listitem');
    const reads = () => mock.history.get.filter((request) => request.url === `/message/chat/${AYESHA}`);
    const before = reads().length;

    const incoming = makeMessage({ id: 'a-3', content: 'Thank you, doctor.', createAt: new Date().toISOString() });
    act(() => applyStreamEvent({ type: 'message', message: incoming }, store.dispatch, ME));

    expect(await within(conversationPane()).findByText('Thank you, doctor.')).toBeInTheDocument();
    const live = document.querySelector('.messages-page [aria-live="polite"]');
    expect(live).toHaveTextContent('New message from Ayesha Khan: Thank you, doctor.');
    await vi.waitFor(() => expect(reads()).toHaveLength(before + 1));
    expect(reads().at(-1)?.params).toEqual({ limit: 1 });
    // On screen: not counted unread.
    expect(within(chatList()).getByRole('button', { name: /Ayesha Khan/ })).not.toHaveTextContent('unread');
  });

  it('reads out a message for another conversation by name only', async () => {
    const { store } = renderPage(`/messages?with=${AYESHA}`);
    await within(await findConversation()).findAllByRole('listitem');
    const incoming = makeMessage({ senderId: SARA, content: 'Private words', createAt: new Date().toISOString() });
    act(() => applyStreamEvent({ type: 'message', message: incoming }, store.dispatch, ME));
    const live = document.querySelector('.messages-page [aria-live="polite"]');
    await vi.waitFor(() => expect(live).toHaveTextContent('New message from Sara Malik'));
    expect(live).not.toHaveTextContent('Private words');
    expect(within(chatList()).getByRole('button', { name: /Sara Malik/ })).toHaveTextContent('1 unread');
  });

  it("shows 'Read' on the caller's messages once the other person read them", async () => {
    const { store } = renderPage(`/messages?with=${AYESHA}`);
    const [first] = await within(await findConversation()).findAllByRole('listitem');
    expect(first).toHaveTextContent('Sent');
    act(() => applyStreamEvent({ type: 'read', userId: AYESHA, senderId: ME, readAt: new Date().toISOString() }, store.dispatch, ME));
    // The cache tells its subscribers after the update (RTK batches such notifications).
    await vi.waitFor(() => expect(first).toHaveTextContent('· Read'));
  });
});

describe('/messages under 1024 px', () => {
  it('shows the list first, then the conversation alone with a way back; the focus follows', async () => {
    narrowScreen();
    const user = userEvent.setup();
    renderPage();
    const row = await within(chatList()).findByRole('button', { name: /Ayesha Khan/ });
    expect(screen.queryByText('Select a chat to start messaging')).not.toBeVisible();

    await user.click(row);
    const title = await screen.findByRole('heading', { level: 2, name: 'Ayesha Khan' });
    expect(title).toHaveFocus();
    expect(listPane()).not.toBeVisible();
    expect(conversationPane()).toBeVisible();

    await user.click(screen.getByRole('button', { name: 'Back to chats' }));
    expect(chatList()).toBeVisible();
    expect(within(chatList()).getByRole('button', { name: /Ayesha Khan/ })).toHaveFocus();
    expect(screen.queryByRole('heading', { level: 2, name: 'Ayesha Khan' })).not.toBeInTheDocument();
  });

  it('opens a linked conversation directly; Back shows the list in its place', async () => {
    narrowScreen();
    const user = userEvent.setup();
    const { router } = renderPage(`/messages?with=${AYESHA}`);
    const back = await screen.findByRole('button', { name: 'Back to chats' });
    expect(back).toBeVisible();
    expect(listPane()).not.toBeVisible();
    await user.click(back);
    expect(chatList()).toBeVisible();
    expect(router.state.location.search).toBe('');
    // Replaced, not added: the browser's Back leaves the page.
    expect(router.state.historyAction).toBe('REPLACE');
  });
});

describe('/messages on wide screens', () => {
  it('shows both panes and no Back button', async () => {
    const user = userEvent.setup();
    renderPage();
    await user.click(await within(chatList()).findByRole('button', { name: /Ayesha Khan/ }));
    expect(chatList()).toBeVisible();
    expect(conversationPane()).toBeVisible();
    expect(screen.queryByRole('button', { name: 'Back to chats' })).not.toBeInTheDocument();
  });
});

describe('a new chat', () => {
  it("'Select User to Chat' lists the directory (by name or email), then 'Send Message' sends and opens the conversation", async () => {
    const user = userEvent.setup();
    mock.onPost('/message/send').reply((config) => {
      const body = JSON.parse(config.data as string) as { recipientId: string; content: string };
      conversations[body.recipientId] = [sent({ id: 'n-1', ...body })];
      return [201, { message: 'Message sent.', data: conversations[body.recipientId][0] }];
    });
    renderPage();
    await within(chatList()).findAllByRole('button', { name: /Khan|Malik/ });
    await user.click(within(chatList()).getByRole('button', { name: 'New chat' }));

    const picker = screen.getByRole('dialog', { name: 'Select User to Chat' });
    const search = within(picker).getByRole('searchbox', { name: 'Search users by name or email' });
    expect(search).toHaveAttribute('placeholder', 'Name or email');
    expect(search).toHaveFocus();
    // Nobody writes to themself.
    expect(await within(picker).findAllByRole('radio')).toHaveLength(2);
    await user.click(within(picker).getByRole('button', { name: 'Next' }));
    expect(within(picker).getByText('Please choose who to write to.')).toBeInTheDocument();
    await user.click(within(picker).getByRole('radio', { name: /Malik, Sara/ }));
    await user.click(within(picker).getByRole('button', { name: 'Next' }));

    const writer = screen.getByRole('dialog', { name: 'Send Message' });
    expect(writer).toHaveAccessibleDescription('To Sara Malik');
    const box = within(writer).getByRole('textbox', { name: 'Message' });
    expect(box).toHaveFocus();
    expect(box).toHaveAttribute('placeholder', 'Type a message...');
    await user.click(within(writer).getByRole('button', { name: 'Send' }));
    expect(posts()).toHaveLength(0);
    await user.type(box, 'Can we talk about the scan?');
    await user.click(within(writer).getByRole('button', { name: 'Send' }));

    await vi.waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(JSON.parse(posts()[0].data as string)).toEqual({ recipientId: SARA, content: 'Can we talk about the scan?' });
    expect(await screen.findByRole('heading', { level: 2, name: 'Sara Malik' })).toBeInTheDocument();
    expect(await within(conversationPane()).findByText('Can we talk about the scan?')).toBeInTheDocument();
  });
});

describe('discussing an image (?with=&image=)', () => {
  beforeEach(() => {
    mock.onGet('/upload/image/img-1').reply(200, { data: { id: 'img-1', caption: 'Chest CT' } });
  });

  it('opens the conversation with the image attached and sends it with the next message only', async () => {
    const user = userEvent.setup();
    mock.onPost('/message/send').reply((config) => {
      const body = JSON.parse(config.data as string) as { recipientId: string; content: string; imageId?: string };
      const image = body.imageId ? { available: true as const, id: body.imageId, caption: 'Chest CT' } : null;
      return [201, { message: 'Message sent.', data: sent({ id: `s-${posts().length}`, ...body, image }) }];
    });
    const { router } = renderPage(`/messages?with=${AYESHA}&image=img-1`);
    const pane = await screen.findByRole('region', { name: 'Ayesha Khan' });
    expect(await within(pane).findByText('Chest CT')).toBeInTheDocument();
    expect(within(pane).getByText(/Attached image:/)).toBeInTheDocument();

    await user.type(composer(), 'About this scan{Enter}');
    await vi.waitFor(() => expect(posts()).toHaveLength(1));
    expect(JSON.parse(posts()[0].data as string)).toEqual({ recipientId: AYESHA, content: 'About this scan', imageId: 'img-1' });
    await vi.waitFor(() => expect(within(pane).queryByRole('button', { name: 'Remove the attached image' })).not.toBeInTheDocument());
    expect(router.state.location.search).toBe(`?with=${AYESHA}`);

    // The sent message carries a card linking to the image.
    const link = await within(pane).findByRole('link', { name: 'Attached image: Chest CT' });
    expect(link).toHaveAttribute('href', '/view-images?image=img-1');

    await user.type(composer(), 'And another thing{Enter}');
    await vi.waitFor(() => expect(posts()).toHaveLength(2));
    expect(JSON.parse(posts()[1].data as string)).toEqual({ recipientId: AYESHA, content: 'And another thing' });
  });

  it('shows an image the reader may no longer see as no longer available: no caption, no link', async () => {
    conversations[AYESHA] = [
      makeMessage({ id: 'a-1', content: 'About my scan', image: { available: false } }),
      makeMessage({ id: 'a-2', content: 'And this one', image: { available: true, id: 'img-2', caption: 'Knee MRI' } }),
    ];
    renderPage(`/messages?with=${AYESHA}`);
    const pane = await screen.findByRole('region', { name: 'Ayesha Khan' });
    const gone = (await within(pane).findByText('About my scan')).closest('li') as HTMLElement;
    expect(within(gone).getByText('This image is no longer available.')).toBeInTheDocument();
    expect(within(gone).getByText(/Attached image:/)).toBeInTheDocument();
    expect(within(gone).queryByRole('link')).not.toBeInTheDocument();
    expect(within(gone).queryByText('Untitled')).not.toBeInTheDocument();
    // An image the reader still sees keeps its caption and its link.
    const shown = (await within(pane).findByText('And this one')).closest('li') as HTMLElement;
    expect(within(shown).getByRole('link', { name: 'Attached image: Knee MRI' })).toHaveAttribute('href', '/view-images?image=img-2');
    expect(within(shown).queryByText('This image is no longer available.')).not.toBeInTheDocument();
  });

  it('lets the attachment be removed before sending', async () => {
    const user = userEvent.setup();
    mock.onPost('/message/send').reply(201, { message: 'Message sent.', data: sent({ recipientId: AYESHA, content: 'Hi' }) });
    renderPage(`/messages?with=${AYESHA}&image=img-1`);
    await user.click(await screen.findByRole('button', { name: 'Remove the attached image' }));
    expect(screen.queryByText(/Attached image:/)).not.toBeInTheDocument();
    expect(composer()).toHaveFocus();
    await user.type(composer(), 'Hi{Enter}');
    await vi.waitFor(() => expect(posts()).toHaveLength(1));
    expect(JSON.parse(posts()[0].data as string)).toEqual({ recipientId: AYESHA, content: 'Hi' });
  });
});

describe('the side menu', () => {
  it('shows the number of unread messages on Messages', async () => {
    chatRows[1].unread = 3;
    mock.onGet('/upload/my-images').reply(200, pageOf([]));
    mock.onGet('/upload/shared-images').reply(200, pageOf([]));
    renderRoute('/view-images', { user: me, token: 't' });
    const nav = await screen.findByRole('navigation', { name: 'Main' });
    await vi.waitFor(() => expect(nav.querySelector('.shell__badge')).not.toBeNull());
    const link = await within(nav).findByRole('link', { name: /^Messages \(5 unread\)$/ });
    expect(link).toHaveAttribute('href', '/messages');
  });
});
