-- +goose Up
-- A rendered preview, stored encrypted in the content store beside its image
-- under a key of its own (S14), rendered once. 'none' remembers that the
-- image has no preview ("Preview not available."), so it is not tried again.
CREATE TABLE previews (
    image_id    uuid PRIMARY KEY REFERENCES images (id) ON DELETE CASCADE,
    state       text NOT NULL CHECK (state IN ('ready', 'none')),
    blob_key    text UNIQUE,
    wrapped_key bytea,
    key_id      bytea,
    size        bigint CHECK (size >= 0),
    sha256      bytea,
    created_at  timestamptz NOT NULL DEFAULT now(),
    CHECK ((state = 'ready') = (blob_key IS NOT NULL AND wrapped_key IS NOT NULL AND key_id IS NOT NULL
                                AND size IS NOT NULL AND sha256 IS NOT NULL))
);

-- The scrub's record of each image's contents (S14): when they were last
-- read whole and checked, which scrubber is reading them now (until
-- claimed_until), and, while the last check failed, since when and why.
CREATE TABLE content_checks (
    image_id      uuid PRIMARY KEY REFERENCES images (id) ON DELETE CASCADE,
    checked_at    timestamptz,
    claimed_until timestamptz,
    failed_at     timestamptz,
    failure       text
);
CREATE INDEX content_checks_next_idx ON content_checks (checked_at NULLS FIRST, image_id);
CREATE INDEX content_checks_failed_idx ON content_checks (failed_at) WHERE failed_at IS NOT NULL;

-- Every image has its row, whichever statement records it.
INSERT INTO content_checks (image_id) SELECT id FROM images;
-- +goose StatementBegin
CREATE FUNCTION content_checks_add() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO content_checks (image_id) VALUES (NEW.id);
    RETURN NEW;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER images_content_check AFTER INSERT ON images FOR EACH ROW EXECUTE FUNCTION content_checks_add();

-- +goose Down
DROP TRIGGER images_content_check ON images;
DROP FUNCTION content_checks_add();
DROP TABLE content_checks;
DROP TABLE previews;
