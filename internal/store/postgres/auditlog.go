package postgres

import (
	"context"
	"errors"
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

// auditQuery is one view of the audit log: where its rows come from, the
// conditions on them and their order. Its filters combine freely, so it is
// built here rather than by sqlc: each combination is its own statement
// text, and so gets its own plan, read through the index that suits it (the
// reader's audience rows, an action, failures, a time range, one person's
// actions, or the log itself newest first). Values from closed lists
// (actions, statuses) are written into the text, so that the plan knows
// them; everything else, and whatever a person typed, is a parameter.
type auditQuery struct {
	from  string // a relation "a" with the audit_log columns
	where []string
	args  []any
	order string
	// exactCount, when not empty, is the view's whole count read from
	// counters: a reader's unfiltered view of their audience.
	exactCount string
}

func (q *auditQuery) arg(v any) string {
	q.args = append(q.args, v)
	return fmt.Sprintf("$%d", len(q.args))
}

// auditSearchFew is how many people a search of the whole log may match
// and still be read person by person; past it, the log is walked newest
// first, which then soon finds a page.
const auditSearchFew = 100

// newAuditQuery builds the view. actors are the people a search of the
// whole log matched, when they are few (see ListAudit); reach is how many
// rows the statement reads at most (the count's cap, or a page and those
// before it), which bounds each person's share of it.
func newAuditQuery(scope domain.AuditScope, f domain.AuditFilter, actors []uuid.UUID, reach int) (*auditQuery, error) {
	q := &auditQuery{from: "audit_log a", order: "a.id DESC"}
	var conds []string
	if f.Action != "" {
		if !domain.IsAuditAction(string(f.Action)) { // never text that is not on the list
			return nil, domain.Errorf(domain.EINVALID, "Unknown audit action.")
		}
		conds = append(conds, "a.action = '"+string(f.Action)+"'")
	}
	switch f.Status {
	case "failure":
		conds = append(conds, "a.status = 'failure'")
	case "success":
		conds = append(conds, "a.status = 'success'")
	}
	if !f.From.IsZero() {
		conds = append(conds, "a.created_at >= "+q.arg(f.From))
	}
	if !f.To.IsZero() {
		conds = append(conds, "a.created_at < "+q.arg(f.To))
	}
	if f.AboutImages {
		conds = append(conds, "a.table_name IN ('images', 'shares')")
	}
	if !f.From.IsZero() || !f.To.IsZero() { // newest first by time, through (created_at, id)
		q.order = "a.created_at DESC, a.id DESC"
	}
	if f.ImageID != "" {
		// One image's history is short: read its entries and its shares'
		// by record id (audit_log_record_idx, shares_image_all_idx), then
		// keep those in the reader's audience, rather than walk the
		// reader's audience (a provider's may hold most of the log).
		img := q.arg(f.ImageID)
		q.from = `(SELECT * FROM audit_log WHERE table_name = 'images' AND record_id = ` + img + `::text AND record_id <> ''
 UNION ALL
 SELECT l.* FROM shares s JOIN audit_log l ON l.table_name = 'shares' AND l.record_id = s.id::text AND l.record_id <> ''
 WHERE s.image_id = ` + img + `::uuid) a`
		if !scope.All { // each entry's audience row by key (a scalar subquery: never a join over the whole audience)
			q.where = append(q.where, "(SELECT v.kind FROM audit_audience v WHERE v.user_id = "+q.arg(optionalID(scope.UserID))+
				" AND v.entry_id = a.id) = ANY("+q.arg(scope.Kinds)+")")
		}
		if f.Search != "" {
			q.where = append(q.where, q.searchFilter(f.Search))
		}
		q.where = append(q.where, conds...)
		return q, nil
	}
	switch {
	case !scope.All:
		q.from = "audit_audience v JOIN audit_log a ON a.id = v.entry_id"
		q.order = "v.entry_id DESC"
		user, kinds := q.arg(optionalID(scope.UserID)), q.arg(scope.Kinds)
		q.where = append(q.where, "v.user_id = "+user, "v.kind = ANY("+kinds+")")
		if f.AboutImages { // sign-ins are never about images: skip them by the index without them
			q.where = append(q.where, "v.kind <> 'signin'")
		}
		if f.Search != "" {
			q.where = append(q.where, q.searchFilter(f.Search))
		}
		if f.Search == "" && len(conds) == 0 {
			q.exactCount = "SELECT coalesce(sum(c.entries), 0)::bigint FROM audit_audience_counts c WHERE c.user_id = " + user + " AND c.kind = ANY(" + kinds + ")"
		}
	case f.Search != "" && actors != nil:
		// Each person's newest entries through (actor_id, id), merged: a
		// page reads at most a page's worth of each person's entries.
		inner := "SELECT * FROM audit_log a WHERE " + strings.Join(append([]string{"a.actor_id = s.id"}, conds...), " AND ") +
			" ORDER BY " + q.order + " LIMIT " + q.arg(reach)
		q.from = "unnest(" + q.arg(actors) + "::uuid[]) s(id) CROSS JOIN LATERAL (" + inner + ") a"
		return q, nil
	case f.Search != "":
		q.where = append(q.where, q.searchFilter(f.Search))
	}
	q.where = append(q.where, conds...)
	return q, nil
}

// searchFilter keeps the entries by a person whose name, email or username
// contains search. A subquery per entry, so that the log is walked in its
// order and each entry's person looked up by key.
func (q *auditQuery) searchFilter(search string) string {
	p := q.arg(containsPattern(search))
	return "(SELECT u2.search_text LIKE " + p + " OR lower(u2.username) LIKE " + p +
		" FROM users u2 WHERE u2.id = a.actor_id AND u2.deleted_at IS NULL)"
}

// countSQL counts the view's entries: exactly from counters where they
// exist, else up to one past the cap.
func (q *auditQuery) countSQL() string {
	if q.exactCount != "" {
		return q.exactCount
	}
	return fmt.Sprintf("SELECT count(*) FROM (SELECT 1 FROM %s%s LIMIT %d) t", q.from, q.whereClause(), auditCountCap+1)
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
	var actors []uuid.UUID
	if scope.All && f.Search != "" {
		ids, err := s.q(ctx).AuditSearchActors(ctx, db.AuditSearchActorsParams{Pattern: containsPattern(f.Search), Probe: auditSearchFew + 1})
		switch {
		case err != nil:
			return nil, out, translate(err)
		case len(ids) == 0:
			return []domain.AuditRecord{}, out, nil
		case len(ids) <= auditSearchFew:
			actors = ids
		}
	}
	q, err := newAuditQuery(scope, f, actors, page.Offset()+page.Limit+1)
	if err != nil {
		return nil, out, err
	}
	// The count comes with the page, as a column computed once, except when
	// the page is read person by person (each read only as far as the page
	// needs): that count is a statement of its own, sent in the same batch.
	var batch pgx.Batch
	var countSQL string
	var countArgs []any
	switch {
	case actors != nil:
		counter, err := newAuditQuery(scope, f, actors, auditCountCap+1)
		if err != nil {
			return nil, out, err
		}
		countSQL, countArgs = counter.countSQL(), counter.args
		batch.Queue(countSQL, countArgs...)
	case scope.All && f.IsZero():
		countSQL = "SELECT entries FROM audit_head WHERE only_row" // exact, kept by the trigger that moves the head
	default:
		countSQL, countArgs = q.countSQL(), q.args
	}
	countColumn := "0::bigint"
	if actors == nil {
		countColumn = "(" + countSQL + ")"
	}
	limit, offset := q.arg(page.Limit+1), q.arg(page.Offset())
	batch.Queue(`SELECT `+auditColumns+`, `+countColumn+`
FROM `+q.from+` LEFT JOIN users u ON u.id = a.actor_id`+q.whereClause()+`
ORDER BY `+q.order+` LIMIT `+limit+` OFFSET `+offset, q.args...)
	results := s.conn(ctx).SendBatch(ctx, &batch)
	defer func() { _ = results.Close() }() // every result is read below; Close reports nothing new
	var counted int64
	if actors != nil {
		if err := results.QueryRow().Scan(&counted); err != nil {
			return nil, out, translate(err)
		}
	}
	rows, err := results.Query()
	if err != nil {
		return nil, out, translate(err)
	}
	var column int64 // the count, as each row of the page carries it
	records, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.AuditRecord, error) {
		return scanAuditRecord(row, &column)
	})
	if err != nil {
		return nil, out, translate(err)
	}
	switch {
	case actors != nil:
	case len(records) > 0:
		counted = column
	default: // past the last page: no row carried the count
		var again pgx.Batch
		again.Queue(countSQL, countArgs...)
		res := s.conn(ctx).SendBatch(ctx, &again)
		err := res.QueryRow().Scan(&counted)
		_ = res.Close()                                   // read above; Close reports nothing new
		if err != nil && !errors.Is(err, pgx.ErrNoRows) { // no head: an empty log
			return nil, out, translate(err)
		}
	}
	out.More = len(records) > page.Limit
	records = records[:min(len(records), page.Limit)]
	if scope.All && f.IsZero() || q.exactCount != "" || counted <= auditCountCap {
		out.TotalItems = int(counted)
	} else {
		out.TotalItems, out.AtLeast = auditCountCap, true
		if len(records) > 0 { // this page's entries are there: at least as many as up to its end
			out.TotalItems = max(auditCountCap, page.Offset()+len(records))
		}
	}
	return records, out, nil
}

// containsPattern is the LIKE pattern of text containing search (already
// escaped for LIKE), in the lower case of the searched columns.
func containsPattern(search string) string { return "%" + strings.ToLower(search) + "%" }

// auditColumns are the columns of an audit record, as scanAuditRecord reads them.
const auditColumns = `a.id, a.created_at, a.actor_id, coalesce(u.firstname, ''), coalesce(u.lastname, ''), coalesce(u.username, ''),
       a.action, a.table_name, a.record_id, a.ip, a.user_agent, a.status, a.reason`

// scanAuditRecord reads auditColumns, and the extra columns into extra.
func scanAuditRecord(row pgx.Row, extra ...any) (domain.AuditRecord, error) {
	var r domain.AuditRecord
	var actor pgtype.UUID
	var action, table, status string
	err := row.Scan(append([]any{&r.ID, &r.CreatedAt, &actor, &r.Actor.Firstname, &r.Actor.Lastname, &r.Actor.Username,
		&action, &table, &r.RecordID, &r.IP, &r.UserAgent, &status, &r.Reason}, extra...)...)
	if actor.Valid {
		r.Actor.ID = uuid.UUID(actor.Bytes).String()
	}
	r.Action, r.Table, r.Success, r.CreatedAt = domain.AuditAction(action), domain.AuditTable(table), status == "success", r.CreatedAt.UTC()
	return r, err
}

// auditExportBatch is how many entries each statement of an export reads.
const auditExportBatch = 1000

// EachAudit calls fn with every entry of the view, newest first (an
// export). It reads a batch at a time, each batch after the last entry of
// the one before (keyset paging in the view's own order), so memory stays
// bounded and no statement outlives the statement timeout however slowly
// the client reads. A search walks the log, each entry's person looked up
// by key.
func (s *Store) EachAudit(ctx context.Context, scope domain.AuditScope, f domain.AuditFilter, fn func(domain.AuditRecord) error) error {
	var last *domain.AuditRecord
	for {
		q, err := newAuditQuery(scope, f, nil, 0)
		if err != nil {
			return err
		}
		if last != nil {
			q.where = append(q.where, q.after(*last))
		}
		rows, err := s.conn(ctx).Query(ctx, `SELECT `+auditColumns+`
FROM `+q.from+` LEFT JOIN users u ON u.id = a.actor_id`+q.whereClause()+`
ORDER BY `+q.order+` LIMIT `+q.arg(auditExportBatch), q.args...)
		if err != nil {
			return translate(err)
		}
		batch, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.AuditRecord, error) { return scanAuditRecord(row) })
		if err != nil {
			return translate(err)
		}
		for _, r := range batch {
			if err := fn(r); err != nil {
				return err
			}
		}
		if len(batch) < auditExportBatch {
			return nil
		}
		last = &batch[len(batch)-1]
	}
}

// after is the condition that keeps the entries after r in the view's order.
func (q *auditQuery) after(r domain.AuditRecord) string {
	switch q.order {
	case "a.created_at DESC, a.id DESC":
		return "(a.created_at, a.id) < (" + q.arg(r.CreatedAt) + ", " + q.arg(r.ID) + ")"
	case "v.entry_id DESC":
		return "v.entry_id < " + q.arg(r.ID)
	default:
		return "a.id < " + q.arg(r.ID)
	}
}
