-- name: InsertMessage :one
INSERT INTO messages (id, sender_id, recipient_id, sealed, image_id, image_attached)
VALUES (@id, @sender_id, @recipient_id, @sealed, sqlc.narg('image_id'), @image_attached)
RETURNING seq, created_at;

-- name: MessageSeq :one
-- The place of a message in the conversation of two people (a page's
-- "before"); nothing for a message of another conversation.
SELECT seq FROM messages
WHERE id = @id AND least(sender_id, recipient_id) = least(@a::uuid, @b::uuid)
  AND greatest(sender_id, recipient_id) = greatest(@a::uuid, @b::uuid);

-- name: ConversationPage :many
-- Newest first, before @before_seq: messages_pair_idx backwards.
SELECT m.seq, m.id, m.sender_id, m.recipient_id, m.sealed, m.created_at, m.read_at, m.image_attached, m.image_id, coalesce(i.caption, '')::text AS image_caption, i.uploader_id AS image_uploader_id
FROM messages m LEFT JOIN images i ON i.id = m.image_id
WHERE least(m.sender_id, m.recipient_id) = least(@a::uuid, @b::uuid)
  AND greatest(m.sender_id, m.recipient_id) = greatest(@a::uuid, @b::uuid)
  AND m.seq < @before_seq
ORDER BY m.seq DESC
LIMIT @page_limit;

-- name: MarkConversationRead :many
-- Marks what @sender_id wrote to @recipient_id read; the partial index
-- messages_unread_idx holds exactly these rows.
UPDATE messages SET read_at = @read_at
WHERE recipient_id = @recipient_id AND sender_id = @sender_id AND read_at IS NULL
RETURNING seq;

-- name: ChatList :many
-- The caller's conversations, newest first (conversations_recent_idx), each
-- with its newest message, the other person, and what they have not read.
SELECT c.other_id, u.firstname, u.lastname, u.role,
       m.id AS last_id, m.sender_id AS last_sender_id, m.recipient_id AS last_recipient_id, m.sealed AS last_sealed, m.created_at AS last_created_at,
       (SELECT count(*) FROM messages n WHERE n.recipient_id = @user_id AND n.sender_id = c.other_id AND n.read_at IS NULL)::bigint AS unread
FROM conversations c
JOIN users u ON u.id = c.other_id
JOIN messages m ON m.seq = c.last_seq
WHERE c.user_id = @user_id
ORDER BY c.last_at DESC, c.other_id
LIMIT @page_limit;

-- name: HasWritten :one
-- Whether @sender_id has ever written to @recipient_id (which lets the
-- recipient answer, whatever their directories).
SELECT EXISTS (SELECT 1 FROM messages WHERE sender_id = @sender_id AND recipient_id = @recipient_id);

-- name: HaveExchanged :one
SELECT EXISTS (SELECT 1 FROM conversations WHERE user_id = @a AND other_id = @b);

-- name: MessagesNotUnder :many
-- Messages sealed under another key than @key_id (bytes 2 to 9 of the
-- sealed text), for `medishare keys rotate`.
SELECT id, sealed FROM messages WHERE substring(sealed FROM 2 FOR 8) <> @key_id::bytea ORDER BY seq LIMIT 500;

-- name: SetMessageSealed :exec
UPDATE messages SET sealed = @sealed WHERE id = @id;

-- name: MessageByID :one
SELECT m.seq, m.id, m.sender_id, m.recipient_id, m.sealed, m.created_at, m.read_at, m.image_attached, m.image_id, coalesce(i.caption, '')::text AS image_caption, i.uploader_id AS image_uploader_id
FROM messages m LEFT JOIN images i ON i.id = m.image_id
WHERE m.id = @id;

-- name: MessagesOfSince :many
-- A person's messages, sent or received, after @after_seq, oldest first:
-- a reconnecting stream's replay (each side through its own index).
SELECT m.seq, m.id, m.sender_id, m.recipient_id, m.sealed, m.created_at, m.read_at, m.image_attached, m.image_id, coalesce(i.caption, '')::text AS image_caption, i.uploader_id AS image_uploader_id
FROM (
    (SELECT r.seq FROM messages r WHERE r.recipient_id = @user_id AND r.seq > @after_seq ORDER BY r.seq LIMIT @max_rows)
    UNION
    (SELECT s.seq FROM messages s WHERE s.sender_id = @user_id AND s.seq > @after_seq ORDER BY s.seq LIMIT @max_rows)
) x
JOIN messages m ON m.seq = x.seq
LEFT JOIN images i ON i.id = m.image_id
ORDER BY m.seq
LIMIT @max_rows;

-- name: MessageSeqOf :one
-- The place of a message the person sent or received (a Last-Event-ID).
SELECT seq FROM messages WHERE id = @id AND (sender_id = @user_id OR recipient_id = @user_id);
