package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/store/postgres"
	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/pgtest"
)

// audienceOf lists who may read the entries about one record, as "kind:userID".
func audienceOf(t *testing.T, db *postgres.DB, recordID string) map[string]bool {
	t.Helper()
	rows, err := db.Pool.Query(context.Background(),
		`SELECT v.kind || ':' || v.user_id FROM audit_audience v JOIN audit_log a ON a.id = v.entry_id WHERE a.record_id = $1`, recordID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out[s] = true
	}
	return out
}

// TestAuditAudience: each entry about an image reaches its patient and its
// uploader, and the person who acted; entries written before the migration
// that introduced the audience get theirs when it runs.
func TestAuditAudience(t *testing.T) {
	ctx := context.Background()
	url := pgtest.NewDatabase(t)
	db, err := postgres.Open(ctx, url, postgres.PoolOptions{MaxConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	store := postgres.NewStore(db)
	pgtest.AuditChain(t, store)
	provider, patient, colleague := newUser(t, store, domain.RoleProvider), newUser(t, store, domain.RolePatient), newUser(t, store, domain.RoleProvider)
	image := uuid.NewString()
	if err := store.CreateImage(ctx, testImage(image, provider.ID, patient.ID)); err != nil {
		t.Fatal(err)
	}
	view := domain.AuditEntry{ActorID: colleague.ID, Action: domain.ActionView, Table: domain.TableImages, RecordID: image, Success: true}
	own := domain.AuditEntry{ActorID: provider.ID, Action: domain.ActionView, Table: domain.TableImages, RecordID: image, Success: true}
	junk := domain.AuditEntry{ActorID: colleague.ID, Action: domain.ActionAccessDenied, Table: domain.TableImages, RecordID: "not-a-uuid"}
	write := func(entries ...domain.AuditEntry) {
		t.Helper()
		for _, e := range entries {
			if err := store.AppendAudit(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := func(recordID string, kinds ...string) {
		t.Helper()
		got := audienceOf(t, db, recordID)
		if len(got) != len(kinds) {
			t.Errorf("audience of %s: %v, want %v", recordID, got, kinds)
		}
		for _, k := range kinds {
			if !got[k] {
				t.Errorf("audience of %s: %v lacks %s", recordID, got, k)
			}
		}
	}

	// Written before the audience existed: the migration fills it in.
	m, err := postgres.NewMigrator(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.DownTo(ctx, 7); err != nil {
		t.Fatal(err)
	}
	// As the server wrote entries then: the database chained them.
	if _, err := db.Pool.Exec(ctx, `INSERT INTO audit_log (id, actor_id, action, table_name, record_id, status, prev_hash, hash)
VALUES (0, $1, $2, $3, $4, 'success', '\x', '\x')`, view.ActorID, view.Action, view.Table, view.RecordID); err != nil {
		t.Fatal(err)
	}
	if err := m.Up(ctx); err != nil {
		t.Fatal(err)
	}
	want(image, "subject:"+patient.ID, "owner:"+provider.ID, "actor:"+colleague.ID)

	// Written after: the trigger. The uploader acting on their own image is
	// one row, as its owner; a record id that is no uuid reaches only the actor.
	write(own, junk)
	got := audienceOf(t, db, image)
	if len(got) != 3 {
		t.Errorf("audience after the uploader's own view: %v", got)
	}
	want("not-a-uuid", "actor:"+colleague.ID)
	var ownRows int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM audit_audience v JOIN audit_log a ON a.id = v.entry_id
		WHERE a.actor_id = $1 AND v.user_id = $1`, provider.ID).Scan(&ownRows); err != nil || ownRows != 1 {
		t.Errorf("the uploader's own view: %d rows of theirs (%v), want 1", ownRows, err)
	}

	// The head counts the entries; an append that rolls back is not counted.
	var before int64
	_, total, _ := store.ListAudit(ctx, domain.AuditScope{All: true}, domain.AuditFilter{}, domain.Page{Page: 1, Limit: 5})
	before = int64(total.TotalItems)
	_ = store.InTx(ctx, func(ctx context.Context) error {
		if err := store.AppendAudit(ctx, own); err != nil {
			t.Fatal(err)
		}
		return errors.New("roll back")
	})
	_, total, err = store.ListAudit(ctx, domain.AuditScope{All: true}, domain.AuditFilter{}, domain.Page{Page: 1, Limit: 5})
	counted := int64(testutil.AuditCount(t, db.Pool, testutil.Audit{}))
	if err != nil || int64(total.TotalItems) != before || counted != before || total.AtLeast {
		t.Errorf("after a rolled back append: total %+v (was %d), %d in the log, %v", total, before, counted, err)
	}

	// A reader's unfiltered view: its total is exact, from the counters,
	// which equal the audience rows (those backfilled by the migration too).
	for range 1002 {
		write(domain.AuditEntry{ActorID: patient.ID, Action: domain.ActionLogin, Table: domain.TableUsers, RecordID: patient.ID, Success: true})
	}
	scope := domain.AuditScope{UserID: patient.ID, Kinds: []string{"subject", "signin"}}
	_, page, err := store.ListAudit(ctx, scope, domain.AuditFilter{}, domain.Page{Page: 1, Limit: 20})
	if err != nil || page.AtLeast || page.TotalItems != 1004 || !page.HasNext() {
		t.Errorf("page 1 of 1004: %+v %v", page, err)
	}
	var counters, rows string
	_ = db.Pool.QueryRow(ctx, `SELECT string_agg(user_id || kind || entries, ',' ORDER BY user_id, kind) FROM audit_audience_counts`).Scan(&counters)
	_ = db.Pool.QueryRow(ctx, `SELECT string_agg(user_id || kind || n, ',' ORDER BY user_id, kind) FROM (SELECT user_id, kind, count(*) AS n FROM audit_audience GROUP BY user_id, kind) c`).Scan(&rows)
	if counters != rows || rows == "" {
		t.Errorf("audience counters %q, rows %q", counters, rows)
	}

	// A filtered view past the count's cap: a lower bound, and whether more follow.
	signins := domain.AuditFilter{Action: domain.ActionLogin}
	_, page, err = store.ListAudit(ctx, scope, signins, domain.Page{Page: 1, Limit: 20})
	if err != nil || !page.AtLeast || page.TotalItems != 1000 || !page.More {
		t.Errorf("page 1 of 1002 sign-ins: %+v %v", page, err)
	}
	records, page, err := store.ListAudit(ctx, scope, signins, domain.Page{Page: 60, Limit: 20})
	if err != nil || len(records) != 0 || page.TotalItems != 1000 || !page.AtLeast || page.More {
		t.Errorf("past the last page: %d records, %+v, %v", len(records), page, err)
	}
	records, page, err = store.ListAudit(ctx, scope, signins, domain.Page{Page: 51, Limit: 20})
	if err != nil || len(records) != 2 || page.More || page.TotalPages() != 51 {
		t.Errorf("page 51 of 1002 sign-ins: %d records, %+v (%d pages) %v", len(records), page, page.TotalPages(), err)
	}
}

// TestAuditSearchOfTheWholeLog: an admin's search finds the entries of the
// people it matches, whether they are few (read person by person) or many
// (the log walked newest first), combined with the other filters, and
// nobody else's.
func TestAuditSearchOfTheWholeLog(t *testing.T) {
	ctx := context.Background()
	_, store := auditStore(t)
	all := domain.AuditScope{All: true}
	var many []domain.User
	for range 102 {
		many = append(many, newUser(t, store, domain.RolePatient))
	}
	for i, u := range many {
		for _, action := range []domain.AuditAction{domain.ActionLogin, domain.ActionView} {
			if err := store.AppendAudit(ctx, domain.AuditEntry{ActorID: u.ID, Action: action, Success: i%2 == 0}); err != nil {
				t.Fatal(err)
			}
		}
	}
	ids := func(records []domain.AuditRecord) []int64 {
		out := make([]int64, len(records))
		for i, r := range records {
			out[i] = r.ID
		}
		return out
	}
	newestFirst := func(name string, records []domain.AuditRecord) {
		t.Helper()
		for i := 1; i < len(records); i++ {
			if records[i].ID >= records[i-1].ID {
				t.Errorf("%s: not newest first: %v", name, ids(records))
			}
		}
	}

	// One person (few): their two entries; with a filter, one.
	one := many[7]
	records, page, err := store.ListAudit(ctx, all, domain.AuditFilter{Search: one.Username}, domain.Page{Page: 1, Limit: 20})
	if err != nil || len(records) != 2 || page.TotalItems != 2 || records[0].Actor.ID != one.ID || records[1].Actor.ID != one.ID {
		t.Fatalf("search of one person: %d records, %+v, %v", len(records), page, err)
	}
	newestFirst("one person", records)
	records, _, err = store.ListAudit(ctx, all, domain.AuditFilter{Search: one.Username, Action: domain.ActionView}, domain.Page{Page: 1, Limit: 20})
	if err != nil || len(records) != 1 || records[0].Action != domain.ActionView {
		t.Errorf("one person's views: %v %v", ids(records), err)
	}

	// Everybody (many: the walk): the newest page, failures only when asked.
	records, page, err = store.ListAudit(ctx, all, domain.AuditFilter{Search: "clinic.test"}, domain.Page{Page: 2, Limit: 20})
	if err != nil || len(records) != 20 || page.TotalItems != 204 || !page.More {
		t.Fatalf("search of many, page 2: %d records, %+v, %v", len(records), page, err)
	}
	newestFirst("many", records)
	records, page, err = store.ListAudit(ctx, all, domain.AuditFilter{Search: "clinic.test", Status: "failure"}, domain.Page{Page: 1, Limit: 20})
	if err != nil || page.TotalItems != 102 {
		t.Fatalf("failures of many: %+v, %v", page, err)
	}
	for _, r := range records {
		if r.Success {
			t.Errorf("a success among the failures: %+v", r)
		}
	}
	// Nobody: an empty page.
	records, page, err = store.ListAudit(ctx, all, domain.AuditFilter{Search: "nobody-at-all"}, domain.Page{Page: 1, Limit: 20})
	if err != nil || len(records) != 0 || page.TotalItems != 0 {
		t.Errorf("search of nobody: %v %+v %v", ids(records), page, err)
	}
}

// TestEachAuditPagesThroughEverything: an export reads the view in batches
// after the last entry of the one before, in each order the views use (the
// log, a reader's audience, a time range), and meets every entry once,
// newest first.
func TestEachAuditPagesThroughEverything(t *testing.T) {
	ctx := context.Background()
	db, store := auditStore(t)
	patient := newUser(t, store, domain.RolePatient)
	const n = 2500
	for range n {
		if err := store.AppendAudit(ctx, domain.AuditEntry{ActorID: patient.ID, Action: domain.ActionLogin, Table: domain.TableUsers, RecordID: patient.ID, Success: true}); err != nil {
			t.Fatal(err)
		}
	}
	// Many entries in one instant, as a busy server writes them: the time
	// order must break ties by id.
	if _, err := db.Pool.Exec(ctx, `ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only;
		UPDATE audit_log SET created_at = date_trunc('second', created_at);
		ALTER TABLE audit_log ENABLE TRIGGER audit_log_append_only`); err != nil {
		t.Fatal(err)
	}
	total := testutil.AuditCount(t, db.Pool, testutil.Audit{})
	views := map[string]struct {
		scope domain.AuditScope
		f     domain.AuditFilter
		want  int
	}{
		"the whole log": {domain.AuditScope{All: true}, domain.AuditFilter{}, total},
		"a time range":  {domain.AuditScope{All: true}, domain.AuditFilter{From: time.Now().Add(-time.Hour), To: time.Now().Add(time.Hour)}, total},
		"an audience":   {domain.AuditScope{UserID: patient.ID, Kinds: []string{"subject", "signin"}}, domain.AuditFilter{}, n},
	}
	for name, v := range views {
		seen := map[int64]bool{}
		var prev domain.AuditRecord
		err := store.EachAudit(ctx, v.scope, v.f, func(r domain.AuditRecord) error {
			if seen[r.ID] || prev.ID != 0 && (r.ID >= prev.ID || r.CreatedAt.After(prev.CreatedAt)) {
				t.Fatalf("%s: %d after %d", name, r.ID, prev.ID)
			}
			seen[r.ID], prev = true, r
			return nil
		})
		if err != nil || len(seen) != v.want {
			t.Errorf("%s: %d entries, want %d (%v)", name, len(seen), v.want, err)
		}
	}
}
