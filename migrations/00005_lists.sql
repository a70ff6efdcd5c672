-- +goose Up
-- Lists that do not slow down as data grows: every paged list reads only its
-- page through an index, and its total comes from a counter kept in the same
-- transaction as the change, instead of counting every matching row.

-- Directory search: one lower-case text per user, searched with trigrams.
-- pg_trgm is a trusted extension: the database's owner may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

ALTER TABLE users ADD COLUMN search_text text
    GENERATED ALWAYS AS (lower(firstname || ' ' || lastname || ' ' || email)) STORED;
CREATE INDEX users_search_idx ON users USING gin (search_text gin_trgm_ops) WHERE deleted_at IS NULL;
-- The directory's order, whole and by role.
CREATE INDEX users_name_idx ON users (lastname, firstname, id) WHERE deleted_at IS NULL;
CREATE INDEX users_role_name_idx ON users (role, lastname, firstname, id) WHERE deleted_at IS NULL;
DROP INDEX users_role_idx;

-- Shares: a recipient's open shares newest first (with what the list and
-- its count filter on), a sharer's open shares by expiry (the dashboard),
-- the open shares of some images (the uploader's cards), and one pair of
-- people (whether a provider cares for a patient).
CREATE INDEX shares_recipient_open_idx ON shares (shared_with, created_at DESC, id)
    INCLUDE (expires_at) WHERE revoked_at IS NULL AND voided_at IS NULL;
CREATE INDEX shares_sharer_open_idx ON shares (shared_by, expires_at)
    INCLUDE (image_id) WHERE revoked_at IS NULL AND voided_at IS NULL;
CREATE INDEX shares_open_expiry_idx ON shares (expires_at)
    INCLUDE (image_id) WHERE revoked_at IS NULL AND voided_at IS NULL;
CREATE INDEX shares_image_idx ON shares (image_id) WHERE revoked_at IS NULL;
CREATE INDEX shares_pair_idx ON shares (shared_by, shared_with) WHERE revoked_at IS NULL;
CREATE INDEX shares_sent_idx ON shares (shared_by, created_at DESC, id);
DROP INDEX shares_recipient_idx;
DROP INDEX shares_sharer_idx;

-- Counters. Each is changed by a trigger in the transaction that changes
-- what it counts, so it is exact; several rows instead of one total keep
-- concurrent writers from queueing on a single row.

-- Users not deleted, by role and whether active.
CREATE TABLE user_counts (
    role   text NOT NULL,
    active boolean NOT NULL,
    users  bigint NOT NULL CHECK (users >= 0),
    PRIMARY KEY (role, active)
);
INSERT INTO user_counts (role, active, users)
SELECT r.name, a.active, (SELECT count(*) FROM users u WHERE u.role = r.name AND u.active = a.active AND u.deleted_at IS NULL)
FROM roles r CROSS JOIN (VALUES (true), (false)) AS a (active);

-- Images by uploader; the total is their sum.
CREATE TABLE image_counts (
    uploader_id uuid PRIMARY KEY REFERENCES users (id),
    images      bigint NOT NULL CHECK (images >= 0)
);
INSERT INTO image_counts (uploader_id, images) SELECT uploader_id, count(*) FROM images GROUP BY uploader_id;

-- Who uploaded for whom: a provider's patients, and whether a provider
-- cares for a patient, without reading the provider's every image.
CREATE TABLE uploader_patients (
    uploader_id uuid NOT NULL REFERENCES users (id),
    patient_id  uuid NOT NULL REFERENCES users (id),
    images      bigint NOT NULL CHECK (images > 0),
    PRIMARY KEY (uploader_id, patient_id)
);
INSERT INTO uploader_patients (uploader_id, patient_id, images)
SELECT uploader_id, patient_id, count(*) FROM images GROUP BY uploader_id, patient_id;

-- Shares by sharer (the sent list counts every share made).
CREATE TABLE share_counts (
    shared_by uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    shares    bigint NOT NULL CHECK (shares >= 0)
);
INSERT INTO share_counts (shared_by, shares) SELECT shared_by, count(*) FROM shares GROUP BY shared_by;

-- Counter rows change with every write they count: vacuum them often, so
-- their few rows stay on a page or two.
ALTER TABLE user_counts SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 200);
ALTER TABLE image_counts SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 200);
ALTER TABLE uploader_patients SET (autovacuum_vacuum_scale_factor = 0.05, autovacuum_vacuum_threshold = 200);
ALTER TABLE share_counts SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 200);

-- +goose StatementBegin
CREATE FUNCTION count_users() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        -- Two changes that move users in opposite directions would lock the
        -- same two rows in opposite orders: take them in one order first.
        PERFORM 1 FROM user_counts
        WHERE (role, active) IN ((OLD.role, OLD.active), (NEW.role, NEW.active))
        ORDER BY role, active FOR UPDATE;
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.deleted_at IS NULL THEN
        UPDATE user_counts SET users = users - 1 WHERE role = OLD.role AND active = OLD.active;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.deleted_at IS NULL THEN
        INSERT INTO user_counts AS c (role, active, users) VALUES (NEW.role, NEW.active, 1)
        ON CONFLICT (role, active) DO UPDATE SET users = c.users + 1;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER users_count AFTER INSERT OR DELETE OR UPDATE OF role, active, deleted_at ON users
    FOR EACH ROW EXECUTE FUNCTION count_users();

-- +goose StatementBegin
CREATE FUNCTION count_images() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO image_counts AS c (uploader_id, images) VALUES (NEW.uploader_id, 1)
        ON CONFLICT (uploader_id) DO UPDATE SET images = c.images + 1;
        INSERT INTO uploader_patients AS p (uploader_id, patient_id, images) VALUES (NEW.uploader_id, NEW.patient_id, 1)
        ON CONFLICT (uploader_id, patient_id) DO UPDATE SET images = p.images + 1;
    ELSE
        UPDATE image_counts SET images = images - 1 WHERE uploader_id = OLD.uploader_id;
        UPDATE uploader_patients SET images = images - 1 WHERE uploader_id = OLD.uploader_id AND patient_id = OLD.patient_id AND images > 1;
        IF NOT FOUND THEN
            DELETE FROM uploader_patients WHERE uploader_id = OLD.uploader_id AND patient_id = OLD.patient_id;
        END IF;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER images_count AFTER INSERT OR DELETE ON images
    FOR EACH ROW EXECUTE FUNCTION count_images();

-- Shares are counted per statement: deleting an image deletes its shares,
-- which may come from several sharers; their counters are locked in one
-- order, so two such deletions at once cannot deadlock.
-- +goose StatementBegin
CREATE FUNCTION count_shares() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO share_counts AS c (shared_by, shares)
        SELECT shared_by, count(*) FROM new_shares GROUP BY shared_by ORDER BY shared_by
        ON CONFLICT (shared_by) DO UPDATE SET shares = c.shares + excluded.shares;
    ELSE
        PERFORM 1 FROM share_counts WHERE shared_by IN (SELECT shared_by FROM old_shares)
        ORDER BY shared_by FOR UPDATE;
        UPDATE share_counts c SET shares = c.shares - d.n
        FROM (SELECT shared_by, count(*) AS n FROM old_shares GROUP BY shared_by) d
        WHERE c.shared_by = d.shared_by;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER shares_counted AFTER INSERT ON shares REFERENCING NEW TABLE AS new_shares
    FOR EACH STATEMENT EXECUTE FUNCTION count_shares();
CREATE TRIGGER shares_uncounted AFTER DELETE ON shares REFERENCING OLD TABLE AS old_shares
    FOR EACH STATEMENT EXECUTE FUNCTION count_shares();

-- +goose Down
DROP TRIGGER shares_uncounted ON shares;
DROP TRIGGER shares_counted ON shares;
DROP TRIGGER images_count ON images;
DROP TRIGGER users_count ON users;
DROP FUNCTION count_shares();
DROP FUNCTION count_images();
DROP FUNCTION count_users();
DROP TABLE share_counts;
DROP TABLE uploader_patients;
DROP TABLE image_counts;
DROP TABLE user_counts;
CREATE INDEX shares_sharer_idx ON shares (shared_by, created_at DESC);
CREATE INDEX shares_recipient_idx ON shares (shared_with, created_at DESC);
DROP INDEX shares_sent_idx;
DROP INDEX shares_pair_idx;
DROP INDEX shares_image_idx;
DROP INDEX shares_open_expiry_idx;
DROP INDEX shares_sharer_open_idx;
DROP INDEX shares_recipient_open_idx;
CREATE INDEX users_role_idx ON users (role);
DROP INDEX users_role_name_idx;
DROP INDEX users_name_idx;
DROP INDEX users_search_idx;
ALTER TABLE users DROP COLUMN search_text;
