-- name: AppendAudit :exec
-- id, time and hashes are set by the chaining trigger.
INSERT INTO audit_log (id, actor_id, action, table_name, record_id, ip, user_agent, status, reason, prev_hash, hash)
VALUES (0, @actor_id, @action, @table_name, @record_id, @ip, @user_agent, @status, @reason, '\x', '\x');

-- name: AuditChain :many
-- Each entry with the digest recomputed, in chain order, for verification.
SELECT a.id, a.prev_hash, a.hash, audit_digest(a.prev_hash, a)::bytea AS expected
FROM audit_log a
WHERE a.id > @after_id
ORDER BY a.id
LIMIT @page_limit;

-- name: ListAuditForRecord :many
SELECT * FROM audit_log WHERE table_name = $1 AND record_id = $2 ORDER BY id;

-- name: AuditSearchActors :many
-- The people a search of the audit log matches, up to probe of them.
SELECT id FROM users
WHERE deleted_at IS NULL AND (search_text LIKE @pattern::text OR lower(username) LIKE @pattern::text)
LIMIT @probe;

-- name: AuditEntries :one
-- How many entries the log holds (kept by the chaining trigger).
SELECT coalesce((SELECT entries FROM audit_head WHERE only_row), 0)::bigint;
