package httpapi

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/service"
)

// mountAccessTokens mounts the routes by which a signed-in person makes,
// lists and revokes their personal access tokens (api.md "Personal access
// tokens"); the tokens themselves open only what requireDICOMwebAuth guards.
func (a *api) mountAccessTokens(r chi.Router) {
	r.Post("/tokens", a.createAccessToken)
	r.Get("/tokens", a.listAccessTokens)
	r.Delete("/tokens/{id}", a.revokeAccessToken)
}

// accessTokenJSON is a token as its owner sees it in the list: never its secret.
type accessTokenJSON struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	CreatedAt  time.Time  `json:"createdAt"`
	ExpiresAt  time.Time  `json:"expiresAt"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
}

func toAccessTokenJSON(t domain.AccessToken) accessTokenJSON {
	return accessTokenJSON{ID: t.ID, Name: t.Name, CreatedAt: t.CreatedAt.UTC(), ExpiresAt: t.ExpiresAt.UTC(), LastUsedAt: utcPtr(t.LastUsedAt)}
}

// createdAccessTokenJSON is the answer of a creation, the one place the secret is shown.
type createdAccessTokenJSON struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Token     string    `json:"token"`
	ExpiresAt time.Time `json:"expiresAt"`
	CreatedAt time.Time `json:"createdAt"`
}

func (a *api) createAccessToken(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Name          string `json:"name"`
		ExpiresInDays *int   `json:"expiresInDays"`
	}
	if err := readJSON(w, r, maxJSONBody, &in); err != nil {
		writeError(w, r, err)
		return
	}
	t, err := a.AccessTokens.Create(r.Context(), principal(r), service.NewAccessToken{Name: in.Name, ExpiresInDays: in.ExpiresInDays}, meta(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusCreated, "Token created.", createdAccessTokenJSON{
		ID: t.ID, Name: t.Name, Token: t.Secret, ExpiresAt: t.ExpiresAt.UTC(), CreatedAt: t.CreatedAt.UTC(),
	})
}

func (a *api) listAccessTokens(w http.ResponseWriter, r *http.Request) {
	tokens, err := a.AccessTokens.List(r.Context(), principal(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	out := make([]accessTokenJSON, len(tokens))
	for i, t := range tokens {
		out[i] = toAccessTokenJSON(t)
	}
	writeOK(w, http.StatusOK, "", out)
}

func (a *api) revokeAccessToken(w http.ResponseWriter, r *http.Request) {
	if err := a.AccessTokens.Revoke(r.Context(), principal(r), chi.URLParam(r, "id"), meta(r)); err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "Token revoked.", nil)
}

// requireDICOMwebAuth guards /dicomweb, where machines (a PACS, Orthanc's
// DICOMweb client) send and fetch studies as the person whose token they
// hold. It lets a request through with either a session's access token,
// exactly as requireAuth does, or a personal access token, sent as a
// bearer token or, since most PACS speak only HTTP Basic authentication,
// as the Basic password under any user name; and puts the caller in the
// context. Every refusal is a 401 that names both schemes, so a client
// that waits to be challenged sends its credentials.
func (a *api) requireDICOMwebAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := a.dicomwebPrincipal(r)
		if err != nil {
			if domain.ErrorKind(err) == domain.EUNAUTHENTICATED {
				w.Header().Add("WWW-Authenticate", `Bearer realm="medishare"`)
				w.Header().Add("WWW-Authenticate", `Basic realm="medishare", charset="UTF-8"`)
			}
			writeError(w, r, err)
			return
		}
		next.ServeHTTP(w, withPrincipal(r, p))
	})
}

// dicomwebPrincipal is the caller of a /dicomweb request, by its bearer
// token or its Basic password.
func (a *api) dicomwebPrincipal(r *http.Request) (*domain.Principal, error) {
	if token := bearerToken(r); token != "" {
		if service.IsAccessToken(token) {
			return a.AccessTokens.Authenticate(r.Context(), token, meta(r))
		}
		return a.Sessions.Authenticate(r.Context(), token)
	}
	if _, password, ok := r.BasicAuth(); ok {
		// Only a personal access token: a session's token is short-lived
		// and belongs in a bearer header, and an account's password is
		// never taken here.
		return a.AccessTokens.Authenticate(r.Context(), password, meta(r))
	}
	return nil, errNoToken
}
