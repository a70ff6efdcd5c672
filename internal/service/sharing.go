package service

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/mail"
	"github.com/medishare/medishare/internal/secure"
)

// Settings that bound a share's lifetime (migrations/00001_settings.sql).
const (
	settingShareDefaultHours = "share_lifetime_default_hours"
	settingShareMaxHours     = "share_lifetime_max_hours"
	fallbackShareHours       = 24
	fallbackShareMaxHours    = 168
)

// A sharer may mail one recipient this many share codes an hour, so nobody's
// mailbox can be flooded with codes (S3).
const (
	sharesPerRecipientHour = 30
	shareThrottleWindow    = time.Hour
)

// codePurposeShare keys the hash of share codes apart from every other code.
const codePurposeShare = "share"

// SharingStore is what sharing needs from the database.
type SharingStore interface {
	Transactor
	AuditWriter
	UserByID(ctx context.Context, id string) (domain.User, error)
	Image(ctx context.Context, id string) (domain.Image, error)
	Setting(ctx context.Context, key string) (json.RawMessage, error)
	OpenShare(ctx context.Context, sh domain.Share, codeHash []byte) (revokedEarlier bool, err error)
	TryShareCode(ctx context.Context, shareID, recipientID string, codeHash []byte, now time.Time, maxTries int) (found, matched bool, tries int, err error)
	Share(ctx context.Context, id string) (domain.Share, error)
	RevokeShare(ctx context.Context, id string, now time.Time) (bool, error)
	MarkShareExpiryLogged(ctx context.Context, id string) (bool, error)
	HitThrottle(ctx context.Context, key string, period time.Duration) (int, time.Time, error)
	SentShares(ctx context.Context, sharerID string, page domain.Page) ([]domain.Share, int, error)
}

// SharingService shares images with a recipient behind an emailed code.
type SharingService struct {
	store     SharingStore
	secrets   SecretHasher
	outbox    *Outbox
	templates mail.Templates
	now       Clock
}

// NewSharingService wires the sharing use cases.
func NewSharingService(store SharingStore, secrets SecretHasher, outbox *Outbox, templates mail.Templates, now Clock) *SharingService {
	return &SharingService{store: store, secrets: secrets, outbox: outbox, templates: templates, now: now}
}

var (
	errShareNotFound = domain.Errorf(domain.ENOTFOUND, "Share not found.")
	errShareExpired  = domain.Errorf(domain.EGONE, "This share has expired.")
	errShareRevoked  = domain.Errorf(domain.EGONE, "This share was revoked.")
	errShareVoided   = domain.Errorf(domain.EGONE, "Too many wrong codes: this share is void. Please ask the sender to share the image again.")
)

// ShareRequest is the body of POST /api/sharing/request.
type ShareRequest struct {
	ImageID        string
	RecipientID    string
	ExpiresInHours *int // nil: the default lifetime
}

// Share shares an image the caller uploaded (admins: any image) with another
// active user, revoking that user's earlier share of it, and mails them the
// sharing id and a fresh code.
// Errors: EFORBIDDEN, EVALIDATION, ENOTFOUND.
func (s *SharingService) Share(ctx context.Context, p *domain.Principal, req ShareRequest, meta domain.RequestMeta) (domain.Share, error) {
	if !p.Can(domain.PermImagesShare) {
		return domain.Share{}, domain.Errorf(domain.EFORBIDDEN, "You are not allowed to share images.")
	}
	hours, err := s.lifetime(ctx, req.ExpiresInHours)
	if err != nil {
		return domain.Share{}, err
	}
	im, err := s.store.Image(ctx, req.ImageID)
	if domain.ErrorKind(err) == domain.ENOTFOUND {
		return domain.Share{}, errImageNotFound
	} else if err != nil {
		return domain.Share{}, err
	}
	if im.UploadedBy.ID != p.User.ID && p.User.Role != domain.RoleAdmin {
		_ = s.store.AppendAudit(ctx, audit(meta, p.User.ID, "access_denied", "images", im.ID, false, "share: not the uploader"))
		return domain.Share{}, errImageNotFound
	}
	recipient, err := s.recipient(ctx, p, req.RecipientID)
	if err != nil {
		return domain.Share{}, err
	}
	hits, start, err := s.store.HitThrottle(ctx, "share:"+p.User.ID+":"+recipient.ID, shareThrottleWindow)
	if err != nil {
		return domain.Share{}, err
	}
	if hits > sharesPerRecipientHour {
		_ = s.store.AppendAudit(ctx, audit(meta, p.User.ID, "throttled", "shares", "", false, "shares to user "+recipient.ID))
		return domain.Share{}, throttled(start.Add(shareThrottleWindow).Sub(s.now()), "Too many shares with this person in a short time. Please try again later.")
	}

	now := s.now().UTC()
	sh := domain.Share{
		ID: uuid.NewString(), ImageID: im.ID, Caption: im.Caption,
		SharedBy:   domain.Person{ID: p.User.ID, Firstname: p.User.Firstname, Lastname: p.User.Lastname},
		SharedWith: domain.Person{ID: recipient.ID, Firstname: recipient.Firstname, Lastname: recipient.Lastname},
		CreatedAt:  now, ExpiresAt: now.Add(time.Duration(hours) * time.Hour),
	}
	code := secure.RandomDigits(domain.ShareCodeDigits)
	err = s.store.InTx(ctx, func(ctx context.Context) error {
		replaced, err := s.store.OpenShare(ctx, sh, s.secrets.CodeHash(codePurposeShare, sh.ID, code))
		if err != nil {
			return err
		}
		if replaced {
			if err := s.store.AppendAudit(ctx, audit(meta, p.User.ID, "share_revoke", "images", im.ID, true, "replaced by share "+sh.ID)); err != nil {
				return err
			}
		}
		return s.store.AppendAudit(ctx, audit(meta, p.User.ID, "share", "shares", sh.ID,
			true, fmt.Sprintf("image %s with user %s for %d hours", im.ID, recipient.ID, hours)))
	})
	if err != nil {
		return domain.Share{}, err
	}
	sharer := strings.TrimSpace(p.User.Firstname + " " + p.User.Lastname)
	s.outbox.Send(s.templates.ShareCode(recipient.Email, recipient.Firstname, sharer, im.Caption, sh.ID, code, sh.ExpiresAt))
	return sh, nil
}

// lifetime checks the requested lifetime against the settings.
func (s *SharingService) lifetime(ctx context.Context, requested *int) (int, error) {
	maxHours := s.intSetting(ctx, settingShareMaxHours, fallbackShareMaxHours)
	if requested == nil {
		return min(s.intSetting(ctx, settingShareDefaultHours, fallbackShareHours), maxHours), nil
	}
	if *requested < 1 || *requested > maxHours {
		msg := fmt.Sprintf("The share lifetime must be between 1 and %d hours.", maxHours)
		return 0, domain.ValidationError(msg, domain.FieldError{Field: "expiresInHours", Message: msg})
	}
	return *requested, nil
}

// intSetting reads a whole-number setting, falling back when it is missing
// or unreadable (the settings screen validates what it stores).
func (s *SharingService) intSetting(ctx context.Context, key string, fallback int) int {
	raw, err := s.store.Setting(ctx, key)
	if err != nil {
		return fallback
	}
	var n int
	if json.Unmarshal(raw, &n) != nil || n < 1 {
		return fallback
	}
	return n
}

// recipient checks that id names an active, confirmed user other than the caller.
func (s *SharingService) recipient(ctx context.Context, p *domain.Principal, id string) (domain.User, error) {
	if id == p.User.ID {
		msg := "You cannot share an image with yourself."
		return domain.User{}, domain.ValidationError(msg, domain.FieldError{Field: "createdfor", Message: msg})
	}
	u, err := s.store.UserByID(ctx, id)
	if err != nil && domain.ErrorKind(err) != domain.ENOTFOUND {
		return domain.User{}, err
	}
	if err != nil || !u.Active || !u.Verified {
		msg := "Please choose an active user to share with."
		return domain.User{}, domain.ValidationError(msg, domain.FieldError{Field: "createdfor", Message: msg})
	}
	return u, nil
}

// Verify spends one try of a share's code for its recipient. The fifth
// wrong code voids the share.
// Errors: EVALIDATION/EINVALID (bad or wrong code), ENOTFOUND, EGONE (expired, void, revoked).
func (s *SharingService) Verify(ctx context.Context, p *domain.Principal, shareID, code string, meta domain.RequestMeta) error {
	code = strings.TrimSpace(code)
	if !isDigits(code, domain.ShareCodeDigits) {
		msg := "Please enter the 6-digit code."
		return domain.ValidationError(msg, domain.FieldError{Field: "verificationCode", Message: msg})
	}
	shareID = strings.TrimSpace(shareID)
	now := s.now().UTC()
	var found, matched bool
	var tries int
	err := s.store.InTx(ctx, func(ctx context.Context) error {
		var err error
		found, matched, tries, err = s.store.TryShareCode(ctx, shareID, p.User.ID, s.secrets.CodeHash(codePurposeShare, shareID, code), now, domain.ShareMaxCodeTries)
		if err != nil || !found {
			return err
		}
		if matched {
			return s.store.AppendAudit(ctx, audit(meta, p.User.ID, "share_verify", "shares", shareID, true, ""))
		}
		if err := s.store.AppendAudit(ctx, audit(meta, p.User.ID, "share_verify", "shares", shareID, false, "wrong code")); err != nil {
			return err
		}
		if tries >= domain.ShareMaxCodeTries {
			return s.store.AppendAudit(ctx, audit(meta, p.User.ID, "share_void", "shares", shareID, true, "too many wrong codes"))
		}
		return nil
	})
	switch {
	case err != nil:
		return err
	case !found:
		return s.whyNotOpen(ctx, p, shareID, meta)
	case matched:
		return nil
	case tries >= domain.ShareMaxCodeTries:
		return errShareVoided
	case domain.ShareMaxCodeTries-tries == 1:
		return domain.Errorf(domain.EINVALID, "Invalid code. 1 attempt left.")
	default:
		return domain.Errorf(domain.EINVALID, "Invalid code. %d attempts left.", domain.ShareMaxCodeTries-tries)
	}
}

// whyNotOpen explains a code that found no share to try: the share is not
// the caller's, or it is verified, revoked, void or expired.
func (s *SharingService) whyNotOpen(ctx context.Context, p *domain.Principal, shareID string, meta domain.RequestMeta) error {
	sh, err := s.store.Share(ctx, shareID)
	if err != nil && domain.ErrorKind(err) != domain.ENOTFOUND {
		return err
	}
	if err != nil || sh.SharedWith.ID != p.User.ID {
		if err := s.store.AppendAudit(ctx, audit(meta, p.User.ID, "share_verify", "shares", auditID(shareID), false, "no such share for this user")); err != nil {
			return err
		}
		return errShareNotFound
	}
	status := sh.Status(s.now())
	if err := s.store.AppendAudit(ctx, audit(meta, p.User.ID, "share_verify", "shares", sh.ID, false, "share "+status)); err != nil {
		return err
	}
	switch status {
	case domain.ShareVerified:
		return domain.Errorf(domain.EINVALID, "This share is already verified.")
	case domain.ShareRevoked:
		return errShareRevoked
	case domain.ShareVoided:
		return errShareVoided
	default:
		if err := logShareExpiry(ctx, s.store, sh, p.User.ID, meta); err != nil {
			return err
		}
		return errShareExpired
	}
}

// auditID keeps whatever a caller typed as an id out of the audit log unless
// it is a well-formed id.
func auditID(id string) string {
	if _, err := uuid.Parse(id); err != nil {
		return ""
	}
	return id
}

// shareExpiryLogger is what logShareExpiry needs.
type shareExpiryLogger interface {
	Transactor
	AuditWriter
	MarkShareExpiryLogged(ctx context.Context, id string) (bool, error)
}

// logShareExpiry audits a share's expiry once, at the first access after it.
func logShareExpiry(ctx context.Context, store shareExpiryLogger, sh domain.Share, actorID string, meta domain.RequestMeta) error {
	return store.InTx(ctx, func(ctx context.Context) error {
		first, err := store.MarkShareExpiryLogged(ctx, sh.ID)
		if err != nil || !first {
			return err
		}
		return store.AppendAudit(ctx, audit(meta, actorID, "share_expired", "shares", sh.ID, true,
			"expired at "+sh.ExpiresAt.UTC().Format(time.RFC3339)))
	})
}

// Revoke ends a share at once, signed URLs included; the sharer and admins
// may. Revoking an ended share again changes nothing.
// Errors: ENOTFOUND, EFORBIDDEN (the recipient).
func (s *SharingService) Revoke(ctx context.Context, p *domain.Principal, shareID string, meta domain.RequestMeta) error {
	sh, err := s.store.Share(ctx, shareID)
	if domain.ErrorKind(err) == domain.ENOTFOUND {
		_ = s.store.AppendAudit(ctx, audit(meta, p.User.ID, "access_denied", "shares", auditID(shareID), false, "revoke: no such share"))
		return errShareNotFound
	} else if err != nil {
		return err
	}
	if sh.SharedBy.ID != p.User.ID && p.User.Role != domain.RoleAdmin {
		_ = s.store.AppendAudit(ctx, audit(meta, p.User.ID, "access_denied", "shares", sh.ID, false, "revoke: not the sharer"))
		if sh.SharedWith.ID == p.User.ID {
			return domain.Errorf(domain.EFORBIDDEN, "Only the sender or an admin can revoke a share.")
		}
		return errShareNotFound
	}
	return s.store.InTx(ctx, func(ctx context.Context) error {
		revoked, err := s.store.RevokeShare(ctx, sh.ID, s.now().UTC())
		if err != nil || !revoked {
			return err
		}
		return s.store.AppendAudit(ctx, audit(meta, p.User.ID, "share_revoke", "shares", sh.ID, true, ""))
	})
}

// Sent lists the shares the caller made, newest first. Errors: EFORBIDDEN.
func (s *SharingService) Sent(ctx context.Context, p *domain.Principal, page domain.Page) ([]domain.Share, domain.PageOf, error) {
	if !p.Can(domain.PermImagesShare) {
		return nil, domain.PageOf{}, domain.Errorf(domain.EFORBIDDEN, "Only providers and admins share images.")
	}
	shares, total, err := s.store.SentShares(ctx, p.User.ID, page)
	return shares, domain.PageOf{Page: page.Page, Limit: page.Limit, TotalItems: total}, err
}

// Now is the service's clock, for statuses computed outside it.
func (s *SharingService) Now() time.Time { return s.now() }
