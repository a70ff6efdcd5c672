-- +goose Up
-- The chain's hashes are computed by the server, keyed with a secret the
-- database never holds in the clear (HMAC-SHA256; the key is stored here
-- only sealed under the master key). A digest the database computed
-- itself could be recomputed by anyone who holds the database: edit an
-- entry, recompute every later hash, move the head, and the chain looked
-- intact. Entries written before keep their SHA-256 digest (chain 1) and
-- stay verifiable: the first keyed entry covers the last of them, and the
-- signed checkpoints in the content store say where they end.
ALTER TABLE audit_log ADD COLUMN chain smallint NOT NULL DEFAULT 1;
ALTER TABLE audit_log ALTER COLUMN chain DROP DEFAULT;

DROP TRIGGER audit_log_chain ON audit_log;
DROP FUNCTION audit_chain();
DROP FUNCTION audit_digest(bytea, audit_log);

-- The chain's key, sealed under the master key (so `medishare keys rotate`
-- re-seals it, and the chain stays verifiable across master keys).
CREATE TABLE audit_key (
    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    sealed   bytea NOT NULL
);

-- The latest check of the whole chain, by any instance (the health panel
-- shows it).
CREATE TABLE audit_check (
    only_row        boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    checked_at      timestamptz NOT NULL,
    ok              boolean NOT NULL,
    checked         bigint NOT NULL,
    first_broken_id bigint NOT NULL,
    problem         text NOT NULL
);

-- +goose StatementBegin
-- The next entry's id and time, and the hash it follows: drawn under the
-- chain's lock, which the transaction holds until it commits, so id order
-- is chain order and the next entry follows this one.
CREATE FUNCTION audit_next(OUT id bigint, OUT created_at timestamptz, OUT prev_hash bytea)
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(727002);
    id := nextval('audit_log_id_seq');
    created_at := now();
    SELECT h.hash INTO prev_hash FROM audit_head h WHERE h.only_row;
    prev_hash := coalesce(prev_hash, '\x'::bytea);
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
-- Moves the head to each new entry, and refuses an entry that does not
-- follow it (one appended without audit_next in its transaction).
CREATE FUNCTION audit_append() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    head bytea;
BEGIN
    SELECT h.hash INTO head FROM audit_head h WHERE h.only_row;
    IF NEW.prev_hash IS DISTINCT FROM coalesce(head, '\x'::bytea) THEN
        RAISE EXCEPTION 'audit entry % does not follow the head of the chain', NEW.id;
    END IF;
    INSERT INTO audit_head AS h (id, hash, entries) VALUES (NEW.id, NEW.hash, 1)
    ON CONFLICT (only_row) DO UPDATE SET id = excluded.id, hash = excluded.hash, entries = h.entries + 1;
    RETURN NEW;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER audit_log_append BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_append();

-- +goose Down
DROP TRIGGER audit_log_append ON audit_log;
DROP FUNCTION audit_append();
DROP FUNCTION audit_next();
DROP TABLE audit_check;
DROP TABLE audit_key;
ALTER TABLE audit_log DROP COLUMN chain;

-- +goose StatementBegin
CREATE FUNCTION audit_digest(prev bytea, e audit_log) RETURNS bytea
LANGUAGE sql IMMUTABLE AS $$
    SELECT sha256(prev || convert_to(jsonb_build_array(
        e.id, to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
        e.actor_id, e.action, e.table_name, e.record_id, e.ip, e.user_agent, e.status, e.reason
    )::text, 'UTF8'))
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION audit_chain() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    prev bytea;
BEGIN
    PERFORM pg_advisory_xact_lock(727002);
    SELECT hash INTO prev FROM audit_head WHERE only_row;
    NEW.id := nextval('audit_log_id_seq');
    NEW.created_at := now();
    NEW.prev_hash := coalesce(prev, '\x'::bytea);
    NEW.hash := audit_digest(NEW.prev_hash, NEW);
    INSERT INTO audit_head AS h (id, hash, entries) VALUES (NEW.id, NEW.hash, 1)
    ON CONFLICT (only_row) DO UPDATE SET id = excluded.id, hash = excluded.hash, entries = h.entries + 1;
    RETURN NEW;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER audit_log_chain BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_chain();
