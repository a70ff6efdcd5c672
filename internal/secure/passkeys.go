package secure

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/medishare/medishare/internal/domain"
)

// PasskeyCeremonyTTL is how long a passkey ceremony may take between its
// begin and its finish.
const PasskeyCeremonyTTL = 5 * time.Minute

// RelyingParty runs WebAuthn ceremonies for the app's public address: the
// relying party id is its host, and the only origin accepted is its origin.
// The session data of a ceremony goes out as JSON for the caller to keep
// (in the database, so begin and finish may reach different instances).
type RelyingParty struct {
	wa *webauthn.WebAuthn
}

// NewRelyingParty is the relying party of the app reached at publicURL.
func NewRelyingParty(publicURL, displayName string) (*RelyingParty, error) {
	u, err := url.Parse(publicURL)
	if err != nil || u.Hostname() == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, fmt.Errorf("passkeys: the public URL %q is not an http(s) address", publicURL)
	}
	timeout := webauthn.TimeoutConfig{Enforce: true, Timeout: PasskeyCeremonyTTL, TimeoutUVD: PasskeyCeremonyTTL}
	wa, err := webauthn.New(&webauthn.Config{
		RPID:          u.Hostname(),
		RPDisplayName: displayName,
		RPOrigins:     []string{u.Scheme + "://" + u.Host},
		Timeouts:      webauthn.TimeoutsConfig{Login: timeout, Registration: timeout},
	})
	if err != nil {
		return nil, fmt.Errorf("passkeys: %w", err)
	}
	return &RelyingParty{wa: wa}, nil
}

// HostIsIP reports whether publicURL names its host by an IP address,
// for which WebAuthn has no relying party.
func HostIsIP(publicURL string) bool {
	u, err := url.Parse(publicURL)
	return err == nil && net.ParseIP(u.Hostname()) != nil
}

// ErrPasskeyRejected is what a response that does not verify is wrapped
// in; anything else a finish returns is the server's own failure.
var ErrPasskeyRejected = errors.New("passkey rejected")

// BeginRegistration starts adding a passkey for o: the options for the
// browser (a CredentialCreation as JSON) and the session data to keep. The
// passkeys o has already are excluded, so one authenticator is not added
// twice; a discoverable credential and user verification are asked for,
// not required.
func (rp *RelyingParty) BeginRegistration(o domain.PasskeyOwner) (options, session []byte, err error) {
	user, err := newPasskeyUser(o)
	if err != nil {
		return nil, nil, err
	}
	creation, data, err := rp.wa.BeginRegistration(user,
		webauthn.WithAuthenticatorSelection(protocol.AuthenticatorSelection{
			ResidentKey:      protocol.ResidentKeyRequirementPreferred,
			UserVerification: protocol.VerificationPreferred,
		}),
		webauthn.WithExclusions(webauthn.Credentials(user.creds).CredentialDescriptors()),
		webauthn.WithConveyancePreference(protocol.PreferNoAttestation),
	)
	if err != nil {
		return nil, nil, fmt.Errorf("passkeys: begin registration: %w", err)
	}
	return marshalCeremony(creation, data)
}

// FinishRegistration checks the browser's response (RegistrationResponseJSON)
// against the kept session data and returns the new credential's id and
// its record (JSON) to store. Errors: ErrPasskeyRejected.
func (rp *RelyingParty) FinishRegistration(o domain.PasskeyOwner, session, response []byte) (credentialID, credential []byte, err error) {
	user, err := newPasskeyUser(o)
	if err != nil {
		return nil, nil, err
	}
	var data webauthn.SessionData
	if err := json.Unmarshal(session, &data); err != nil {
		return nil, nil, fmt.Errorf("passkeys: session data: %w", err)
	}
	parsed, err := protocol.ParseCredentialCreationResponseBytes(response)
	if err != nil {
		return nil, nil, rejected(err)
	}
	cred, err := rp.wa.CreateCredential(user, data, parsed)
	if err != nil {
		return nil, nil, rejected(err)
	}
	record, err := json.Marshal(cred)
	return cred.ID, record, err
}

// BeginLogin starts proving o's presence with one of their passkeys: the
// options for the browser (a CredentialAssertion as JSON, allowing only
// o's passkeys) and the session data to keep.
func (rp *RelyingParty) BeginLogin(o domain.PasskeyOwner) (options, session []byte, err error) {
	user, err := newPasskeyUser(o)
	if err != nil {
		return nil, nil, err
	}
	assertion, data, err := rp.wa.BeginLogin(user, webauthn.WithUserVerification(protocol.VerificationPreferred))
	if err != nil {
		return nil, nil, fmt.Errorf("passkeys: begin login: %w", err)
	}
	return marshalCeremony(assertion, data)
}

// FinishLogin checks the browser's response (AuthenticationResponseJSON)
// against the kept session data and returns the credential used and its
// updated record (sign count, flags) to store. An authenticator whose
// signature counter does not move forward may be a copy of the real one,
// and is refused. Errors: ErrPasskeyRejected.
func (rp *RelyingParty) FinishLogin(o domain.PasskeyOwner, session, response []byte) (credentialID, credential []byte, err error) {
	user, err := newPasskeyUser(o)
	if err != nil {
		return nil, nil, err
	}
	var data webauthn.SessionData
	if err := json.Unmarshal(session, &data); err != nil {
		return nil, nil, fmt.Errorf("passkeys: session data: %w", err)
	}
	parsed, err := protocol.ParseCredentialRequestResponseBytes(response)
	if err != nil {
		return nil, nil, rejected(err)
	}
	cred, err := rp.wa.ValidateLogin(user, data, parsed)
	if err != nil {
		return nil, nil, rejected(err)
	}
	if cred.Authenticator.CloneWarning {
		return nil, nil, fmt.Errorf("%w: the signature counter went backwards (a cloned authenticator?)", ErrPasskeyRejected)
	}
	record, err := json.Marshal(cred)
	return cred.ID, record, err
}

func rejected(err error) error {
	var pe *protocol.Error
	if errors.As(err, &pe) && pe.Details != "" {
		return fmt.Errorf("%w: %s", ErrPasskeyRejected, pe.Details)
	}
	return fmt.Errorf("%w: %v", ErrPasskeyRejected, err)
}

func marshalCeremony(options any, data *webauthn.SessionData) ([]byte, []byte, error) {
	o, err := json.Marshal(options)
	if err != nil {
		return nil, nil, err
	}
	s, err := json.Marshal(data)
	return o, s, err
}

// passkeyUser is a person as the WebAuthn library sees them. The user
// handle is their id: it names no one outside the app.
type passkeyUser struct {
	id, name, display string
	creds             []webauthn.Credential
}

func newPasskeyUser(o domain.PasskeyOwner) (*passkeyUser, error) {
	u := &passkeyUser{id: o.ID, name: o.Name, display: o.DisplayName}
	for _, p := range o.Passkeys {
		var c webauthn.Credential
		if err := json.Unmarshal(p.Credential, &c); err != nil {
			return nil, fmt.Errorf("passkeys: the record of passkey %s: %w", p.ID, err)
		}
		if !bytes.Equal(c.ID, p.CredentialID) {
			return nil, fmt.Errorf("passkeys: the record of passkey %s is of another credential", p.ID)
		}
		u.creds = append(u.creds, c)
	}
	return u, nil
}

func (u *passkeyUser) WebAuthnID() []byte                         { return []byte(u.id) }
func (u *passkeyUser) WebAuthnName() string                       { return u.name }
func (u *passkeyUser) WebAuthnDisplayName() string                { return u.display }
func (u *passkeyUser) WebAuthnCredentials() []webauthn.Credential { return u.creds }
