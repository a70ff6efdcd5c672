-- name: CreateImage :exec
INSERT INTO images (id, uploader_id, patient_id, caption, content_type, file_name, size, sha256,
                    blob_key, wrapped_key, key_id, width, height, dicom)
VALUES (@id, @uploader_id, @patient_id, @caption, @content_type, @file_name, @size, @sha256,
        @blob_key, @wrapped_key, @key_id, @width, @height, @dicom);

-- name: CreateStudyImage :one
-- A study's row, made by its first instance; none when the instance joins
-- a study the uploader already has for this patient (or unassigned).
INSERT INTO images (id, uploader_id, patient_id, caption, content_type, file_name, size, sha256,
                    blob_key, wrapped_key, key_id, width, height, dicom, study_uid, study, study_sealed, study_joins)
VALUES (@id, @uploader_id, @patient_id, @caption, 'application/dicom', @file_name, @size, @sha256,
        @blob_key, @wrapped_key, @key_id, @width, @height, @dicom, @study_uid, @study, @study_sealed, @study_joins)
ON CONFLICT (uploader_id, coalesce(patient_id, '00000000-0000-0000-0000-000000000000'), study_uid) WHERE study_joins
DO NOTHING
RETURNING id;

-- name: GetImage :one
SELECT sqlc.embed(i),
       up.firstname AS uploader_firstname, up.lastname AS uploader_lastname,
       coalesce(pa.firstname, '')::text AS patient_firstname, coalesce(pa.lastname, '')::text AS patient_lastname
FROM images i
JOIN users up ON up.id = i.uploader_id
LEFT JOIN users pa ON pa.id = i.patient_id
WHERE i.id = $1;

-- Paged lists read their page through an index and take their total from
-- a counter (migrations/00005_lists.sql), computed once per query; one query
-- per access path, so the planner always sees which index to use.

-- name: ListImagesOfUploader :many
-- One page of an uploader's images, newest first (images_uploader_idx),
-- without the studies that wait for a patient (ListUnassignedImages).
SELECT sqlc.embed(i),
       up.firstname AS uploader_firstname, up.lastname AS uploader_lastname,
       coalesce(pa.firstname, '')::text AS patient_firstname, coalesce(pa.lastname, '')::text AS patient_lastname,
       (coalesce((SELECT c.images FROM image_counts c WHERE c.uploader_id = @uploader_id), 0)
        - (SELECT count(*) FROM images u WHERE u.uploader_id = @uploader_id AND u.patient_id IS NULL))::bigint AS total,
       -- The image's shares that are not revoked, newest first (shares_image_idx):
       -- a subquery per row of the page, so no plan can read more than the page.
       (SELECT json_agg(json_build_object(
                   'id', s.id, 'sharedBy', s.shared_by, 'sharedWith', s.shared_with,
                   'createdAt', s.created_at, 'expiresAt', s.expires_at,
                   'verifiedAt', s.verified_at, 'voidedAt', s.voided_at,
                   'sharerFirstname', sb.firstname, 'sharerLastname', sb.lastname,
                   'recipientFirstname', sw.firstname, 'recipientLastname', sw.lastname)
                ORDER BY s.created_at DESC, s.id)
        FROM shares s
        JOIN users sb ON sb.id = s.shared_by
        JOIN users sw ON sw.id = s.shared_with
        WHERE s.image_id = i.id AND s.revoked_at IS NULL) AS shares
FROM images i
JOIN users up ON up.id = i.uploader_id
LEFT JOIN users pa ON pa.id = i.patient_id
WHERE i.uploader_id = @uploader_id AND i.patient_id IS NOT NULL
ORDER BY i.created_at DESC, i.id
LIMIT @page_limit OFFSET @page_offset;

-- name: ListUnassignedImages :many
-- An uploader's studies waiting for a patient (images_unassigned_idx), a
-- few at most; shares are impossible before a patient is chosen.
SELECT sqlc.embed(i), up.firstname AS uploader_firstname, up.lastname AS uploader_lastname
FROM images i
JOIN users up ON up.id = i.uploader_id
WHERE i.uploader_id = @uploader_id AND i.patient_id IS NULL
ORDER BY i.created_at DESC, i.id
LIMIT 100;

-- name: ListAllImages :many
-- One page of every image, newest first (images_created_idx).
SELECT sqlc.embed(i),
       up.firstname AS uploader_firstname, up.lastname AS uploader_lastname,
       coalesce(pa.firstname, '')::text AS patient_firstname, coalesce(pa.lastname, '')::text AS patient_lastname,
       (SELECT coalesce(sum(c.images), 0) FROM image_counts c)::bigint AS total,
       -- The image's shares that are not revoked, newest first (shares_image_idx):
       -- a subquery per row of the page, so no plan can read more than the page.
       (SELECT json_agg(json_build_object(
                   'id', s.id, 'sharedBy', s.shared_by, 'sharedWith', s.shared_with,
                   'createdAt', s.created_at, 'expiresAt', s.expires_at,
                   'verifiedAt', s.verified_at, 'voidedAt', s.voided_at,
                   'sharerFirstname', sb.firstname, 'sharerLastname', sb.lastname,
                   'recipientFirstname', sw.firstname, 'recipientLastname', sw.lastname)
                ORDER BY s.created_at DESC, s.id)
        FROM shares s
        JOIN users sb ON sb.id = s.shared_by
        JOIN users sw ON sw.id = s.shared_with
        WHERE s.image_id = i.id AND s.revoked_at IS NULL) AS shares
FROM images i
JOIN users up ON up.id = i.uploader_id
LEFT JOIN users pa ON pa.id = i.patient_id
ORDER BY i.created_at DESC, i.id
LIMIT @page_limit OFFSET @page_offset;

-- name: DeleteImage :one
DELETE FROM images WHERE id = $1 RETURNING blob_key;

-- name: BlobKeyReferenced :one
SELECT (EXISTS (SELECT 1 FROM images i WHERE i.blob_key = @blob_key::text)
        OR EXISTS (SELECT 1 FROM study_instances si WHERE si.blob_key = @blob_key::text))::boolean AS referenced;

-- name: CountImagesOfUploader :one
SELECT (coalesce((SELECT c.images FROM image_counts c WHERE c.uploader_id = @uploader_id::uuid), 0)
        - (SELECT count(*) FROM images u WHERE u.uploader_id = @uploader_id::uuid AND u.patient_id IS NULL))::bigint AS images;

-- name: CountAllImages :one
SELECT coalesce(sum(images), 0)::bigint AS images FROM image_counts;

-- name: ListWrappedKeys :many
SELECT id, wrapped_key, key_id FROM images WHERE key_id <> @current_key_id ORDER BY id LIMIT 500;

-- name: SetWrappedKey :exec
UPDATE images SET wrapped_key = @wrapped_key, key_id = @key_id WHERE id = @id;

-- name: CountPatientsOfUploader :one
SELECT count(*) FROM uploader_patients WHERE uploader_id = $1;
