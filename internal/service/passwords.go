package service

import (
	"context"
	"errors"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/mail"
	"github.com/medishare/medishare/internal/secure"
)

// PasswordStore is what password changes and resets need from the database.
type PasswordStore interface {
	CodeStore
	UserByEmail(ctx context.Context, email string) (domain.User, string, error)
	UserByID(ctx context.Context, id string) (domain.User, error)
	PasswordHash(ctx context.Context, id string) (string, error)
	SetPassword(ctx context.Context, id, hash string) error
	RevokeUserSessions(ctx context.Context, userID, exceptSessionID, reason string) error
	UseLinkToken(ctx context.Context, tokenHash []byte) (string, error)
}

// PasswordService resets and changes passwords.
type PasswordService struct {
	store     PasswordStore
	passwords PasswordHasher
	secrets   SecretHasher
	codes     codes
	outbox    *Outbox
	templates mail.Templates
	mfa       *MFAService
	now       Clock
}

// NewPasswordService wires the password use cases.
func NewPasswordService(store PasswordStore, passwords PasswordHasher, secrets SecretHasher, background *Background, outbox *Outbox, templates mail.Templates, now Clock) *PasswordService {
	return &PasswordService{store: store, passwords: passwords, secrets: secrets, codes: codes{store: store, secrets: secrets, background: background, now: now},
		outbox: outbox, templates: templates, now: now}
}

// ForgotPassword mails a 6-digit code and a reset link to an active account.
// The answer, and its timing, are the same whether or not the account
// exists (S2): the lookup and the codes happen after the response.
// Errors: EVALIDATION, ETHROTTLED.
func (s *PasswordService) ForgotPassword(ctx context.Context, email string, meta domain.RequestMeta) error {
	return s.codes.request(ctx, purposeReset, email, meta, func(ctx context.Context, email string) error {
		return s.mailResetCode(ctx, email, meta)
	})
}

func (s *PasswordService) mailResetCode(ctx context.Context, email string, meta domain.RequestMeta) error {
	user, _, err := s.store.UserByEmail(ctx, email)
	if err != nil || !user.Active {
		return notFound(err, nil)
	}
	code, link := secure.RandomDigits(6), secure.RandomToken(32)
	return s.store.InTx(ctx, func(ctx context.Context) error {
		if err := s.codes.issue(ctx, user.ID, purposeReset, code); err != nil {
			return err
		}
		if err := s.store.ReplaceCode(ctx, user.ID, purposeResetLink, s.secrets.TokenHash(link), s.now().Add(codeTTL)); err != nil {
			return err
		}
		if err := s.outbox.Queue(ctx, s.templates.ResetCode(email, mailName(user), code, link)); err != nil {
			return err
		}
		return record(ctx, s.store, meta, Event{Actor: user.ID, Action: domain.ActionCodeRequest, Table: domain.TableUsers,
			RecordID: user.ID, Success: true, Reason: "password reset"})
	})
}

// PasswordReset is one of the two forms of POST /api/auth/reset-password:
// email, code and new password, or link token and new password.
type PasswordReset struct {
	Email, Code, Token, NewPassword string
	// MFACode is a second-factor code (TOTP or recovery), which an account
	// with a second factor needs besides.
	MFACode string
}

var errResetNeedsMFA = &domain.Error{Kind: domain.EUNAUTHENTICATED, Message: "Enter a code from your authenticator app or a recovery code.",
	Code: "Enter a code from your authenticator app or a recovery code.", MFARequired: true}

// errResetWrongMFA rolls back a reset whose second-factor code was wrong.
type errResetWrongMFA struct{ reason string }

func (e errResetWrongMFA) Error() string { return "wrong second factor: " + e.reason }

// checkSecondFactor, in a reset's transaction once its email code or link
// is found good, asks an account with a second factor for one of its
// codes and spends it. A missing or wrong code fails the transaction, so
// the email code or link stays unspent for the next try.
func (s *PasswordService) checkSecondFactor(ctx context.Context, user domain.User, code string, meta domain.RequestMeta) error {
	st, err := s.mfa.Status(ctx, user)
	if err != nil || !st.Any() {
		return err
	}
	if code == "" {
		return errResetNeedsMFA
	}
	if err := s.mfa.checkThrottle(ctx, user, meta); err != nil {
		return err
	}
	method, why, err := s.mfa.spend(ctx, user.ID, code)
	if err != nil {
		return err
	}
	if method == "" {
		return errResetWrongMFA{reason: "password reset: " + why}
	}
	if method == "recovery" {
		return record(ctx, s.store, meta, Event{Actor: user.ID, Action: domain.ActionMFARecoveryCodeUsed, Table: domain.TableUsers, RecordID: user.ID, Success: true, Reason: "password reset"})
	}
	return record(ctx, s.store, meta, Event{Actor: user.ID, Action: domain.ActionMFAChallengeSucceeded, Table: domain.TableUsers, RecordID: user.ID, Success: true, Reason: "password reset; method: " + method})
}

// wrongSecondFactor records a wrong second-factor code of a reset, and
// counts it against the reset's email code or link (purpose) as a wrong try.
func (s *PasswordService) wrongSecondFactor(ctx context.Context, user domain.User, purpose string, err error, meta domain.RequestMeta) error {
	var wrong errResetWrongMFA
	if !errors.As(err, &wrong) {
		return err
	}
	// A hash no code has: the try is counted, nothing matches.
	if _, _, _, err := s.store.TryCode(ctx, user.ID, purpose, []byte("second factor wrong"), maxCodeTries); err != nil && domain.ErrorKind(err) != domain.ENOTFOUND {
		return err
	}
	return s.mfa.failed(ctx, user, wrong.reason, meta)
}

// ResetPassword sets a new password after a code or link check, and ends
// every session of the account. Errors: EVALIDATION, EINVALID (bad code or link).
func (s *PasswordService) ResetPassword(ctx context.Context, in PasswordReset, meta domain.RequestMeta) error {
	if in.Token == "" && !isDigits(in.Code, 6) {
		return domain.ValidationError("Please enter a valid 6-digit OTP.", domain.FieldError{Field: "otp", Message: "must be 6 digits"})
	}
	if in.Token != "" {
		return s.resetWithLink(ctx, in, meta)
	}
	return s.resetWithCode(ctx, in, meta)
}

func (s *PasswordService) resetWithCode(ctx context.Context, in PasswordReset, meta domain.RequestMeta) error {
	email, _ := normalizeEmail(in.Email)
	user, _, err := s.store.UserByEmail(ctx, email)
	if domain.ErrorKind(err) == domain.ENOTFOUND || (err == nil && !user.Active) {
		return errBadCode
	} else if err != nil {
		return err
	}
	hash, err := s.newPasswordHash(ctx, in.NewPassword, user, "newPassword")
	if err != nil {
		return err
	}
	err = s.codes.spend(ctx, user, purposeReset, in.Code, meta, domain.ActionPasswordReset, func(ctx context.Context) error {
		if err := s.checkSecondFactor(ctx, user, in.MFACode, meta); err != nil {
			return err
		}
		return s.setPassword(ctx, user, hash, "", "password reset")
	})
	return s.wrongSecondFactor(ctx, user, purposeReset, err, meta)
}

func (s *PasswordService) resetWithLink(ctx context.Context, in PasswordReset, meta domain.RequestMeta) error {
	var user domain.User
	err := s.store.InTx(ctx, func(ctx context.Context) error {
		userID, err := s.store.UseLinkToken(ctx, s.secrets.TokenHash(in.Token))
		if err != nil {
			return notFound(err, domain.Errorf(domain.EINVALID, "This reset link is invalid or has expired. Please request a new one."))
		}
		if user, err = s.store.UserByID(ctx, userID); err != nil {
			return err
		}
		// The link's form sends the new password as "password".
		hash, err := s.newPasswordHash(ctx, in.NewPassword, user, "password")
		if err != nil {
			return err
		}
		if err := s.checkSecondFactor(ctx, user, in.MFACode, meta); err != nil {
			return err
		}
		if err := s.setPassword(ctx, user, hash, "", "password reset"); err != nil {
			return err
		}
		return record(ctx, s.store, meta, Event{Actor: user.ID, Action: domain.ActionPasswordReset, Table: domain.TableUsers,
			RecordID: user.ID, Success: true, Reason: "reset link"})
	})
	return s.wrongSecondFactor(ctx, user, purposeResetLink, err, meta)
}

// newPasswordHash checks password against the policy, naming field in its
// errors (the name the caller's form sent it under), and hashes it.
func (s *PasswordService) newPasswordHash(ctx context.Context, password string, user domain.User, field string) (string, error) {
	if err := secure.CheckPasswordPolicy(password, user.Email, user.Username); err != nil {
		return "", renameField(err, "password", field)
	}
	return s.passwords.Hash(ctx, password)
}

// setPassword stores a hash, voids outstanding reset codes, ends every
// session but keep (S5) and tells the owner by mail, in ctx's transaction.
func (s *PasswordService) setPassword(ctx context.Context, user domain.User, hash, keepSessionID, reason string) error {
	if err := s.store.SetPassword(ctx, user.ID, hash); err != nil {
		return err
	}
	if err := s.store.VoidCodes(ctx, user.ID, purposeReset, purposeResetLink); err != nil {
		return err
	}
	if err := s.store.RevokeUserSessions(ctx, user.ID, keepSessionID, reason); err != nil {
		return err
	}
	return s.outbox.Queue(ctx, s.templates.PasswordChanged(user.Email, mailName(user)))
}

// ChangePassword replaces the caller's password after checking the current
// one, and ends the caller's other sessions.
// Errors: EVALIDATION (also a wrong current password).
func (s *PasswordService) ChangePassword(ctx context.Context, p *domain.Principal, current, next string, meta domain.RequestMeta) error {
	event := Event{Actor: p.User.ID, Action: domain.ActionPasswordChange, Table: domain.TableUsers, RecordID: p.User.ID}
	if err := checkOwnPassword(ctx, s.store, s.passwords, p, current, meta, event, "currentPassword", "Your current password is not correct."); err != nil {
		return err
	}
	hash, err := s.newPasswordHash(ctx, next, p.User, "newPassword")
	if err != nil {
		return err
	}
	return s.store.InTx(ctx, func(ctx context.Context) error {
		if err := s.setPassword(ctx, p.User, hash, p.SessionID, "password change"); err != nil {
			return err
		}
		event.Success = true
		return record(ctx, s.store, meta, event)
	})
}

// passwordChecker is what checkOwnPassword needs.
type passwordChecker interface {
	AuditWriter
	PasswordHash(ctx context.Context, id string) (string, error)
}

// checkOwnPassword confirms a sensitive change with the caller's password;
// a wrong one is recorded as the failure of event and reported on field.
func checkOwnPassword(ctx context.Context, store passwordChecker, hasher PasswordHasher, p *domain.Principal, password string, meta domain.RequestMeta, event Event, field, message string) error {
	stored, err := store.PasswordHash(ctx, p.User.ID)
	if err != nil {
		return err
	}
	if ok, err := hasher.Verify(ctx, stored, password); err != nil || !ok {
		event.Success, event.Reason = false, "wrong password"
		_ = record(ctx, store, meta, event)
		return domain.ValidationError(message, domain.FieldError{Field: field, Message: "is not correct"})
	}
	return nil
}

// renameField reports a policy error under the field name the request used.
func renameField(err error, from, to string) error {
	var de *domain.Error
	if !errors.As(err, &de) {
		return err
	}
	out := *de
	out.Fields = nil
	for _, f := range de.Fields {
		if f.Field == from {
			f.Field = to
		}
		out.Fields = append(out.Fields, f)
	}
	return &out
}
