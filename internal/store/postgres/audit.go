package postgres

import (
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
	report := domain.AuditChainReport{OK: true}
	var after int64
	prev := []byte{}
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
		}
		if len(rows) < 1000 {
			return report, nil
		}
	}
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
