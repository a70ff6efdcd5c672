package domain

import "time"

// MFAStatus is which second factors a person has, and whether their role
// requires one (the setting mfaRequiredRoles).
type MFAStatus struct {
	TOTP     bool
	Passkeys int
	Required bool
}

// Any reports whether the person has a second factor in force.
func (m MFAStatus) Any() bool { return m.TOTP || m.Passkeys > 0 }

// EnrolmentOnly reports whether a session of the person may only set up a
// second factor: their role requires one and they have none.
func (m MFAStatus) EnrolmentOnly() bool { return m.Required && !m.Any() }

// Passkey is a WebAuthn credential a person registered, as they see it.
type Passkey struct {
	ID         string
	Name       string
	CreatedAt  time.Time
	LastUsedAt *time.Time
}

// PasskeyNameMax is the longest name a passkey may have, in characters.
const PasskeyNameMax = 64

// TOTPSealID is the record a person's authenticator secret is sealed to.
func TOTPSealID(userID string) string { return "totp:" + userID }

// TOTPSecret is a person's authenticator secret as stored: sealed, and
// whether it is in force (a setup not confirmed yet is not).
type TOTPSecret struct {
	Sealed  []byte
	Enabled bool
}

// StoredPasskey is a passkey with what verifying it needs: the
// authenticator's credential id and the WebAuthn library's record of it
// (JSON), which the store keeps as it is given.
type StoredPasskey struct {
	Passkey
	CredentialID []byte
	Credential   []byte
}

// PasskeyOwner is whom a passkey ceremony is for: the id is their user
// handle, the names are what an authenticator shows, and Passkeys are the
// ones they have.
type PasskeyOwner struct {
	ID, Name, DisplayName string
	Passkeys              []StoredPasskey
}

// MFAChallenge is a live second step of a sign-in, after a try was counted.
type MFAChallenge struct {
	UserID string
	Tries  int
	// WebAuthn is the passkey ceremony's session data (JSON), if one began.
	WebAuthn []byte
}
