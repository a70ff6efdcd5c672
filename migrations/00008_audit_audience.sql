-- +goose Up
-- Who may read each audit entry besides the admins (api.md, Audit): one row
-- per person and entry, so that a patient's access history and a provider's
-- events are each one index range read newest first, whatever the log's size.
--   subject: the patient the entry's image is about (their access history);
--   owner:   the provider who uploaded that image;
--   signin:  the person who signed in (or failed to), for their own sign-ins;
--   actor:   the person who did anything else.
-- A person in several roles on one entry gets one row, the first of the
-- order above. The rows are derived from the entry and the image at the
-- time of writing; the entries themselves stay in the hash chain.
CREATE TABLE audit_audience (
    user_id  uuid NOT NULL,
    entry_id bigint NOT NULL,
    kind     text NOT NULL CHECK (kind IN ('subject', 'owner', 'signin', 'actor')),
    PRIMARY KEY (user_id, entry_id) INCLUDE (kind)
);

-- +goose StatementBegin
-- The audience of one entry, by the rule above. The image an entry is about
-- is its own record or the record of a share of it. (PL/pgSQL, so that a
-- record id that is no uuid is never cast, not even while planning.)
CREATE FUNCTION audit_audience_of(p_entry bigint, p_actor uuid, p_action text, p_table text, p_record text)
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

-- Entries written before this migration, for the images that still exist.
INSERT INTO audit_audience (user_id, entry_id, kind)
SELECT w.user_id, w.entry_id, w.kind
FROM audit_log a, audit_audience_of(a.id, a.actor_id, a.action, a.table_name, a.record_id) w;

-- +goose StatementBegin
CREATE FUNCTION audit_audience_add() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO audit_audience (user_id, entry_id, kind)
    SELECT w.user_id, w.entry_id, w.kind
    FROM audit_audience_of(NEW.id, NEW.actor_id, NEW.action, NEW.table_name, NEW.record_id) w;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER audit_log_audience AFTER INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_audience_add();

-- The admin's filters, each read newest first through its own index.
CREATE INDEX audit_log_action_idx ON audit_log (action, id);
CREATE INDEX audit_log_failure_idx ON audit_log (id) WHERE status = 'failure';
-- A time range, newest first by time.
DROP INDEX audit_log_created_idx;
CREATE INDEX audit_log_created_idx ON audit_log (created_at, id);
-- A search by username (names and email are in users.search_text).
CREATE INDEX users_username_trgm_idx ON users USING gin (lower(username) gin_trgm_ops) WHERE deleted_at IS NULL;

-- +goose Down
DROP INDEX users_username_trgm_idx;
DROP INDEX audit_log_failure_idx;
DROP INDEX audit_log_action_idx;
DROP INDEX audit_log_created_idx;
CREATE INDEX audit_log_created_idx ON audit_log (created_at);
DROP TRIGGER audit_log_audience ON audit_log;
DROP FUNCTION audit_audience_add();
DROP FUNCTION audit_audience_of(bigint, uuid, text, text, text);
DROP TABLE audit_audience;
