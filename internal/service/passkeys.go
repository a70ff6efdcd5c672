package service

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/secure"
)

// PasskeyStore is what passkeys need from the database.
type PasskeyStore interface {
	Passkeys(ctx context.Context, userID string) ([]domain.StoredPasskey, error)
	AddPasskey(ctx context.Context, userID, name string, credentialID, credential []byte, now time.Time) (domain.StoredPasskey, error)
	RenamePasskey(ctx context.Context, userID, id, name string) (domain.StoredPasskey, error)
	RemovePasskey(ctx context.Context, userID, id string) error
	UsePasskey(ctx context.Context, userID string, credentialID, credential []byte, now time.Time) error
	PutPasskeyRegistration(ctx context.Context, userID string, session []byte, expires time.Time) error
	TakePasskeyRegistration(ctx context.Context, userID string, now time.Time) ([]byte, error)
	TakeMFAChallengeWebAuthn(ctx context.Context, tokenHash []byte, now time.Time, maxTries int) (domain.MFAChallenge, error)
}

// Passkeys runs WebAuthn ceremonies (a relying party, secure.RelyingParty):
// it hands out a ceremony's session data, which the service keeps in the
// database between begin and finish, so either may reach any instance.
// Finishes answer a response that does not verify with an error wrapping
// secure.ErrPasskeyRejected.
type Passkeys interface {
	BeginRegistration(o domain.PasskeyOwner) (options, session []byte, err error)
	FinishRegistration(o domain.PasskeyOwner, session, response []byte) (credentialID, credential []byte, err error)
	BeginLogin(o domain.PasskeyOwner) (options, session []byte, err error)
	FinishLogin(o domain.PasskeyOwner, session, response []byte) (credentialID, credential []byte, err error)
}

// DefaultPasskeyName is a passkey's name when its owner gives none.
const DefaultPasskeyName = "Passkey"

// passkeyError is an error whose text is both its message and its error
// member, as the second factors' answers are.
func passkeyError(kind, text string, fields ...domain.FieldError) *domain.Error {
	return &domain.Error{Kind: kind, Message: text, Code: text, Fields: fields}
}

var (
	errNoPasskeys          = passkeyError(domain.ENOTFOUND, "Passkeys are not offered here.")
	errPasskeyNotFound     = passkeyError(domain.ENOTFOUND, "Passkey not found.")
	errPasskeyCeremonyGone = passkeyError(domain.EVALIDATION, "Adding the passkey took too long. Please try again.",
		domain.FieldError{Field: "credential", Message: "no registration was begun, or it expired"})
	errPasskeyNotVerified = passkeyError(domain.EVALIDATION, "The passkey could not be verified. Please try again.",
		domain.FieldError{Field: "credential", Message: "does not verify"})
	errPasskeyTaken  = passkeyError(domain.ECONFLICT, "This passkey is added already.")
	errNoPasskeyHere = passkeyError(domain.EVALIDATION, "This account has no passkeys.")
)

// passkeyName is a passkey's name as given, trimmed: 1-64 printable
// characters; empty is "Passkey" where a default is allowed.
func passkeyName(name string, allowDefault bool) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" && allowDefault {
		return DefaultPasskeyName, nil
	}
	bad := name == "" || !utf8.ValidString(name) || utf8.RuneCountInString(name) > domain.PasskeyNameMax
	for _, r := range name {
		bad = bad || !unicode.IsPrint(r)
	}
	if bad {
		return "", passkeyError(domain.EVALIDATION, "The name must be 1 to 64 printable characters.",
			domain.FieldError{Field: "name", Message: "must be 1 to 64 printable characters"})
	}
	return name, nil
}

// passkeyOwner is u as a passkey ceremony sees them, with their passkeys.
func (s *MFAService) passkeyOwner(ctx context.Context, u domain.User) (domain.PasskeyOwner, error) {
	keys, err := s.store.Passkeys(ctx, u.ID)
	if err != nil {
		return domain.PasskeyOwner{}, err
	}
	display := strings.TrimSpace(u.Firstname + " " + u.Lastname)
	if display == "" {
		display = u.Email
	}
	return domain.PasskeyOwner{ID: u.ID, Name: u.Email, DisplayName: display, Passkeys: keys}, nil
}

// ListPasskeys is the caller's passkeys, oldest first.
func (s *MFAService) ListPasskeys(ctx context.Context, p *domain.Principal) ([]domain.Passkey, error) {
	keys, err := s.store.Passkeys(ctx, p.User.ID)
	out := make([]domain.Passkey, len(keys))
	for i, k := range keys {
		out[i] = k.Passkey
	}
	return out, err
}

// BeginPasskeyRegistration starts adding a passkey for the caller and
// returns the options for the browser (JSON); the ceremony's session data
// is kept for 5 minutes, in place of a registration begun before.
// Errors: EFORBIDDEN (a token), ENOTFOUND (no passkeys offered).
func (s *MFAService) BeginPasskeyRegistration(ctx context.Context, p *domain.Principal) ([]byte, error) {
	if p.AccessTokenID != "" {
		return nil, errMFAForToken
	}
	if s.passkeys == nil {
		return nil, errNoPasskeys
	}
	owner, err := s.passkeyOwner(ctx, p.User)
	if err != nil {
		return nil, err
	}
	options, session, err := s.passkeys.BeginRegistration(owner)
	if err != nil {
		return nil, err
	}
	return options, s.store.PutPasskeyRegistration(ctx, p.User.ID, session, s.now().Add(secure.PasskeyCeremonyTTL).UTC())
}

// FinishPasskeyRegistration checks the browser's response to the caller's
// registration begun last, which it ends, and stores the passkey. The
// first second factor comes with recovery codes (returned, shown once),
// and frees the person's sessions that could only enrol.
// Errors: EVALIDATION (name; no registration begun or it expired; the
// response does not verify), ECONFLICT (the passkey is added already),
// EFORBIDDEN, ENOTFOUND.
func (s *MFAService) FinishPasskeyRegistration(ctx context.Context, p *domain.Principal, name string, response []byte, meta domain.RequestMeta) (domain.Passkey, []string, error) {
	if p.AccessTokenID != "" {
		return domain.Passkey{}, nil, errMFAForToken
	}
	if s.passkeys == nil {
		return domain.Passkey{}, nil, errNoPasskeys
	}
	name, err := passkeyName(name, true)
	if err != nil {
		return domain.Passkey{}, nil, err
	}
	event := Event{Actor: p.User.ID, Action: domain.ActionMFAPasskeyAdded, Table: domain.TableUsers, RecordID: p.User.ID}
	// The session data is taken first: a response is checked against it once.
	session, err := s.store.TakePasskeyRegistration(ctx, p.User.ID, s.now().UTC())
	if err != nil {
		return domain.Passkey{}, nil, notFound(err, errPasskeyCeremonyGone)
	}
	owner, err := s.passkeyOwner(ctx, p.User)
	if err != nil {
		return domain.Passkey{}, nil, err
	}
	credID, rec, err := s.passkeys.FinishRegistration(owner, session, response)
	if errors.Is(err, secure.ErrPasskeyRejected) {
		event.Reason = err.Error()
		_ = record(ctx, s.store, meta, event)
		return domain.Passkey{}, nil, errPasskeyNotVerified
	} else if err != nil {
		return domain.Passkey{}, nil, err
	}
	var added domain.StoredPasskey
	var codes []string
	err = s.store.InTx(ctx, func(ctx context.Context) error {
		before, err := s.store.MFAStatus(ctx, p.User.ID)
		if err != nil {
			return err
		}
		if added, err = s.store.AddPasskey(ctx, p.User.ID, name, credID, rec, s.now().UTC()); err != nil {
			if domain.ErrorKind(err) == domain.ECONFLICT {
				return errPasskeyTaken
			}
			return err
		}
		if !before.Any() {
			if codes, err = s.newRecoveryCodes(ctx, p.User.ID); err != nil {
				return err
			}
		}
		if err := s.store.SetEnrolmentOnly(ctx, p.User.ID, false); err != nil {
			return err
		}
		event.Success, event.Reason = true, "passkey "+added.ID
		return record(ctx, s.store, meta, event)
	})
	return added.Passkey, codes, err
}

// RenamePasskey renames one of the caller's passkeys. Errors: EVALIDATION
// (name), ENOTFOUND (not theirs), EFORBIDDEN.
func (s *MFAService) RenamePasskey(ctx context.Context, p *domain.Principal, id, name string, meta domain.RequestMeta) (domain.Passkey, error) {
	if p.AccessTokenID != "" {
		return domain.Passkey{}, errMFAForToken
	}
	name, err := passkeyName(name, false)
	if err != nil {
		return domain.Passkey{}, err
	}
	var renamed domain.StoredPasskey
	err = s.store.InTx(ctx, func(ctx context.Context) error {
		if renamed, err = s.store.RenamePasskey(ctx, p.User.ID, id, name); err != nil {
			return notFound(err, errPasskeyNotFound)
		}
		return record(ctx, s.store, meta, Event{Actor: p.User.ID, Action: domain.ActionMFAPasskeyRenamed, Table: domain.TableUsers,
			RecordID: p.User.ID, Success: true, Reason: "passkey " + renamed.ID})
	})
	return renamed.Passkey, err
}

// RemovePasskey removes one of the caller's passkeys. Without a second
// factor left, the recovery codes go too, and a person whose role
// requires one is back to sessions that can only enrol.
// Errors: ENOTFOUND (not theirs), EFORBIDDEN.
func (s *MFAService) RemovePasskey(ctx context.Context, p *domain.Principal, id string, meta domain.RequestMeta) error {
	if p.AccessTokenID != "" {
		return errMFAForToken
	}
	return s.store.InTx(ctx, func(ctx context.Context) error {
		if err := s.store.RemovePasskey(ctx, p.User.ID, id); err != nil {
			return notFound(err, errPasskeyNotFound)
		}
		if err := s.afterRemoval(ctx, p.User); err != nil {
			return err
		}
		return record(ctx, s.store, meta, Event{Actor: p.User.ID, Action: domain.ActionMFAPasskeyRemoved, Table: domain.TableUsers,
			RecordID: p.User.ID, Success: true, Reason: "passkey " + id})
	})
}

// LoginWebAuthnBegin starts the second step of a sign-in with a passkey:
// the options for the browser (JSON). The ceremony's session data is kept
// with the mfaToken (which lives 5 minutes); beginning again replaces it.
// It counts no try. Errors: EUNAUTHENTICATED (the sign-in expired),
// EVALIDATION (the person has no passkeys), ENOTFOUND (none offered).
func (s *SessionService) LoginWebAuthnBegin(ctx context.Context, mfaToken string, meta domain.RequestMeta) ([]byte, error) {
	if s.mfa.passkeys == nil {
		return nil, errNoPasskeys
	}
	if mfaToken == "" {
		return nil, errMFAExpired
	}
	hash := s.secrets.TokenHash(mfaToken)
	userID, err := s.mfa.store.LiveMFAChallenge(ctx, hash, s.now(), mfaMaxTries)
	if err != nil {
		return nil, notFound(err, errMFAExpired)
	}
	user, err := s.mfa.store.UserByID(ctx, userID)
	if err != nil {
		return nil, notFound(err, errMFAExpired)
	}
	if !user.Active || !user.Verified || user.AwaitingApproval {
		return nil, errMFAExpired
	}
	owner, err := s.mfa.passkeyOwner(ctx, user)
	if err != nil {
		return nil, err
	}
	if len(owner.Passkeys) == 0 {
		return nil, errNoPasskeyHere
	}
	options, session, err := s.mfa.passkeys.BeginLogin(owner)
	if err != nil {
		return nil, err
	}
	if err := s.mfa.store.SetMFAChallengeWebAuthn(ctx, hash, session, s.now(), mfaMaxTries); err != nil {
		return nil, notFound(err, errMFAExpired)
	}
	return options, nil
}

// LoginWebAuthnFinish completes a sign-in with a passkey: the browser's
// assertion is checked against the ceremony begun last for the mfaToken,
// whose session data it takes (it is used once). A failed assertion is a
// wrong code: it counts toward the mfaToken's 5 tries and the account's
// limit. Errors: EUNAUTHENTICATED (wrong; the sign-in expired), ETHROTTLED.
func (s *SessionService) LoginWebAuthnFinish(ctx context.Context, mfaToken string, response []byte, meta domain.RequestMeta) (Session, error) {
	if s.mfa.passkeys == nil {
		return Session{}, errNoPasskeys
	}
	sess, err := s.loginWebAuthnFinish(ctx, mfaToken, response, meta)
	if domain.ErrorKind(err) == domain.EUNAUTHENTICATED {
		_, _, _ = s.store.HitThrottle(ctx, loginFailsPerIP.prefix+meta.IP, loginFailWindow)
	}
	return sess, err
}

func (s *SessionService) loginWebAuthnFinish(ctx context.Context, mfaToken string, response []byte, meta domain.RequestMeta) (Session, error) {
	user, hash, ch, err := s.tryChallengeWith(ctx, mfaToken, meta, s.mfa.store.TakeMFAChallengeWebAuthn)
	if err != nil {
		return Session{}, err
	}
	if err := s.mfa.checkThrottle(ctx, user, meta); err != nil {
		return Session{}, err
	}
	if ch.WebAuthn == nil {
		return Session{}, s.mfa.failed(ctx, user, "passkey: no ceremony begun, or it was used", meta)
	}
	owner, err := s.mfa.passkeyOwner(ctx, user)
	if err != nil {
		return Session{}, err
	}
	credID, rec, err := s.mfa.passkeys.FinishLogin(owner, ch.WebAuthn, response)
	if errors.Is(err, secure.ErrPasskeyRejected) {
		return Session{}, s.mfa.failed(ctx, user, err.Error(), meta)
	} else if err != nil {
		return Session{}, err
	}
	var sess Session
	err = s.store.InTx(ctx, func(ctx context.Context) error {
		if err := s.mfa.store.UsePasskey(ctx, user.ID, credID, rec, s.now().UTC()); err != nil {
			return err
		}
		sess, err = s.completeSecondStep(ctx, user, hash, "webauthn", meta)
		return err
	})
	if err == nil {
		err = s.store.ClearThrottle(ctx, mfaFailsPerUser.prefix+user.ID)
	}
	return sess, err
}
