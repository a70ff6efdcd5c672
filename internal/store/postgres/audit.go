package postgres

import (
	"time"

	"bytes"
	"context"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/store/postgres/db"
)

// AppendAudit writes one audit entry; the database chains it (S20). Call it
// in the transaction of the change it records (S19).
func (s *Store) AppendAudit(ctx context.Context, e domain.AuditEntry) error {
	status := "failure"
	if e.Success {
		status = "success"
	}
	return translate(s.q(ctx).AppendAudit(ctx, db.AppendAuditParams{
		ActorID: optionalID(e.ActorID), Action: string(e.Action), TableName: string(e.Table), RecordID: e.RecordID,
		Ip: e.IP, UserAgent: e.UserAgent, Status: status, Reason: e.Reason,
	}))
}

// VerifyAuditChain recomputes every entry's hash and checks that each entry
// names its predecessor's hash: an edited entry breaks the first, a deleted
// one the second.
func (s *Store) VerifyAuditChain(ctx context.Context) (domain.AuditChainReport, error) {
	return s.VerifyAuditChainFrom(ctx, domain.AuditChainMark{}, 0)
}

// VerifyAuditChainFrom checks the entries after from (the whole chain from
// the zero mark), trusting from itself, and stops after about most of them
// (0: no bound): the admin dashboard's check, a step at a time, of what
// was appended since its last one.
func (s *Store) VerifyAuditChainFrom(ctx context.Context, from domain.AuditChainMark, most int) (domain.AuditChainReport, error) {
	report := domain.AuditChainReport{OK: true, Last: from}
	after, prev := from.ID, from.Hash
	if prev == nil {
		prev = []byte{}
	}
	for {
		rows, err := s.q(ctx).AuditChain(ctx, db.AuditChainParams{AfterID: after, PageLimit: 1000})
		if err != nil {
			return report, translate(err)
		}
		for _, r := range rows {
			report.Checked++
			if !bytes.Equal(r.PrevHash, prev) || !bytes.Equal(r.Hash, r.Expected) {
				report.OK = false
				report.FirstBrokenID = r.ID
				return report, nil
			}
			prev = r.Hash
			after = r.ID
			report.Last = domain.AuditChainMark{ID: r.ID, Hash: r.Hash}
		}
		if len(rows) < 1000 || most > 0 && report.Checked >= most {
			return report, nil
		}
	}
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
