-- name: GetPreview :one
SELECT * FROM previews WHERE image_id = $1;

-- name: CreatePreview :execrows
-- The first render recorded wins; a later one finds the row taken.
INSERT INTO previews (image_id, state, blob_key, wrapped_key, key_id, size, sha256)
VALUES (@image_id, @state, @blob_key, @wrapped_key, @key_id, @size, @sha256)
ON CONFLICT (image_id) DO NOTHING;

-- name: DeletePreview :many
DELETE FROM previews WHERE image_id = $1 RETURNING blob_key;

-- name: PreviewKeyReferenced :one
SELECT EXISTS (SELECT 1 FROM previews WHERE blob_key = $1) AS referenced;

-- name: ListPreviewWrappedKeys :many
SELECT image_id, blob_key, wrapped_key FROM previews
WHERE state = 'ready' AND key_id <> @current_key_id
ORDER BY image_id LIMIT 500;

-- name: SetPreviewWrappedKey :exec
UPDATE previews SET wrapped_key = @wrapped_key, key_id = @key_id WHERE image_id = @image_id;

-- name: ClaimContentCheck :one
-- Takes the image checked longest ago (never checked first) whose last check
-- is older than @recheck_seconds, for @lease_seconds. SKIP LOCKED and the
-- lease keep two scrubbers off the same image: a row another claim holds is
-- skipped, and one it has claimed fails the recheck of the WHERE.
UPDATE content_checks SET claimed_until = now() + make_interval(secs => @lease_seconds::float8)
WHERE image_id = (
    SELECT c.image_id FROM content_checks c
    WHERE (c.claimed_until IS NULL OR c.claimed_until < now())
      AND (c.checked_at IS NULL OR c.checked_at < now() - make_interval(secs => @recheck_seconds::float8))
    ORDER BY c.checked_at NULLS FIRST, c.image_id
    LIMIT 1
    FOR UPDATE SKIP LOCKED)
  AND (claimed_until IS NULL OR claimed_until < now())
RETURNING image_id;

-- name: RecordContentCheck :one
-- Records a check (@failure empty when it passed) and reports whether the
-- image has just started failing, which is when the failure is audited.
WITH prev AS (
    SELECT p.image_id, p.failed_at FROM content_checks p WHERE p.image_id = @image_id FOR UPDATE
)
UPDATE content_checks c
SET checked_at = now(), claimed_until = NULL,
    failed_at = CASE WHEN @failure::text = '' THEN NULL ELSE coalesce(prev.failed_at, now()) END,
    failure = NULLIF(@failure::text, '')
FROM prev
WHERE c.image_id = prev.image_id
RETURNING (prev.failed_at IS NULL AND @failure::text <> '')::bool AS newly_failed;

-- name: ContentCheckSummary :one
SELECT count(*) AS images, count(checked_at) AS checked, count(failed_at) AS failing,
       (SELECT l.checked_at FROM content_checks l ORDER BY l.checked_at DESC NULLS LAST LIMIT 1) AS last_checked
FROM content_checks;

-- name: ListContentFailures :many
SELECT image_id, failed_at::timestamptz AS failed_at, checked_at::timestamptz AS checked_at, coalesce(failure, '')::text AS failure
FROM content_checks WHERE failed_at IS NOT NULL
ORDER BY failed_at DESC, image_id LIMIT 100;

-- name: ListImageIDsAfter :many
SELECT id FROM images WHERE id > @after ORDER BY id LIMIT 500;
