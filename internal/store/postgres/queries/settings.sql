-- name: ListSettings :many
SELECT key, value, updated_at FROM settings ORDER BY key;

-- name: GetSetting :one
SELECT key, value, updated_at FROM settings WHERE key = $1;

-- name: LockSettings :many
-- Every setting, locked until the transaction ends, so that two admins
-- saving at once each validate against what the other saved.
SELECT key, value, updated_at FROM settings ORDER BY key FOR UPDATE;

-- name: PutSetting :exec
INSERT INTO settings (key, value, updated_at) VALUES (@key, @value, now())
ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = now();

-- name: ListActivity :many
-- The activity counted per day, from @first_day to @last_day included.
SELECT day, sign_ins, failed_sign_ins, uploads, shares, verifications, views, messages
FROM activity_daily WHERE day BETWEEN @first_day::date AND @last_day::date ORDER BY day;
