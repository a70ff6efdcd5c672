-- name: QueueMail :exec
INSERT INTO mail_outbox (id, sealed) VALUES (@id, @sealed);

-- name: NextDueMail :one
-- The mail due longest that no other sender holds; the row stays locked
-- until the transaction ends.
SELECT id, sealed, attempts, created_at FROM mail_outbox
WHERE next_attempt_at <= now()
ORDER BY next_attempt_at
LIMIT 1
FOR UPDATE SKIP LOCKED;

-- name: DeleteMail :exec
DELETE FROM mail_outbox WHERE id = @id;

-- name: PostponeMail :exec
UPDATE mail_outbox
SET attempts = attempts + 1, next_attempt_at = now() + make_interval(secs => @after_seconds::float8)
WHERE id = @id;

-- name: MailQueued :one
-- How many mails wait, counted up to @cap (the health panel and the metrics).
SELECT count(*) FROM (SELECT 1 FROM mail_outbox LIMIT @cap::bigint) AS waiting;

-- name: MailNotUnder :many
-- Mail sealed under another key than @key_id, for `medishare keys rotate`.
SELECT id, sealed FROM mail_outbox WHERE substring(sealed FROM 2 FOR 8) <> @key_id::bytea ORDER BY id LIMIT 500;

-- name: SetMailSealed :exec
UPDATE mail_outbox SET sealed = @sealed WHERE id = @id;
