package postgres_test

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/secure"
	"github.com/medishare/medishare/internal/store/postgres"
	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/pgtest"
)

func auditStore(t *testing.T) (*postgres.DB, *postgres.Store) {
	t.Helper()
	db, err := postgres.Open(context.Background(), pgtest.NewDatabase(t), postgres.PoolOptions{MaxConns: 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	store := postgres.NewStore(db)
	pgtest.AuditChain(t, store)
	return db, store
}

// Entries written concurrently, in transactions or not, form one chain in
// id order, each hashed with the chain's key; the table refuses changes.
// (Whether a check finds tampering is service.AuditChainService's test.)
func TestAuditEntriesFormOneKeyedChain(t *testing.T) {
	ctx := context.Background()
	db, store := auditStore(t)
	chain := pgtest.AuditChain(t, store)
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			e := domain.AuditEntry{Action: "login", Table: "users", IP: "127.0.0.1", Reason: "tab\t \"quoted\" é", Success: i%2 == 0}
			err := store.AppendAudit(ctx, e)
			if i%3 == 0 {
				err = store.InTx(ctx, func(ctx context.Context) error { return store.AppendAudit(ctx, e) })
			}
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	links, err := store.AuditLinks(ctx, 0, 1000)
	if err != nil || len(links) != 40+14 {
		t.Fatalf("%d entries, %v", len(links), err)
	}
	prev := []byte{}
	for _, l := range links {
		want, err := chain.Hash(l)
		if err != nil || l.Chain != domain.ChainKeyed || !bytes.Equal(l.PrevHash, prev) || !bytes.Equal(l.Hash, want) {
			t.Fatalf("entry %d: chain %d, follows the one before: %v, hash as keyed: %v (%v)", l.ID, l.Chain, bytes.Equal(l.PrevHash, prev), bytes.Equal(l.Hash, want), err)
		}
		prev = l.Hash
	}
	id, hash, err := store.AuditHead(ctx)
	if err != nil || id != links[len(links)-1].ID || !bytes.Equal(hash, prev) {
		t.Fatalf("head %d: %v", id, err)
	}
	for _, stmt := range []string{"UPDATE audit_log SET reason = 'x'", "DELETE FROM audit_log", "TRUNCATE audit_log"} {
		if _, err := db.Pool.Exec(ctx, stmt); err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Errorf("%s: %v", stmt, err)
		}
	}
	// An entry that does not follow the head (written without drawing its
	// place under the chain's lock) is refused.
	_, err = db.Pool.Exec(ctx, `INSERT INTO audit_log (id, created_at, action, status, chain, prev_hash, hash)
VALUES (nextval('audit_log_id_seq'), now(), 'login', 'success', 2, '\x00', '\x00')`)
	if err == nil || !strings.Contains(err.Error(), "does not follow the head") {
		t.Fatalf("an entry off the chain: %v", err)
	}
}

// The Go digest of the entries written before the chain was keyed is the
// one the database computed, byte for byte, whatever the fields hold.
func TestLegacyAuditDigestIsTheDatabases(t *testing.T) {
	ctx := context.Background()
	db, _ := auditStore(t)
	created := time.Date(2026, 3, 1, 9, 8, 7, 654321000, time.UTC)
	for _, l := range []domain.AuditLink{
		{ID: 1, CreatedAt: created, Action: "login", Status: "success", PrevHash: []byte{}},
		{ID: 77, CreatedAt: created, ActorID: "6f1c2a9e-0b8d-4c3e-9a55-2f7d1e0c4b11", Action: "view", Table: "images", RecordID: "r",
			IP: "10.0.0.1", UserAgent: "Mozilla/5.0 \"x\" \\ /", Status: "failure", Reason: "a\nb\tc\r\b\f\x01\x1f\x7f é 漢 <>&", PrevHash: []byte{1, 2, 3}},
	} {
		var want []byte
		err := db.Pool.QueryRow(ctx, `SELECT `+testutil.LegacyAuditDigestSQL("$1::bytea", "r")+`
FROM (SELECT $2::bigint AS id, $3::timestamptz AS created_at, nullif($4, '')::uuid AS actor_id, $5::text AS action,
    $6::text AS table_name, $7::text AS record_id, $8::text AS ip, $9::text AS user_agent, $10::text AS status, $11::text AS reason) r`,
			l.PrevHash, l.ID, l.CreatedAt, l.ActorID, l.Action, l.Table, l.RecordID, l.IP, l.UserAgent, l.Status, l.Reason).Scan(&want)
		if err != nil {
			t.Fatal(err)
		}
		if got := secure.LegacyAuditDigest(l); !bytes.Equal(got, want) {
			t.Errorf("entry %d: Go's legacy digest differs from the database's", l.ID)
		}
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
