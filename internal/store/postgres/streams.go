package postgres

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/medishare/medishare/internal/store/postgres/db"
)

// OpenStream records stream id of userID, open until expires, unless the
// person already holds limit streams still open at now (on any instance);
// opened is false then. Claims for one person take turns, so the limit
// holds however many arrive at once.
func (s *Store) OpenStream(ctx context.Context, id, userID string, now, expires time.Time, limit int) (opened bool, err error) {
	ids, err := parseIDs(id, userID)
	if err != nil {
		return false, err
	}
	err = s.InTx(ctx, func(ctx context.Context) error {
		q := s.q(ctx)
		if err := q.LockUserStreams(ctx, ids[1]); err != nil {
			return translate(err)
		}
		n, err := q.CountOpenStreams(ctx, db.CountOpenStreamsParams{UserID: ids[1], Now: now})
		if err != nil {
			return translate(err)
		}
		if n >= int64(limit) {
			return nil
		}
		if err := q.InsertStream(ctx, db.InsertStreamParams{ID: ids[0], UserID: ids[1], ExpiresAt: expires}); err != nil {
			return translate(err)
		}
		opened = true
		return nil
	})
	return opened && err == nil, err
}

// CloseStream forgets stream id, freeing its place at once.
func (s *Store) CloseStream(ctx context.Context, id string) error {
	uid, err := parseID(id)
	if err != nil {
		return nil
	}
	return translate(s.q(ctx).DeleteStream(ctx, uid))
}

// RenewStreams keeps the streams ids open until expires, and forgets every
// stream, of any instance, whose lease ran out before now (an instance
// that died could not close its own).
func (s *Store) RenewStreams(ctx context.Context, ids []string, now, expires time.Time) error {
	uids := make([]uuid.UUID, 0, len(ids))
	for _, id := range ids {
		if u, err := uuid.Parse(id); err == nil {
			uids = append(uids, u)
		}
	}
	q := s.q(ctx)
	if err := q.RenewStreams(ctx, db.RenewStreamsParams{Ids: uids, ExpiresAt: expires}); err != nil {
		return translate(err)
	}
	return translate(q.DeleteExpiredStreams(ctx, now))
}
