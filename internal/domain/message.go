package domain

import "time"

// MessageMaxChars is the longest message, in characters (not bytes).
const MessageMaxChars = 4000

// Message is one message between two people. Content is the clear text,
// held in memory only; the store keeps Sealed (secure.TextSealer).
type Message struct {
	ID          string
	SenderID    string
	RecipientID string
	Content     string
	Sealed      []byte
	CreatedAt   time.Time
	ReadAt      *time.Time
	Image       *MessageImage
	// Seq orders messages as they were written (the store's order).
	Seq int64
}

// MessageImage is the image a message is about ("Discuss this image"), as
// the message's reader may see it now. An image the reader may no longer
// see (a share revoked or expired, the image deleted) is only Unavailable:
// neither its id nor its caption (api.md, Messages).
type MessageImage struct {
	ID      string
	Caption string
	// UploaderID is who uploaded the image (who always sees it).
	UploaderID  string
	Unavailable bool
}

// Chat is one row of a person's chat list: the other person, the newest
// message between them, and how many messages to the person are unread.
type Chat struct {
	Other  Person
	Role   string
	Last   Message
	Unread int
}

// QueuedMail is one mail of the outbox, sealed: recipient, subject and text
// hold live codes and never rest in the database readable.
type QueuedMail struct {
	ID        string
	Sealed    []byte
	Attempts  int
	CreatedAt time.Time
}
