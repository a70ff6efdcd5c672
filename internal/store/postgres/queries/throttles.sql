-- name: GetThrottle :one
SELECT hits, window_start FROM throttles WHERE key = $1;

-- name: HitThrottle :one
-- Counts one more hit in the current window, starting a new window when the
-- old one is over.
INSERT INTO throttles AS t (key, hits, window_start) VALUES (@key, 1, now())
ON CONFLICT (key) DO UPDATE SET
    hits = CASE WHEN t.window_start <= now() - @period::interval THEN 1 ELSE t.hits + 1 END,
    window_start = CASE WHEN t.window_start <= now() - @period::interval THEN now() ELSE t.window_start END
RETURNING hits, window_start;

-- name: ClearThrottle :exec
DELETE FROM throttles WHERE key = $1;
