-- +goose Up
-- The open message streams of every instance, so that the cap of streams
-- per person holds across instances (api.md, Messages). A row is a lease:
-- the instance that holds the stream renews it while the stream is open
-- and deletes it when the stream ends, so the streams of an instance that
-- died stop counting once their leases run out.
CREATE TABLE message_streams (
    id         uuid        PRIMARY KEY,
    user_id    uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    expires_at timestamptz NOT NULL
);
CREATE INDEX message_streams_user_idx ON message_streams (user_id, expires_at);
CREATE INDEX message_streams_expires_idx ON message_streams (expires_at);

-- +goose Down
DROP TABLE message_streams;
