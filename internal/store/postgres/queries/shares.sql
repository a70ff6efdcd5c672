-- name: LockImageForSharing :one
-- Shares of one image take turns, so two at once cannot both stay open.
SELECT id FROM images WHERE id = $1 FOR UPDATE;

-- name: RevokeOpenShares :execrows
UPDATE shares SET revoked_at = @now::timestamptz
WHERE image_id = @image_id AND shared_with = @shared_with AND revoked_at IS NULL AND voided_at IS NULL;

-- name: CreateShare :exec
INSERT INTO shares (id, image_id, shared_by, shared_with, code_hash, created_at, expires_at)
VALUES (@id, @image_id, @shared_by, @shared_with, @code_hash, @created_at, @expires_at);

-- name: TryShareCode :one
-- One atomic statement (S4): the row lock makes concurrent tries take turns,
-- and the conditions are checked again after the wait, so tries never pass
-- the limit and a correct code verifies once. The try that uses up the
-- limit voids the share.
UPDATE shares
SET tries = tries + 1,
    verified_at = CASE WHEN code_hash = @code_hash THEN @now::timestamptz END,
    voided_at = CASE WHEN code_hash <> @code_hash AND tries + 1 >= @max_tries::int THEN @now::timestamptz END
WHERE id = @id AND shared_with = @shared_with
  AND verified_at IS NULL AND revoked_at IS NULL AND voided_at IS NULL
  AND expires_at > @now AND tries < @max_tries::int
RETURNING (verified_at IS NOT NULL)::boolean AS matched, tries;

-- name: GetShare :one
SELECT s.id, s.image_id, s.shared_by, s.shared_with, s.created_at, s.expires_at,
       s.verified_at, s.voided_at, s.revoked_at, i.caption,
       sb.firstname AS sharer_firstname, sb.lastname AS sharer_lastname,
       sw.firstname AS recipient_firstname, sw.lastname AS recipient_lastname
FROM shares s
JOIN images i ON i.id = s.image_id
JOIN users sb ON sb.id = s.shared_by
JOIN users sw ON sw.id = s.shared_with
WHERE s.id = $1;

-- name: RevokeShare :execrows
UPDATE shares SET revoked_at = @now::timestamptz WHERE id = @id AND revoked_at IS NULL;

-- name: ExtendShare :execrows
-- A new expiry for a share that was neither revoked nor voided; an expiry
-- already audited will be audited again when the new one passes.
UPDATE shares SET expires_at = @expires_at, expiry_logged = false
WHERE id = @id AND revoked_at IS NULL AND voided_at IS NULL;

-- name: MarkShareExpiryLogged :execrows
UPDATE shares SET expiry_logged = true WHERE id = $1 AND NOT expiry_logged;

-- name: RecipientShareOfImage :one
-- The share through which a recipient reaches an image: the open one, if any.
SELECT s.id, s.image_id, s.shared_by, s.shared_with, s.created_at, s.expires_at,
       s.verified_at, s.voided_at, s.revoked_at, s.expiry_logged,
       sb.firstname AS sharer_firstname, sb.lastname AS sharer_lastname
FROM shares s
JOIN users sb ON sb.id = s.shared_by
WHERE s.image_id = @image_id AND s.shared_with = @shared_with AND s.revoked_at IS NULL AND s.voided_at IS NULL;

-- name: OpenSharesOfImages :many
-- A recipient's open shares (neither revoked nor void) of some images, one
-- probe of shares_open_key each: which images a reader's messages may show.
SELECT s.id, s.image_id, s.shared_by, s.created_at, s.expires_at, s.verified_at
FROM shares s
WHERE s.image_id = ANY(@image_ids::uuid[]) AND s.shared_with = @shared_with
  AND s.revoked_at IS NULL AND s.voided_at IS NULL;

-- name: ListSharedWith :many
-- One page of the images shared with a recipient whose share is open and
-- not expired, newest share first (shares_recipient_open_idx, which also
-- counts them).
SELECT sqlc.embed(i),
       up.firstname AS uploader_firstname, up.lastname AS uploader_lastname,
       pa.firstname AS patient_firstname, pa.lastname AS patient_lastname,
       s.id AS share_id, s.shared_by, s.created_at AS share_created_at, s.expires_at, s.verified_at,
       sb.firstname AS sharer_firstname, sb.lastname AS sharer_lastname,
       (SELECT count(*) FROM shares c
        WHERE c.shared_with = @shared_with AND c.revoked_at IS NULL AND c.voided_at IS NULL AND c.expires_at > @now)::bigint AS total
FROM shares s
JOIN images i ON i.id = s.image_id
JOIN users up ON up.id = i.uploader_id
JOIN users pa ON pa.id = i.patient_id
JOIN users sb ON sb.id = s.shared_by
WHERE s.shared_with = @shared_with AND s.revoked_at IS NULL AND s.voided_at IS NULL AND s.expires_at > @now
ORDER BY s.created_at DESC, s.id
LIMIT @page_limit OFFSET @page_offset;

-- name: CountSharedWith :one
SELECT count(*) FROM shares
WHERE shared_with = @shared_with AND revoked_at IS NULL AND voided_at IS NULL AND expires_at > @now;

-- name: ListSentShares :many
-- One page of the shares a user made, newest first (shares_sent_idx); the
-- total is the sharer's counter.
SELECT s.id, s.image_id, s.shared_by, s.shared_with, s.created_at, s.expires_at,
       s.verified_at, s.voided_at, s.revoked_at, i.caption,
       sb.firstname AS sharer_firstname, sb.lastname AS sharer_lastname,
       sw.firstname AS recipient_firstname, sw.lastname AS recipient_lastname,
       coalesce((SELECT c.shares FROM share_counts c WHERE c.shared_by = @shared_by), 0)::bigint AS total
FROM shares s
JOIN images i ON i.id = s.image_id
JOIN users sb ON sb.id = s.shared_by
JOIN users sw ON sw.id = s.shared_with
WHERE s.shared_by = @shared_by
ORDER BY s.created_at DESC, s.id
LIMIT @page_limit OFFSET @page_offset;

-- name: CountSentShares :one
SELECT coalesce((SELECT shares FROM share_counts WHERE shared_by = $1), 0)::bigint AS shares;

-- name: CountImagesSharedBy :one
-- Images with at least one open, unexpired share made by one user (shares_sharer_open_idx).
SELECT count(DISTINCT image_id) FROM shares
WHERE shared_by = @shared_by AND revoked_at IS NULL AND voided_at IS NULL AND expires_at > @now;

-- name: CountSharedImages :one
-- Images with at least one open, unexpired share (shares_open_expiry_idx).
SELECT count(DISTINCT image_id) FROM shares
WHERE revoked_at IS NULL AND voided_at IS NULL AND expires_at > @now;

-- name: ProviderCaresFor :one
-- A provider who uploaded an image for a patient, or shared one with them,
-- sees the patient's contact and medical fields (api.md).
SELECT (EXISTS (SELECT 1 FROM uploader_patients WHERE uploader_id = @provider_id AND patient_id = @patient_id)
    OR EXISTS (SELECT 1 FROM shares WHERE shared_by = @provider_id AND shared_with = @patient_id AND revoked_at IS NULL))::boolean AS cares;
