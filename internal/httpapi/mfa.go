package httpapi

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

// enrolmentRoutes are what a session that may only set up a second factor
// can call: the setup itself, and what the app needs to show who is signed
// in and to sign out (the refresh is cookie-authenticated and keeps the
// session's limit).
var enrolmentRoutes = map[string]bool{
	"POST /api/auth/mfa/totp/setup":           true,
	"POST /api/auth/mfa/totp/enable":          true,
	"GET /api/auth/webauthn":                  true,
	"POST /api/auth/webauthn/register/begin":  true,
	"POST /api/auth/webauthn/register/finish": true,
	"POST /api/auth/logout":                   true,
	"GET /api/users/profile":                  true,
}

func (a *api) mountMFA(r chi.Router) {
	r.Post("/auth/login/mfa", a.loginMFA)
	r.Group(func(r chi.Router) {
		r.Use(a.requireAuth)
		r.Post("/auth/mfa/totp/setup", a.setupTOTP)
		r.Post("/auth/mfa/totp/enable", a.enableTOTP)
		r.Delete("/auth/mfa/totp", a.disableTOTP)
		r.Post("/auth/mfa/recovery-codes", a.regenerateRecoveryCodes)
	})
	a.mountPasskeys(r)
}

// mfaPendingJSON answers a right password of a person with a second factor.
type mfaPendingJSON struct {
	MFARequired bool     `json:"mfaRequired"`
	MFAToken    string   `json:"mfaToken"`
	Methods     []string `json:"methods"`
}

type recoveryCodesJSON struct {
	RecoveryCodes []string `json:"recoveryCodes"`
}

func (a *api) loginMFA(w http.ResponseWriter, r *http.Request) {
	var in struct {
		MFAToken string `json:"mfaToken"`
		Code     string `json:"code"`
	}
	if err := readJSON(w, r, maxJSONBody, &in); err != nil {
		writeError(w, r, err)
		return
	}
	sess, err := a.Sessions.LoginMFA(r.Context(), in.MFAToken, in.Code, meta(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	a.setRefreshCookie(w, sess.RefreshToken, sess.RefreshExpires)
	writeOK(w, http.StatusOK, "Login successful.", sessionResponse{Token: sess.AccessToken, User: toSelfJSON(sess.User, sess.Permissions)})
}

func (a *api) setupTOTP(w http.ResponseWriter, r *http.Request) {
	setup, err := a.MFA.SetupTOTP(r.Context(), principal(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "", map[string]string{"secret": setup.Secret, "otpauthUrl": setup.URL})
}

func (a *api) enableTOTP(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Code string `json:"code"`
	}
	if err := readJSON(w, r, maxJSONBody, &in); err != nil {
		writeError(w, r, err)
		return
	}
	codes, err := a.MFA.EnableTOTP(r.Context(), principal(r), in.Code, meta(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "The authenticator is on.", recoveryCodesJSON{RecoveryCodes: codes})
}

func (a *api) disableTOTP(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Password string `json:"password"`
		Code     string `json:"code"`
	}
	if err := readJSON(w, r, maxJSONBody, &in); err != nil {
		writeError(w, r, err)
		return
	}
	if err := a.MFA.DisableTOTP(r.Context(), principal(r), in.Password, in.Code, meta(r)); err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "The authenticator is turned off.", nil)
}

func (a *api) regenerateRecoveryCodes(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Code string `json:"code"`
	}
	if err := readJSON(w, r, maxJSONBody, &in); err != nil {
		writeError(w, r, err)
		return
	}
	codes, err := a.MFA.RegenerateRecoveryCodes(r.Context(), principal(r), in.Code, meta(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "New recovery codes are made; the old ones no longer work.", recoveryCodesJSON{RecoveryCodes: codes})
}

func (a *api) resetMFA(w http.ResponseWriter, r *http.Request) {
	if err := a.MFA.ResetByAdmin(r.Context(), principal(r), chi.URLParam(r, "id"), meta(r)); err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "The second factors are reset.", nil)
}
