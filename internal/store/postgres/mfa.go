package postgres

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/store/postgres/db"
)

// PutTOTPSetup stores a new, not yet enabled authenticator secret,
// replacing one not yet enabled; an enabled one stays (and ECONFLICT is
// not returned: the caller checks first).
func (s *Store) PutTOTPSetup(ctx context.Context, userID string, sealed []byte, now time.Time) error {
	uid, err := parseID(userID)
	if err != nil {
		return err
	}
	return translate(s.q(ctx).PutTOTPSetup(ctx, db.PutTOTPSetupParams{UserID: uid, Sealed: sealed, CreatedAt: now}))
}

// TOTPSecret is a person's authenticator secret. Errors: ENOTFOUND.
func (s *Store) TOTPSecret(ctx context.Context, userID string) (domain.TOTPSecret, error) {
	uid, err := parseID(userID)
	if err != nil {
		return domain.TOTPSecret{}, err
	}
	r, err := s.q(ctx).GetTOTP(ctx, uid)
	if err != nil {
		return domain.TOTPSecret{}, translate(err)
	}
	return domain.TOTPSecret{Sealed: r.Sealed, Enabled: r.EnabledAt.Valid}, nil
}

// UseTOTPStep records that a code of time step was accepted, if no code of
// that step or a later one was before; it reports whether it did. enabled
// says whether the authenticator must be in force (a sign-in) or not yet
// (enabling it).
func (s *Store) UseTOTPStep(ctx context.Context, userID string, step int64, enabled bool) (bool, error) {
	uid, err := parseID(userID)
	if err != nil {
		return false, err
	}
	_, err = s.q(ctx).UseTOTPStep(ctx, db.UseTOTPStepParams{UserID: uid, Step: step, Enabled: enabled})
	if domain.ErrorKind(translate(err)) == domain.ENOTFOUND {
		return false, nil
	}
	return err == nil, translate(err)
}

// EnableTOTP puts a confirmed setup in force. Errors: ENOTFOUND (no setup
// waiting).
func (s *Store) EnableTOTP(ctx context.Context, userID string, now time.Time) error {
	uid, err := parseID(userID)
	if err != nil {
		return err
	}
	_, err = s.q(ctx).EnableTOTP(ctx, db.EnableTOTPParams{UserID: uid, Now: now})
	return translate(err)
}

// DeleteTOTP removes a person's authenticator, set up or enabled.
func (s *Store) DeleteTOTP(ctx context.Context, userID string) error {
	uid, err := parseID(userID)
	if err != nil {
		return err
	}
	_, err = s.q(ctx).DeleteTOTP(ctx, uid)
	return translate(err)
}

// TOTPNotUnder lists authenticator secrets sealed under another key than
// keyID, a batch at a time, for `medishare keys rotate`; the ids are the
// people's.
func (s *Store) TOTPNotUnder(ctx context.Context, keyID []byte) ([]domain.SealedText, error) {
	rows, err := s.q(ctx).TOTPNotUnder(ctx, keyID)
	out := make([]domain.SealedText, len(rows))
	for i, r := range rows {
		out[i] = domain.SealedText{ID: r.UserID.String(), Sealed: r.Sealed}
	}
	return out, translate(err)
}

// SetTOTPSealed replaces a person's sealed authenticator secret.
func (s *Store) SetTOTPSealed(ctx context.Context, userID string, sealed []byte) error {
	return translate(s.q(ctx).SetTOTPSealed(ctx, db.SetTOTPSealedParams{UserID: uuid.MustParse(userID), Sealed: sealed}))
}

// ReplaceRecoveryCodes makes hashes a person's recovery codes, in place of
// any before. Call it inside InTx.
func (s *Store) ReplaceRecoveryCodes(ctx context.Context, userID string, hashes [][]byte) error {
	uid, err := parseID(userID)
	if err != nil {
		return err
	}
	if err := s.q(ctx).DeleteRecoveryCodes(ctx, uid); err != nil {
		return translate(err)
	}
	for _, h := range hashes {
		if err := s.q(ctx).InsertRecoveryCode(ctx, db.InsertRecoveryCodeParams{UserID: uid, CodeHash: h}); err != nil {
			return translate(err)
		}
	}
	return nil
}

// UseRecoveryCode spends an unused recovery code of a person; it reports
// whether there was one.
func (s *Store) UseRecoveryCode(ctx context.Context, userID string, codeHash []byte, now time.Time) (bool, error) {
	uid, err := parseID(userID)
	if err != nil {
		return false, err
	}
	_, err = s.q(ctx).UseRecoveryCode(ctx, db.UseRecoveryCodeParams{UserID: uid, CodeHash: codeHash, Now: now})
	if domain.ErrorKind(translate(err)) == domain.ENOTFOUND {
		return false, nil
	}
	return err == nil, translate(err)
}

// MFAStatus is which second factors a person has (Required is left to the caller).
func (s *Store) MFAStatus(ctx context.Context, userID string) (domain.MFAStatus, error) {
	uid, err := parseID(userID)
	if err != nil {
		return domain.MFAStatus{}, err
	}
	r, err := s.q(ctx).GetMFAStatus(ctx, uid)
	return domain.MFAStatus{TOTP: r.Totp, Passkeys: int(r.Passkeys)}, translate(err)
}

// MFAStatuses is MFAStatus for several people at once, by id.
func (s *Store) MFAStatuses(ctx context.Context, userIDs []string) (map[string]domain.MFAStatus, error) {
	ids := make([]uuid.UUID, 0, len(userIDs))
	for _, id := range userIDs {
		if u, err := uuid.Parse(id); err == nil {
			ids = append(ids, u)
		}
	}
	rows, err := s.q(ctx).ListMFAStatus(ctx, ids)
	if err != nil {
		return nil, translate(err)
	}
	out := make(map[string]domain.MFAStatus, len(rows))
	for _, r := range rows {
		out[r.UserID.String()] = domain.MFAStatus{TOTP: r.Totp, Passkeys: int(r.Passkeys)}
	}
	return out, nil
}

// CreateMFAChallenge stores the second step of a sign-in under its token's keyed hash.
func (s *Store) CreateMFAChallenge(ctx context.Context, userID string, tokenHash []byte, expires time.Time) error {
	uid, err := parseID(userID)
	if err != nil {
		return err
	}
	return translate(s.q(ctx).InsertMFAChallenge(ctx, db.InsertMFAChallengeParams{TokenHash: tokenHash, UserID: uid, ExpiresAt: expires}))
}

// TryMFAChallenge counts a try of a live challenge (unused, not expired at
// now, fewer than maxTries tries) and returns it. Errors: ENOTFOUND (no
// such live challenge).
func (s *Store) TryMFAChallenge(ctx context.Context, tokenHash []byte, now time.Time, maxTries int) (domain.MFAChallenge, error) {
	r, err := s.q(ctx).TryMFAChallenge(ctx, db.TryMFAChallengeParams{TokenHash: tokenHash, Now: now, MaxTries: int32(maxTries)})
	if err != nil {
		return domain.MFAChallenge{}, translate(err)
	}
	return domain.MFAChallenge{UserID: r.UserID.String(), Tries: int(r.Tries), WebAuthn: r.Webauthn}, nil
}

// TakeMFAChallengeWebAuthn counts a try of a live challenge and takes its
// passkey ceremony's session data (nil when none began, or another finish
// took it). Errors: ENOTFOUND (no such live challenge).
func (s *Store) TakeMFAChallengeWebAuthn(ctx context.Context, tokenHash []byte, now time.Time, maxTries int) (domain.MFAChallenge, error) {
	r, err := s.q(ctx).TakeMFAChallengeWebAuthn(ctx, db.TakeMFAChallengeWebAuthnParams{TokenHash: tokenHash, Now: now, MaxTries: int32(maxTries)})
	if err != nil {
		return domain.MFAChallenge{}, translate(err)
	}
	return domain.MFAChallenge{UserID: r.UserID.String(), Tries: int(r.Tries), WebAuthn: r.Webauthn}, nil
}

// LiveMFAChallenge is whom a live challenge is for, without counting a
// try. Errors: ENOTFOUND.
func (s *Store) LiveMFAChallenge(ctx context.Context, tokenHash []byte, now time.Time, maxTries int) (string, error) {
	uid, err := s.q(ctx).PeekMFAChallenge(ctx, db.PeekMFAChallengeParams{TokenHash: tokenHash, Now: now, MaxTries: int32(maxTries)})
	if err != nil {
		return "", translate(err)
	}
	return uid.String(), nil
}

// SetMFAChallengeWebAuthn keeps a passkey ceremony's session data with a
// live challenge. Errors: ENOTFOUND.
func (s *Store) SetMFAChallengeWebAuthn(ctx context.Context, tokenHash, session []byte, now time.Time, maxTries int) error {
	n, err := s.q(ctx).SetMFAChallengeWebAuthn(ctx, db.SetMFAChallengeWebAuthnParams{TokenHash: tokenHash, Webauthn: session, Now: now, MaxTries: int32(maxTries)})
	if err == nil && n == 0 {
		return domain.Errorf(domain.ENOTFOUND, "Not found.")
	}
	return translate(err)
}

// UseMFAChallenge ends a challenge; of concurrent uses one wins, the
// others get ENOTFOUND.
func (s *Store) UseMFAChallenge(ctx context.Context, tokenHash []byte, now time.Time) error {
	_, err := s.q(ctx).UseMFAChallenge(ctx, db.UseMFAChallengeParams{TokenHash: tokenHash, Now: now})
	return translate(err)
}

// DeleteOldMFAChallenges removes challenges that expired before before.
func (s *Store) DeleteOldMFAChallenges(ctx context.Context, before time.Time) error {
	return translate(s.q(ctx).DeleteOldMFAChallenges(ctx, before))
}

// ResetMFA removes every second factor of a person: authenticator,
// recovery codes, passkeys, and sign-ins waiting for one. Call it inside InTx.
func (s *Store) ResetMFA(ctx context.Context, userID string) error {
	uid, err := parseID(userID)
	if err != nil {
		return err
	}
	q := s.q(ctx)
	if _, err := q.DeleteTOTP(ctx, uid); err != nil {
		return translate(err)
	}
	if err := q.DeleteRecoveryCodes(ctx, uid); err != nil {
		return translate(err)
	}
	if err := q.DeleteUserWebAuthnCredentials(ctx, uid); err != nil {
		return translate(err)
	}
	return translate(q.DeleteUserMFAChallenges(ctx, uid))
}

// DeleteRecoveryCodes removes a person's recovery codes.
func (s *Store) DeleteRecoveryCodes(ctx context.Context, userID string) error {
	uid, err := parseID(userID)
	if err != nil {
		return err
	}
	return translate(s.q(ctx).DeleteRecoveryCodes(ctx, uid))
}

// SetEnrolmentOnly marks every live session of a person as one that may
// only set up a second factor, or frees them.
func (s *Store) SetEnrolmentOnly(ctx context.Context, userID string, only bool) error {
	uid, err := parseID(userID)
	if err != nil {
		return err
	}
	return translate(s.q(ctx).SetUserSessionsEnrolmentOnly(ctx, db.SetUserSessionsEnrolmentOnlyParams{UserID: uid, EnrolmentOnly: only}))
}

// ApplyMFARequiredRoles makes the live sessions of people of roles that
// require a second factor they lack enrolment-only, and frees the others.
func (s *Store) ApplyMFARequiredRoles(ctx context.Context, roles []string) error {
	if roles == nil {
		roles = []string{}
	}
	return translate(s.q(ctx).ApplyMFARequiredRoles(ctx, roles))
}

// SetSessionEnrolmentOnly marks one session as one that may only set up a second factor.
func (s *Store) SetSessionEnrolmentOnly(ctx context.Context, sessionID string) error {
	sid, err := parseID(sessionID)
	if err != nil {
		return err
	}
	return translate(s.q(ctx).SetSessionEnrolmentOnly(ctx, sid))
}

// Passkeys lists a person's passkeys, oldest first.
func (s *Store) Passkeys(ctx context.Context, userID string) ([]domain.StoredPasskey, error) {
	uid, err := parseID(userID)
	if err != nil {
		return nil, err
	}
	rows, err := s.q(ctx).ListWebAuthnCredentials(ctx, uid)
	if err != nil {
		return nil, translate(err)
	}
	out := make([]domain.StoredPasskey, len(rows))
	for i, r := range rows {
		out[i] = toPasskey(r)
	}
	return out, nil
}

// AddPasskey stores a new passkey. Errors: ECONFLICT (its credential id is
// registered already).
func (s *Store) AddPasskey(ctx context.Context, userID, name string, credentialID, credential []byte, now time.Time) (domain.StoredPasskey, error) {
	uid, err := parseID(userID)
	if err != nil {
		return domain.StoredPasskey{}, err
	}
	r, err := s.q(ctx).InsertWebAuthnCredential(ctx, db.InsertWebAuthnCredentialParams{
		UserID: uid, CredentialID: credentialID, Credential: credential, Name: name, CreatedAt: now})
	if err != nil {
		return domain.StoredPasskey{}, translate(err)
	}
	return toPasskey(r), nil
}

// RenamePasskey renames one of a person's passkeys. Errors: ENOTFOUND.
func (s *Store) RenamePasskey(ctx context.Context, userID, id, name string) (domain.StoredPasskey, error) {
	uid, err := parseID(userID)
	if err != nil {
		return domain.StoredPasskey{}, err
	}
	pid, err := parseID(id)
	if err != nil {
		return domain.StoredPasskey{}, err
	}
	r, err := s.q(ctx).RenameWebAuthnCredential(ctx, db.RenameWebAuthnCredentialParams{ID: pid, UserID: uid, Name: name})
	if err != nil {
		return domain.StoredPasskey{}, translate(err)
	}
	return toPasskey(r), nil
}

// RemovePasskey removes one of a person's passkeys. Errors: ENOTFOUND.
func (s *Store) RemovePasskey(ctx context.Context, userID, id string) error {
	uid, err := parseID(userID)
	if err != nil {
		return err
	}
	pid, err := parseID(id)
	if err != nil {
		return err
	}
	n, err := s.q(ctx).DeleteWebAuthnCredential(ctx, db.DeleteWebAuthnCredentialParams{ID: pid, UserID: uid})
	if err == nil && n == 0 {
		return domain.Errorf(domain.ENOTFOUND, "Not found.")
	}
	return translate(err)
}

// UsePasskey records a passkey's use: its updated record (sign count) and the time.
func (s *Store) UsePasskey(ctx context.Context, userID string, credentialID, credential []byte, now time.Time) error {
	uid, err := parseID(userID)
	if err != nil {
		return err
	}
	return translate(s.q(ctx).UpdateWebAuthnCredentialUse(ctx, db.UpdateWebAuthnCredentialUseParams{
		UserID: uid, CredentialID: credentialID, Credential: credential, Now: now}))
}

// PutPasskeyRegistration keeps a registration ceremony's session data
// until expires, in place of one begun before.
func (s *Store) PutPasskeyRegistration(ctx context.Context, userID string, session []byte, expires time.Time) error {
	uid, err := parseID(userID)
	if err != nil {
		return err
	}
	return translate(s.q(ctx).PutWebAuthnRegistration(ctx, db.PutWebAuthnRegistrationParams{UserID: uid, Session: session, ExpiresAt: expires}))
}

// TakePasskeyRegistration removes and returns a live registration's
// session data (it is used once). Errors: ENOTFOUND.
func (s *Store) TakePasskeyRegistration(ctx context.Context, userID string, now time.Time) ([]byte, error) {
	uid, err := parseID(userID)
	if err != nil {
		return nil, err
	}
	b, err := s.q(ctx).TakeWebAuthnRegistration(ctx, db.TakeWebAuthnRegistrationParams{UserID: uid, Now: now})
	return b, translate(err)
}

func toPasskey(r db.WebauthnCredential) domain.StoredPasskey {
	return domain.StoredPasskey{
		Passkey:      domain.Passkey{ID: r.ID.String(), Name: r.Name, CreatedAt: r.CreatedAt, LastUsedAt: timePtr(r.LastUsedAt)},
		CredentialID: r.CredentialID, Credential: r.Credential,
	}
}
