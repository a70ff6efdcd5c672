package service

import (
	"context"
	"time"

	"github.com/medishare/medishare/internal/domain"
)

// Limits of S3 and S4 for emailed codes.
const (
	codeTTL      = 15 * time.Minute
	maxCodeTries = 5
)

// Code purposes.
const (
	purposeConfirm   = "confirm"
	purposeReset     = "reset"
	purposeResetLink = "reset_link"
)

// About five code requests an hour for one address; the key is the email as
// typed, so unknown addresses are throttled exactly like known ones (S2, S3).
var codeRequests = limit{prefix: "code:", reason: "code requests", max: 5, window: time.Hour,
	message: "Too many code requests. Please try again later."}

// CodeStore keeps one-time codes, stored only as keyed hashes (S4).
type CodeStore interface {
	Transactor
	AuditWriter
	Throttler
	// ReplaceCode makes codeHash the live code for purpose in one
	// statement: of concurrent issues, the last one's code is live.
	ReplaceCode(ctx context.Context, userID, purpose string, codeHash []byte, expires time.Time) error
	VoidCodes(ctx context.Context, userID string, purposes ...string) error
	TryCode(ctx context.Context, userID, purpose string, codeHash []byte, maxTries int) (found, matched bool, tries int, err error)
}

// SecretHasher makes the keyed hashes under which codes and tokens are stored (secure.Keys).
type SecretHasher interface {
	CodeHash(purpose, subject, code string) []byte
	TokenHash(token string) []byte
}

// codes issues and spends one account's emailed codes.
type codes struct {
	store      CodeStore
	secrets    SecretHasher
	background *Background
	now        Clock
}

// request answers a request for a new code to email: it counts the request
// against the limit, then leaves the rest (finding the account, making and
// mailing its code) to send, after the answer. Both an existing account and
// an unknown address get the same answer after the same work (S2).
// Errors: EVALIDATION (not an email), ETHROTTLED.
func (c codes) request(ctx context.Context, purpose, email string, meta domain.RequestMeta, send func(ctx context.Context, email string) error) error {
	email, ok := normalizeEmail(email)
	if !ok {
		return domain.ValidationError("Please enter a valid email.", domain.FieldError{Field: "email", Message: "must be a valid email address"})
	}
	if err := codeRequests.hit(ctx, c.store, c.store, c.now, purpose+":"+email, meta, ""); err != nil {
		return err
	}
	c.background.Go(purpose+" code", func(ctx context.Context) error { return send(ctx, email) })
	return nil
}

// issue makes code the live code of the account for purpose.
func (c codes) issue(ctx context.Context, userID, purpose, code string) error {
	return c.store.ReplaceCode(ctx, userID, purpose, c.secrets.CodeHash(purpose, userID, code), c.now().Add(codeTTL))
}

var errBadCode = domain.Errorf(domain.EINVALID, "Invalid or expired code. Please request a new one.")

// spend tries a code; on a match it runs onMatch and records success in the
// same transaction. A wrong try is counted (and audited) even though the
// request fails.
func (c codes) spend(ctx context.Context, user domain.User, purpose, code string, meta domain.RequestMeta, action domain.AuditAction, onMatch func(ctx context.Context) error) error {
	var found, matched bool
	var tries int
	event := Event{Actor: user.ID, Action: action, Table: domain.TableUsers, RecordID: user.ID}
	err := c.store.InTx(ctx, func(ctx context.Context) error {
		var err error
		found, matched, tries, err = c.store.TryCode(ctx, user.ID, purpose, c.secrets.CodeHash(purpose, user.ID, code), maxCodeTries)
		if err != nil {
			return err
		}
		if !matched {
			failed := event
			failed.Reason = "wrong code"
			if !found {
				failed.Reason = "no live code"
			}
			return record(ctx, c.store, meta, failed)
		}
		if err := onMatch(ctx); err != nil {
			return err
		}
		event.Success = true
		return record(ctx, c.store, meta, event)
	})
	switch {
	case err != nil:
		return err
	case !found:
		return errBadCode
	case !matched && tries >= maxCodeTries:
		return domain.Errorf(domain.EINVALID, "Too many wrong attempts. Please request a new code.")
	case !matched:
		return domain.Errorf(domain.EINVALID, "Invalid code. %d attempts left.", maxCodeTries-tries)
	}
	return nil
}

// mailName is the name a mail may greet someone by: only what the owner of
// the mailbox typed themselves. An unconfirmed account's name was typed by
// whoever registered the address, perhaps a stranger planting a link.
func mailName(u domain.User) string {
	if u.Verified {
		return u.Firstname
	}
	return ""
}
