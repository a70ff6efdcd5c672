-- name: ListSettings :many
SELECT key, value, updated_at FROM settings ORDER BY key;

-- name: GetSetting :one
SELECT key, value, updated_at FROM settings WHERE key = $1;
