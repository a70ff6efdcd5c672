-- name: StudyImageFor :one
-- The study an instance joins, locked so instances joining at once count
-- their bytes one after another (images_study_key).
SELECT id FROM images
WHERE uploader_id = @uploader_id
  AND coalesce(patient_id, '00000000-0000-0000-0000-000000000000') = coalesce(sqlc.narg(patient_id)::uuid, '00000000-0000-0000-0000-000000000000')
  AND study_uid = @study_uid AND study_joins
FOR UPDATE;

-- name: AddStudyInstance :one
-- nil when the study already holds the instance (same SOP Instance UID).
INSERT INTO study_instances (id, image_id, series_uid, sop_uid, sop_class_uid, transfer_syntax, series_number,
                             instance_number, modality, series_description, body_part, dicom, pixel_spans, blob_key,
                             wrapped_key, key_id, size, sha256)
VALUES (@id, @image_id, @series_uid, @sop_uid, @sop_class_uid, @transfer_syntax, sqlc.narg(series_number),
        sqlc.narg(instance_number), @modality, @series_description, @body_part, @dicom, @pixel_spans, @blob_key,
        @wrapped_key, @key_id, @size, @sha256)
ON CONFLICT (image_id, sop_uid) DO NOTHING
RETURNING id;

-- name: RefreshStudy :one
-- Recounts a study's series, instances, bytes and modalities after an
-- instance joined it (study_instances_series_idx), and returns its bytes.
UPDATE images i SET study = i.study || (
    SELECT jsonb_build_object(
        'modalities', coalesce(jsonb_agg(DISTINCT si.modality ORDER BY si.modality) FILTER (WHERE si.modality <> ''), '[]'::jsonb),
        'series', count(DISTINCT si.series_uid),
        'instances', count(*),
        'bytes', coalesce(sum(si.size), 0))
    FROM study_instances si WHERE si.image_id = i.id)
WHERE i.id = @id
RETURNING (i.study->>'bytes')::bigint AS bytes;

-- name: AddStudyModality :exec
-- Keeps the study's modalities (study_modalities) as instances join it.
INSERT INTO study_modalities (image_id, modality, uploader_id, created_at)
SELECT i.id, @modality::text, i.uploader_id, i.created_at FROM images i WHERE i.id = @image_id
ON CONFLICT DO NOTHING;

-- name: StudyInstances :many
-- A study's instances, series by series, in order.
SELECT * FROM study_instances
WHERE image_id = @image_id
  AND (sqlc.narg(series_uid)::text IS NULL OR series_uid = sqlc.narg(series_uid)::text)
  AND (sqlc.narg(sop_uid)::text IS NULL OR sop_uid = sqlc.narg(sop_uid)::text)
ORDER BY series_uid, instance_number NULLS LAST, id;

-- name: StudySeries :many
-- A study's series, with their instance count and first instance.
SELECT series_uid,
       coalesce(min(series_number), 0)::integer AS series_number,
       bool_or(series_number IS NOT NULL)::boolean AS has_series_number,
       min(modality)::text AS modality,
       min(series_description)::text AS series_description,
       min(body_part)::text AS body_part,
       count(*)::integer AS instances,
       (array_agg(id ORDER BY instance_number NULLS LAST, id))[1]::uuid AS first_instance
FROM study_instances
WHERE image_id = @image_id
GROUP BY series_uid
ORDER BY min(series_number) NULLS LAST, series_uid;

-- name: DeleteStudyInstances :many
-- Removes a study's instances and returns their contents' keys, which the
-- caller deletes once the removal commits (S24).
DELETE FROM study_instances WHERE image_id = @image_id RETURNING blob_key;

-- name: AssignStudyPatient :execrows
UPDATE images SET patient_id = @patient_id WHERE id = @id AND patient_id IS NULL;

-- name: SetImageCaption :exec
UPDATE images SET caption = @caption WHERE id = @id;

-- name: ImagesOfStudy :many
-- The studies of one StudyInstanceUID (each uploader and patient has its
-- own row), for DICOMweb to keep those the caller may see.
SELECT id FROM images WHERE study_uid = @study_uid ORDER BY created_at, id LIMIT 50;

-- name: ListInstanceKeys :many
SELECT id, wrapped_key, key_id FROM study_instances WHERE key_id <> @current_key_id ORDER BY id LIMIT 500;

-- name: SetInstanceWrappedKey :exec
UPDATE study_instances SET wrapped_key = @wrapped_key, key_id = @key_id WHERE id = @id;

-- name: StudiesNotUnder :many
-- Studies whose patient facts are sealed under another key than @key_id
-- (bytes 2 to 9 of the sealed text), for `medishare keys rotate`.
SELECT id, study_sealed FROM images
WHERE study_sealed IS NOT NULL AND substring(study_sealed FROM 2 FOR 8) <> @key_id::bytea
ORDER BY id LIMIT 500;

-- name: SetStudySealed :exec
UPDATE images SET study_sealed = @study_sealed WHERE id = @id;

