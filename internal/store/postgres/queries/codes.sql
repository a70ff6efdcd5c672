-- name: DeleteLiveCodes :exec
DELETE FROM one_time_codes WHERE user_id = @user_id AND purpose = ANY(@purposes::text[]) AND used_at IS NULL;

-- name: CreateCode :exec
INSERT INTO one_time_codes (user_id, purpose, code_hash, expires_at) VALUES ($1, $2, $3, $4);

-- name: TryCode :one
-- One atomic statement (S4): the row lock makes concurrent tries take turns,
-- and the conditions are checked again after the wait, so tries never pass
-- the limit and a correct code succeeds once.
UPDATE one_time_codes
SET tries = tries + 1,
    used_at = CASE WHEN code_hash = @code_hash THEN now() END
WHERE user_id = @user_id AND purpose = @purpose AND used_at IS NULL
  AND expires_at > now() AND tries < @max_tries
RETURNING (used_at IS NOT NULL)::boolean AS matched, tries;

-- name: UseLinkToken :one
UPDATE one_time_codes SET used_at = now()
WHERE code_hash = $1 AND purpose = 'reset_link' AND used_at IS NULL AND expires_at > now()
RETURNING user_id;
