-- name: AppendAudit :exec
-- id, time and prev_hash come from audit_next() in the same transaction;
-- the trigger checks that the entry follows the head and moves it.
INSERT INTO audit_log (id, created_at, actor_id, action, table_name, record_id, ip, user_agent, status, reason, chain, prev_hash, hash)
VALUES (@id, @created_at, @actor_id, @action, @table_name, @record_id, @ip, @user_agent, @status, @reason, @chain, @prev_hash, @hash);

-- name: AuditLinks :many
-- Entries as their hashes cover them, in chain order, for verification.
SELECT id, created_at, actor_id, action, table_name, record_id, ip, user_agent, status, reason, chain, prev_hash, hash
FROM audit_log
WHERE id > @after_id
ORDER BY id
LIMIT @page_limit;

-- name: AuditHead :one
SELECT id, hash FROM audit_head WHERE only_row;

-- name: LastLegacyAuditEntry :one
-- The newest entry of the unkeyed chain (0: none); read once, for the
-- first checkpoint.
SELECT coalesce(max(id), 0)::bigint FROM audit_log WHERE chain = 1;

-- name: AuditKeySealed :one
SELECT sealed FROM audit_key WHERE only_row;

-- name: InsertAuditKey :exec
-- The first instance to start writes the key; the others read it.
INSERT INTO audit_key (sealed) VALUES (@sealed) ON CONFLICT (only_row) DO NOTHING;

-- name: SetAuditKeySealed :exec
UPDATE audit_key SET sealed = @sealed WHERE only_row;

-- name: SaveAuditCheck :exec
-- The latest check wins, whichever instance ends last.
INSERT INTO audit_check (checked_at, ok, checked, first_broken_id, problem)
VALUES (@checked_at, @ok, @checked, @first_broken_id, @problem)
ON CONFLICT (only_row) DO UPDATE SET checked_at = excluded.checked_at, ok = excluded.ok, checked = excluded.checked,
    first_broken_id = excluded.first_broken_id, problem = excluded.problem
WHERE audit_check.checked_at <= excluded.checked_at;

-- name: LatestAuditCheck :one
SELECT checked_at, ok, checked, first_broken_id, problem FROM audit_check WHERE only_row;

-- name: ListAuditForRecord :many
SELECT * FROM audit_log WHERE table_name = $1 AND record_id = $2 ORDER BY id;

-- name: AuditSearchActors :many
-- The people a search of the audit log matches, up to probe of them.
SELECT id FROM users
WHERE deleted_at IS NULL AND (search_text LIKE @pattern::text OR lower(username) LIKE @pattern::text)
LIMIT @probe;

-- name: AuditEntries :one
-- How many entries the log holds (kept by the trigger that moves the head).
SELECT coalesce((SELECT entries FROM audit_head WHERE only_row), 0)::bigint;
