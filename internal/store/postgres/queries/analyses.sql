-- name: AddAnalysis :exec
INSERT INTO analyses (id, image_id, requested_by, provider, model, sealed, created_at)
VALUES (@id, @image_id, @requested_by, @provider, @model, @sealed, @created_at);

-- name: LatestAnalysis :one
-- An image's current analysis: its newest.
SELECT id, image_id, provider, model, sealed, created_at FROM analyses
WHERE image_id = @image_id ORDER BY created_at DESC, id DESC LIMIT 1;

-- name: AnalysesNotUnder :many
-- Analyses sealed under another key than @key_id (bytes 2 to 9 of the
-- sealed result), for `medishare keys rotate`.
SELECT id, sealed FROM analyses WHERE substring(sealed FROM 2 FOR 8) <> @key_id::bytea ORDER BY id LIMIT 500;

-- name: SetAnalysisSealed :exec
UPDATE analyses SET sealed = @sealed WHERE id = @id;
