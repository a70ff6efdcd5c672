-- name: DeleteLiveCodes :exec
DELETE FROM one_time_codes WHERE user_id = @user_id AND purpose = ANY(@purposes::text[]) AND used_at IS NULL;

-- name: ReplaceCode :exec
-- One statement: two issues at once for one account and purpose take turns
-- on the live-code key, and the later one replaces the earlier's code (a
-- new id, its tries back to zero). A delete then an insert failed there:
-- the second issue's delete found nothing yet committed, and its insert
-- then met the first's code on the key.
INSERT INTO one_time_codes (user_id, purpose, code_hash, expires_at) VALUES (@user_id, @purpose, @code_hash, @expires_at)
ON CONFLICT (user_id, purpose) WHERE used_at IS NULL DO UPDATE SET
    id = gen_random_uuid(), code_hash = excluded.code_hash, tries = 0,
    expires_at = excluded.expires_at, created_at = now();

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
WHERE code_hash = $1 AND purpose = 'reset_link' AND used_at IS NULL AND expires_at > now() AND tries < 5
RETURNING user_id;
