package httpapi

import (
	"context"
	"net/http"
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

func meta(r *http.Request) domain.RequestMeta {
	ua := r.UserAgent()
	if len(ua) > 512 {
		ua = ua[:512]
	}
	return domain.RequestMeta{IP: ClientIP(r.Context()), UserAgent: ua}
}

var errNoToken = domain.Errorf(domain.EUNAUTHENTICATED, "Unauthenticated.")

// requireAuth lets a request through only with a valid bearer token of a live
// session, and puts the caller in the context.
func (a *api) requireAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		header := r.Header.Get("Authorization")
		token, ok := strings.CutPrefix(header, "Bearer ")
		if !ok || strings.TrimSpace(token) == "" {
			a.fail(w, r, errNoToken)
			return
		}
		p, err := a.auth.Authenticate(r.Context(), strings.TrimSpace(token))
		if err != nil {
			a.fail(w, r, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxPrincipal{}, p)))
	})
}

// fail writes an error; refusals of a signed-in caller are audited (S18).
func (a *api) fail(w http.ResponseWriter, r *http.Request, err error) {
	if domain.ErrorKind(err) == domain.EFORBIDDEN {
		if p := principal(r); p != nil {
			m := meta(r)
			_ = a.audit.AppendAudit(r.Context(), domain.AuditEntry{
				ActorID: p.User.ID, Action: "access_denied", Table: "", RecordID: r.Method + " " + r.URL.Path,
				IP: m.IP, UserAgent: m.UserAgent, Success: false, Reason: domain.ErrorMessage(err),
			})
		}
	}
	writeError(w, r, err)
}

func (a *api) mountAuth(r chi.Router) {
	r.Post("/auth/register", a.register)
	r.Post("/auth/confirm", a.confirm)
	r.Post("/auth/resend-confirmation", a.resendConfirmation)
	r.Post("/auth/login", a.login)
	r.Post("/auth/refresh", a.refresh)
	r.Post("/auth/forgot-password", a.forgotPassword)
	r.Post("/auth/reset-password", a.resetPassword)
	r.With(a.requireAuth).Post("/auth/logout", a.logout)
	r.With(a.requireAuth).Post("/auth/change-password", a.changePassword)
}

// registerRequest is the registration payload of product.md §3. Fields the
// client may not set (active, verified...) are simply not read (S7).
type registerRequest struct {
	Email    string `json:"email"`
	Username string `json:"username"`
	Password string `json:"password"`
	Role     string `json:"role"`
	profileRequest
}

func (a *api) register(w http.ResponseWriter, r *http.Request) {
	var in registerRequest
	if err := readJSON(w, r, maxJSONBody, &in); err != nil {
		a.fail(w, r, err)
		return
	}
	email, err := a.auth.Register(r.Context(), service.Registration{
		Email: in.Email, Username: in.Username, Password: in.Password, Role: in.Role, Profile: in.profileInput(),
	}, meta(r))
	if err != nil {
		a.fail(w, r, err)
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
		a.fail(w, r, err)
		return
	}
	if err := a.auth.Confirm(r.Context(), in.Email, in.Code, meta(r)); err != nil {
		a.fail(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "Account verified successfully!", nil)
}

func (a *api) resendConfirmation(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Email string `json:"email"`
	}
	if err := readJSON(w, r, maxJSONBody, &in); err != nil {
		a.fail(w, r, err)
		return
	}
	if err := a.auth.ResendConfirmation(r.Context(), in.Email, meta(r)); err != nil {
		a.fail(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "If an unconfirmed account uses this email, a new code is on its way.", nil)
}

type sessionResponse struct {
	Token string   `json:"token"`
	User  userJSON `json:"user"`
}

func (a *api) login(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Email    string `json:"email"`
		Password string `json:"password"`
	}
	if err := readJSON(w, r, maxJSONBody, &in); err != nil {
		a.fail(w, r, err)
		return
	}
	if strings.TrimSpace(in.Email) == "" || in.Password == "" {
		a.fail(w, r, domain.ValidationError("Please enter your email and password.",
			domain.FieldError{Field: "email", Message: "is required"}, domain.FieldError{Field: "password", Message: "is required"}))
		return
	}
	sess, err := a.auth.Login(r.Context(), in.Email, in.Password, meta(r))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.setRefreshCookie(w, sess.RefreshToken, sess.RefreshExpires)
	writeOK(w, http.StatusOK, "Login successful.", sessionResponse{Token: sess.AccessToken, User: toUserJSON(sess.User)})
}

func (a *api) refresh(w http.ResponseWriter, r *http.Request) {
	var token string
	if c, err := r.Cookie(refreshCookie); err == nil {
		token = c.Value
	}
	sess, err := a.auth.Refresh(r.Context(), token, meta(r))
	if err != nil {
		a.clearRefreshCookie(w)
		a.fail(w, r, err)
		return
	}
	a.setRefreshCookie(w, sess.RefreshToken, sess.RefreshExpires)
	writeOK(w, http.StatusOK, "Session renewed.", sessionResponse{Token: sess.AccessToken, User: toUserJSON(sess.User)})
}

func (a *api) logout(w http.ResponseWriter, r *http.Request) {
	if err := a.auth.Logout(r.Context(), principal(r), meta(r)); err != nil {
		a.fail(w, r, err)
		return
	}
	a.clearRefreshCookie(w)
	writeOK(w, http.StatusOK, "Logged out successfully", nil)
}

func (a *api) forgotPassword(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Email string `json:"email"`
	}
	if err := readJSON(w, r, maxJSONBody, &in); err != nil {
		a.fail(w, r, err)
		return
	}
	if err := a.auth.ForgotPassword(r.Context(), in.Email, meta(r)); err != nil {
		a.fail(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "Reset code sent successfully!", nil)
}

func (a *api) resetPassword(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Email       string `json:"email"`
		OTP         string `json:"otp"`
		NewPassword string `json:"newPassword"`
		Token       string `json:"token"`
		Password    string `json:"password"`
	}
	if err := readJSON(w, r, maxJSONBody, &in); err != nil {
		a.fail(w, r, err)
		return
	}
	reset := service.PasswordReset{Email: in.Email, Code: in.OTP, NewPassword: in.NewPassword, Token: in.Token}
	if in.Token != "" {
		reset.NewPassword = in.Password
	}
	if err := a.auth.ResetPassword(r.Context(), reset, meta(r)); err != nil {
		a.fail(w, r, err)
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
		a.fail(w, r, err)
		return
	}
	if err := a.auth.ChangePassword(r.Context(), principal(r), in.CurrentPassword, in.NewPassword, meta(r)); err != nil {
		a.fail(w, r, err)
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
