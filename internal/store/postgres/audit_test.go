package postgres_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/store/postgres"
	"github.com/medishare/medishare/internal/testutil/pgtest"
)

func auditStore(t *testing.T) (*postgres.DB, *postgres.Store) {
	t.Helper()
	db, err := postgres.Open(context.Background(), pgtest.NewDatabase(t), postgres.PoolOptions{MaxConns: 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	return db, postgres.NewStore(db)
}

func TestAuditChainDetectsEditsAndDeletions(t *testing.T) {
	ctx := context.Background()
	db, store := auditStore(t)
	// Entries written concurrently still form one chain in id order.
	var wg sync.WaitGroup
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := store.InTx(ctx, func(ctx context.Context) error {
				return store.AppendAudit(ctx, domain.AuditEntry{Action: "login", Table: "users", IP: "127.0.0.1", Success: true})
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	report, err := store.VerifyAuditChain(ctx)
	if err != nil || !report.OK || report.Checked != 40 {
		t.Fatalf("intact chain: %+v %v", report, err)
	}

	// The table refuses changes...
	for _, stmt := range []string{"UPDATE audit_log SET reason = 'x'", "DELETE FROM audit_log", "TRUNCATE audit_log"} {
		if _, err := db.Pool.Exec(ctx, stmt); err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Errorf("%s: %v", stmt, err)
		}
	}
	// ...and when someone with the power to bypass the trigger edits or
	// deletes an entry anyway, the chain shows where.
	tamper := func(stmt string) domain.AuditChainReport {
		t.Helper()
		_, err := db.Pool.Exec(ctx, "ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only; "+stmt+"; ALTER TABLE audit_log ENABLE TRIGGER audit_log_append_only")
		if err != nil {
			t.Fatal(err)
		}
		report, err := store.VerifyAuditChain(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return report
	}
	if r := tamper("UPDATE audit_log SET ip = '10.6.6.6' WHERE id = 30"); r.OK || r.FirstBrokenID != 30 {
		t.Fatalf("edited entry: %+v", r)
	}
	if r := tamper("UPDATE audit_log SET ip = '127.0.0.1' WHERE id = 30; DELETE FROM audit_log WHERE id = 12"); r.OK || r.FirstBrokenID != 13 {
		t.Fatalf("deleted entry: %+v", r)
	}
}

func TestAuditWritesJoinTheTransaction(t *testing.T) {
	ctx := context.Background()
	_, store := auditStore(t)
	failure := store.InTx(ctx, func(ctx context.Context) error {
		if err := store.AppendAudit(ctx, domain.AuditEntry{Action: "profile_update", Table: "users", RecordID: "r1", Success: true}); err != nil {
			return err
		}
		return domain.Errorf(domain.EINVALID, "the change failed")
	})
	if failure == nil {
		t.Fatal("expected the failure")
	}
	if actions, _ := store.AuditActions(ctx, "users", "r1"); len(actions) != 0 {
		t.Fatalf("an audit entry outlived its rolled-back change: %v", actions)
	}
}
