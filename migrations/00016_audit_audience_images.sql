-- +goose Up
-- A patient's access history of every image about them (about=images):
-- their audience rows without their sign-ins, newest first, so that the
-- view never walks the sign-ins (anyone's failed password attempts add to
-- them) on the way to the entries about images.
CREATE INDEX audit_audience_images_idx ON audit_audience (user_id, entry_id) INCLUDE (kind) WHERE kind <> 'signin';

-- +goose Down
DROP INDEX audit_audience_images_idx;
