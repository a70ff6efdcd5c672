-- +goose Up
-- How many entries each person sees in each of their audience kinds, so
-- that a patient's or provider's unfiltered view of the audit log has an
-- exact total read from a row or two instead of a count of up to 1,001
-- audience rows. Kept by the trigger that writes the audience: audit entries
-- are appended one at a time under the chain's lock, and never change.
CREATE TABLE audit_audience_counts (
    user_id uuid   NOT NULL,
    kind    text   NOT NULL,
    entries bigint NOT NULL,
    PRIMARY KEY (user_id, kind)
);
INSERT INTO audit_audience_counts SELECT user_id, kind, count(*) FROM audit_audience GROUP BY user_id, kind;

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION audit_audience_add() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    WITH added AS (
        INSERT INTO audit_audience (user_id, entry_id, kind)
        SELECT w.user_id, w.entry_id, w.kind
        FROM audit_audience_of(NEW.id, NEW.actor_id, NEW.action, NEW.table_name, NEW.record_id) w
        RETURNING user_id, kind
    )
    INSERT INTO audit_audience_counts AS c (user_id, kind, entries)
    SELECT user_id, kind, 1 FROM added ORDER BY user_id, kind
    ON CONFLICT (user_id, kind) DO UPDATE SET entries = c.entries + 1;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION audit_audience_add() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO audit_audience (user_id, entry_id, kind)
    SELECT w.user_id, w.entry_id, w.kind
    FROM audit_audience_of(NEW.id, NEW.actor_id, NEW.action, NEW.table_name, NEW.record_id) w;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
DROP TABLE audit_audience_counts;
