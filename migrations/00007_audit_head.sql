-- +goose Up
-- The chain's head: the newest entry's id and hash, kept in a row of its
-- own, so that chaining a new entry reads one row whatever the log's size
-- and whatever plan the statistics of a young table suggest (a generic plan
-- made while the log looked empty scanned it whole for every entry).
CREATE TABLE audit_head (
    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    id       bigint NOT NULL,
    hash     bytea NOT NULL
);
INSERT INTO audit_head (id, hash)
SELECT id, hash FROM audit_log ORDER BY id DESC LIMIT 1;
ALTER TABLE audit_head SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000);

-- +goose StatementBegin
-- Chains each new entry. The lock makes entries take turns, and the id is
-- drawn under it, so id order is chain order.
CREATE OR REPLACE FUNCTION audit_chain() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    prev bytea;
BEGIN
    PERFORM pg_advisory_xact_lock(727002);
    SELECT hash INTO prev FROM audit_head;
    NEW.id := nextval('audit_log_id_seq');
    NEW.created_at := now();
    NEW.prev_hash := coalesce(prev, '\x'::bytea);
    NEW.hash := audit_digest(NEW.prev_hash, NEW);
    INSERT INTO audit_head AS h (id, hash) VALUES (NEW.id, NEW.hash)
    ON CONFLICT (only_row) DO UPDATE SET id = excluded.id, hash = excluded.hash;
    RETURN NEW;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION audit_chain() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    prev bytea;
BEGIN
    PERFORM pg_advisory_xact_lock(727002);
    SELECT hash INTO prev FROM audit_log ORDER BY id DESC LIMIT 1;
    NEW.id := nextval('audit_log_id_seq');
    NEW.created_at := now();
    NEW.prev_hash := coalesce(prev, '\x'::bytea);
    NEW.hash := audit_digest(NEW.prev_hash, NEW);
    RETURN NEW;
END
$$;
-- +goose StatementEnd
DROP TABLE audit_head;
