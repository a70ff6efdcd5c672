package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/service"
)

const refreshCookie = "medishare_refresh"

type ctxPrincipal struct{}

// principal returns the authenticated caller (set by requireAuth).
func principal(r *http.Request) *domain.Principal {
	p, _ := r.Context().Value(ctxPrincipal{}).(*domain.Principal)
	return p
}

func withPrincipal(r *http.Request, p *domain.Principal) *http.Request {
	noteUser(r.Context(), p.User.ID)
	return r.WithContext(context.WithValue(r.Context(), ctxPrincipal{}, p))
}

func meta(r *http.Request) domain.RequestMeta {
	return domain.RequestMeta{IP: ClientIP(r.Context()), UserAgent: cleanHeader(r.UserAgent(), 512)}
}

// errNoToken is the 401 of a request without a bearer token; its code, like
// the one of a bad token, tells the app to renew its session (api.md).
var errNoToken = &domain.Error{Kind: domain.EUNAUTHENTICATED, Message: "Unauthenticated.", Code: "unauthenticated"}

// bearerToken is the request's bearer token, or "" without one.
func bearerToken(r *http.Request) string {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return ""
	}
	return strings.TrimSpace(token)
}

// requireAuth lets a request through only with a valid bearer token of a live
// session, and puts the caller in the context.
func (a *api) requireAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token := bearerToken(r)
		if token == "" {
			writeError(w, r, errNoToken)
			return
		}
		p, err := a.Sessions.Authenticate(r.Context(), token)
		if err != nil {
			writeError(w, r, err)
			return
		}
		if p.EnrolmentOnly && !enrolmentRoutes[r.Method+" "+r.URL.Path] {
			writeError(w, r, service.ErrEnrolmentRequired)
			return
		}
		next.ServeHTTP(w, withPrincipal(r, p))
	})
}

// sameSiteOnly refuses a cookie-authenticated request that the browser says
// comes from another site. SameSite=Strict already keeps the cookie off such
// requests; this is the second line of defence (api.md "Auth").
func (a *api) sameSiteOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		site := r.Header.Get("Sec-Fetch-Site")
		origin := r.Header.Get("Origin")
		crossSite := (site != "" && site != "same-origin" && site != "none") ||
			(origin != "" && origin != a.publicOrigin && origin != requestOrigin(r))
		if crossSite {
			writeError(w, r, a.Sessions.RefuseCrossSite(r.Context(), meta(r), cleanHeader(origin+" "+site, 200)))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// requestOrigin is the origin the request was sent to, as a browser on the
// same page would write it in Origin.
func requestOrigin(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// originOf is the origin (scheme://host[:port]) of a URL, or "" if none.
func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

func (a *api) mountAuth(r chi.Router) {
	r.Post("/auth/register", a.register)
	r.Post("/auth/confirm", a.confirm)
	r.Post("/auth/resend-confirmation", a.resendConfirmation)
	r.Post("/auth/login", a.login)
	r.With(a.sameSiteOnly).Post("/auth/refresh", a.refresh)
	r.Post("/auth/forgot-password", a.forgotPassword)
	r.Post("/auth/reset-password", a.resetPassword)
	r.With(a.requireAuth).Post("/auth/logout", a.logout)
	r.With(a.requireAuth).Post("/auth/change-password", a.changePassword)
	a.mountMFA(r)
}

// registerRequest is the registration payload of product.md §3. Fields the
// client may not set (active, verified...) are simply not read (S7).
type registerRequest struct {
	Email    string      `json:"email"`
	Username string      `json:"username"`
	Password string      `json:"password"`
	Role     string      `json:"role"`
	Profile  profileJSON `json:"-"` // the same object's profile members
}

// UnmarshalJSON reads the account's members, then the profile's.
func (in *registerRequest) UnmarshalJSON(b []byte) error {
	type account registerRequest // the struct's own members, without this method
	if err := json.Unmarshal(b, (*account)(in)); err != nil {
		return err
	}
	return json.Unmarshal(b, &in.Profile)
}

func (a *api) register(w http.ResponseWriter, r *http.Request) {
	var in registerRequest
	if err := readJSON(w, r, maxJSONBody, &in); err != nil {
		writeError(w, r, err)
		return
	}
	email, err := a.Registration.Register(r.Context(), service.Registration{
		Email: in.Email, Username: in.Username, Password: in.Password, Role: in.Role, Profile: in.Profile.profile(),
	}, meta(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusCreated, "Registration successful!", map[string]string{"email": email})
}

func (a *api) confirm(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Email string `json:"email"`
		Code  string `json:"code"`
	}
	if err := readJSON(w, r, maxJSONBody, &in); err != nil {
		writeError(w, r, err)
		return
	}
	if err := a.Registration.Confirm(r.Context(), in.Email, in.Code, meta(r)); err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "Account verified successfully!", nil)
}

// emailRequest is the body of the two code requests.
type emailRequest struct {
	Email string `json:"email"`
}

func (a *api) resendConfirmation(w http.ResponseWriter, r *http.Request) {
	var in emailRequest
	if err := readJSON(w, r, maxJSONBody, &in); err != nil {
		writeError(w, r, err)
		return
	}
	if err := a.Registration.ResendConfirmation(r.Context(), in.Email, meta(r)); err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "If an unconfirmed account uses this email, a new code is on its way.", nil)
}

type sessionResponse struct {
	Token string   `json:"token"`
	User  selfJSON `json:"user"`
}

func (a *api) login(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Email    string `json:"email"`
		Password string `json:"password"`
	}
	if err := readJSON(w, r, maxJSONBody, &in); err != nil {
		writeError(w, r, err)
		return
	}
	sess, err := a.Sessions.Login(r.Context(), in.Email, in.Password, meta(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	if sess.MFA != nil {
		// No tokens and no cookie until the second step (api.md).
		writeOK(w, http.StatusOK, "Enter your second factor.", mfaPendingJSON{MFARequired: true, MFAToken: sess.MFA.Token, Methods: sess.MFA.Methods})
		return
	}
	a.setRefreshCookie(w, sess.RefreshToken, sess.RefreshExpires)
	writeOK(w, http.StatusOK, "Login successful.", sessionResponse{Token: sess.AccessToken, User: toSelfJSON(sess.User, sess.Permissions)})
}

func (a *api) refresh(w http.ResponseWriter, r *http.Request) {
	var token string
	if c, err := r.Cookie(refreshCookie); err == nil {
		token = c.Value
	}
	sess, err := a.Sessions.Refresh(r.Context(), token, meta(r))
	if err != nil {
		a.clearRefreshCookie(w)
		writeError(w, r, err)
		return
	}
	a.setRefreshCookie(w, sess.RefreshToken, sess.RefreshExpires)
	writeOK(w, http.StatusOK, "Session renewed.", sessionResponse{Token: sess.AccessToken, User: toSelfJSON(sess.User, sess.Permissions)})
}

func (a *api) logout(w http.ResponseWriter, r *http.Request) {
	if err := a.Sessions.Logout(r.Context(), principal(r), meta(r)); err != nil {
		writeError(w, r, err)
		return
	}
	a.clearRefreshCookie(w)
	writeOK(w, http.StatusOK, "Logged out successfully", nil)
}

func (a *api) forgotPassword(w http.ResponseWriter, r *http.Request) {
	var in emailRequest
	if err := readJSON(w, r, maxJSONBody, &in); err != nil {
		writeError(w, r, err)
		return
	}
	if err := a.Passwords.ForgotPassword(r.Context(), in.Email, meta(r)); err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "Reset code sent successfully!", nil)
}

// resetRequest is either form of the password reset: email, otp and
// newPassword, or the link's token and password.
type resetRequest struct {
	Email       string `json:"email"`
	OTP         string `json:"otp"`
	NewPassword string `json:"newPassword"`
	Token       string `json:"token"`
	Password    string `json:"password"`
	MFACode     string `json:"mfaCode"`
}

func (a *api) resetPassword(w http.ResponseWriter, r *http.Request) {
	var in resetRequest
	if err := readJSON(w, r, maxJSONBody, &in); err != nil {
		writeError(w, r, err)
		return
	}
	reset := service.PasswordReset{Email: in.Email, Code: in.OTP, NewPassword: in.NewPassword, Token: in.Token, MFACode: in.MFACode}
	if in.Token != "" {
		reset.NewPassword = in.Password
	}
	if err := a.Passwords.ResetPassword(r.Context(), reset, meta(r)); err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "Password reset successfully!", nil)
}

func (a *api) changePassword(w http.ResponseWriter, r *http.Request) {
	var in struct {
		CurrentPassword string `json:"currentPassword"`
		NewPassword     string `json:"newPassword"`
	}
	if err := readJSON(w, r, maxJSONBody, &in); err != nil {
		writeError(w, r, err)
		return
	}
	if err := a.Passwords.ChangePassword(r.Context(), principal(r), in.CurrentPassword, in.NewPassword, meta(r)); err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "Password changed successfully!", nil)
}

// The refresh token lives in an HttpOnly, SameSite=Strict cookie that only
// /api/auth ever receives (S6).
func (a *api) setRefreshCookie(w http.ResponseWriter, token string, expires time.Time) {
	http.SetCookie(w, &http.Cookie{
		Name: refreshCookie, Value: token, Path: "/api/auth", Expires: expires,
		MaxAge: int(time.Until(expires).Seconds()), HttpOnly: true, Secure: a.secureCookies, SameSite: http.SameSiteStrictMode,
	})
}

func (a *api) clearRefreshCookie(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{
		Name: refreshCookie, Value: "", Path: "/api/auth", MaxAge: -1,
		HttpOnly: true, Secure: a.secureCookies, SameSite: http.SameSiteStrictMode,
	})
}
