-- +goose Up
-- The admin area (api.md, Audit, analysis, admin).

-- Provider approval: a provider who registers while the setting
-- provider_approval_required is on can confirm the account but not sign in
-- until an admin approves it. Everyone else is approved from the start.
ALTER TABLE users ADD COLUMN approved boolean NOT NULL DEFAULT true;

-- One image's history ("Who has seen this"): its entries and its shares'
-- entries, by record id newest first, and all its shares (revoked ones
-- too: they belong to the history).
CREATE INDEX audit_log_record_idx ON audit_log (record_id, id) WHERE record_id <> '';
CREATE INDEX shares_image_all_idx ON shares (image_id);

-- The admin dashboard's activity per day (a day in Pakistan time, the
-- product's zone), counted as entries are appended, so that ninety days
-- are ninety rows however long the log. Entries are appended one at a time
-- under the chain's lock, so the day's row is never contended.
CREATE TABLE activity_daily (
    day             date   PRIMARY KEY,
    sign_ins        bigint NOT NULL DEFAULT 0,
    failed_sign_ins bigint NOT NULL DEFAULT 0,
    uploads         bigint NOT NULL DEFAULT 0,
    shares          bigint NOT NULL DEFAULT 0,
    verifications   bigint NOT NULL DEFAULT 0,
    views           bigint NOT NULL DEFAULT 0,
    messages        bigint NOT NULL DEFAULT 0
);

-- +goose StatementBegin
-- Which activity column an entry counts in, or null.
CREATE FUNCTION activity_kind(p_action text, p_status text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE
        WHEN p_action = 'login' AND p_status = 'success' THEN 'sign_ins'
        WHEN p_action = 'login' THEN 'failed_sign_ins'
        WHEN p_status <> 'success' THEN NULL
        WHEN p_action = 'upload' THEN 'uploads'
        WHEN p_action = 'share' THEN 'shares'
        WHEN p_action = 'share_verify' THEN 'verifications'
        WHEN p_action = 'view' THEN 'views'
        WHEN p_action = 'message_send' THEN 'messages'
    END
$$;

CREATE FUNCTION activity_count() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    k text := activity_kind(NEW.action, NEW.status);
BEGIN
    IF k IS NULL THEN
        RETURN NULL;
    END IF;
    INSERT INTO activity_daily AS d (day, sign_ins, failed_sign_ins, uploads, shares, verifications, views, messages)
    VALUES ((NEW.created_at AT TIME ZONE 'Asia/Karachi')::date,
            (k = 'sign_ins')::int, (k = 'failed_sign_ins')::int, (k = 'uploads')::int, (k = 'shares')::int,
            (k = 'verifications')::int, (k = 'views')::int, (k = 'messages')::int)
    ON CONFLICT (day) DO UPDATE SET
        sign_ins = d.sign_ins + excluded.sign_ins,
        failed_sign_ins = d.failed_sign_ins + excluded.failed_sign_ins,
        uploads = d.uploads + excluded.uploads,
        shares = d.shares + excluded.shares,
        verifications = d.verifications + excluded.verifications,
        views = d.views + excluded.views,
        messages = d.messages + excluded.messages;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER audit_log_activity AFTER INSERT ON audit_log
    FOR EACH ROW EXECUTE FUNCTION activity_count();

-- The entries written before this migration.
INSERT INTO activity_daily (day, sign_ins, failed_sign_ins, uploads, shares, verifications, views, messages)
SELECT (created_at AT TIME ZONE 'Asia/Karachi')::date,
       count(*) FILTER (WHERE k = 'sign_ins'), count(*) FILTER (WHERE k = 'failed_sign_ins'),
       count(*) FILTER (WHERE k = 'uploads'), count(*) FILTER (WHERE k = 'shares'),
       count(*) FILTER (WHERE k = 'verifications'), count(*) FILTER (WHERE k = 'views'),
       count(*) FILTER (WHERE k = 'messages')
FROM (SELECT created_at, activity_kind(action, status) AS k FROM audit_log) e
WHERE k IS NOT NULL
GROUP BY 1;

-- +goose Down
DROP TRIGGER audit_log_activity ON audit_log;
DROP FUNCTION activity_count();
DROP FUNCTION activity_kind(text, text);
DROP TABLE activity_daily;
DROP INDEX shares_image_all_idx;
DROP INDEX audit_log_record_idx;
ALTER TABLE users DROP COLUMN approved;
