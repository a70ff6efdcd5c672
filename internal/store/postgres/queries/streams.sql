-- name: LockUserStreams :exec
-- Claims of one person's streams take turns (until the transaction ends),
-- so two at once cannot both count a free slot. The first key sets these
-- locks apart from the other advisory locks (the two-key space is the
-- streams' alone).
SELECT pg_advisory_xact_lock(1, hashtext((@user_id::uuid)::text));

-- name: CountOpenStreams :one
SELECT count(*) FROM message_streams WHERE user_id = @user_id AND expires_at > @now::timestamptz;

-- name: InsertStream :exec
INSERT INTO message_streams (id, user_id, expires_at) VALUES (@id, @user_id, @expires_at);

-- name: DeleteStream :exec
DELETE FROM message_streams WHERE id = @id;

-- name: RenewStreams :exec
UPDATE message_streams SET expires_at = @expires_at::timestamptz WHERE id = ANY(@ids::uuid[]);

-- name: DeleteExpiredStreams :exec
DELETE FROM message_streams WHERE expires_at <= @now::timestamptz;
