package httpapi

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/medishare/medishare/internal/domain"
)

// passkeyJSON is a passkey as its owner sees it.
type passkeyJSON struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	CreatedAt  time.Time  `json:"createdAt"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
}

func toPasskeyJSON(p domain.Passkey) passkeyJSON {
	out := passkeyJSON{ID: p.ID, Name: p.Name, CreatedAt: p.CreatedAt.UTC()}
	if p.LastUsedAt != nil {
		t := p.LastUsedAt.UTC()
		out.LastUsedAt = &t
	}
	return out
}

// mountPasskeys adds the passkey routes: managing one's own (behind
// requireAuth) and the second step of a sign-in with one (the mfaToken
// authenticates it).
func (a *api) mountPasskeys(r chi.Router) {
	r.Post("/auth/login/webauthn/begin", a.loginWebAuthnBegin)
	r.Post("/auth/login/webauthn/finish", a.loginWebAuthnFinish)
	r.Group(func(r chi.Router) {
		r.Use(a.requireAuth)
		r.Get("/auth/webauthn", a.listPasskeys)
		r.Post("/auth/webauthn/register/begin", a.beginPasskeyRegistration)
		r.Post("/auth/webauthn/register/finish", a.finishPasskeyRegistration)
		r.Patch("/auth/webauthn/{id}", a.renamePasskey)
		r.Delete("/auth/webauthn/{id}", a.removePasskey)
	})
}

// ceremonyJSON carries a WebAuthn ceremony's options as the library
// marshals them ({publicKey: ...}), for the browser to pass on.
func ceremonyJSON(options []byte) json.RawMessage { return json.RawMessage(options) }

func (a *api) listPasskeys(w http.ResponseWriter, r *http.Request) {
	keys, err := a.MFA.ListPasskeys(r.Context(), principal(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	out := make([]passkeyJSON, len(keys))
	for i, k := range keys {
		out[i] = toPasskeyJSON(k)
	}
	writeOK(w, http.StatusOK, "", out)
}

func (a *api) beginPasskeyRegistration(w http.ResponseWriter, r *http.Request) {
	options, err := a.MFA.BeginPasskeyRegistration(r.Context(), principal(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "", ceremonyJSON(options))
}

type passkeyAddedJSON struct {
	Passkey       passkeyJSON `json:"passkey"`
	RecoveryCodes []string    `json:"recoveryCodes,omitempty"`
}

func (a *api) finishPasskeyRegistration(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Name       string          `json:"name"`
		Credential json.RawMessage `json:"credential"`
	}
	if err := readJSON(w, r, maxJSONBody, &in); err != nil {
		writeError(w, r, err)
		return
	}
	added, codes, err := a.MFA.FinishPasskeyRegistration(r.Context(), principal(r), in.Name, in.Credential, meta(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusCreated, "The passkey is added.", passkeyAddedJSON{Passkey: toPasskeyJSON(added), RecoveryCodes: codes})
}

func (a *api) renamePasskey(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Name string `json:"name"`
	}
	if err := readJSON(w, r, maxJSONBody, &in); err != nil {
		writeError(w, r, err)
		return
	}
	renamed, err := a.MFA.RenamePasskey(r.Context(), principal(r), chi.URLParam(r, "id"), in.Name, meta(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "The passkey is renamed.", toPasskeyJSON(renamed))
}

func (a *api) removePasskey(w http.ResponseWriter, r *http.Request) {
	if err := a.MFA.RemovePasskey(r.Context(), principal(r), chi.URLParam(r, "id"), meta(r)); err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "The passkey is removed.", nil)
}

func (a *api) loginWebAuthnBegin(w http.ResponseWriter, r *http.Request) {
	var in struct {
		MFAToken string `json:"mfaToken"`
	}
	if err := readJSON(w, r, maxJSONBody, &in); err != nil {
		writeError(w, r, err)
		return
	}
	options, err := a.Sessions.LoginWebAuthnBegin(r.Context(), in.MFAToken, meta(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "", ceremonyJSON(options))
}

func (a *api) loginWebAuthnFinish(w http.ResponseWriter, r *http.Request) {
	var in struct {
		MFAToken   string          `json:"mfaToken"`
		Credential json.RawMessage `json:"credential"`
	}
	if err := readJSON(w, r, maxJSONBody, &in); err != nil {
		writeError(w, r, err)
		return
	}
	sess, err := a.Sessions.LoginWebAuthnFinish(r.Context(), in.MFAToken, in.Credential, meta(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	a.setRefreshCookie(w, sess.RefreshToken, sess.RefreshExpires)
	writeOK(w, http.StatusOK, "Login successful.", sessionResponse{Token: sess.AccessToken, User: toSelfJSON(sess.User, sess.Permissions)})
}
