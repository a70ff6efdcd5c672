package service

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/mail"
	"github.com/medishare/medishare/internal/secure"
)

// A sharer may mail one recipient this many share codes an hour, so nobody's
// mailbox can be flooded with codes (S3).
var sharesPerRecipient = limit{prefix: "share:", reason: "shares to one user", max: 30, window: time.Hour,
	message: "Too many shares with this person in a short time. Please try again later."}

// codePurposeShare keys the hash of share codes apart from every other code.
const codePurposeShare = "share"

// SharingStore is what sharing needs from the database.
type SharingStore interface {
	Transactor
	AuditWriter
	UserByID(ctx context.Context, id string) (domain.User, error)
	Image(ctx context.Context, id string) (domain.Image, error)
	Throttler
	SettingsReader
	OpenShare(ctx context.Context, sh domain.Share, codeHash []byte) (revokedEarlier bool, err error)
	TryShareCode(ctx context.Context, shareID, recipientID string, codeHash []byte, now time.Time, maxTries int) (found, matched bool, tries int, err error)
	Share(ctx context.Context, id string) (domain.Share, error)
	RevokeShare(ctx context.Context, id string, now time.Time) (bool, error)
	ExtendShare(ctx context.Context, id string, expires time.Time) (bool, error)
	MarkShareExpiryLogged(ctx context.Context, id string) (bool, error)
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

var errNotSharer = forbidden("You are not allowed to share images.")

// ShareLimits are the lifetimes a share may be given: the admin's default
// and maximum (the settings' shareLifetime*Hours), which a sharer must know
// to offer them.
type ShareLimits struct {
	DefaultHours int
	MaxHours     int
}

// Limits returns the share lifetimes in force, for those who may share.
// Errors: EFORBIDDEN.
func (s *SharingService) Limits(ctx context.Context, p *domain.Principal, meta domain.RequestMeta) (ShareLimits, error) {
	if err := require(ctx, s.store, p, domain.PermImagesShare, meta, errNotSharer); err != nil {
		return ShareLimits{}, err
	}
	settings, err := s.store.Settings(ctx)
	if err != nil {
		return ShareLimits{}, err
	}
	return ShareLimits{DefaultHours: min(settings.ShareLifetimeDefaultHours, settings.ShareLifetimeMaxHours),
		MaxHours: settings.ShareLifetimeMaxHours}, nil
}

// Share shares an image the caller uploaded (with images:manage-all, any
// image) with another active user, revoking that user's earlier share of
// it, and mails them the sharing id and a fresh code.
// Errors: EFORBIDDEN, EVALIDATION, ENOTFOUND, ETHROTTLED.
func (s *SharingService) Share(ctx context.Context, p *domain.Principal, req ShareRequest, meta domain.RequestMeta) (domain.Share, error) {
	if err := require(ctx, s.store, p, domain.PermImagesShare, meta, errNotSharer); err != nil {
		return domain.Share{}, err
	}
	req.ImageID, req.RecipientID = strings.TrimSpace(req.ImageID), strings.TrimSpace(req.RecipientID)
	var missing fieldErrors
	if req.ImageID == "" {
		missing.add("imagemetadataId", "Please choose an image to share.")
	}
	if req.RecipientID == "" {
		missing.add("createdfor", "Please choose a user to share with.")
	}
	if len(missing) > 0 {
		return domain.Share{}, domain.ValidationError(missing[0].Message, missing...)
	}
	hours, err := s.lifetime(ctx, req.ExpiresInHours)
	if err != nil {
		return domain.Share{}, err
	}
	// An image that does not exist is refused, and recorded, as one the
	// caller may not share: their own audit log must not tell the two apart.
	im, err := s.store.Image(ctx, req.ImageID)
	if err != nil && domain.ErrorKind(err) != domain.ENOTFOUND {
		return domain.Share{}, err
	}
	if err != nil || !p.Manages(im, domain.PermImagesShare) {
		return domain.Share{}, refuse(ctx, s.store, meta, Event{Actor: p.User.ID, Table: domain.TableImages, RecordID: auditID(req.ImageID), Reason: "share: not the uploader"}, errImageNotFound)
	}
	if im.Patient.ID == "" {
		return domain.Share{}, errShareNoPatient
	}
	recipient, err := s.recipient(ctx, p, req.RecipientID)
	if err != nil {
		return domain.Share{}, err
	}
	if err := sharesPerRecipient.hit(ctx, s.store, s.store, s.now, p.User.ID+":"+recipient.ID, meta, p.User.ID); err != nil {
		return domain.Share{}, err
	}

	now := s.now().UTC()
	sh := domain.Share{
		ID: uuid.NewString(), ImageID: im.ID, Caption: im.Caption,
		SharedBy: domain.PersonOf(p.User), SharedWith: domain.PersonOf(recipient),
		CreatedAt: now, ExpiresAt: now.Add(time.Duration(hours) * time.Hour),
	}
	code := secure.RandomDigits(domain.ShareCodeDigits)
	err = s.store.InTx(ctx, func(ctx context.Context) error {
		replaced, err := s.store.OpenShare(ctx, sh, s.secrets.CodeHash(codePurposeShare, sh.ID, code))
		if err != nil {
			return err
		}
		if replaced {
			if err := record(ctx, s.store, meta, Event{Actor: p.User.ID, Action: domain.ActionShareRevoke, Table: domain.TableImages,
				RecordID: im.ID, Success: true, Reason: "replaced by share " + sh.ID}); err != nil {
				return err
			}
		}
		sharer := strings.TrimSpace(p.User.Firstname + " " + p.User.Lastname)
		if err := s.outbox.Queue(ctx, s.templates.ShareCode(recipient.Email, mailName(recipient), sharer, sh.ID, code, sh.ExpiresAt)); err != nil {
			return err
		}
		return record(ctx, s.store, meta, Event{Actor: p.User.ID, Action: domain.ActionShare, Table: domain.TableShares, RecordID: sh.ID,
			Success: true, Reason: fmt.Sprintf("image %s with user %s for %d hours", im.ID, recipient.ID, hours)})
	})
	if err != nil {
		return domain.Share{}, err
	}
	return sh, nil
}

// lifetime checks the requested lifetime against the settings, or gives
// the default one.
func (s *SharingService) lifetime(ctx context.Context, requested *int) (int, error) {
	settings, err := s.store.Settings(ctx)
	if err != nil {
		return 0, err
	}
	maxHours := settings.ShareLifetimeMaxHours
	if requested == nil {
		return min(settings.ShareLifetimeDefaultHours, maxHours), nil
	}
	if *requested < 1 || *requested > maxHours {
		msg := fmt.Sprintf("The share lifetime must be between 1 and %d hours.", maxHours)
		return 0, domain.ValidationError(msg, domain.FieldError{Field: "expiresInHours", Message: msg})
	}
	return *requested, nil
}

// recipient checks that id names a reachable (active, and no provider
// waiting for approval), confirmed user other than the caller; anyone else
// gets the answer of an unknown id.
func (s *SharingService) recipient(ctx context.Context, p *domain.Principal, id string) (domain.User, error) {
	if id == p.User.ID {
		msg := "You cannot share an image with yourself."
		return domain.User{}, domain.ValidationError(msg, domain.FieldError{Field: "createdfor", Message: msg})
	}
	u, err := s.store.UserByID(ctx, id)
	if err != nil && domain.ErrorKind(err) != domain.ENOTFOUND {
		return domain.User{}, err
	}
	if err != nil || !u.Reachable() || !u.Verified {
		msg := "Please choose an active user to share with."
		return domain.User{}, domain.ValidationError(msg, domain.FieldError{Field: "createdfor", Message: msg})
	}
	return u, nil
}

// Verify spends one try of a share's code for its recipient. The fifth
// wrong code voids the share.
// Errors: EVALIDATION/EINVALID (bad or wrong code), ENOTFOUND, EGONE (expired, void, revoked).
func (s *SharingService) Verify(ctx context.Context, p *domain.Principal, shareID, code string, meta domain.RequestMeta) error {
	shareID = strings.TrimSpace(shareID)
	if shareID == "" {
		msg := "Please enter the image sharing id."
		return domain.ValidationError(msg, domain.FieldError{Field: "sharingRequestId", Message: msg})
	}
	code = strings.TrimSpace(code)
	if !isDigits(code, domain.ShareCodeDigits) {
		msg := "Please enter the 6-digit code."
		return domain.ValidationError(msg, domain.FieldError{Field: "verificationCode", Message: msg})
	}
	now := s.now().UTC()
	var found, matched bool
	var tries int
	err := s.store.InTx(ctx, func(ctx context.Context) error {
		var err error
		found, matched, tries, err = s.store.TryShareCode(ctx, shareID, p.User.ID, s.secrets.CodeHash(codePurposeShare, shareID, code), now, domain.ShareMaxCodeTries)
		if err != nil || !found {
			return err
		}
		verify := Event{Actor: p.User.ID, Action: domain.ActionShareVerify, Table: domain.TableShares, RecordID: shareID, Success: matched}
		if !matched {
			verify.Reason = "wrong code"
		}
		if err := record(ctx, s.store, meta, verify); err != nil || matched {
			return err
		}
		if tries >= domain.ShareMaxCodeTries {
			return record(ctx, s.store, meta, Event{Actor: p.User.ID, Action: domain.ActionShareVoid, Table: domain.TableShares,
				RecordID: shareID, Success: true, Reason: "too many wrong codes"})
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
	failed := Event{Actor: p.User.ID, Action: domain.ActionShareVerify, Table: domain.TableShares, RecordID: auditID(shareID)}
	if err != nil || sh.SharedWith.ID != p.User.ID {
		failed.Reason = "no such share for this user"
		if err := record(ctx, s.store, meta, failed); err != nil {
			return err
		}
		return errShareNotFound
	}
	status := sh.Status(s.now())
	failed.Reason = "share " + status
	if err := record(ctx, s.store, meta, failed); err != nil {
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
		return record(ctx, store, meta, Event{Actor: actorID, Action: domain.ActionShareExpired, Table: domain.TableShares, RecordID: sh.ID,
			Success: true, Reason: "expired at " + sh.ExpiresAt.UTC().Format(time.RFC3339)})
	})
}

// Revoke ends a share at once, signed URLs included; its sharer may, and
// whoever manages every image (images:manage-all). Revoking an ended share again changes nothing.
// Errors: ENOTFOUND, EFORBIDDEN (the recipient).
func (s *SharingService) Revoke(ctx context.Context, p *domain.Principal, shareID string, meta domain.RequestMeta) error {
	sh, err := s.store.Share(ctx, shareID)
	// A share that does not exist is refused, and recorded, as one the
	// caller did not make: their own audit log must not tell the two apart.
	denied := Event{Actor: p.User.ID, Table: domain.TableShares, RecordID: auditID(shareID), Reason: "revoke: not the sharer"}
	if domain.ErrorKind(err) == domain.ENOTFOUND {
		return refuse(ctx, s.store, meta, denied, errShareNotFound)
	} else if err != nil {
		return err
	}
	if sh.SharedBy.ID != p.User.ID && !p.Can(domain.PermImagesManageAll) {
		if sh.SharedWith.ID == p.User.ID {
			return refuse(ctx, s.store, meta, denied, forbidden("Only the sender or an admin can revoke a share."))
		}
		return refuse(ctx, s.store, meta, denied, errShareNotFound)
	}
	return s.store.InTx(ctx, func(ctx context.Context) error {
		revoked, err := s.store.RevokeShare(ctx, sh.ID, s.now().UTC())
		if err != nil || !revoked {
			return err
		}
		return record(ctx, s.store, meta, Event{Actor: p.User.ID, Action: domain.ActionShareRevoke, Table: domain.TableShares, RecordID: sh.ID, Success: true})
	})
}

// errShareEnded is the answer to extending a share that was revoked or voided.
var errShareEnded = domain.Errorf(domain.ECONFLICT, "This share was revoked and cannot be extended.")

// Extend gives a share hours more, counted from its expiry (or from now,
// when it has passed): an expired share opens again. The whole lifetime,
// counted from its creation, stays within the admin's maximum. Only its
// sharer may. Errors: ENOTFOUND, EFORBIDDEN (the recipient), EINVALID,
// ECONFLICT (revoked or voided).
func (s *SharingService) Extend(ctx context.Context, p *domain.Principal, shareID string, hours int, meta domain.RequestMeta) (domain.Share, error) {
	sh, err := s.store.Share(ctx, shareID)
	denied := Event{Actor: p.User.ID, Table: domain.TableShares, RecordID: auditID(shareID), Reason: "extend: not the sharer"}
	if domain.ErrorKind(err) == domain.ENOTFOUND {
		return domain.Share{}, refuse(ctx, s.store, meta, denied, errShareNotFound)
	} else if err != nil {
		return domain.Share{}, err
	}
	if sh.SharedBy.ID != p.User.ID {
		if sh.SharedWith.ID == p.User.ID {
			return domain.Share{}, refuse(ctx, s.store, meta, denied, forbidden("Only the sender can extend a share."))
		}
		return domain.Share{}, refuse(ctx, s.store, meta, denied, errShareNotFound)
	}
	settings, err := s.store.Settings(ctx)
	if err != nil {
		return domain.Share{}, err
	}
	now := s.now().UTC()
	from := sh.ExpiresAt
	if from.Before(now) {
		from = now
	}
	expires := from.Add(time.Duration(hours) * time.Hour)
	limit := sh.CreatedAt.Add(time.Duration(settings.ShareLifetimeMaxHours) * time.Hour)
	if hours < 1 || expires.After(limit) {
		msg := fmt.Sprintf("A share can last at most %d hours from when it was made.", settings.ShareLifetimeMaxHours)
		return domain.Share{}, domain.ValidationError(msg, domain.FieldError{Field: "hours", Message: msg})
	}
	if sh.RevokedAt != nil || sh.VoidedAt != nil {
		return domain.Share{}, errShareEnded
	}
	err = s.store.InTx(ctx, func(ctx context.Context) error {
		extended, err := s.store.ExtendShare(ctx, sh.ID, expires)
		if err != nil {
			return err
		}
		if !extended {
			return errShareEnded
		}
		return record(ctx, s.store, meta, Event{Actor: p.User.ID, Action: domain.ActionShareExtend, Table: domain.TableShares, RecordID: sh.ID,
			Success: true, Reason: "expires at " + expires.Format(time.RFC3339)})
	})
	sh.ExpiresAt = expires
	return sh, err
}

// Sent lists the shares the caller made, newest first. Errors: EFORBIDDEN.
func (s *SharingService) Sent(ctx context.Context, p *domain.Principal, page domain.Page, meta domain.RequestMeta) ([]domain.Share, domain.PageOf, error) {
	if err := require(ctx, s.store, p, domain.PermImagesShare, meta, forbidden("Only providers and admins share images.")); err != nil {
		return nil, domain.PageOf{}, err
	}
	shares, total, err := s.store.SentShares(ctx, p.User.ID, page)
	return shares, domain.PageOf{Page: page.Page, Limit: page.Limit, TotalItems: total}, err
}
