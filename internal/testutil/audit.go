package testutil

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
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
