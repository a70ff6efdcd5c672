package postgres

import (
	"context"
	"time"

	"github.com/medishare/medishare/internal/store/postgres/db"
)

// ReplaceCode makes codeHash the one live code of a user for a purpose, in
// one statement, so that concurrent issues for the same account both
// succeed and the last one's code is the live one.
func (s *Store) ReplaceCode(ctx context.Context, userID, purpose string, codeHash []byte, expires time.Time) error {
	uid, err := parseID(userID)
	if err != nil {
		return err
	}
	return translate(s.q(ctx).ReplaceCode(ctx, db.ReplaceCodeParams{UserID: uid, Purpose: purpose, CodeHash: codeHash, ExpiresAt: expires}))
}

// VoidCodes deletes the live codes of a user for the given purposes.
func (s *Store) VoidCodes(ctx context.Context, userID string, purposes ...string) error {
	uid, err := parseID(userID)
	if err != nil {
		return err
	}
	return translate(s.q(ctx).DeleteLiveCodes(ctx, db.DeleteLiveCodesParams{UserID: uid, Purposes: purposes}))
}

// TryCode spends one try of the live code and says whether it matched and
// how many tries are used. found is false when there is no live code (none
// issued, expired, used, or out of tries).
func (s *Store) TryCode(ctx context.Context, userID, purpose string, codeHash []byte, maxTries int) (found, matched bool, tries int, err error) {
	uid, err := parseID(userID)
	if err != nil {
		return false, false, 0, nil
	}
	row, err := s.q(ctx).TryCode(ctx, db.TryCodeParams{UserID: uid, Purpose: purpose, CodeHash: codeHash, MaxTries: int32(maxTries)})
	if err != nil {
		if isNoRows(err) {
			return false, false, 0, nil
		}
		return false, false, 0, translate(err)
	}
	return true, row.Matched, int(row.Tries), nil
}

// UseLinkToken spends a reset link token and returns its user.
// Errors: ENOTFOUND (unknown, used or expired).
func (s *Store) UseLinkToken(ctx context.Context, tokenHash []byte) (string, error) {
	uid, err := s.q(ctx).UseLinkToken(ctx, tokenHash)
	if err != nil {
		return "", translate(err)
	}
	return uid.String(), nil
}
