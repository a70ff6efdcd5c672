package postgres

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/store/postgres/db"
)

// UseAuditChain sets what computes the audit chain's hashes: the store
// appends no entry before it is set (app.New sets it as it builds the
// stack, before anything can append).
func (s *Store) UseAuditChain(chain domain.AuditHasher) { s.chain = chain }

// AppendAudit writes one audit entry, chained to the one before it (S20).
// Call it in the transaction of the change it records (S19): the chain's
// lock is held from drawing the entry's place to the commit, so entries
// commit in chain order. Errors: EINTERNAL before UseAuditChain.
func (s *Store) AppendAudit(ctx context.Context, e domain.AuditEntry) error {
	if s.chain == nil {
		return domain.Errorf(domain.EINTERNAL, "the audit chain's key is not loaded")
	}
	status := "failure"
	if e.Success {
		status = "success"
	}
	actor := optionalID(e.ActorID)
	link := domain.AuditLink{Action: string(e.Action), Table: string(e.Table), RecordID: e.RecordID,
		IP: e.IP, UserAgent: e.UserAgent, Status: status, Reason: e.Reason, Chain: domain.ChainKeyed}
	if actor.Valid {
		link.ActorID = uuid.UUID(actor.Bytes).String()
	}
	return s.InTx(ctx, func(ctx context.Context) error {
		err := s.conn(ctx).QueryRow(ctx, "SELECT id, created_at, prev_hash FROM audit_next()").Scan(&link.ID, &link.CreatedAt, &link.PrevHash)
		if err != nil {
			return translate(err)
		}
		if link.Hash, err = s.chain.Hash(link); err != nil {
			return err
		}
		return translate(s.q(ctx).AppendAudit(ctx, db.AppendAuditParams{
			ID: link.ID, CreatedAt: link.CreatedAt, ActorID: actor, Action: link.Action, TableName: link.Table,
			RecordID: link.RecordID, Ip: link.IP, UserAgent: link.UserAgent, Status: status, Reason: link.Reason,
			Chain: domain.ChainKeyed, PrevHash: link.PrevHash, Hash: link.Hash,
		}))
	})
}

// AuditLinks returns up to limit entries after afterID, in chain order,
// as their hashes cover them.
func (s *Store) AuditLinks(ctx context.Context, afterID int64, limit int) ([]domain.AuditLink, error) {
	rows, err := s.q(ctx).AuditLinks(ctx, db.AuditLinksParams{AfterID: afterID, PageLimit: int32(min(limit, 1<<20))})
	if err != nil {
		return nil, translate(err)
	}
	out := make([]domain.AuditLink, len(rows))
	for i, r := range rows {
		out[i] = domain.AuditLink{ID: r.ID, CreatedAt: r.CreatedAt, Action: r.Action, Table: r.TableName, RecordID: r.RecordID,
			IP: r.Ip, UserAgent: r.UserAgent, Status: r.Status, Reason: r.Reason, Chain: int(r.Chain), PrevHash: r.PrevHash, Hash: r.Hash}
		if r.ActorID.Valid {
			out[i].ActorID = uuid.UUID(r.ActorID.Bytes).String()
		}
	}
	return out, nil
}

// AuditHead returns the newest entry's id and hash.
// Errors: ENOTFOUND for an empty log.
func (s *Store) AuditHead(ctx context.Context) (id int64, hash []byte, err error) {
	h, err := s.q(ctx).AuditHead(ctx)
	return h.ID, h.Hash, translate(err)
}

// LastLegacyAuditEntry returns the newest entry of the unkeyed chain, 0
// when there is none.
func (s *Store) LastLegacyAuditEntry(ctx context.Context) (int64, error) {
	id, err := s.q(ctx).LastLegacyAuditEntry(ctx)
	return id, translate(err)
}

// AuditKeySealed returns the chain's key as sealed. Errors: ENOTFOUND.
func (s *Store) AuditKeySealed(ctx context.Context) ([]byte, error) {
	sealed, err := s.q(ctx).AuditKeySealed(ctx)
	return sealed, translate(err)
}

// InsertAuditKey stores the chain's key unless one is there already.
func (s *Store) InsertAuditKey(ctx context.Context, sealed []byte) error {
	return translate(s.q(ctx).InsertAuditKey(ctx, sealed))
}

// SetAuditKeySealed replaces the sealed key (a rotation of the master key).
func (s *Store) SetAuditKeySealed(ctx context.Context, sealed []byte) error {
	return translate(s.q(ctx).SetAuditKeySealed(ctx, sealed))
}

// SaveAuditCheck keeps r as the latest check of the chain, unless a later
// one is kept already.
func (s *Store) SaveAuditCheck(ctx context.Context, r domain.AuditChainReport) error {
	return translate(s.q(ctx).SaveAuditCheck(ctx, db.SaveAuditCheckParams{CheckedAt: r.CheckedAt, Ok: r.OK, Checked: int64(r.Checked),
		FirstBrokenID: r.FirstBrokenID, Problem: r.Problem}))
}

// LatestAuditCheck returns the latest check of the chain.
// Errors: ENOTFOUND before the first.
func (s *Store) LatestAuditCheck(ctx context.Context) (domain.AuditChainReport, error) {
	r, err := s.q(ctx).LatestAuditCheck(ctx)
	if err != nil {
		return domain.AuditChainReport{}, translate(err)
	}
	return domain.AuditChainReport{OK: r.Ok, Checked: int(r.Checked), CheckedAt: r.CheckedAt.UTC(), FirstBrokenID: r.FirstBrokenID, Problem: r.Problem}, nil
}

// ApproveUser approves a provider's account. Errors: ENOTFOUND.
func (s *Store) ApproveUser(ctx context.Context, id string) (domain.User, error) {
	uid, err := parseID(id)
	if err != nil {
		return domain.User{}, err
	}
	u, err := s.q(ctx).SetUserApproved(ctx, uid)
	if err != nil {
		return domain.User{}, translate(err)
	}
	return toUser(u), nil
}

// Activity returns the activity counted on each day from first to last
// (days in domain.Zone), for the days that had any, oldest first.
func (s *Store) Activity(ctx context.Context, first, last time.Time) ([]domain.DayActivity, error) {
	rows, err := s.q(ctx).ListActivity(ctx, db.ListActivityParams{FirstDay: dateOfTime(first), LastDay: dateOfTime(last)})
	if err != nil {
		return nil, translate(err)
	}
	out := make([]domain.DayActivity, len(rows))
	for i, r := range rows {
		out[i] = domain.DayActivity{Day: time.Date(r.Day.Time.Year(), r.Day.Time.Month(), r.Day.Time.Day(), 0, 0, 0, 0, domain.Zone),
			SignIns: r.SignIns, FailedSignIns: r.FailedSignIns, Uploads: r.Uploads, Shares: r.Shares,
			Verifications: r.Verifications, Views: r.Views, Messages: r.Messages}
	}
	return out, nil
}

// AuditActions returns the actions recorded for one record, oldest first (for tests and reports).
func (s *Store) AuditActions(ctx context.Context, table, recordID string) ([]string, error) {
	rows, err := s.q(ctx).ListAuditForRecord(ctx, db.ListAuditForRecordParams{TableName: table, RecordID: recordID})
	if err != nil {
		return nil, translate(err)
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.Action + ":" + r.Status
	}
	return out, nil
}
