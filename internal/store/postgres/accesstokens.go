package postgres

import (
	"context"
	"time"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/store/postgres/db"
)

// LockUserAccessTokens makes the creations of one person's tokens take
// turns until the transaction in ctx ends, so the cap of live tokens holds
// under concurrent creations. Call it inside InTx.
func (s *Store) LockUserAccessTokens(ctx context.Context, userID string) error {
	uid, err := parseID(userID)
	if err != nil {
		return err
	}
	return translate(s.q(ctx).LockUserAccessTokens(ctx, uid))
}

// CountLiveAccessTokens counts a person's tokens neither revoked nor expired at now.
func (s *Store) CountLiveAccessTokens(ctx context.Context, userID string, now time.Time) (int, error) {
	uid, err := parseID(userID)
	if err != nil {
		return 0, err
	}
	n, err := s.q(ctx).CountLiveAccessTokens(ctx, db.CountLiveAccessTokensParams{UserID: uid, Now: now})
	return int(n), translate(err)
}

// CreateAccessToken stores a new token under the keyed hash of its secret.
func (s *Store) CreateAccessToken(ctx context.Context, userID, name string, tokenHash []byte, created, expires time.Time) (domain.AccessToken, error) {
	uid, err := parseID(userID)
	if err != nil {
		return domain.AccessToken{}, err
	}
	r, err := s.q(ctx).InsertAccessToken(ctx, db.InsertAccessTokenParams{
		UserID: uid, Name: name, TokenHash: tokenHash, CreatedAt: created, ExpiresAt: expires,
	})
	if err != nil {
		return domain.AccessToken{}, translate(err)
	}
	return toAccessToken(db.ListLiveAccessTokensRow(r)), nil
}

// LiveAccessTokens lists a person's tokens neither revoked nor expired at
// now, newest first.
func (s *Store) LiveAccessTokens(ctx context.Context, userID string, now time.Time) ([]domain.AccessToken, error) {
	uid, err := parseID(userID)
	if err != nil {
		return nil, err
	}
	rows, err := s.q(ctx).ListLiveAccessTokens(ctx, db.ListLiveAccessTokensParams{UserID: uid, Now: now})
	if err != nil {
		return nil, translate(err)
	}
	out := make([]domain.AccessToken, len(rows))
	for i, r := range rows {
		out[i] = toAccessToken(r)
	}
	return out, nil
}

// RevokeAccessToken ends one of a person's tokens at now (a token already
// revoked keeps its first revocation). Errors: ENOTFOUND (no such token of
// this person).
func (s *Store) RevokeAccessToken(ctx context.Context, userID, id, reason string, now time.Time) (domain.AccessToken, error) {
	uid, err := parseID(userID)
	if err != nil {
		return domain.AccessToken{}, err
	}
	tid, err := parseID(id)
	if err != nil {
		return domain.AccessToken{}, err
	}
	r, err := s.q(ctx).RevokeAccessToken(ctx, db.RevokeAccessTokenParams{Now: now, Reason: textOf(reason), ID: tid, UserID: uid})
	if err != nil {
		return domain.AccessToken{}, translate(err)
	}
	return toAccessToken(db.ListLiveAccessTokensRow(r)), nil
}

// RevokeUserAccessTokens ends every live token of a person at now.
func (s *Store) RevokeUserAccessTokens(ctx context.Context, userID, reason string, now time.Time) error {
	uid, err := parseID(userID)
	if err != nil {
		return err
	}
	return translate(s.q(ctx).RevokeUserAccessTokens(ctx, db.RevokeUserAccessTokensParams{Now: now, Reason: textOf(reason), UserID: uid}))
}

// AccessTokenPrincipal loads the caller behind a token's keyed hash: its
// owner, their current role and permissions. A revoked token, one expired
// at now, or one whose owner is inactive or deleted, is ENOTFOUND, like an
// unknown one.
func (s *Store) AccessTokenPrincipal(ctx context.Context, tokenHash []byte, now time.Time) (domain.Principal, error) {
	r, err := s.q(ctx).GetAccessTokenPrincipal(ctx, tokenHash)
	if err != nil {
		return domain.Principal{}, translate(err)
	}
	if r.RevokedAt.Valid || !r.ExpiresAt.After(now) || !r.User.Active || r.User.DeletedAt.Valid {
		return domain.Principal{}, domain.Errorf(domain.ENOTFOUND, "Not found.")
	}
	return domain.Principal{User: toUser(r.User), AccessTokenID: r.TokenID.String(), Permissions: r.Permissions}, nil
}

// TouchAccessToken records that a token was used at now, unless it was
// already within the minute before; it reports whether it wrote.
func (s *Store) TouchAccessToken(ctx context.Context, id string, now time.Time) (bool, error) {
	tid, err := parseID(id)
	if err != nil {
		return false, err
	}
	_, err = s.q(ctx).TouchAccessToken(ctx, db.TouchAccessTokenParams{Now: now, ID: tid, StaleBefore: now.Add(-time.Minute)})
	if domain.ErrorKind(translate(err)) == domain.ENOTFOUND {
		return false, nil
	}
	return err == nil, translate(err)
}

func toAccessToken(r db.ListLiveAccessTokensRow) domain.AccessToken {
	return domain.AccessToken{
		ID: r.ID.String(), UserID: r.UserID.String(), Name: r.Name, CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt,
		LastUsedAt: timePtr(r.LastUsedAt), RevokedAt: timePtr(r.RevokedAt),
	}
}
