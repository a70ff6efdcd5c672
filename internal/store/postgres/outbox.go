package postgres

import (
	"context"

	"github.com/google/uuid"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/store/postgres/db"
)

// QueueMail adds a sealed mail to the outbox, in the caller's transaction
// when there is one. Errors: EUNAVAILABLE.
func (s *Store) QueueMail(ctx context.Context, id string, sealed []byte) error {
	uid, err := parseID(id)
	if err != nil {
		return err
	}
	return translate(s.q(ctx).QueueMail(ctx, db.QueueMailParams{ID: uid, Sealed: sealed}))
}

// NextDueMail locks the mail due longest that no other sender holds, until
// the caller's transaction ends. Errors: ENOTFOUND (nothing due), EUNAVAILABLE.
func (s *Store) NextDueMail(ctx context.Context) (domain.QueuedMail, error) {
	r, err := s.q(ctx).NextDueMail(ctx)
	if err != nil {
		return domain.QueuedMail{}, translate(err)
	}
	return domain.QueuedMail{ID: r.ID.String(), Sealed: r.Sealed, Attempts: int(r.Attempts), CreatedAt: r.CreatedAt.UTC()}, nil
}

// DeleteMail removes a mail that was sent or given up.
func (s *Store) DeleteMail(ctx context.Context, id string) error {
	return translate(s.q(ctx).DeleteMail(ctx, uuid.MustParse(id)))
}

// PostponeMail counts a failed attempt and sets the next one after seconds.
func (s *Store) PostponeMail(ctx context.Context, id string, seconds float64) error {
	return translate(s.q(ctx).PostponeMail(ctx, db.PostponeMailParams{ID: uuid.MustParse(id), AfterSeconds: seconds}))
}

// MailQueued counts the mails waiting, up to limit.
func (s *Store) MailQueued(ctx context.Context, limit int) (int, error) {
	n, err := s.q(ctx).MailQueued(ctx, int64(limit))
	return int(n), translate(err)
}

// MailNotUnder returns up to 500 queued mails sealed under another key than keyID.
func (s *Store) MailNotUnder(ctx context.Context, keyID []byte) ([]domain.SealedText, error) {
	rows, err := s.q(ctx).MailNotUnder(ctx, keyID)
	out := make([]domain.SealedText, len(rows))
	for i, r := range rows {
		out[i] = domain.SealedText{ID: r.ID.String(), Sealed: r.Sealed}
	}
	return out, translate(err)
}

// SetMailSealed replaces a queued mail's sealed content.
func (s *Store) SetMailSealed(ctx context.Context, id string, sealed []byte) error {
	return translate(s.q(ctx).SetMailSealed(ctx, db.SetMailSealedParams{ID: uuid.MustParse(id), Sealed: sealed}))
}
