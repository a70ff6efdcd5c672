-- +goose Up
-- Mail waiting to be sent, so that no mail is lost. A row is written in
-- the same transaction as what the mail tells of (a code, a share), so a
-- crash after the answer loses no mail; whichever instance takes the row
-- first (FOR UPDATE SKIP LOCKED) sends it while holding its lock and deletes
-- it in the same transaction, so no row is sent twice. Recipient, subject and
-- text hold live codes: they are sealed like a message's text
-- (secure.TextSealer, bound to the row's id).
CREATE TABLE mail_outbox (
    id              uuid        PRIMARY KEY,
    sealed          bytea       NOT NULL,
    attempts        integer     NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mail_outbox_due_idx ON mail_outbox (next_attempt_at);

-- +goose Down
DROP TABLE mail_outbox;
