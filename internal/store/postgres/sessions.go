package postgres

import (
	"context"
	"time"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/store/postgres/db"
)

// CreateSession starts a session for a user and returns its id.
func (s *Store) CreateSession(ctx context.Context, userID string, expires time.Time, meta domain.RequestMeta) (string, error) {
	uid, err := parseID(userID)
	if err != nil {
		return "", err
	}
	sess, err := s.q(ctx).CreateSession(ctx, db.CreateSessionParams{UserID: uid, ExpiresAt: expires, Ip: meta.IP, UserAgent: meta.UserAgent})
	if err != nil {
		return "", translate(err)
	}
	return sess.ID.String(), nil
}

// Principal loads the caller behind a session: its user, current role and
// permissions. A revoked or expired session, or an inactive or deleted user,
// is ENOTFOUND.
func (s *Store) Principal(ctx context.Context, sessionID string) (domain.Principal, error) {
	sid, err := parseID(sessionID)
	if err != nil {
		return domain.Principal{}, err
	}
	r, err := s.q(ctx).GetSessionPrincipal(ctx, sid)
	if err != nil {
		return domain.Principal{}, translate(err)
	}
	if r.RevokedAt.Valid || !r.ExpiresAt.After(time.Now()) || !r.User.Active || r.User.DeletedAt.Valid {
		return domain.Principal{}, domain.Errorf(domain.ENOTFOUND, "Not found.")
	}
	u := toUser(r.User)
	return domain.Principal{User: u, SessionID: r.SessionID.String(), Permissions: r.Permissions, EnrolmentOnly: r.EnrolmentOnly}, nil
}

// RevokeSession ends one session.
func (s *Store) RevokeSession(ctx context.Context, sessionID, reason string) error {
	sid, err := parseID(sessionID)
	if err != nil {
		return err
	}
	return translate(s.q(ctx).RevokeSession(ctx, db.RevokeSessionParams{ID: sid, Reason: textOf(reason)}))
}

// RevokeUserSessions ends every session of a user except exceptSessionID (may be empty).
func (s *Store) RevokeUserSessions(ctx context.Context, userID, exceptSessionID, reason string) error {
	uid, err := parseID(userID)
	if err != nil {
		return err
	}
	return translate(s.q(ctx).RevokeUserSessions(ctx, db.RevokeUserSessionsParams{
		UserID: uid, ExceptID: optionalID(exceptSessionID).Bytes, Reason: textOf(reason),
	}))
}

// AddRefreshToken records a refresh token (by its hash) for a session.
func (s *Store) AddRefreshToken(ctx context.Context, sessionID string, tokenHash []byte) error {
	sid, err := parseID(sessionID)
	if err != nil {
		return err
	}
	return translate(s.q(ctx).CreateRefreshToken(ctx, db.CreateRefreshTokenParams{TokenHash: tokenHash, SessionID: sid}))
}

// UseRefreshToken marks a refresh token used and returns its session, and
// whether it had been used before (a replay). Call it inside InTx.
// Errors: ENOTFOUND (unknown token).
func (s *Store) UseRefreshToken(ctx context.Context, tokenHash []byte) (sessionID string, replayed bool, err error) {
	row, err := s.q(ctx).LockRefreshToken(ctx, tokenHash)
	if err != nil {
		return "", false, translate(err)
	}
	if row.UsedAt.Valid {
		return row.SessionID.String(), true, nil
	}
	if err := s.q(ctx).MarkRefreshTokenUsed(ctx, tokenHash); err != nil {
		return "", false, translate(err)
	}
	return row.SessionID.String(), false, nil
}
