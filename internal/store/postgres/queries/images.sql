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

-- name: ListImages :many
-- @scope: 'uploader' (images @user_id uploaded) or 'all'.
SELECT sqlc.embed(i),
       up.firstname AS uploader_firstname, up.lastname AS uploader_lastname,
       pa.firstname AS patient_firstname, pa.lastname AS patient_lastname,
       count(*) OVER () AS total
FROM images i
JOIN users up ON up.id = i.uploader_id
JOIN users pa ON pa.id = i.patient_id
WHERE @scope::text = 'all' OR i.uploader_id = @user_id
ORDER BY i.created_at DESC, i.id
LIMIT @page_limit OFFSET @page_offset;

-- name: DeleteImage :one
DELETE FROM images WHERE id = $1 RETURNING blob_key;

-- name: BlobKeyReferenced :one
SELECT EXISTS (SELECT 1 FROM images WHERE blob_key = $1) AS referenced;

-- name: CountImages :one
SELECT count(*) FROM images WHERE @scope::text = 'all' OR uploader_id = @user_id;

-- name: ListWrappedKeys :many
SELECT id, wrapped_key, key_id FROM images WHERE key_id <> @current_key_id ORDER BY id LIMIT 500;

-- name: SetWrappedKey :exec
UPDATE images SET wrapped_key = @wrapped_key, key_id = @key_id WHERE id = @id;

-- name: CountPatientsOfUploader :one
SELECT count(DISTINCT patient_id) FROM images WHERE uploader_id = $1;
