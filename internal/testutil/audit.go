package testutil

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Rows is what AuditCount reads the audit log through: a pool or a connection.
type Rows interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Audit selects audit entries; an empty field selects any value.
type Audit struct {
	Action string // "access_denied"; "integrity_failure" and the like
	Table  string // the record's table ("images")
	Record string // the record's id
	Actor  string // who acted: a user's id
	Status string // "success" or "failure"
	Reason string
}

// AuditCount counts the entries of the audit log that a selects: every
// test's count of audit entries.
func AuditCount(t testing.TB, db Rows, a Audit) int {
	t.Helper()
	var where []string
	var args []any
	for _, f := range []struct{ column, value string }{
		{"action", a.Action}, {"table_name", a.Table}, {"record_id", a.Record}, {"actor_id::text", a.Actor},
		{"status", a.Status}, {"reason", a.Reason},
	} {
		if f.value != "" {
			args = append(args, f.value)
			where = append(where, f.column+" = $"+strconv.Itoa(len(args)))
		}
	}
	query := "SELECT count(*) FROM audit_log"
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	var n int
	if err := db.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Execer runs statements: a pool or a connection.
type Execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// ForgeAuditLog does to the audit log what whoever holds the database (as
// the table's owner) can do: with the table's triggers off, it runs edit
// (SQL statements: change or delete entries), then rewrites the hash of
// every entry from the entry with id from on, each onto the one before it,
// as chain (1: the unkeyed SHA-256 digest the database computed before the
// chain was keyed, the best such a forger can do; 2: the same digest,
// claiming the keyed chain), and moves the head to the last entry left.
func ForgeAuditLog(t testing.TB, db Execer, from int64, chain int, edit string) {
	t.Helper()
	sql := `ALTER TABLE audit_log DISABLE TRIGGER USER;
` + edit + `;
DO $$
DECLARE
    r audit_log;
    prev bytea;
BEGIN
    SELECT hash INTO prev FROM audit_log WHERE id < ` + strconv.FormatInt(from, 10) + ` ORDER BY id DESC LIMIT 1;
    prev := coalesce(prev, '\x'::bytea);
    FOR r IN SELECT * FROM audit_log WHERE id >= ` + strconv.FormatInt(from, 10) + ` ORDER BY id LOOP
        UPDATE audit_log SET prev_hash = prev, chain = ` + strconv.Itoa(chain) + `,
            hash = ` + LegacyAuditDigestSQL("prev", "r") + `
        WHERE id = r.id RETURNING hash INTO prev;
    END LOOP;
    INSERT INTO audit_head (id, hash, entries)
    SELECT max(id), (SELECT hash FROM audit_log ORDER BY id DESC LIMIT 1), count(*) FROM audit_log HAVING count(*) > 0
    ON CONFLICT (only_row) DO UPDATE SET id = excluded.id, hash = excluded.hash, entries = excluded.entries;
END
$$;
ALTER TABLE audit_log ENABLE TRIGGER USER`
	if _, err := db.Exec(context.Background(), sql); err != nil {
		t.Fatalf("forge the audit log: %v", err)
	}
}

// LegacyAuditDigestSQL is, in SQL, the digest the database computed for
// each entry before the audit chain was keyed (secure.LegacyAuditDigest):
// SHA-256 of prev and the fields of row, a record with audit_log's
// columns, as the text of a jsonb array. Anyone who holds the database can
// compute it, so the tests that forge the log, and the benchmarks that
// seed it, use it.
func LegacyAuditDigestSQL(prev, row string) string {
	return strings.ReplaceAll(`sha256(`+prev+` || convert_to(jsonb_build_array(
    R.id, to_char(R.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
    R.actor_id, R.action, R.table_name, R.record_id, R.ip, R.user_agent, R.status, R.reason)::text, 'UTF8'))`, "R.", row+".")
}
