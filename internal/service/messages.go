package service

import (
	"context"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/medishare/medishare/internal/domain"
)

// A sender may send this many messages a minute (api.md, Messages).
var messagesPerMinute = limit{prefix: "message:", reason: "messages sent", max: 30, window: time.Minute,
	message: "You are sending messages too quickly. Please wait a moment and try again."}

// Page sizes of a conversation and of the chat list.
const (
	conversationDefault = 50
	conversationMax     = 100
	chatListMax         = 100
)

// MessageStore is what messaging needs from the database.
type MessageStore interface {
	Transactor
	AuditWriter
	Throttler
	UserByID(ctx context.Context, id string) (domain.User, error)
	InsertMessage(ctx context.Context, m domain.Message) (domain.Message, error)
	Conversation(ctx context.Context, a, b, before string, limit int) ([]domain.Message, error)
	MarkRead(ctx context.Context, recipient, sender string, at time.Time) (int, error)
	Chats(ctx context.Context, userID string, limit int) ([]domain.Chat, error)
	HasWritten(ctx context.Context, sender, recipient string) (bool, error)
	HaveExchanged(ctx context.Context, a, b string) (bool, error)
	Message(ctx context.Context, id string) (domain.Message, error)
	Image(ctx context.Context, id string) (domain.Image, error)
	OpenShares(ctx context.Context, recipientID string, imageIDs []string) ([]domain.Share, error)
	RolePermissions(ctx context.Context, role string) ([]string, error)
	MessagesSince(ctx context.Context, userID, after string, window int64, limit int) ([]domain.Message, error)
	// Notify tells every instance (and, in a transaction, at its commit).
	Notify(ctx context.Context, payload string) error
	// OpenStream, CloseStream and RenewStreams keep the open streams of
	// every instance, each as a lease, so that the cap per person holds
	// across instances.
	OpenStream(ctx context.Context, id, userID string, now, expires time.Time, limit int) (opened bool, err error)
	CloseStream(ctx context.Context, id string) error
	RenewStreams(ctx context.Context, ids []string, now, expires time.Time) error
}

// TextSealer seals message texts for the database (secure.TextSealer).
type TextSealer interface {
	Seal(recordID, text string) []byte
	Open(recordID string, sealed []byte) (string, error)
}

// MessageService sends messages and reads conversations. Texts are sealed
// before they reach the store and never logged or mailed.
type MessageService struct {
	store  MessageStore
	sealer TextSealer
	now    Clock
	hub    *hub
}

// NewMessageService wires the messaging use cases.
func NewMessageService(store MessageStore, sealer TextSealer, now Clock) *MessageService {
	return &MessageService{store: store, sealer: sealer, now: now, hub: newHub()}
}

var (
	errNoSuchChat    = domain.Errorf(domain.ENOTFOUND, "User not found.")
	errNoSuchMessage = domain.Errorf(domain.ENOTFOUND, "Message not found.")
	errCannotMessage = domain.ValidationError("Please choose an active user you may write to.", domain.FieldError{Field: "recipientId", Message: "Please choose an active user you may write to."})
	errMessageToSelf = domain.ValidationError("You cannot send a message to yourself.", domain.FieldError{Field: "recipientId", Message: "You cannot send a message to yourself."})
	errEmptyMessage  = domain.ValidationError("Message cannot be empty.", domain.FieldError{Field: "content", Message: "Message cannot be empty."})
	errLongMessage   = domain.ValidationError("Message cannot be longer than 4000 characters.", domain.FieldError{Field: "content", Message: "Message cannot be longer than 4000 characters."})
	errBadAttachment = domain.ValidationError("Please choose an image you both may see.", domain.FieldError{Field: "imageId", Message: "Please choose an image you both may see."})
)

// SendRequest is the body of POST /api/message/send.
type SendRequest struct {
	RecipientID string
	Content     string
	ImageID     string
}

// Send sends a message from the caller to an active person they may write
// to: one in their directory, or one who has written to them.
// Errors: EFORBIDDEN, EVALIDATION, ETHROTTLED.
func (s *MessageService) Send(ctx context.Context, p *domain.Principal, req SendRequest, meta domain.RequestMeta) (domain.Message, error) {
	if err := require(ctx, s.store, p, domain.PermMessagesSend, meta, forbidden("You are not allowed to send messages.")); err != nil {
		return domain.Message{}, err
	}
	content := strings.TrimSpace(req.Content)
	switch {
	case content == "":
		return domain.Message{}, errEmptyMessage
	case utf8.RuneCountInString(content) > domain.MessageMaxChars:
		return domain.Message{}, errLongMessage
	}
	recipientID := strings.TrimSpace(req.RecipientID)
	if recipientID == p.User.ID {
		return domain.Message{}, errMessageToSelf
	}
	recipient, err := s.writable(ctx, p, recipientID, meta)
	if err != nil {
		return domain.Message{}, err
	}
	if err := messagesPerMinute.hit(ctx, s.store, s.store, s.now, p.User.ID, meta, p.User.ID); err != nil {
		return domain.Message{}, err
	}
	m := domain.Message{ID: uuid.NewString(), SenderID: p.User.ID, RecipientID: recipient.ID}
	if id := strings.TrimSpace(req.ImageID); id != "" {
		if m.Image, err = s.attachment(ctx, p, recipient, id, meta); err != nil {
			return domain.Message{}, err
		}
	}
	m.Sealed = s.sealer.Seal(m.ID, content)
	err = s.store.InTx(ctx, func(ctx context.Context) error {
		var err error
		if m, err = s.store.InsertMessage(ctx, m); err != nil {
			return err
		}
		if err := record(ctx, s.store, meta, Event{Actor: p.User.ID, Action: domain.ActionMessageSend, Table: domain.TableMessages,
			RecordID: m.ID, Success: true, Reason: "to user " + recipient.ID}); err != nil {
			return err
		}
		return s.store.Notify(ctx, messageNotice(m.ID))
	})
	if err != nil {
		return domain.Message{}, err
	}
	m.Content, m.Sealed = content, nil
	return m, nil
}

// writable finds the recipient of a new message: reachable (active, and
// no provider waiting for approval), and in the sender's directory or
// someone who has written to the sender. Nobody, someone unreachable and a
// person out of reach are refused, and recorded, alike: the sender's own
// audit log must not tell them apart, and a provider waiting for approval
// stays unknown to everyone but admins.
func (s *MessageService) writable(ctx context.Context, p *domain.Principal, id string, meta domain.RequestMeta) (domain.User, error) {
	if _, err := uuid.Parse(id); err != nil {
		return domain.User{}, errCannotMessage
	}
	u, err := s.store.UserByID(ctx, id)
	if err != nil && domain.ErrorKind(err) != domain.ENOTFOUND {
		return domain.User{}, err
	}
	if err == nil && u.Reachable() {
		if inDirectory(p, u) {
			return u, nil
		}
		wrote, err := s.store.HasWritten(ctx, u.ID, p.User.ID)
		if err != nil {
			return domain.User{}, err
		}
		if wrote {
			return u, nil
		}
	}
	return domain.User{}, refuse(ctx, s.store, meta, Event{Actor: p.User.ID, Table: domain.TableUsers, RecordID: auditID(id),
		Reason: "message: recipient out of reach"}, errCannotMessage)
}

// attachment is the image a message is about (api.md, Messages). Both
// people must see it already, so attaching grants nothing, and the sender
// must already know that the recipient does, so the answer never tells
// them who else holds a share: one who may open every image or uploaded it
// may know every share of it; one who sees it through a share knows only
// its uploader, who shared it with them, and those who may open every
// image. Every refusal is the same answer, and an image that does not exist
// is refused as one the sender does not see. Errors: EVALIDATION.
func (s *MessageService) attachment(ctx context.Context, p *domain.Principal, recipient domain.User, id string, meta domain.RequestMeta) (*domain.MessageImage, error) {
	denied := Event{Actor: p.User.ID, Table: domain.TableImages, RecordID: auditID(id)}
	im, err := s.store.Image(ctx, id)
	if err != nil && domain.ErrorKind(err) != domain.ENOTFOUND {
		return nil, err
	}
	att := domain.MessageImage{ID: im.ID, Caption: im.Caption, UploaderID: im.UploadedBy.ID}
	var via *domain.Share
	seen := false
	if err == nil {
		if via, seen, err = s.sight(ctx, p, att); err != nil {
			return nil, err
		}
	}
	if !seen {
		denied.Reason = "message attachment: not seen by user " + p.User.ID
		return nil, refuse(ctx, s.store, meta, denied, errBadAttachment)
	}
	perms, err := s.store.RolePermissions(ctx, recipient.Role)
	if err != nil {
		return nil, err
	}
	them := &domain.Principal{User: recipient, Permissions: perms}
	if via != nil && recipient.ID != att.UploaderID && recipient.ID != via.SharedBy.ID && !them.Can(domain.PermImagesReadAll) {
		denied.Reason = "message attachment: whether user " + recipient.ID + " sees it is not the sender's to know"
		return nil, refuse(ctx, s.store, meta, denied, errBadAttachment)
	}
	if _, seen, err = s.sight(ctx, them, att); err != nil {
		return nil, err
	}
	if !seen {
		denied.Reason = "message attachment: not seen by user " + recipient.ID
		return nil, refuse(ctx, s.store, meta, denied, errBadAttachment)
	}
	return &att, nil
}

// sight is sights for one image: whether who may see it now, and through
// which share.
func (s *MessageService) sight(ctx context.Context, who *domain.Principal, im domain.MessageImage) (*domain.Share, bool, error) {
	seen, err := s.sights(ctx, who, []domain.MessageImage{im})
	if err != nil {
		return nil, false, err
	}
	via, ok := seen[im.ID]
	return via, ok, nil
}

// sights returns which of images who may see now, each with the share it
// is seen through: whoever may open every image and its uploader (no
// share), or, with images:view-shared, the recipient of a verified share
// of it that is still open (what ImageService.Get opens to them).
func (s *MessageService) sights(ctx context.Context, who *domain.Principal, images []domain.MessageImage) (map[string]*domain.Share, error) {
	seen := map[string]*domain.Share{}
	var shared []string
	for _, im := range images {
		switch {
		case who.Can(domain.PermImagesReadAll) || im.UploaderID == who.User.ID:
			seen[im.ID] = nil
		case who.Can(domain.PermImagesViewShared):
			shared = append(shared, im.ID)
		}
	}
	if len(shared) == 0 {
		return seen, nil
	}
	shares, err := s.store.OpenShares(ctx, who.User.ID, shared)
	if err != nil {
		return nil, err
	}
	now := s.now()
	for i := range shares {
		if shares[i].Opens(now) {
			seen[shares[i].ImageID] = &shares[i]
		}
	}
	return seen, nil
}

// showAttachments leaves on msgs only what reader may see of their images
// now: an image they may no longer see (a share revoked or expired, the
// image deleted) is only Unavailable, without its id or caption, in every
// place a message is read (api.md, Messages).
func (s *MessageService) showAttachments(ctx context.Context, reader *domain.Principal, msgs []domain.Message) error {
	var images []domain.MessageImage
	for _, m := range msgs {
		if m.Image != nil && !m.Image.Unavailable {
			images = append(images, *m.Image)
		}
	}
	if len(images) == 0 {
		return nil
	}
	seen, err := s.sights(ctx, reader, images)
	if err != nil {
		return err
	}
	for i := range msgs {
		if im := msgs[i].Image; im != nil {
			if _, ok := seen[im.ID]; !ok || im.Unavailable {
				msgs[i].Image = &domain.MessageImage{Unavailable: true}
			}
		}
	}
	return nil
}

// inDirectory reports whether u is listed in the caller's directory by
// role and state (domain.DirectoryOf). The callers have already set the
// caller themselves aside.
func inDirectory(p *domain.Principal, u domain.User) bool {
	return domain.DirectoryOf(p).Includes(u)
}

// Conversation returns a page of the caller's messages with another person,
// oldest first, and whether older ones exist; it marks what that person
// wrote to the caller read. Errors: ENOTFOUND (a person out of reach, or a
// before that is no message of theirs).
func (s *MessageService) Conversation(ctx context.Context, p *domain.Principal, otherID, before string, limit int, meta domain.RequestMeta) ([]domain.Message, bool, error) {
	if limit <= 0 {
		limit = conversationDefault
	}
	limit = min(limit, conversationMax)
	if err := s.readable(ctx, p, otherID, meta); err != nil {
		return nil, false, err
	}
	page, err := s.store.Conversation(ctx, p.User.ID, otherID, before, limit+1)
	if err != nil {
		return nil, false, notFound(err, errNoSuchMessage)
	}
	more := len(page) > limit
	page = page[:min(len(page), limit)]
	now := s.now().UTC()
	if before == "" {
		n, err := s.store.MarkRead(ctx, p.User.ID, otherID, now)
		if err == nil && n > 0 {
			err = s.store.Notify(ctx, readNotice(p.User.ID, otherID, now))
		}
		if err != nil {
			return nil, false, err
		}
	}
	slices.Reverse(page)
	for i := range page {
		if page[i].RecipientID == p.User.ID && page[i].ReadAt == nil {
			page[i].ReadAt = &now
		}
		if err := s.open(&page[i]); err != nil {
			return nil, false, err
		}
	}
	if err := s.showAttachments(ctx, p, page); err != nil {
		return nil, false, err
	}
	return page, more, nil
}

// open puts the clear text of a message read from the store in place of
// its sealed text.
func (s *MessageService) open(m *domain.Message) error {
	text, err := s.sealer.Open(m.ID, m.Sealed)
	if err != nil {
		return err
	}
	m.Content, m.Sealed = text, nil
	return nil
}

// readable checks that the caller may read their conversation with id:
// the person is in their directory, or they have exchanged messages.
// Nobody and a person out of reach (a provider waiting for approval too)
// are refused, and recorded, alike.
func (s *MessageService) readable(ctx context.Context, p *domain.Principal, id string, meta domain.RequestMeta) error {
	if _, err := uuid.Parse(id); err != nil || id == p.User.ID {
		return errNoSuchChat
	}
	u, err := s.store.UserByID(ctx, id)
	if err != nil && domain.ErrorKind(err) != domain.ENOTFOUND {
		return err
	}
	if err == nil && inDirectory(p, u) {
		return nil
	}
	exchanged, err := s.store.HaveExchanged(ctx, p.User.ID, id)
	if err != nil {
		return err
	}
	if !exchanged {
		return refuse(ctx, s.store, meta, Event{Actor: p.User.ID, Table: domain.TableUsers, RecordID: auditID(id), Reason: "messages: person out of reach"}, errNoSuchChat)
	}
	return nil
}

// Chats returns the caller's conversations, newest first (at most
// chatListMax), with their newest message opened.
func (s *MessageService) Chats(ctx context.Context, p *domain.Principal) ([]domain.Chat, error) {
	chats, err := s.store.Chats(ctx, p.User.ID, chatListMax)
	if err != nil {
		return nil, err
	}
	for i := range chats {
		if err := s.open(&chats[i].Last); err != nil {
			return nil, err
		}
	}
	return chats, nil
}
