-- name: CreateImage :exec
INSERT INTO images (id, uploader_id, patient_id, caption, content_type, file_name, size, sha256,
                    blob_key, wrapped_key, key_id, width, height, dicom)
VALUES (@id, @uploader_id, @patient_id, @caption, @content_type, @file_name, @size, @sha256,
        @blob_key, @wrapped_key, @key_id, @width, @height, @dicom);

-- name: GetImage :one
SELECT sqlc.embed(i),
       up.firstname AS uploader_firstname, up.lastname AS uploader_lastname,
       pa.firstname AS patient_firstname, pa.lastname AS patient_lastname
FROM images i
JOIN users up ON up.id = i.uploader_id
JOIN users pa ON pa.id = i.patient_id
WHERE i.id = $1;

-- Paged lists read their page through an index and take their total from
-- a counter (migrations/00005_lists.sql), computed once per query; one query
-- per access path, so the planner always sees which index to use.
-- The uploader's and the admin's lists show each image with its shares
-- that are not revoked, in the same statement: a row per share (an image
-- without one comes once, its share columns null), newest share first.

-- name: ListImagesOfUploader :many
-- One page of an uploader's images, newest first (images_uploader_idx).
WITH page AS (
    SELECT p.id FROM images p WHERE p.uploader_id = @uploader_id
    ORDER BY p.created_at DESC, p.id LIMIT @page_limit OFFSET @page_offset
)
SELECT sqlc.embed(i),
       up.firstname AS uploader_firstname, up.lastname AS uploader_lastname,
       pa.firstname AS patient_firstname, pa.lastname AS patient_lastname,
       coalesce((SELECT c.images FROM image_counts c WHERE c.uploader_id = @uploader_id), 0)::bigint AS total,
       s.id AS share_id, s.shared_by AS share_sharer_id, s.shared_with AS share_recipient_id,
       s.created_at AS share_created_at, s.expires_at AS share_expires_at,
       s.verified_at AS share_verified_at, s.voided_at AS share_voided_at,
       sb.firstname AS sharer_firstname, sb.lastname AS sharer_lastname,
       sw.firstname AS recipient_firstname, sw.lastname AS recipient_lastname
FROM page
JOIN images i ON i.id = page.id
JOIN users up ON up.id = i.uploader_id
JOIN users pa ON pa.id = i.patient_id
LEFT JOIN shares s ON s.image_id = i.id AND s.revoked_at IS NULL
LEFT JOIN users sb ON sb.id = s.shared_by
LEFT JOIN users sw ON sw.id = s.shared_with
ORDER BY i.created_at DESC, i.id, s.created_at DESC, s.id;

-- name: ListAllImages :many
-- One page of every image, newest first (images_created_idx).
WITH page AS (
    SELECT p.id FROM images p
    ORDER BY p.created_at DESC, p.id LIMIT @page_limit OFFSET @page_offset
)
SELECT sqlc.embed(i),
       up.firstname AS uploader_firstname, up.lastname AS uploader_lastname,
       pa.firstname AS patient_firstname, pa.lastname AS patient_lastname,
       (SELECT coalesce(sum(c.images), 0) FROM image_counts c)::bigint AS total,
       s.id AS share_id, s.shared_by AS share_sharer_id, s.shared_with AS share_recipient_id,
       s.created_at AS share_created_at, s.expires_at AS share_expires_at,
       s.verified_at AS share_verified_at, s.voided_at AS share_voided_at,
       sb.firstname AS sharer_firstname, sb.lastname AS sharer_lastname,
       sw.firstname AS recipient_firstname, sw.lastname AS recipient_lastname
FROM page
JOIN images i ON i.id = page.id
JOIN users up ON up.id = i.uploader_id
JOIN users pa ON pa.id = i.patient_id
LEFT JOIN shares s ON s.image_id = i.id AND s.revoked_at IS NULL
LEFT JOIN users sb ON sb.id = s.shared_by
LEFT JOIN users sw ON sw.id = s.shared_with
ORDER BY i.created_at DESC, i.id, s.created_at DESC, s.id;

-- name: DeleteImage :one
DELETE FROM images WHERE id = $1 RETURNING blob_key;

-- name: BlobKeyReferenced :one
SELECT EXISTS (SELECT 1 FROM images WHERE blob_key = $1) AS referenced;

-- name: CountImagesOfUploader :one
SELECT coalesce((SELECT images FROM image_counts WHERE uploader_id = $1), 0)::bigint AS images;

-- name: CountAllImages :one
SELECT coalesce(sum(images), 0)::bigint AS images FROM image_counts;

-- name: ListWrappedKeys :many
SELECT id, wrapped_key, key_id FROM images WHERE key_id <> @current_key_id ORDER BY id LIMIT 500;

-- name: SetWrappedKey :exec
UPDATE images SET wrapped_key = @wrapped_key, key_id = @key_id WHERE id = @id;

-- name: CountPatientsOfUploader :one
SELECT count(*) FROM uploader_patients WHERE uploader_id = $1;
