-- +goose Up
-- Second factors (api.md "Multi-factor sign-in").

-- One authenticator (TOTP) per person. The secret is sealed under the
-- master key (secure.TextSealer, bound to "totp:<user id>") and re-sealed
-- by `medishare keys rotate`. A row without enabled_at is a setup not yet
-- confirmed with a code, and is not in force. last_step is the newest
-- 30-second step a code was accepted for: a code is accepted only for a
-- later step, in one conditional UPDATE, so a code works once even when
-- two instances see it at the same moment.
CREATE TABLE mfa_totp (
    user_id    uuid        PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    sealed     bytea       NOT NULL,
    created_at timestamptz NOT NULL,
    enabled_at timestamptz,
    last_step  bigint      NOT NULL DEFAULT 0
);

-- Recovery codes, kept as keyed hashes; a used one keeps its row (used_at)
-- until the set is replaced.
CREATE TABLE mfa_recovery_codes (
    user_id   uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    code_hash bytea       NOT NULL,
    used_at   timestamptz,
    PRIMARY KEY (user_id, code_hash)
);

-- The second step of a sign-in: the mfaToken's keyed hash, who it is for,
-- its expiry and tries. webauthn holds a passkey ceremony's session data
-- between its begin and finish, which may reach different instances.
CREATE TABLE mfa_challenges (
    token_hash bytea       PRIMARY KEY,
    user_id    uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    expires_at timestamptz NOT NULL,
    tries      int         NOT NULL DEFAULT 0,
    used_at    timestamptz,
    webauthn   jsonb
);
CREATE INDEX mfa_challenges_user_idx ON mfa_challenges (user_id);
CREATE INDEX mfa_challenges_expiry_idx ON mfa_challenges (expires_at);

-- Passkeys: credential is the library's credential record as JSON (public
-- key, sign count, flags); credential_id is the authenticator's id for it.
CREATE TABLE webauthn_credentials (
    id            uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id       uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    credential_id bytea       NOT NULL UNIQUE,
    credential    jsonb       NOT NULL,
    name          text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 64),
    created_at    timestamptz NOT NULL,
    last_used_at  timestamptz
);
CREATE INDEX webauthn_credentials_user_idx ON webauthn_credentials (user_id, created_at);

-- A passkey registration between its begin and finish, one per person.
CREATE TABLE webauthn_registrations (
    user_id    uuid        PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    session    jsonb       NOT NULL,
    expires_at timestamptz NOT NULL
);

-- A session that may only set up a second factor: its person's role
-- requires one (the setting mfaRequiredRoles) and they have none.
ALTER TABLE sessions ADD COLUMN enrolment_only boolean NOT NULL DEFAULT false;

-- A person's own second-factor events are in their own audit view, like
-- their sign-ins; an admin's reset of them is shown to the person too.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION audit_audience_of(p_entry bigint, p_actor uuid, p_action text, p_table text, p_record text)
RETURNS TABLE (user_id uuid, entry_id bigint, kind text)
LANGUAGE plpgsql STABLE AS $$
DECLARE
    img uuid;
    patient uuid;
    uploader uuid;
BEGIN
    IF p_record ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN
        IF p_table = 'images' THEN
            img := p_record::uuid;
        ELSIF p_table = 'shares' THEN
            SELECT s.image_id INTO img FROM shares s WHERE s.id = p_record::uuid;
        ELSIF p_table = 'users' AND p_action = 'mfa_reset_by_admin' AND p_record::uuid IS DISTINCT FROM p_actor THEN
            user_id := p_record::uuid; entry_id := p_entry; kind := 'signin'; RETURN NEXT;
        END IF;
        IF img IS NOT NULL THEN
            SELECT i.patient_id, i.uploader_id INTO patient, uploader FROM images i WHERE i.id = img;
        END IF;
    END IF;
    IF patient IS NOT NULL THEN
        user_id := patient; entry_id := p_entry; kind := 'subject'; RETURN NEXT;
    END IF;
    IF uploader IS NOT NULL AND uploader IS DISTINCT FROM patient THEN
        user_id := uploader; entry_id := p_entry; kind := 'owner'; RETURN NEXT;
    END IF;
    IF p_actor IS NOT NULL AND p_actor IS DISTINCT FROM patient AND p_actor IS DISTINCT FROM uploader THEN
        user_id := p_actor; entry_id := p_entry;
        kind := CASE WHEN p_action = 'login' OR p_action LIKE 'mfa\_%' THEN 'signin' ELSE 'actor' END;
        RETURN NEXT;
    END IF;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION audit_audience_of(p_entry bigint, p_actor uuid, p_action text, p_table text, p_record text)
RETURNS TABLE (user_id uuid, entry_id bigint, kind text)
LANGUAGE plpgsql STABLE AS $$
DECLARE
    img uuid;
    patient uuid;
    uploader uuid;
BEGIN
    IF p_record ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN
        IF p_table = 'images' THEN
            img := p_record::uuid;
        ELSIF p_table = 'shares' THEN
            SELECT s.image_id INTO img FROM shares s WHERE s.id = p_record::uuid;
        END IF;
        IF img IS NOT NULL THEN
            SELECT i.patient_id, i.uploader_id INTO patient, uploader FROM images i WHERE i.id = img;
        END IF;
    END IF;
    IF patient IS NOT NULL THEN
        user_id := patient; entry_id := p_entry; kind := 'subject'; RETURN NEXT;
    END IF;
    IF uploader IS NOT NULL AND uploader IS DISTINCT FROM patient THEN
        user_id := uploader; entry_id := p_entry; kind := 'owner'; RETURN NEXT;
    END IF;
    IF p_actor IS NOT NULL AND p_actor IS DISTINCT FROM patient AND p_actor IS DISTINCT FROM uploader THEN
        user_id := p_actor; entry_id := p_entry; kind := CASE WHEN p_action = 'login' THEN 'signin' ELSE 'actor' END; RETURN NEXT;
    END IF;
END
$$;
-- +goose StatementEnd
ALTER TABLE sessions DROP COLUMN enrolment_only;
DROP TABLE webauthn_registrations;
DROP TABLE webauthn_credentials;
DROP TABLE mfa_challenges;
DROP TABLE mfa_recovery_codes;
DROP TABLE mfa_totp;
