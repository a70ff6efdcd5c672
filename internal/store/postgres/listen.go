package postgres

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
)

// EventsChannel is the PostgreSQL channel on which instances tell each
// other about new messages and read receipts. A notification carries ids
// only (a payload is capped at 8000 bytes, and texts never leave sealed).
const EventsChannel = "medishare_events"

// Notify sends payload on EventsChannel; inside a transaction it is
// delivered when, and only if, the transaction commits.
func (s *Store) Notify(ctx context.Context, payload string) error {
	_, err := s.conn(ctx).Exec(ctx, "SELECT pg_notify($1, $2)", EventsChannel, payload)
	return translate(err)
}

// Listen holds one connection of its own listening on EventsChannel until
// ctx ends, calling deliver with each payload. When the connection fails
// (a database restart), it connects again by itself, waiting 1 s, then
// longer up to 10 s, and calls resync once listening again: notifications
// sent meanwhile are lost (delivery is at most once), so listeners catch
// up from the database.
func (d *DB) Listen(ctx context.Context, logger *slog.Logger, deliver func(payload string), resync func()) {
	wait := time.Second
	for first := true; ctx.Err() == nil; first = false {
		err := d.listenOnce(ctx, deliver, func() {
			wait = time.Second
			if !first {
				resync()
			}
		})
		if ctx.Err() != nil {
			return
		}
		logger.Warn("listening for message events: connection lost, reconnecting", "err", err, "in", wait.String())
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, 10*time.Second)
	}
}

func (d *DB) listenOnce(ctx context.Context, deliver func(string), listening func()) error {
	conn, err := pgx.ConnectConfig(ctx, d.Pool.Config().ConnConfig.Copy())
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close(context.Background()) }() // the connection is done with, failed or not
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{EventsChannel}.Sanitize()); err != nil {
		return err
	}
	listening()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		deliver(n.Payload)
	}
}
