package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/medishare/medishare/internal/store/postgres/db"
)

// ThrottleHits returns the hits counted for key in the window that is still
// running, and when that window began.
func (s *Store) ThrottleHits(ctx context.Context, key string, period time.Duration) (int, time.Time, error) {
	row, err := s.q(ctx).GetThrottle(ctx, key)
	if err != nil {
		if isNoRows(err) {
			return 0, time.Time{}, nil
		}
		return 0, time.Time{}, translate(err)
	}
	if time.Since(row.WindowStart) >= period {
		return 0, time.Time{}, nil
	}
	return int(row.Hits), row.WindowStart, nil
}

// HitThrottle counts one hit for key and returns the hits in the window.
func (s *Store) HitThrottle(ctx context.Context, key string, period time.Duration) (int, time.Time, error) {
	row, err := s.q(ctx).HitThrottle(ctx, db.HitThrottleParams{Key: key, Period: pgtype.Interval{Microseconds: period.Microseconds(), Valid: true}})
	if err != nil {
		return 0, time.Time{}, translate(err)
	}
	return int(row.Hits), row.WindowStart, nil
}

// ClearThrottle forgets the hits of key.
func (s *Store) ClearThrottle(ctx context.Context, key string) error {
	return translate(s.q(ctx).ClearThrottle(ctx, key))
}
