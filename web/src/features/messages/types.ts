// The message objects of api.md "Messages".

/** The image a message is about ("Discuss" on an image card), while the reader may see it. */
export interface AttachedImage {
  available: true;
  id: string;
  caption: string | null;
}

/**
 * The image of a message the reader may no longer see (a share revoked or
 * expired, the image deleted): the server sends neither its id nor its caption.
 */
export interface UnavailableImage {
  available: false;
}

export type MessageImage = AttachedImage | UnavailableImage;

/** One message between the caller and another person. Times are RFC 3339. */
export interface Message {
  id: string;
  senderId: string;
  recipientId: string;
  content: string;
  createAt: string;
  /** When the recipient read it; null until then. */
  readAt: string | null;
  image: MessageImage | null;
}

/** One row of the chat list: the other person (id is their user id) and the newest message. */
export interface ChatSummary {
  id: string;
  firstname: string | null;
  lastname: string | null;
  role?: string | null;
  lastMessage: { content: string; createAt: string; senderId: string } | null;
  /** Messages to the caller not read yet. */
  unread: number;
}

/** One page of a conversation: oldest first; `before` asks for the page of older messages. */
export interface ConversationPage {
  data: Message[];
  pagination: { hasMore: boolean; before: string | null };
}

/** POST /api/message/send. */
export interface SendMessageBody {
  recipientId: string;
  content: string;
  imageId?: string;
}
