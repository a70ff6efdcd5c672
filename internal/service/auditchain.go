package service

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/secure"
)

// AuditChainStore is what checking and anchoring the audit chain needs
// from the database.
type AuditChainStore interface {
	AuditLinks(ctx context.Context, afterID int64, limit int) ([]domain.AuditLink, error)
	AuditHead(ctx context.Context) (id int64, hash []byte, err error)
	LastLegacyAuditEntry(ctx context.Context) (int64, error)
	SaveAuditCheck(ctx context.Context, r domain.AuditChainReport) error
	LatestAuditCheck(ctx context.Context) (domain.AuditChainReport, error)
}

// AuditKeyStore keeps the chain's key, sealed under the master key.
type AuditKeyStore interface {
	AuditKeySealed(ctx context.Context) ([]byte, error)
	InsertAuditKey(ctx context.Context, sealed []byte) error
}

// AuditChainKey computes the chain's hashes and signs its checkpoints
// (secure.AuditChain).
type AuditChainKey interface {
	domain.AuditHasher
	SealCheckpoint(cp domain.AuditCheckpoint) []byte
	OpenCheckpoint(b []byte) (domain.AuditCheckpoint, error)
}

// auditKeyRecord is the record id the chain's key is sealed for.
const auditKeyRecord = "audit-chain-key"

// OpenAuditChain returns the audit chain under the key the database keeps
// sealed, making that key on the first start. The key is sealed under the
// master key (texts); previous, when not nil, is a master key being
// rotated away from, under which it may still be sealed. Errors:
// EINTERNAL when neither master key opens it; EUNAVAILABLE.
func OpenAuditChain(ctx context.Context, store AuditKeyStore, texts, previous TextSealer) (*secure.AuditChain, error) {
	sealed, err := store.AuditKeySealed(ctx)
	if domain.ErrorKind(err) == domain.ENOTFOUND {
		if err := store.InsertAuditKey(ctx, texts.Seal(auditKeyRecord, string(secure.NewAuditChainKey()))); err != nil {
			return nil, err
		}
		sealed, err = store.AuditKeySealed(ctx) // ours, or the one another instance wrote first
	}
	if err != nil {
		return nil, err
	}
	key, err := texts.Open(auditKeyRecord, sealed)
	if err != nil && previous != nil {
		key, err = previous.Open(auditKeyRecord, sealed)
	}
	if err != nil {
		return nil, domain.Errorf(domain.EINTERNAL, "the audit chain's key is sealed under another master key: run `medishare keys rotate` with the previous key")
	}
	return secure.NewAuditChain([]byte(key))
}

// checkpointKey is where the chain's signed checkpoint is kept in the
// content store: outside the database, so that whoever holds the database
// alone can neither move it nor remove it.
const checkpointKey = "audit/checkpoint"

// auditLinksPage is how many entries a check reads at a time.
const auditLinksPage = 5000

// AuditChainService checks the audit log's chain (S20) and anchors its
// head outside the database. A check recomputes every entry's keyed hash
// and its link to the one before, and compares the entry the checkpoint
// names with the checkpoint: an edited entry, a removed one, and the
// newest entries removed up to the last checkpoint are all found. Each
// check's result is kept in the database, so every instance's health
// panel shows the latest, whoever made it.
type AuditChainService struct {
	store  AuditChainStore
	blobs  ContentStore
	key    AuditChainKey
	logger *slog.Logger
	now    Clock
}

// NewAuditChainService returns the chain's checks under key.
func NewAuditChainService(store AuditChainStore, blobs ContentStore, key AuditChainKey, logger *slog.Logger, now Clock) *AuditChainService {
	return &AuditChainService{store: store, blobs: blobs, key: key, logger: logger, now: now}
}

// Verify checks the whole chain and keeps the result as the latest.
// Errors: EUNAVAILABLE (the database or the content store); the chain's
// state is then unknown, and nothing is kept.
func (s *AuditChainService) Verify(ctx context.Context) (domain.AuditChainReport, error) {
	report, err := s.check(ctx)
	if err != nil {
		return report, err
	}
	report.CheckedAt = s.now().UTC()
	if !report.OK {
		s.logger.Error("audit chain broken", "entry", report.FirstBrokenID, "problem", report.Problem)
	}
	return report, s.store.SaveAuditCheck(ctx, report)
}

func (s *AuditChainService) check(ctx context.Context) (domain.AuditChainReport, error) {
	report := domain.AuditChainReport{OK: true}
	broken := func(id int64, problem string, args ...any) (domain.AuditChainReport, error) {
		report.OK, report.FirstBrokenID, report.Problem = false, id, fmt.Sprintf(problem, args...)
		return report, nil
	}
	cp, found, err := s.checkpoint(ctx)
	switch {
	case domain.ErrorKind(err) == domain.EINVALID:
		return broken(0, "The checkpoint of the audit log in the content store is not one the server signed.")
	case err != nil:
		return report, err
	}
	prev, keyed, anchored := []byte{}, false, false
	var after int64
	for {
		links, err := s.store.AuditLinks(ctx, after, auditLinksPage)
		if err != nil {
			return report, err
		}
		for _, l := range links {
			report.Checked++
			if !bytes.Equal(l.PrevHash, prev) {
				return broken(l.ID, "Entry %d does not follow the entry before it: an entry was removed or changed.", l.ID)
			}
			if l.Chain == domain.ChainLegacy && (keyed || found && l.ID > cp.LegacyThrough) {
				return broken(l.ID, "Entry %d claims the unkeyed chain, which ended before it.", l.ID)
			}
			want, err := s.key.Hash(l)
			if err != nil || !bytes.Equal(l.Hash, want) {
				return broken(l.ID, "Entry %d was changed after it was written.", l.ID)
			}
			if found && l.ID == cp.ID {
				if !bytes.Equal(l.Hash, cp.Hash) {
					return broken(l.ID, "Entry %d differs from the checkpoint of %s.", l.ID, cp.At.Format(time.RFC3339))
				}
				anchored = true
			}
			keyed = keyed || l.Chain == domain.ChainKeyed
			prev, after = l.Hash, l.ID
		}
		if len(links) < auditLinksPage {
			break
		}
	}
	if found && !anchored {
		return broken(cp.ID, "Entry %d, the newest at the checkpoint of %s, is missing: the newest entries were removed.", cp.ID, cp.At.Format(time.RFC3339))
	}
	return report, nil
}

// checkpoint reads the signed checkpoint; found is false when there is
// none yet. Errors: EINVALID when it is not signed with the chain's key;
// EUNAVAILABLE.
func (s *AuditChainService) checkpoint(ctx context.Context) (cp domain.AuditCheckpoint, found bool, err error) {
	r, err := s.blobs.Get(ctx, checkpointKey)
	if domain.ErrorKind(err) == domain.ENOTFOUND {
		return cp, false, nil
	}
	if err != nil {
		return cp, false, err
	}
	defer func() { _ = r.Close() }() // read-only: closing reports nothing new
	b, err := io.ReadAll(io.LimitReader(r, 4096))
	if err != nil {
		return cp, false, domain.Wrap(domain.EUNAVAILABLE, err, "The file store is temporarily unavailable.")
	}
	cp, err = s.key.OpenCheckpoint(b)
	return cp, err == nil, err
}

// Checkpoint anchors the chain's head outside the database: the newest
// entry and its hash, signed, in the content store. A checkpoint never
// moves back: a head older than the stored checkpoint (entries removed,
// or a database restored from a backup) leaves it in place for the
// checks to report. Errors: EUNAVAILABLE.
func (s *AuditChainService) Checkpoint(ctx context.Context) error {
	id, hash, err := s.store.AuditHead(ctx)
	if domain.ErrorKind(err) == domain.ENOTFOUND {
		return nil // an empty log: nothing to anchor yet
	}
	if err != nil {
		return err
	}
	old, found, err := s.checkpoint(ctx)
	switch {
	case domain.ErrorKind(err) == domain.EINVALID:
		s.logger.Error("the audit log's checkpoint is not signed with the chain's key; it is kept for the checks to report")
		return nil
	case err != nil:
		return err
	case found && old.ID >= id:
		if old.ID > id {
			s.logger.Error("the audit log's head is older than its checkpoint: entries were removed", "head", id, "checkpoint", old.ID)
		}
		return nil
	}
	cp := domain.AuditCheckpoint{ID: id, Hash: hash, LegacyThrough: old.LegacyThrough, At: s.now().UTC()}
	if !found {
		if cp.LegacyThrough, err = s.store.LastLegacyAuditEntry(ctx); err != nil {
			return err
		}
	}
	return s.blobs.Put(ctx, checkpointKey, bytes.NewReader(s.key.SealCheckpoint(cp)))
}

// Latest returns the latest check's result, by any instance; a zero
// CheckedAt before the first. Errors: EUNAVAILABLE.
func (s *AuditChainService) Latest(ctx context.Context) (domain.AuditChainReport, error) {
	r, err := s.store.LatestAuditCheck(ctx)
	if domain.ErrorKind(err) == domain.ENOTFOUND {
		return domain.AuditChainReport{}, nil
	}
	return r, err
}

// VerifyIfDue checks the whole chain unless some instance did within
// every: the background check, which several instances may run at once
// without each repeating the others' work.
func (s *AuditChainService) VerifyIfDue(ctx context.Context, every time.Duration) (domain.AuditChainReport, error) {
	latest, err := s.Latest(ctx)
	if err != nil {
		return latest, err
	}
	if !latest.CheckedAt.IsZero() && s.now().Sub(latest.CheckedAt) < every {
		return latest, nil
	}
	return s.Verify(ctx)
}
