-- +goose Up
-- Shares of an image with one recipient. The recipient sees the contents only
-- after entering the emailed code (stored as a keyed hash, S4), and only until
-- the share expires or is revoked. Times come from the application's clock.
CREATE TABLE shares (
    id            uuid PRIMARY KEY,
    image_id      uuid NOT NULL REFERENCES images (id) ON DELETE CASCADE,
    shared_by     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    shared_with   uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    code_hash     bytea NOT NULL,
    tries         integer NOT NULL DEFAULT 0 CHECK (tries >= 0),
    created_at    timestamptz NOT NULL,
    expires_at    timestamptz NOT NULL CHECK (expires_at > created_at),
    verified_at   timestamptz,
    -- Five wrong codes void a share.
    voided_at     timestamptz,
    revoked_at    timestamptz,
    -- The expiry is audited once, at the first access after it.
    expiry_logged boolean NOT NULL DEFAULT false,
    CHECK (shared_by <> shared_with)
);
-- At most one share of an image per recipient is open (neither revoked nor void).
CREATE UNIQUE INDEX shares_open_key ON shares (image_id, shared_with) WHERE revoked_at IS NULL AND voided_at IS NULL;
CREATE INDEX shares_recipient_idx ON shares (shared_with, created_at DESC);
CREATE INDEX shares_sharer_idx ON shares (shared_by, created_at DESC);

-- +goose Down
DROP TABLE shares;
