package postgres

import (
	"context"
	"math"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/store/postgres/db"
)

// InsertMessage stores m (its id, people, sealed text and image) and
// returns it with its place and time.
func (s *Store) InsertMessage(ctx context.Context, m domain.Message) (domain.Message, error) {
	var image pgtype.UUID
	if m.Image != nil {
		image = optionalID(m.Image.ID)
	}
	row, err := s.q(ctx).InsertMessage(ctx, db.InsertMessageParams{
		ID: uuid.MustParse(m.ID), SenderID: uuid.MustParse(m.SenderID), RecipientID: uuid.MustParse(m.RecipientID),
		Sealed: m.Sealed, ImageID: image, ImageAttached: m.Image != nil,
	})
	if err != nil {
		return domain.Message{}, translate(err)
	}
	m.Seq, m.CreatedAt = row.Seq, row.CreatedAt.UTC()
	return m, nil
}

// Conversation returns up to limit messages between a and b written
// before the message before (the newest when empty), newest first.
// Errors: ENOTFOUND when before is no message of theirs.
func (s *Store) Conversation(ctx context.Context, a, b, before string, limit int) ([]domain.Message, error) {
	ua, ub := uuid.MustParse(a), uuid.MustParse(b)
	beforeSeq := int64(math.MaxInt64)
	if before != "" {
		id, err := uuid.Parse(before)
		if err != nil {
			return nil, domain.Errorf(domain.ENOTFOUND, "message not found")
		}
		if beforeSeq, err = s.q(ctx).MessageSeq(ctx, db.MessageSeqParams{ID: id, A: ua, B: ub}); err != nil {
			return nil, translate(err)
		}
	}
	rows, err := s.q(ctx).ConversationPage(ctx, db.ConversationPageParams{A: ua, B: ub, BeforeSeq: beforeSeq, PageLimit: int32(limit)})
	if err != nil {
		return nil, translate(err)
	}
	out := make([]domain.Message, len(rows))
	for i, r := range rows {
		out[i] = toMessage(r)
	}
	return out, nil
}

// toMessage is a message row (every query reading whole messages gives the
// same columns as ConversationPage).
func toMessage(r db.ConversationPageRow) domain.Message {
	m := domain.Message{
		ID: r.ID.String(), SenderID: r.SenderID.String(), RecipientID: r.RecipientID.String(),
		Sealed: r.Sealed, CreatedAt: r.CreatedAt.UTC(), ReadAt: timePtr(r.ReadAt), Seq: r.Seq,
	}
	switch {
	case r.ImageID.Valid:
		m.Image = &domain.MessageImage{ID: uuid.UUID(r.ImageID.Bytes).String(), Caption: r.ImageCaption,
			UploaderID: uuid.UUID(r.ImageUploaderID.Bytes).String()}
	case r.ImageAttached: // the image was deleted
		m.Image = &domain.MessageImage{Unavailable: true}
	}
	return m
}

// Message returns one message. Errors: ENOTFOUND.
func (s *Store) Message(ctx context.Context, id string) (domain.Message, error) {
	uid, err := uuid.Parse(id)
	if err != nil {
		return domain.Message{}, domain.Errorf(domain.ENOTFOUND, "message not found")
	}
	r, err := s.q(ctx).MessageByID(ctx, uid)
	if err != nil {
		return domain.Message{}, translate(err)
	}
	return toMessage(db.ConversationPageRow(r)), nil
}

// MessagesSince returns up to limit of the user's messages, sent or
// received, written after the message after (all of them when empty),
// oldest first. Errors: ENOTFOUND when after is no message of theirs.
func (s *Store) MessagesSince(ctx context.Context, userID, after string, window int64, limit int) ([]domain.Message, error) {
	uid := uuid.MustParse(userID)
	var seq int64
	if after != "" {
		id, err := uuid.Parse(after)
		if err != nil {
			return nil, domain.Errorf(domain.ENOTFOUND, "message not found")
		}
		if seq, err = s.q(ctx).MessageSeqOf(ctx, db.MessageSeqOfParams{ID: id, UserID: uid}); err != nil {
			return nil, translate(err)
		}
	}
	rows, err := s.q(ctx).MessagesOfSince(ctx, db.MessagesOfSinceParams{UserID: uid, AfterSeq: max(seq-window, 0), MaxRows: int32(limit)})
	if err != nil {
		return nil, translate(err)
	}
	out := make([]domain.Message, len(rows))
	for i, r := range rows {
		out[i] = toMessage(db.ConversationPageRow(r))
	}
	return out, nil
}

// MarkRead marks what sender wrote to recipient read at at, and says how
// many messages that was.
func (s *Store) MarkRead(ctx context.Context, recipient, sender string, at time.Time) (int, error) {
	seqs, err := s.q(ctx).MarkConversationRead(ctx, db.MarkConversationReadParams{
		RecipientID: uuid.MustParse(recipient), SenderID: uuid.MustParse(sender), ReadAt: pgtype.Timestamptz{Time: at, Valid: true},
	})
	return len(seqs), translate(err)
}

// Chats returns the user's newest limit conversations, newest first.
func (s *Store) Chats(ctx context.Context, userID string, limit int) ([]domain.Chat, error) {
	rows, err := s.q(ctx).ChatList(ctx, db.ChatListParams{UserID: uuid.MustParse(userID), PageLimit: int32(limit)})
	if err != nil {
		return nil, translate(err)
	}
	out := make([]domain.Chat, len(rows))
	for i, r := range rows {
		out[i] = domain.Chat{
			Other: domain.Person{ID: r.OtherID.String(), Firstname: r.Firstname, Lastname: r.Lastname}, Role: r.Role,
			Last: domain.Message{
				ID: r.LastID.String(), SenderID: r.LastSenderID.String(), RecipientID: r.LastRecipientID.String(),
				Sealed: r.LastSealed, CreatedAt: r.LastCreatedAt.UTC(),
			},
			Unread: int(r.Unread),
		}
	}
	return out, nil
}

// HasWritten reports whether sender has ever written to recipient.
func (s *Store) HasWritten(ctx context.Context, sender, recipient string) (bool, error) {
	ok, err := s.q(ctx).HasWritten(ctx, db.HasWrittenParams{SenderID: uuid.MustParse(sender), RecipientID: uuid.MustParse(recipient)})
	return ok, translate(err)
}

// HaveExchanged reports whether a and b have written to each other, either way.
func (s *Store) HaveExchanged(ctx context.Context, a, b string) (bool, error) {
	ok, err := s.q(ctx).HaveExchanged(ctx, db.HaveExchangedParams{A: uuid.MustParse(a), B: uuid.MustParse(b)})
	return ok, translate(err)
}

// MessagesNotUnder returns up to 500 messages sealed under another key
// than keyID.
func (s *Store) MessagesNotUnder(ctx context.Context, keyID []byte) ([]domain.SealedText, error) {
	rows, err := s.q(ctx).MessagesNotUnder(ctx, keyID)
	out := make([]domain.SealedText, len(rows))
	for i, r := range rows {
		out[i] = domain.SealedText{ID: r.ID.String(), Sealed: r.Sealed}
	}
	return out, translate(err)
}

// SetMessageSealed replaces a message's sealed text.
func (s *Store) SetMessageSealed(ctx context.Context, id string, sealed []byte) error {
	return translate(s.q(ctx).SetMessageSealed(ctx, db.SetMessageSealedParams{ID: uuid.MustParse(id), Sealed: sealed}))
}
