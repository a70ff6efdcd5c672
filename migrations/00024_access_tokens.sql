-- +goose Up
-- Personal access tokens: credentials a person makes for a machine (a
-- PACS forwarding studies to /dicomweb) that act as that person there
-- (api.md, "Personal access tokens"). The secret is kept only as its keyed
-- hash, like a refresh token's. A token ends when it is revoked, when it
-- expires, or when its owner's account is deactivated or deleted; ended
-- rows stay, for the audit log's sake.
CREATE TABLE access_tokens (
    id           uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id      uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
    token_hash   bytea       NOT NULL UNIQUE,
    created_at   timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL CHECK (expires_at > created_at),
    last_used_at timestamptz,
    revoked_at   timestamptz,
    revoked_reason text
);
-- A person's tokens that are not revoked, by expiry: the list and the cap
-- of live tokens read exactly the live ones (expires_at > now), however
-- many ended tokens the person has made before.
CREATE INDEX access_tokens_live_idx ON access_tokens (user_id, expires_at) WHERE revoked_at IS NULL;
-- Every token of a person, ended ones included: what removing a user's row
-- (ON DELETE CASCADE) reads.
CREATE INDEX access_tokens_user_idx ON access_tokens (user_id, created_at DESC);

-- +goose Down
DROP TABLE access_tokens;
