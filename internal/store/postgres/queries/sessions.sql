-- name: CreateSession :one
INSERT INTO sessions (user_id, expires_at, ip, user_agent) VALUES ($1, $2, $3, $4) RETURNING *;

-- name: GetSessionPrincipal :one
-- Everything a request needs to know about its caller, in one round trip.
SELECT s.id AS session_id, s.revoked_at, s.expires_at, s.enrolment_only, sqlc.embed(u),
       array(SELECT rp.permission FROM role_permissions rp WHERE rp.role = u.role ORDER BY 1)::text[] AS permissions
FROM sessions s JOIN users u ON u.id = s.user_id
WHERE s.id = $1;

-- name: RevokeSession :exec
UPDATE sessions SET revoked_at = now(), revoked_reason = @reason WHERE id = @id AND revoked_at IS NULL;

-- name: RevokeUserSessions :exec
UPDATE sessions SET revoked_at = now(), revoked_reason = @reason
WHERE user_id = @user_id AND revoked_at IS NULL AND id <> @except_id;

-- name: CreateRefreshToken :exec
INSERT INTO refresh_tokens (token_hash, session_id) VALUES ($1, $2);

-- name: LockRefreshToken :one
SELECT session_id, used_at FROM refresh_tokens WHERE token_hash = $1 FOR UPDATE;

-- name: MarkRefreshTokenUsed :exec
UPDATE refresh_tokens SET used_at = now() WHERE token_hash = $1;
