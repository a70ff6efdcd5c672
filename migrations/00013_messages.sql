-- +goose Up
-- Messages between two people (api.md, Messages). The text is sealed by
-- the server (secure.TextSealer: AES-256-GCM under a key derived from the
-- master key, the message id bound in), so the database never holds it in
-- clear. seq orders messages as they were written; id is what the API shows.
CREATE TABLE messages (
    seq          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id           uuid        NOT NULL UNIQUE,
    sender_id    uuid        NOT NULL REFERENCES users (id),
    recipient_id uuid        NOT NULL REFERENCES users (id),
    sealed       bytea       NOT NULL,
    image_id     uuid        REFERENCES images (id) ON DELETE SET NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    read_at      timestamptz,
    CHECK (sender_id <> recipient_id)
);
-- A conversation's pages, newest first, whichever of the two asks.
CREATE INDEX messages_pair_idx ON messages (least(sender_id, recipient_id), greatest(sender_id, recipient_id), seq);
-- What a person has not read yet, by who wrote it: the unread counts and
-- the marking as read read only these.
CREATE INDEX messages_unread_idx ON messages (recipient_id, sender_id, seq) WHERE read_at IS NULL;
-- A stream's replay: a person's messages, both ways, since a point.
CREATE INDEX messages_recipient_idx ON messages (recipient_id, seq);
CREATE INDEX messages_sender_idx ON messages (sender_id, seq);

-- One row per person and each person they have exchanged messages with,
-- pointing at the newest message: the chat list is one index range, newest
-- conversation first. Kept by the trigger below, in the sending transaction.
CREATE TABLE conversations (
    user_id  uuid        NOT NULL REFERENCES users (id),
    other_id uuid        NOT NULL REFERENCES users (id),
    last_seq bigint      NOT NULL,
    last_at  timestamptz NOT NULL,
    PRIMARY KEY (user_id, other_id)
);
CREATE INDEX conversations_recent_idx ON conversations (user_id, last_at DESC, other_id);

-- +goose StatementBegin
CREATE FUNCTION conversations_touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- Both rows, in one order (the smaller user id first), so that two
    -- people writing to each other at once never deadlock.
    INSERT INTO conversations AS c (user_id, other_id, last_seq, last_at)
    VALUES (least(NEW.sender_id, NEW.recipient_id), greatest(NEW.sender_id, NEW.recipient_id), NEW.seq, NEW.created_at),
           (greatest(NEW.sender_id, NEW.recipient_id), least(NEW.sender_id, NEW.recipient_id), NEW.seq, NEW.created_at)
    ON CONFLICT (user_id, other_id) DO UPDATE SET last_seq = excluded.last_seq, last_at = excluded.last_at
        WHERE c.last_seq < excluded.last_seq;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER messages_conversations AFTER INSERT ON messages FOR EACH ROW EXECUTE FUNCTION conversations_touch();

-- +goose Down
DROP TABLE conversations;
DROP TABLE messages;
DROP FUNCTION conversations_touch();
