-- name: LockUserAccessTokens :exec
-- Creations of one person's tokens take turns (until the transaction
-- ends), so two at once cannot both take the last place under the cap.
-- The first key, 2, sets these locks apart from the streams' (1).
SELECT pg_advisory_xact_lock(2, hashtext((@user_id::uuid)::text));

-- name: CountLiveAccessTokens :one
SELECT count(*) FROM access_tokens
WHERE user_id = @user_id AND revoked_at IS NULL AND expires_at > @now::timestamptz;

-- name: InsertAccessToken :one
INSERT INTO access_tokens (user_id, name, token_hash, created_at, expires_at)
VALUES (@user_id, @name, @token_hash, @created_at, @expires_at)
RETURNING id, user_id, name, created_at, expires_at, last_used_at, revoked_at;

-- name: ListLiveAccessTokens :many
-- Through access_tokens_live_idx: only the live tokens are read.
SELECT id, user_id, name, created_at, expires_at, last_used_at, revoked_at FROM access_tokens
WHERE user_id = @user_id AND revoked_at IS NULL AND expires_at > @now::timestamptz
ORDER BY created_at DESC, id;

-- name: RevokeAccessToken :one
-- Only the owner's token; one already revoked is revoked again as a no-op
-- (its first revocation time stays).
UPDATE access_tokens SET revoked_at = coalesce(revoked_at, @now::timestamptz),
    revoked_reason = coalesce(revoked_reason, @reason)
WHERE id = @id AND user_id = @user_id
RETURNING id, user_id, name, created_at, expires_at, last_used_at, revoked_at;

-- name: RevokeUserAccessTokens :exec
UPDATE access_tokens SET revoked_at = @now::timestamptz, revoked_reason = @reason
WHERE user_id = @user_id AND revoked_at IS NULL;

-- name: GetAccessTokenPrincipal :one
-- Everything a request with a token needs to know about its caller, in one
-- round trip, like GetSessionPrincipal.
SELECT t.id AS token_id, t.revoked_at, t.expires_at, sqlc.embed(u),
       array(SELECT rp.permission FROM role_permissions rp WHERE rp.role = u.role ORDER BY 1)::text[] AS permissions
FROM access_tokens t JOIN users u ON u.id = t.user_id
WHERE t.token_hash = @token_hash;

-- name: TouchAccessToken :one
-- Marks a token used at most once a minute: a burst of requests (a study
-- of 300 instances sent one by one) writes one row, once. It returns the
-- row only when it wrote, so the caller audits the use as often.
-- (stale_before is a minute before now.)
UPDATE access_tokens SET last_used_at = @now::timestamptz
WHERE id = @id AND (last_used_at IS NULL OR last_used_at <= @stale_before::timestamptz)
RETURNING id;
