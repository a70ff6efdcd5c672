package service

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/mail"
	"github.com/medishare/medishare/internal/secure"
)

// Second factors (api.md "Multi-factor sign-in").
const (
	mfaChallengeTTL   = 5 * time.Minute
	mfaMaxTries       = 5
	recoveryCodeCount = 10
	purposeRecovery   = "mfa-recovery"
	totpIssuer        = "MediShare"
)

// Wrong second-factor codes are limited per account across sign-ins too:
// five tries per mfaToken alone would let anyone with the password ask
// for new tokens without end.
var mfaFailsPerUser = limit{prefix: "mfa-user:", reason: "second-factor failures", max: 10, window: loginFailWindow,
	message: "Too many failed sign-in attempts. Please try again later."}

// MFAStore is what second factors need from the database.
type MFAStore interface {
	Transactor
	AuditWriter
	Throttler
	SettingsReader
	UserByID(ctx context.Context, id string) (domain.User, error)
	PasswordHash(ctx context.Context, id string) (string, error)
	RevokeUserSessions(ctx context.Context, userID, exceptSessionID, reason string) error
	PutTOTPSetup(ctx context.Context, userID string, sealed []byte, now time.Time) error
	TOTPSecret(ctx context.Context, userID string) (domain.TOTPSecret, error)
	UseTOTPStep(ctx context.Context, userID string, step int64, enabled bool) (bool, error)
	EnableTOTP(ctx context.Context, userID string, now time.Time) error
	DeleteTOTP(ctx context.Context, userID string) error
	ReplaceRecoveryCodes(ctx context.Context, userID string, hashes [][]byte) error
	UseRecoveryCode(ctx context.Context, userID string, codeHash []byte, now time.Time) (bool, error)
	DeleteRecoveryCodes(ctx context.Context, userID string) error
	MFAStatus(ctx context.Context, userID string) (domain.MFAStatus, error)
	MFAStatuses(ctx context.Context, userIDs []string) (map[string]domain.MFAStatus, error)
	SetEnrolmentOnly(ctx context.Context, userID string, only bool) error
	SetSessionEnrolmentOnly(ctx context.Context, sessionID string) error
	ResetMFA(ctx context.Context, userID string) error
	CreateMFAChallenge(ctx context.Context, userID string, tokenHash []byte, expires time.Time) error
	TryMFAChallenge(ctx context.Context, tokenHash []byte, now time.Time, maxTries int) (domain.MFAChallenge, error)
	LiveMFAChallenge(ctx context.Context, tokenHash []byte, now time.Time, maxTries int) (string, error)
	SetMFAChallengeWebAuthn(ctx context.Context, tokenHash, session []byte, now time.Time, maxTries int) error
	UseMFAChallenge(ctx context.Context, tokenHash []byte, now time.Time) error
	DeleteOldMFAChallenges(ctx context.Context, before time.Time) error
	PasskeyStore
}

// MFAService enrols and checks second factors: an authenticator app
// (TOTP), recovery codes and passkeys.
type MFAService struct {
	store     MFAStore
	texts     TextSealer
	secrets   SecretHasher
	passwords PasswordHasher
	outbox    *Outbox
	templates mail.Templates
	passkeys  Passkeys
	now       Clock
}

// NewMFAService wires the second factors' use cases; passkeys may be nil
// (no passkeys offered).
func NewMFAService(store MFAStore, texts TextSealer, secrets SecretHasher, passwords PasswordHasher, outbox *Outbox, templates mail.Templates, passkeys Passkeys, now Clock) *MFAService {
	return &MFAService{store: store, texts: texts, secrets: secrets, passwords: passwords, outbox: outbox, templates: templates, passkeys: passkeys, now: now}
}

var (
	// errBadSecondFactor answers every wrong second-factor code; the text
	// is both the error and the message (docs/api.md).
	errBadSecondFactor = &domain.Error{Kind: domain.EUNAUTHENTICATED, Message: "Invalid code.", Code: "Invalid code."}
	errBadSetupCode    = &domain.Error{Kind: domain.EVALIDATION, Message: "Invalid code.", Code: "Invalid code.",
		Fields: []domain.FieldError{{Field: "code", Message: "is not a current code of the authenticator"}}}
	errMFAExpired = &domain.Error{Kind: domain.EUNAUTHENTICATED, Message: "Your sign-in has expired. Please sign in again.",
		Code: "Your sign-in has expired. Please sign in again."}
	errMFAForToken = forbidden("A personal access token cannot change second factors. Please sign in.")
	// ErrEnrolmentRequired answers a session that may only set up a
	// second factor, on anything else.
	ErrEnrolmentRequired = &domain.Error{Kind: domain.EFORBIDDEN, Message: "Please set up a second factor to continue.", Code: "mfa_enrollment_required"}
)

// Status is which second factors a person has, and whether their role
// requires one. Errors: EUNAVAILABLE.
func (s *MFAService) Status(ctx context.Context, u domain.User) (domain.MFAStatus, error) {
	st, err := s.store.MFAStatus(ctx, u.ID)
	if err != nil {
		return st, err
	}
	settings, err := s.store.Settings(ctx)
	st.Required = slices.Contains(settings.MFARequiredRoles, u.Role)
	return st, err
}

// WithStatus is u with its MFA status filled in.
func (s *MFAService) WithStatus(ctx context.Context, u domain.User) (domain.User, error) {
	st, err := s.Status(ctx, u)
	if err != nil {
		return u, err
	}
	u.MFA = &st
	return u, nil
}

// WithStatuses fills in the MFA status of several people (the admin's list).
func (s *MFAService) WithStatuses(ctx context.Context, users []domain.User) error {
	ids := make([]string, len(users))
	for i, u := range users {
		ids[i] = u.ID
	}
	all, err := s.store.MFAStatuses(ctx, ids)
	if err != nil {
		return err
	}
	settings, err := s.store.Settings(ctx)
	if err != nil {
		return err
	}
	for i := range users {
		st := all[users[i].ID]
		st.Required = slices.Contains(settings.MFARequiredRoles, users[i].Role)
		users[i].MFA = &st
	}
	return nil
}

// TOTPSetup is a new authenticator secret and the URL an app scans.
type TOTPSetup struct {
	Secret, URL string
}

// SetupTOTP makes a new authenticator secret for the caller, not in force
// until EnableTOTP confirms it; it replaces a setup not confirmed.
// Errors: ECONFLICT (an authenticator is on already), EFORBIDDEN (a token).
func (s *MFAService) SetupTOTP(ctx context.Context, p *domain.Principal) (TOTPSetup, error) {
	if p.AccessTokenID != "" {
		return TOTPSetup{}, errMFAForToken
	}
	cur, err := s.store.TOTPSecret(ctx, p.User.ID)
	if err == nil && cur.Enabled {
		return TOTPSetup{}, domain.Errorf(domain.ECONFLICT, "The authenticator is on already. Turn it off first to set up another one.")
	} else if err != nil && domain.ErrorKind(err) != domain.ENOTFOUND {
		return TOTPSetup{}, err
	}
	secret, url, err := secure.NewTOTP(totpIssuer, p.User.Email)
	if err != nil {
		return TOTPSetup{}, err
	}
	if err := s.store.PutTOTPSetup(ctx, p.User.ID, s.texts.Seal(domain.TOTPSealID(p.User.ID), secret), s.now().UTC()); err != nil {
		return TOTPSetup{}, err
	}
	return TOTPSetup{Secret: secret, URL: url}, nil
}

// EnableTOTP puts the caller's authenticator setup in force after checking
// a current code of it, and returns new recovery codes (shown once).
// Errors: EVALIDATION (wrong code, or no setup), ECONFLICT (on already), EFORBIDDEN.
func (s *MFAService) EnableTOTP(ctx context.Context, p *domain.Principal, code string, meta domain.RequestMeta) ([]string, error) {
	if p.AccessTokenID != "" {
		return nil, errMFAForToken
	}
	cur, err := s.store.TOTPSecret(ctx, p.User.ID)
	switch {
	case domain.ErrorKind(err) == domain.ENOTFOUND:
		return nil, domain.ValidationError("Please set up the authenticator first.", domain.FieldError{Field: "code", Message: "no setup"})
	case err != nil:
		return nil, err
	case cur.Enabled:
		return nil, domain.Errorf(domain.ECONFLICT, "The authenticator is on already.")
	}
	secret, err := s.texts.Open(domain.TOTPSealID(p.User.ID), cur.Sealed)
	if err != nil {
		return nil, err
	}
	step, ok := secure.MatchTOTP(secret, code, s.now())
	if !ok {
		return nil, errBadSetupCode
	}
	var codes []string
	err = s.store.InTx(ctx, func(ctx context.Context) error {
		// The confirming code is spent too: it cannot sign in afterwards.
		if used, err := s.store.UseTOTPStep(ctx, p.User.ID, step, false); err != nil {
			return err
		} else if !used {
			return errBadSetupCode
		}
		if err := s.store.EnableTOTP(ctx, p.User.ID, s.now().UTC()); err != nil {
			return notFound(err, errBadSetupCode)
		}
		if codes, err = s.newRecoveryCodes(ctx, p.User.ID); err != nil {
			return err
		}
		if err := s.store.SetEnrolmentOnly(ctx, p.User.ID, false); err != nil {
			return err
		}
		return record(ctx, s.store, meta, Event{Actor: p.User.ID, Action: domain.ActionMFATOTPEnabled, Table: domain.TableUsers, RecordID: p.User.ID, Success: true})
	})
	return codes, err
}

// newRecoveryCodes replaces a person's recovery codes with ten new ones,
// kept only as keyed hashes, and returns them.
func (s *MFAService) newRecoveryCodes(ctx context.Context, userID string) ([]string, error) {
	codes := make([]string, recoveryCodeCount)
	hashes := make([][]byte, recoveryCodeCount)
	for i := range codes {
		codes[i] = secure.RecoveryCode()
		norm, _ := secure.NormalRecoveryCode(codes[i])
		hashes[i] = s.secrets.CodeHash(purposeRecovery, userID, norm)
	}
	return codes, s.store.ReplaceRecoveryCodes(ctx, userID, hashes)
}

// DisableTOTP turns the caller's authenticator off after checking their
// password and a code (TOTP or recovery). Their recovery codes go too
// unless passkeys remain. Errors: EUNAUTHENTICATED (wrong password: the
// sign-in's answer; wrong code), ENOTFOUND (no authenticator), ETHROTTLED, EFORBIDDEN.
func (s *MFAService) DisableTOTP(ctx context.Context, p *domain.Principal, password, code string, meta domain.RequestMeta) error {
	if p.AccessTokenID != "" {
		return errMFAForToken
	}
	event := Event{Actor: p.User.ID, Action: domain.ActionMFATOTPDisabled, Table: domain.TableUsers, RecordID: p.User.ID}
	if err := s.checkPassword(ctx, p, password, meta, event); err != nil {
		return err
	}
	cur, err := s.store.TOTPSecret(ctx, p.User.ID)
	if err != nil || !cur.Enabled {
		return notFound(err, domain.Errorf(domain.ENOTFOUND, "The authenticator is not on."))
	}
	return s.withSecondFactor(ctx, p.User, code, meta, func(ctx context.Context, _ string) error {
		if err := s.store.DeleteTOTP(ctx, p.User.ID); err != nil {
			return err
		}
		if err := s.afterRemoval(ctx, p.User); err != nil {
			return err
		}
		event.Success = true
		return record(ctx, s.store, meta, event)
	})
}

// afterRemoval, once a factor is gone: without any left, the recovery
// codes go too, and a person whose role requires a factor is back to
// sessions that can only enrol.
func (s *MFAService) afterRemoval(ctx context.Context, u domain.User) error {
	st, err := s.Status(ctx, u)
	if err != nil || st.Any() {
		return err
	}
	if err := s.store.DeleteRecoveryCodes(ctx, u.ID); err != nil {
		return err
	}
	if st.Required {
		return s.store.SetEnrolmentOnly(ctx, u.ID, true)
	}
	return nil
}

// RegenerateRecoveryCodes replaces the caller's recovery codes after a
// current authenticator code. Errors: EUNAUTHENTICATED (wrong code),
// ENOTFOUND (no authenticator), ETHROTTLED, EFORBIDDEN.
func (s *MFAService) RegenerateRecoveryCodes(ctx context.Context, p *domain.Principal, code string, meta domain.RequestMeta) ([]string, error) {
	if p.AccessTokenID != "" {
		return nil, errMFAForToken
	}
	cur, err := s.store.TOTPSecret(ctx, p.User.ID)
	if err != nil || !cur.Enabled {
		return nil, notFound(err, domain.Errorf(domain.ENOTFOUND, "The authenticator is not on."))
	}
	if !isDigits(code, secure.TOTPDigits) {
		return nil, s.failed(ctx, p.User, "recovery codes: not an authenticator code", meta)
	}
	var codes []string
	err = s.withSecondFactor(ctx, p.User, code, meta, func(ctx context.Context, _ string) error {
		var err error
		if codes, err = s.newRecoveryCodes(ctx, p.User.ID); err != nil {
			return err
		}
		return record(ctx, s.store, meta, Event{Actor: p.User.ID, Action: domain.ActionMFARecoveryRegenerated, Table: domain.TableUsers, RecordID: p.User.ID, Success: true})
	})
	return codes, err
}

// ResetByAdmin removes every second factor of a person, ends their
// sessions and mails them. Errors: EFORBIDDEN (not an admin), ENOTFOUND.
func (s *MFAService) ResetByAdmin(ctx context.Context, p *domain.Principal, userID string, meta domain.RequestMeta) error {
	if err := require(ctx, s.store, p, domain.PermUsersManage, meta, forbidden("Only admins can reset second factors.")); err != nil {
		return err
	}
	u, err := s.store.UserByID(ctx, userID)
	if err != nil {
		return notFound(err, domain.Errorf(domain.ENOTFOUND, "User not found."))
	}
	return s.store.InTx(ctx, func(ctx context.Context) error {
		if err := s.store.ResetMFA(ctx, u.ID); err != nil {
			return err
		}
		// Whoever holds a session made with the old factors is signed out;
		// the person signs in again and enrols anew.
		if err := s.store.RevokeUserSessions(ctx, u.ID, "", "second factors reset by an admin"); err != nil {
			return err
		}
		if err := s.outbox.Queue(ctx, s.templates.MFAReset(u.Email, mailName(u))); err != nil {
			return err
		}
		return record(ctx, s.store, meta, Event{Actor: p.User.ID, Action: domain.ActionMFAResetByAdmin, Table: domain.TableUsers, RecordID: u.ID, Success: true})
	})
}

// checkPassword confirms a change with the caller's password; a wrong one
// gets the sign-in's answer and is recorded as event's failure.
func (s *MFAService) checkPassword(ctx context.Context, p *domain.Principal, password string, meta domain.RequestMeta, event Event) error {
	stored, err := s.store.PasswordHash(ctx, p.User.ID)
	if err != nil {
		return err
	}
	if ok, err := s.passwords.Verify(ctx, stored, password); err != nil || !ok {
		if domain.ErrorKind(err) == domain.EUNAVAILABLE {
			return err
		}
		event.Reason = "wrong password"
		_ = record(ctx, s.store, meta, event)
		return errBadLogin
	}
	return nil
}

// errWrongFactor rolls back the transaction of a wrong code.
var errWrongFactor = errors.New("wrong second factor")

// withSecondFactor checks code (a TOTP code or a recovery code) for u
// and, when it is right, spends it and runs then in the same transaction,
// with the method used ("totp" or "recovery"). A wrong code is recorded,
// counted against the account's limit and answered errBadSecondFactor.
// Errors: EUNAUTHENTICATED, ETHROTTLED, and then's.
func (s *MFAService) withSecondFactor(ctx context.Context, u domain.User, code string, meta domain.RequestMeta, then func(ctx context.Context, method string) error) error {
	if err := s.checkThrottle(ctx, u, meta); err != nil {
		return err
	}
	reason := ""
	err := s.store.InTx(ctx, func(ctx context.Context) error {
		method, why, err := s.spend(ctx, u.ID, code)
		if err != nil {
			return err
		}
		if method == "" {
			reason = why
			return errWrongFactor
		}
		if method == "recovery" {
			if err := record(ctx, s.store, meta, Event{Actor: u.ID, Action: domain.ActionMFARecoveryCodeUsed, Table: domain.TableUsers, RecordID: u.ID, Success: true}); err != nil {
				return err
			}
		}
		return then(ctx, method)
	})
	if errors.Is(err, errWrongFactor) {
		return s.failed(ctx, u, reason, meta)
	}
	if err == nil {
		err = s.store.ClearThrottle(ctx, mfaFailsPerUser.prefix+u.ID)
	}
	return err
}

// checkThrottle refuses an account past its limit of wrong codes.
func (s *MFAService) checkThrottle(ctx context.Context, u domain.User, meta domain.RequestMeta) error {
	hits, start, err := s.store.ThrottleHits(ctx, mfaFailsPerUser.prefix+u.ID, mfaFailsPerUser.window)
	if err != nil {
		return err
	}
	if hits >= mfaFailsPerUser.max {
		_ = record(ctx, s.store, meta, Event{Actor: u.ID, Action: domain.ActionMFAChallengeFailed, Table: domain.TableUsers, RecordID: u.ID, Reason: "throttled"})
		return throttled(start.Add(mfaFailsPerUser.window).Sub(s.now()), mfaFailsPerUser.message)
	}
	return nil
}

// failed records and counts a wrong second-factor code.
func (s *MFAService) failed(ctx context.Context, u domain.User, reason string, meta domain.RequestMeta) error {
	if _, _, err := s.store.HitThrottle(ctx, mfaFailsPerUser.prefix+u.ID, mfaFailsPerUser.window); err != nil {
		return err
	}
	if err := record(ctx, s.store, meta, Event{Actor: u.ID, Action: domain.ActionMFAChallengeFailed, Table: domain.TableUsers, RecordID: u.ID, Reason: reason}); err != nil {
		return err
	}
	return errBadSecondFactor
}

// spend checks a code and spends it: a TOTP code's time step, which no
// later code of an earlier or the same step can then reuse, or a recovery
// code. method is "" when the code is wrong, with why.
func (s *MFAService) spend(ctx context.Context, userID, code string) (method, why string, err error) {
	if isDigits(code, secure.TOTPDigits) {
		cur, err := s.store.TOTPSecret(ctx, userID)
		if domain.ErrorKind(err) == domain.ENOTFOUND || (err == nil && !cur.Enabled) {
			return "", "wrong code: no authenticator", nil
		} else if err != nil {
			return "", "", err
		}
		secret, err := s.texts.Open(domain.TOTPSealID(userID), cur.Sealed)
		if err != nil {
			return "", "", err
		}
		step, ok := secure.MatchTOTP(secret, code, s.now())
		if !ok {
			return "", "wrong authenticator code", nil
		}
		used, err := s.store.UseTOTPStep(ctx, userID, step, true)
		if err != nil || !used {
			return "", "authenticator code used before", err
		}
		return "totp", "", nil
	}
	norm, ok := secure.NormalRecoveryCode(code)
	if !ok {
		return "", "not a code", nil
	}
	used, err := s.store.UseRecoveryCode(ctx, userID, s.secrets.CodeHash(purposeRecovery, userID, norm), s.now().UTC())
	if err != nil || !used {
		return "", "wrong or used recovery code", err
	}
	return "recovery", "", nil
}
