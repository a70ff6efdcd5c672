package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/store/postgres/db"
)

// auditCountCap is how many entries of a view of the audit log are
// counted: past it the total is "more than auditCountCap" and the pages
// say whether another follows. Counting a million entries for every page
// would cost more than reading the page.
const auditCountCap = 1000

// conn is what the queries of this file run on: the transaction in ctx, or the pool.
func (s *Store) conn(ctx context.Context) db.DBTX {
	if tx, ok := ctx.Value(txKey{}).(pgx.Tx); ok {
		return tx
	}
	return s.db.Pool
}

// auditQuery is the FROM and WHERE of one view of the audit log. Its filters
// combine freely, so it is built here rather than by sqlc: each combination
// is its own statement text, and so gets its own plan, read through the
// index that suits it (the reader's audience rows, the action, failures, or
// the log itself newest first). Only fixed fragments go into the text; every
// value is a parameter.
type auditQuery struct {
	from  string
	where []string
	args  []any
	order string
}

func (q *auditQuery) arg(v any) string {
	q.args = append(q.args, v)
	return fmt.Sprintf("$%d", len(q.args))
}

func newAuditQuery(scope domain.AuditScope, f domain.AuditFilter) *auditQuery {
	q := &auditQuery{from: "audit_log a", order: "a.id DESC"}
	if !scope.All {
		q.from = "audit_audience v JOIN audit_log a ON a.id = v.entry_id"
		q.order = "v.entry_id DESC"
		q.where = append(q.where, "v.user_id = "+q.arg(optionalID(scope.UserID)), "v.kind = ANY("+q.arg(scope.Kinds)+")")
	}
	if f.Action != "" {
		q.where = append(q.where, "a.action = "+q.arg(string(f.Action)))
	}
	switch f.Status { // literals, so that the partial index of failures applies
	case "failure":
		q.where = append(q.where, "a.status = 'failure'")
	case "success":
		q.where = append(q.where, "a.status = 'success'")
	}
	if !f.From.IsZero() {
		q.where = append(q.where, "a.created_at >= "+q.arg(f.From))
	}
	if !f.To.IsZero() {
		q.where = append(q.where, "a.created_at < "+q.arg(f.To))
	}
	if f.Search != "" {
		p := q.arg("%" + strings.ToLower(f.Search) + "%")
		q.where = append(q.where, "a.actor_id IN (SELECT id FROM users WHERE deleted_at IS NULL AND (search_text LIKE "+p+" OR lower(username) LIKE "+p+"))")
	}
	return q
}

func (q *auditQuery) whereClause() string {
	if len(q.where) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(q.where, " AND ")
}

// ListAudit returns one page of the audit log as scope sees it, newest first.
func (s *Store) ListAudit(ctx context.Context, scope domain.AuditScope, f domain.AuditFilter, page domain.Page) ([]domain.AuditRecord, domain.PageOf, error) {
	out := domain.PageOf{Page: page.Page, Limit: page.Limit}
	q := newAuditQuery(scope, f)
	var counted int
	countSQL := fmt.Sprintf("SELECT count(*) FROM (SELECT 1 FROM %s%s LIMIT %d) t", q.from, q.whereClause(), auditCountCap+1)
	if err := s.conn(ctx).QueryRow(ctx, countSQL, q.args...).Scan(&counted); err != nil {
		return nil, out, translate(err)
	}
	limit, offset := q.arg(page.Limit+1), q.arg(page.Offset())
	pageSQL := `SELECT a.id, a.created_at, a.actor_id, coalesce(u.firstname, ''), coalesce(u.lastname, ''), coalesce(u.username, ''),
       a.action, a.table_name, a.record_id, a.ip, a.user_agent, a.status, a.reason
FROM ` + q.from + ` LEFT JOIN users u ON u.id = a.actor_id` + q.whereClause() + `
ORDER BY ` + q.order + ` LIMIT ` + limit + ` OFFSET ` + offset
	rows, err := s.conn(ctx).Query(ctx, pageSQL, q.args...)
	if err != nil {
		return nil, out, translate(err)
	}
	records, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.AuditRecord, error) {
		var r domain.AuditRecord
		var actor pgtype.UUID
		var action, table, status string
		err := row.Scan(&r.ID, &r.CreatedAt, &actor, &r.Actor.Firstname, &r.Actor.Lastname, &r.Actor.Username,
			&action, &table, &r.RecordID, &r.IP, &r.UserAgent, &status, &r.Reason)
		if actor.Valid {
			r.Actor.ID = uuid.UUID(actor.Bytes).String()
		}
		r.Action, r.Table, r.Success, r.CreatedAt = domain.AuditAction(action), domain.AuditTable(table), status == "success", r.CreatedAt.UTC()
		return r, err
	})
	if err != nil {
		return nil, out, translate(err)
	}
	out.More = len(records) > page.Limit
	records = records[:min(len(records), page.Limit)]
	if counted <= auditCountCap {
		out.TotalItems = counted
	} else {
		out.TotalItems, out.AtLeast = max(auditCountCap, page.Offset()+len(records)), true
	}
	return records, out, nil
}
