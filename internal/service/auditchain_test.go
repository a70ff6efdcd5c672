package service_test

import (
	"bytes"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/blob"
	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/secure"
	"github.com/medishare/medishare/internal/service"
	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/pgtest"
)

// chainStore is the store as the chain's tests use it.
type chainStore interface {
	service.AuditChainStore
	service.AuditKeyStore
	service.KeyStore
	service.AuditWriter
	UseAuditChain(chain domain.AuditHasher)
}

type chainFixture struct {
	pool  testutil.Execer
	store chainStore
	blobs *blob.FS
	chain *service.AuditChainService
	now   time.Time
}

// newChainFixture is a store and a content store with the chain's key
// made as a server makes it on its first start, and n entries appended.
func newChainFixture(t *testing.T, n int) *chainFixture {
	t.Helper()
	db, store := pgtest.NewStore(t)
	texts, err := secure.NewTextSealer(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	key, err := service.OpenAuditChain(t.Context(), store, texts, nil)
	if err != nil {
		t.Fatal(err)
	}
	store.UseAuditChain(key)
	blobs, err := blob.NewFS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &chainFixture{pool: db.Pool, store: store, blobs: blobs, now: time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)}
	f.chain = service.NewAuditChainService(store, blobs, key, slog.New(slog.NewTextHandler(io.Discard, nil)), func() time.Time { return f.now })
	f.append(t, n)
	return f
}

func (f *chainFixture) append(t *testing.T, n int) {
	t.Helper()
	for i := range n {
		e := domain.AuditEntry{Action: domain.ActionLogin, Table: domain.TableUsers, IP: "10.0.0.1", Reason: "entry", Success: i%4 != 0}
		if err := f.store.AppendAudit(t.Context(), e); err != nil {
			t.Fatal(err)
		}
	}
}

func (f *chainFixture) verify(t *testing.T) domain.AuditChainReport {
	t.Helper()
	r, err := f.chain.Verify(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (f *chainFixture) checkpoint(t *testing.T) {
	t.Helper()
	if err := f.chain.Checkpoint(t.Context()); err != nil {
		t.Fatal(err)
	}
}

func TestAuditChainIntact(t *testing.T) {
	f := newChainFixture(t, 30)
	if r := f.verify(t); !r.OK || r.Checked != 30 || !r.CheckedAt.Equal(f.now) {
		t.Fatalf("without a checkpoint: %+v", r)
	}
	f.checkpoint(t)
	f.append(t, 5)
	if r := f.verify(t); !r.OK || r.Checked != 35 {
		t.Fatalf("past the checkpoint: %+v", r)
	}
}

// Whoever holds the database can edit an entry and rewrite every later
// hash with the digest the database used to compute: the keyed hashes give
// them away, whichever chain they claim, before or after a checkpoint.
func TestAuditChainFindsRewrittenEntries(t *testing.T) {
	for _, c := range []struct {
		name       string
		chain      int
		checkpoint bool
	}{
		{"claiming the unkeyed chain", domain.ChainLegacy, false},
		{"claiming the keyed chain", domain.ChainKeyed, false},
		{"claiming the unkeyed chain, after a checkpoint", domain.ChainLegacy, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newChainFixture(t, 30)
			if c.checkpoint {
				f.checkpoint(t)
			}
			testutil.ForgeAuditLog(t, f.pool, 12, c.chain, "UPDATE audit_log SET reason = 'nothing happened' WHERE id = 12")
			r := f.verify(t)
			if r.OK || r.FirstBrokenID != 12 {
				t.Fatalf("%+v", r)
			}
		})
	}
}

// Removing the newest entries and moving the head back is found against
// the checkpoint; a checkpoint never moves back to the shorter head.
func TestAuditChainFindsRemovedNewestEntries(t *testing.T) {
	f := newChainFixture(t, 30)
	f.checkpoint(t)
	testutil.ForgeAuditLog(t, f.pool, 31, domain.ChainKeyed, "DELETE FROM audit_log WHERE id > 27")
	r := f.verify(t)
	if r.OK || r.FirstBrokenID != 30 || !strings.Contains(r.Problem, "the newest entries were removed") {
		t.Fatalf("truncated: %+v", r)
	}
	f.checkpoint(t) // must not anchor the shorter chain
	f.append(t, 5)
	if r := f.verify(t); r.OK || r.FirstBrokenID != 30 {
		t.Fatalf("after another checkpoint: %+v", r)
	}
}

// Entries written before the chain was keyed stay verifiable, and nobody
// can pass keyed entries off as such: after the first keyed entry, or past
// where the first checkpoint says the unkeyed chain ends.
func TestAuditChainKeepsTheUnkeyedEntriesBefore(t *testing.T) {
	f := newChainFixture(t, 0)
	testutil.ForgeAuditLog(t, f.pool, 1, domain.ChainLegacy,
		`INSERT INTO audit_log (id, created_at, action, status, reason, chain, prev_hash, hash)
SELECT nextval('audit_log_id_seq'), now(), 'login', 'success', 'before the chain was keyed ' || g, 1, '\x', '\x' FROM generate_series(1, 10) g`)
	f.append(t, 10)
	if r := f.verify(t); !r.OK || r.Checked != 20 {
		t.Fatalf("unkeyed, then keyed: %+v", r)
	}
	f.checkpoint(t)

	// The keyed entries rewritten as unkeyed ones, the checkpoint's with them.
	testutil.ForgeAuditLog(t, f.pool, 11, domain.ChainLegacy, "UPDATE audit_log SET reason = 'x' WHERE id = 15")
	if r := f.verify(t); r.OK || r.FirstBrokenID != 11 {
		t.Fatalf("keyed entries passed off as unkeyed: %+v", r)
	}
}

// A checkpoint that the chain's key did not sign is reported, not trusted.
func TestAuditChainRefusesAForgedCheckpoint(t *testing.T) {
	f := newChainFixture(t, 5)
	other, err := secure.NewAuditChain(secure.NewAuditChainKey())
	if err != nil {
		t.Fatal(err)
	}
	forged := other.SealCheckpoint(domain.AuditCheckpoint{ID: 2, Hash: []byte{1}, At: f.now})
	if err := f.blobs.Put(t.Context(), "audit/checkpoint", bytes.NewReader(forged)); err != nil {
		t.Fatal(err)
	}
	if r := f.verify(t); r.OK || !strings.Contains(r.Problem, "checkpoint") {
		t.Fatalf("%+v", r)
	}
}

// The latest check of any kind is what the health panel shows: a break
// stays shown until a later check finds the chain whole, and the
// background check runs only when the latest is older than its pace.
func TestAuditChainLatestCheck(t *testing.T) {
	f := newChainFixture(t, 10)
	if r, err := f.chain.Latest(t.Context()); err != nil || !r.CheckedAt.IsZero() {
		t.Fatalf("before any check: %+v %v", r, err)
	}
	f.verify(t)
	testutil.ForgeAuditLog(t, f.pool, 3, domain.ChainLegacy, "UPDATE audit_log SET ip = '10.6.6.6' WHERE id = 3")
	f.now = f.now.Add(10 * time.Minute)
	if r, err := f.chain.VerifyIfDue(t.Context(), time.Hour); err != nil || !r.OK || r.Checked != 10 {
		t.Fatalf("not due yet, the latest check stands: %+v %v", r, err)
	}
	f.now = f.now.Add(time.Hour)
	if r, err := f.chain.VerifyIfDue(t.Context(), time.Hour); err != nil || r.OK || r.FirstBrokenID != 3 {
		t.Fatalf("due: %+v %v", r, err)
	}
	f.now = f.now.Add(time.Minute)
	if r, err := f.chain.Latest(t.Context()); err != nil || r.OK || r.FirstBrokenID != 3 || !r.CheckedAt.Equal(f.now.Add(-time.Minute)) {
		t.Fatalf("latest: %+v %v", r, err)
	}
}

// Rotating the master key re-seals the chain's key: the chain stays
// verifiable and the server opens the key under the new master.
func TestAuditChainKeySurvivesAMasterKeyRotation(t *testing.T) {
	f := newChainFixture(t, 3)
	oldMaster, newMaster := bytes.Repeat([]byte{7}, 32), bytes.Repeat([]byte{8}, 32)
	envelope, err := secure.NewEnvelope(newMaster)
	if err != nil {
		t.Fatal(err)
	}
	texts, err := secure.NewTextSealer(newMaster)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := service.OpenAuditChain(t.Context(), f.store, texts, nil); domain.ErrorKind(err) != domain.EINTERNAL {
		t.Fatalf("opened under another master key before the rotation: %v", err)
	}
	if _, err := service.NewKeyRotationService(f.store, envelope, texts).Rotate(t.Context(), oldMaster); err != nil {
		t.Fatal(err)
	}
	key, err := service.OpenAuditChain(t.Context(), f.store, texts, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.store.UseAuditChain(key)
	f.append(t, 2)
	chain := service.NewAuditChainService(f.store, f.blobs, key, slog.New(slog.NewTextHandler(io.Discard, nil)), func() time.Time { return f.now })
	if r, err := chain.Verify(t.Context()); err != nil || !r.OK || r.Checked != 5 {
		t.Fatalf("after the rotation: %+v %v", r, err)
	}
}
