-- +goose Up
-- Roles and permissions are data (api.md): the server checks them on every request.
CREATE TABLE roles (
    name        text PRIMARY KEY,
    description text NOT NULL
);

CREATE TABLE permissions (
    name        text PRIMARY KEY,
    description text NOT NULL
);

CREATE TABLE role_permissions (
    role       text NOT NULL REFERENCES roles (name) ON DELETE CASCADE,
    permission text NOT NULL REFERENCES permissions (name) ON DELETE CASCADE,
    PRIMARY KEY (role, permission)
);

INSERT INTO roles (name, description) VALUES
    ('patient', 'Receives and views shared medical images'),
    ('healthProvider', 'Uploads, shares and analyses medical images'),
    ('admin', 'Manages users, roles, settings and reads the audit log');

INSERT INTO permissions (name, description) VALUES
    ('images:upload', 'Upload medical images for a patient'),
    ('images:share', 'Share own uploads (admin: any image)'),
    ('images:delete', 'Delete own uploads (admin: any image)'),
    ('images:view-shared', 'View images shared with you after verification'),
    ('analysis:run', 'Ask for an AI analysis of an image'),
    ('users:list', 'See the user directory (scoped by role)'),
    ('users:manage', 'Approve, deactivate, delete users and change roles'),
    ('audit:read', 'Read the audit log (scoped by role)'),
    ('roles:read', 'See roles and permissions'),
    ('settings:manage', 'Change application settings'),
    ('messages:send', 'Send messages');

INSERT INTO role_permissions (role, permission) VALUES
    ('patient', 'images:view-shared'),
    ('patient', 'users:list'),
    ('patient', 'audit:read'),
    ('patient', 'messages:send'),
    ('healthProvider', 'images:upload'),
    ('healthProvider', 'images:share'),
    ('healthProvider', 'images:delete'),
    ('healthProvider', 'images:view-shared'),
    ('healthProvider', 'analysis:run'),
    ('healthProvider', 'users:list'),
    ('healthProvider', 'audit:read'),
    ('healthProvider', 'messages:send');
INSERT INTO role_permissions (role, permission) SELECT 'admin', name FROM permissions;

CREATE TABLE users (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    email           text NOT NULL CHECK (email = lower(email)),
    username        text NOT NULL,
    password_hash   text NOT NULL,
    role            text NOT NULL REFERENCES roles (name),
    active          boolean NOT NULL DEFAULT true,
    verified        boolean NOT NULL DEFAULT false,
    firstname       text NOT NULL DEFAULT '',
    lastname        text NOT NULL DEFAULT '',
    phone           text NOT NULL DEFAULT '',
    dob             date,
    gender          text CHECK (gender IN ('Male', 'Female', 'Other')),
    address         text NOT NULL DEFAULT '',
    city            text NOT NULL DEFAULT '',
    state           text NOT NULL DEFAULT '',
    country         text NOT NULL DEFAULT '',
    zipcode         text NOT NULL DEFAULT '',
    bio             text NOT NULL DEFAULT '',
    taxid           text NOT NULL DEFAULT '',
    licensenumber   text NOT NULL DEFAULT '',
    insurancenumber text NOT NULL DEFAULT '',
    bloodgroup      text NOT NULL DEFAULT '',
    primphysician   text NOT NULL DEFAULT '',
    specialization  text NOT NULL DEFAULT '',
    deleted_at      timestamptz,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (email);
CREATE UNIQUE INDEX users_username_key ON users (lower(username));
CREATE INDEX users_role_idx ON users (role);

-- A session is one sign-in; access tokens name it, so revoking it ends access at once (S5).
CREATE TABLE sessions (
    id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id        uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at     timestamptz NOT NULL DEFAULT now(),
    expires_at     timestamptz NOT NULL,
    revoked_at     timestamptz,
    revoked_reason text,
    ip             text NOT NULL DEFAULT '',
    user_agent     text NOT NULL DEFAULT ''
);
CREATE INDEX sessions_user_idx ON sessions (user_id) WHERE revoked_at IS NULL;

-- Refresh tokens rotate on every use; a used one presented again revokes its session (S6).
CREATE TABLE refresh_tokens (
    token_hash bytea PRIMARY KEY,
    session_id uuid NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    used_at    timestamptz
);
CREATE INDEX refresh_tokens_session_idx ON refresh_tokens (session_id);

-- One-time codes and link tokens, stored only as keyed hashes (S4). At most one
-- live code per account and purpose.
CREATE TABLE one_time_codes (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    purpose    text NOT NULL CHECK (purpose IN ('confirm', 'reset', 'reset_link')),
    code_hash  bytea NOT NULL,
    tries      integer NOT NULL DEFAULT 0,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX one_time_codes_live_key ON one_time_codes (user_id, purpose) WHERE used_at IS NULL;
CREATE INDEX one_time_codes_hash_idx ON one_time_codes (code_hash);

-- Throttling counters live here so limits hold across server instances (S3).
CREATE TABLE throttles (
    key          text PRIMARY KEY,
    hits         integer NOT NULL,
    window_start timestamptz NOT NULL
);

-- The audit log (S18-S20): append-only, each entry chained to the previous by a hash.
CREATE TABLE audit_log (
    id         bigint PRIMARY KEY,
    created_at timestamptz NOT NULL DEFAULT now(),
    actor_id   uuid,
    action     text NOT NULL,
    table_name text NOT NULL DEFAULT '',
    record_id  text NOT NULL DEFAULT '',
    ip         text NOT NULL DEFAULT '',
    user_agent text NOT NULL DEFAULT '',
    status     text NOT NULL CHECK (status IN ('success', 'failure')),
    reason     text NOT NULL DEFAULT '',
    prev_hash  bytea NOT NULL,
    hash       bytea NOT NULL
);
CREATE SEQUENCE audit_log_id_seq OWNED BY audit_log.id;
CREATE INDEX audit_log_actor_idx ON audit_log (actor_id, id);
CREATE INDEX audit_log_created_idx ON audit_log (created_at);

-- +goose StatementBegin
-- The digest of one entry: the previous hash and every field, in a canonical
-- JSON array, so the trigger and `medishare audit verify` compute the same bytes.
CREATE FUNCTION audit_digest(prev bytea, e audit_log) RETURNS bytea
LANGUAGE sql IMMUTABLE AS $$
    SELECT sha256(prev || convert_to(jsonb_build_array(
        e.id, to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
        e.actor_id, e.action, e.table_name, e.record_id, e.ip, e.user_agent, e.status, e.reason
    )::text, 'UTF8'))
$$;
-- +goose StatementEnd

-- +goose StatementBegin
-- Chains each new entry. The lock makes entries take turns, and the id is
-- drawn under it, so id order is chain order.
CREATE FUNCTION audit_chain() RETURNS trigger
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

-- +goose StatementBegin
CREATE FUNCTION audit_refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_log is append-only';
END
$$;
-- +goose StatementEnd

CREATE TRIGGER audit_log_chain BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_chain();
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_refuse_change();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log FOR EACH STATEMENT EXECUTE FUNCTION audit_refuse_change();

-- +goose Down
DROP FUNCTION audit_digest(bytea, audit_log);
DROP TABLE audit_log;
DROP FUNCTION audit_refuse_change();
DROP FUNCTION audit_chain();
DROP TABLE throttles;
DROP TABLE one_time_codes;
DROP TABLE refresh_tokens;
DROP TABLE sessions;
DROP TABLE users;
DROP TABLE role_permissions;
DROP TABLE permissions;
DROP TABLE roles;
