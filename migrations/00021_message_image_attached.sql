-- +goose Up
-- Whether a message was sent about an image. Deleting the image sets
-- image_id to NULL; this keeps the fact that there was one, so that its
-- readers see the image is no longer available rather than nothing
-- (api.md, Messages).
ALTER TABLE messages ADD COLUMN image_attached boolean NOT NULL DEFAULT false;
UPDATE messages SET image_attached = true WHERE image_id IS NOT NULL;
ALTER TABLE messages ADD CONSTRAINT messages_image_attached CHECK (image_attached OR image_id IS NULL);

-- +goose Down
ALTER TABLE messages DROP COLUMN image_attached;
