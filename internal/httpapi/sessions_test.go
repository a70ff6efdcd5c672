package httpapi_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/testutil/apptest"
)

func claimsOf(t *testing.T, token string) jwt.MapClaims {
	t.Helper()
	claims := jwt.MapClaims{}
	if _, _, err := jwt.NewParser().ParseUnverified(token, claims); err != nil {
		t.Fatal(err)
	}
	return claims
}

func sign(t *testing.T, method jwt.SigningMethod, key any, claims jwt.MapClaims) string {
	t.Helper()
	s, err := jwt.NewWithClaims(method, claims).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestForgedTokensAreRefused walks the forged and tampered tokens that S5
// guards against (alg none, another algorithm, another key, altered claims).
func TestForgedTokensAreRefused(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	p := app.SignUp(t, domain.RolePatient)
	good := claimsOf(t, p.Token)
	with := func(change func(jwt.MapClaims)) jwt.MapClaims {
		c := jwt.MapClaims{}
		for k, v := range good {
			c[k] = v
		}
		change(c)
		return c
	}
	header, payload, _ := strings.Cut(p.Token, ".")
	payload, _, _ = strings.Cut(payload, ".")
	noneHeader := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`))
	tamperedPayload := base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(mustDecode(t, payload), `"role":"patient"`, `"role":"admin"`, 1)))

	tests := []struct {
		name  string
		token string
	}{
		{"alg none", noneHeader + "." + payload + "."},
		{"wrong key", sign(t, jwt.SigningMethodHS256, []byte("another-secret-another-secret-xx"), good)},
		{"HS512 with the right key", sign(t, jwt.SigningMethodHS512, apptest.JWTSecret, good)},
		{"expired", sign(t, jwt.SigningMethodHS256, apptest.JWTSecret, with(func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-time.Minute).Unix() }))},
		{"no expiry", sign(t, jwt.SigningMethodHS256, apptest.JWTSecret, with(func(c jwt.MapClaims) { delete(c, "exp") }))},
		{"wrong audience", sign(t, jwt.SigningMethodHS256, apptest.JWTSecret, with(func(c jwt.MapClaims) { c["aud"] = "someone-else" }))},
		{"wrong issuer", sign(t, jwt.SigningMethodHS256, apptest.JWTSecret, with(func(c jwt.MapClaims) { c["iss"] = "https://evil.example" }))},
		{"tampered role claim", header + "." + tamperedPayload + "." + strings.Split(p.Token, ".")[2]},
		{"unknown session", sign(t, jwt.SigningMethodHS256, apptest.JWTSecret, with(func(c jwt.MapClaims) { c["sid"] = "6f1c6a4e-0000-4000-8000-000000000000" }))},
		{"another user's id with my session", sign(t, jwt.SigningMethodHS256, apptest.JWTSecret, with(func(c jwt.MapClaims) { c["sub"] = "6f1c6a4e-0000-4000-8000-000000000000" }))},
		{"garbage", "not.a.token"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := app.Client()
			c.Token = tc.token
			r := c.Do(t, "GET", "/api/users/profile", nil)
			if r.Status != http.StatusUnauthorized || r.Message() != "Invalid or expired token" || r.Body["error"] != "Invalid or expired token" {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
		})
	}
	c := app.Client()
	if r := c.Do(t, "GET", "/api/users/profile", nil); r.Status != 401 || r.Raw != "{\"message\":\"Unauthenticated.\",\"error\":\"unauthenticated\"}\n" {
		t.Fatalf("no token: %d %q", r.Status, r.Raw)
	}
	if r := p.Do(t, "GET", "/api/users/profile", nil); r.Status != 200 {
		t.Fatalf("the real token stopped working: %d", r.Status)
	}
}

func mustDecode(t *testing.T, s string) string {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestLogoutEndsTheTokenAtOnce(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	p := app.SignUp(t, domain.RoleProvider)
	r := p.Do(t, "POST", "/api/auth/logout", nil)
	if r.Status != 200 || r.Message() != "Logged out successfully" {
		t.Fatalf("logout: %d %s", r.Status, r.Raw)
	}
	if r := p.Do(t, "GET", "/api/users/profile", nil); r.Status != 401 {
		t.Fatalf("token after logout: %d", r.Status)
	}
	if r := p.Do(t, "POST", "/api/auth/refresh", nil); r.Status != 401 {
		t.Fatalf("refresh after logout: %d", r.Status)
	}
}

func TestRefreshRotatesAndAReplayEndsTheSession(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	p := app.SignUp(t, domain.RolePatient)

	r := p.Do(t, "POST", "/api/auth/refresh", nil)
	if r.Status != 200 || r.Data()["token"] == "" || r.Data()["user"].(map[string]any)["id"] != p.ID {
		t.Fatalf("refresh: %d %s", r.Status, r.Raw)
	}
	old := refreshValue(t, p.Do(t, "POST", "/api/auth/refresh", nil)) // rotate once more, keep the one just used up
	_ = old
	// Replay a used token with a client that holds only that token.
	thief := app.Client()
	thief.SetCookie(t, "medishare_refresh", usedToken(t, app, p))
	if r := thief.Do(t, "POST", "/api/auth/refresh", nil); r.Status != 401 {
		t.Fatalf("replayed refresh token: %d %s", r.Status, r.Raw)
	}
	if r := p.Do(t, "GET", "/api/users/profile", nil); r.Status != 401 {
		t.Fatalf("the session survived a replay: %d", r.Status)
	}
	if r := p.Do(t, "POST", "/api/auth/refresh", nil); r.Status != 401 {
		t.Fatalf("the newest refresh token survived a replay: %d", r.Status)
	}
}

func refreshValue(t *testing.T, r *apptest.Response) string {
	t.Helper()
	for _, c := range (&http.Response{Header: r.Header}).Cookies() {
		if c.Name == "medishare_refresh" {
			return c.Value
		}
	}
	t.Fatalf("no refresh cookie in %d %s", r.Status, r.Raw)
	return ""
}

// usedToken signs in again to learn a refresh token, uses it once, and
// returns it: a token that was already spent.
func usedToken(t *testing.T, app *apptest.App, p *apptest.Person) string {
	t.Helper()
	r := p.Do(t, "POST", "/api/auth/login", map[string]string{"email": p.Email, "password": p.Password})
	first := refreshValue(t, r)
	p.Token = r.Data()["token"].(string)
	if r := p.Do(t, "POST", "/api/auth/refresh", nil); r.Status != 200 {
		t.Fatalf("refresh: %d", r.Status)
	}
	return first
}

func TestPasswordResetWithCodeEndsEverySession(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	p := app.SignUp(t, domain.RolePatient)
	other := &apptest.Person{Email: p.Email, Password: p.Password, Client: app.Client()}
	other.SignIn(t)

	c := app.Client()
	if r := c.Do(t, "POST", "/api/auth/forgot-password", map[string]string{"email": p.Email}); r.Status != 200 || r.Message() != "Reset code sent successfully!" {
		t.Fatalf("forgot: %d %s", r.Status, r.Raw)
	}
	code := app.Mailbox.Code(t, p.Email, "Your MediShare password reset code", `reset code is (\d{6})`)
	next := "Lantern-Meadow-7731-Orbit"
	if r := c.Do(t, "POST", "/api/auth/reset-password", map[string]string{"email": p.Email, "otp": "12345", "newPassword": next}); r.Status != 422 {
		t.Fatalf("5-digit code: %d %s", r.Status, r.Raw)
	}
	if r := c.Do(t, "POST", "/api/auth/reset-password", map[string]string{"email": p.Email, "otp": code, "newPassword": "password"}); r.Status != 422 {
		t.Fatalf("weak new password: %d %s", r.Status, r.Raw)
	}
	r := c.Do(t, "POST", "/api/auth/reset-password", map[string]string{"email": p.Email, "otp": code, "newPassword": next})
	if r.Status != 200 || r.Message() != "Password reset successfully!" {
		t.Fatalf("reset: %d %s", r.Status, r.Raw)
	}
	for _, s := range []*apptest.Person{p, other} {
		if r := s.Do(t, "GET", "/api/users/profile", nil); r.Status != 401 {
			t.Fatalf("a session survived the reset: %d", r.Status)
		}
	}
	app.Mailbox.Wait(t, p.Email, "Your MediShare password was changed")
	if r := c.Do(t, "POST", "/api/auth/login", map[string]string{"email": p.Email, "password": p.Password}); r.Status != 401 {
		t.Fatalf("old password still works: %d", r.Status)
	}
	p.Password = next
	p.SignIn(t)
	if r := c.Do(t, "POST", "/api/auth/reset-password", map[string]string{"email": p.Email, "otp": code, "newPassword": "Another-Secret-8812-Pine"}); r.Status != 400 {
		t.Fatalf("code used twice: %d %s", r.Status, r.Raw)
	}
}

func TestPasswordResetWithLink(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	p := app.SignUp(t, domain.RoleProvider)
	c := app.Client()
	c.Do(t, "POST", "/api/auth/forgot-password", map[string]string{"email": p.Email})
	token := app.Mailbox.Code(t, p.Email, "Your MediShare password reset code", `/reset-password\?token=([A-Za-z0-9_-]{40,})`)
	if r := c.Do(t, "POST", "/api/auth/reset-password", map[string]string{"token": token + "x", "password": "Copper-Valley-5521-Kite"}); r.Status != 400 {
		t.Fatalf("wrong token: %d %s", r.Status, r.Raw)
	}
	// A password the policy refuses is named by the field the link's form sent.
	if r := c.Do(t, "POST", "/api/auth/reset-password", map[string]string{"token": token, "password": "short"}); r.Status != 422 || !slices.Equal(fieldsOf(r), []string{"password"}) {
		t.Fatalf("weak password with the link: %d %s", r.Status, r.Raw)
	}
	if r := c.Do(t, "POST", "/api/auth/reset-password", map[string]string{"token": token, "password": "Copper-Valley-5521-Kite"}); r.Status != 200 {
		t.Fatalf("reset with link: %d %s", r.Status, r.Raw)
	}
	if r := p.Do(t, "GET", "/api/users/profile", nil); r.Status != 401 {
		t.Fatalf("session survived the reset: %d", r.Status)
	}
	if r := c.Do(t, "POST", "/api/auth/reset-password", map[string]string{"token": token, "password": "Copper-Valley-5521-Kite2"}); r.Status != 400 {
		t.Fatalf("link used twice: %d", r.Status)
	}
}

func TestResetCodeExpires(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	p := app.SignUp(t, domain.RolePatient)
	app.Clock.Shift(-16 * time.Minute) // the code is issued 16 minutes ago
	p.Do(t, "POST", "/api/auth/forgot-password", map[string]string{"email": p.Email})
	code := app.Mailbox.Code(t, p.Email, "Your MediShare password reset code", `reset code is (\d{6})`)
	app.Clock.Shift(16 * time.Minute)
	if r := p.Do(t, "POST", "/api/auth/reset-password", map[string]string{"email": p.Email, "otp": code, "newPassword": "Velvet-Canyon-3390-Reed"}); r.Status != 400 {
		t.Fatalf("expired code: %d %s", r.Status, r.Raw)
	}
}

func TestChangePasswordKeepsOnlyThisSession(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	p := app.SignUp(t, domain.RolePatient)
	other := &apptest.Person{Email: p.Email, Password: p.Password, Client: app.Client()}
	other.SignIn(t)
	if r := p.Do(t, "POST", "/api/auth/change-password", map[string]string{"currentPassword": "wrong", "newPassword": "Maple-Signal-4410-Dune"}); r.Status != 422 {
		t.Fatalf("wrong current password: %d %s", r.Status, r.Raw)
	}
	if r := p.Do(t, "POST", "/api/auth/change-password", map[string]string{"currentPassword": p.Password, "newPassword": "Maple-Signal-4410-Dune"}); r.Status != 200 {
		t.Fatalf("change: %d %s", r.Status, r.Raw)
	}
	if r := p.Do(t, "GET", "/api/users/profile", nil); r.Status != 200 {
		t.Fatalf("this session ended: %d", r.Status)
	}
	if r := other.Do(t, "GET", "/api/users/profile", nil); r.Status != 401 {
		t.Fatalf("the other session survived: %d", r.Status)
	}
}

func TestDeactivationEndsAccessAtOnce(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	admin := app.SignUp(t, domain.RoleAdmin)
	p := app.SignUp(t, domain.RoleProvider)
	if r := admin.Do(t, "PATCH", "/api/users/"+p.ID, map[string]any{"active": false}); r.Status != 200 || r.Data()["active"] != false {
		t.Fatalf("deactivate: %d %s", r.Status, r.Raw)
	}
	if r := p.Do(t, "GET", "/api/users/profile", nil); r.Status != 401 {
		t.Fatalf("token after deactivation: %d", r.Status)
	}
	if r := p.Do(t, "POST", "/api/auth/login", map[string]string{"email": p.Email, "password": p.Password}); r.Status != 403 {
		t.Fatalf("login after deactivation: %d %s", r.Status, r.Raw)
	}
}

func TestRoleChangeEndsAccessAndTheLastAdminStays(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	admin := app.SignUp(t, domain.RoleAdmin)
	p := app.SignUp(t, domain.RolePatient)
	if r := admin.Do(t, "PATCH", "/api/users/"+p.ID, map[string]any{"role": "healthProvider"}); r.Status != 200 || r.Data()["role"] != "healthProvider" {
		t.Fatalf("role change: %d %s", r.Status, r.Raw)
	}
	if r := p.Do(t, "GET", "/api/users/profile", nil); r.Status != 401 {
		t.Fatalf("token after a role change: %d", r.Status)
	}
	if r := admin.Do(t, "PATCH", "/api/users/"+admin.ID, map[string]any{"role": "patient"}); r.Status != 409 {
		t.Fatalf("demoting the last admin: %d %s", r.Status, r.Raw)
	}
	if r := admin.Do(t, "DELETE", "/api/users/profile", map[string]string{"password": admin.Password}); r.Status != 409 {
		t.Fatalf("deleting the last admin: %d %s", r.Status, r.Raw)
	}
	if r := admin.Do(t, "PATCH", "/api/users/"+p.ID, map[string]any{"role": "superuser"}); r.Status != 422 {
		t.Fatalf("unknown role: %d %s", r.Status, r.Raw)
	}
}

func TestProfileUpdateCannotChangeRoleOrEmail(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	p := app.SignUp(t, domain.RolePatient)
	r := p.Do(t, "PUT", "/api/users/profile", map[string]any{
		"firstname": "<script>alert(1)</script>", "lastname": "O'Brien; DROP TABLE users;--",
		"role": "admin", "email": "new@clinic.test", "username": "root", "active": false, "verified": false,
		"gender": "MALE", "bio": "<b>bold</b>", "primphysician": "Dr. Rao",
	})
	if r.Status != 200 || r.Message() != "Profile updated successfully!" {
		t.Fatalf("update: %d %s", r.Status, r.Raw)
	}
	u := r.Data()
	if u["role"] != "patient" || u["email"] != p.Email || u["username"] != p.Username || u["active"] != true ||
		u["gender"] != "Male" || u["primphysician"] != "Dr. Rao" || u["specialization"] != nil ||
		u["firstname"] != "<script>alert(1)</script>" || u["bio"] != "<b>bold</b>" {
		t.Fatalf("updated user: %v", u)
	}
	if r := p.Do(t, "GET", "/api/users/profile", nil); r.Data()["lastname"] != "O'Brien; DROP TABLE users;--" {
		t.Fatalf("profile after update: %s", r.Raw)
	}
	if r := p.Do(t, "PUT", "/api/users/profile", map[string]any{"dob": "yesterday"}); r.Status != 422 {
		t.Fatalf("bad date: %d", r.Status)
	}
}

// TestProfileFieldsOfAnotherRole: a profile update that gives a value to a
// field of another role is refused with a field error, whatever the body's
// form, and changes nothing; such a field sent empty is no change.
func TestProfileFieldsOfAnotherRole(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	patient := app.SignUp(t, domain.RolePatient)
	provider := app.SignUp(t, domain.RoleProvider)
	admin := app.SignUp(t, domain.RoleAdmin)
	const notYours = "This field does not apply to your role."
	form := func(fields url.Values) func(p *apptest.Person) *apptest.Response {
		return func(p *apptest.Person) *apptest.Response {
			return p.Send(t, "PUT", "/api/users/profile", "application/x-www-form-urlencoded", strings.NewReader(fields.Encode()))
		}
	}
	multipartForm := func(fields map[string]string) func(p *apptest.Person) *apptest.Response {
		return func(p *apptest.Person) *apptest.Response {
			var body bytes.Buffer
			w := multipart.NewWriter(&body)
			for name, value := range fields {
				if err := w.WriteField(name, value); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			return p.Send(t, "PUT", "/api/users/profile", w.FormDataContentType(), &body)
		}
	}
	jsonBody := func(body map[string]any) func(p *apptest.Person) *apptest.Response {
		return func(p *apptest.Person) *apptest.Response { return p.Do(t, "PUT", "/api/users/profile", body) }
	}
	tests := []struct {
		name   string
		who    *apptest.Person
		send   func(p *apptest.Person) *apptest.Response
		fields []string // refused; none: saved
	}{
		{"a patient's specialization (JSON)", patient, jsonBody(map[string]any{"city": "Lahore", "specialization": "Surgery"}), []string{"specialization"}},
		{"a patient's provider details (form)", patient, form(url.Values{"city": {"Lahore"}, "licensenumber": {"L-1"}, "taxid": {"T-1"}}), []string{"taxid", "licensenumber"}},
		{"a provider's blood group (multipart)", provider, multipartForm(map[string]string{"city": "Lahore", "bloodgroup": "O+"}), []string{"bloodgroup"}},
		{"an admin's primary physician", admin, jsonBody(map[string]any{"primphysician": "Dr. Rao"}), []string{"primphysician"}},
		{"another role's fields sent empty", provider, jsonBody(map[string]any{"city": "Quetta", "bloodgroup": "", "primphysician": " "}), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.who.Do(t, "GET", "/api/users/profile", nil).Data()
			r := tt.send(tt.who)
			if tt.fields == nil {
				if r.Status != http.StatusOK || r.Data()["city"] != "Quetta" || r.Data()["bloodgroup"] != nil {
					t.Fatalf("%d %s", r.Status, r.Raw)
				}
				return
			}
			if r.Status != http.StatusUnprocessableEntity || strings.Join(fieldsOf(r), ",") != strings.Join(tt.fields, ",") {
				t.Fatalf("%d %s, want 422 on %v", r.Status, r.Raw, tt.fields)
			}
			for _, e := range r.Body["errors"].([]any) {
				if msg := e.(map[string]any)["message"]; msg != notYours {
					t.Errorf("field error %q, want %q", msg, notYours)
				}
			}
			if after := tt.who.Do(t, "GET", "/api/users/profile", nil).Data(); after["city"] != before["city"] {
				t.Errorf("the refused update changed the city: %v to %v", before["city"], after["city"])
			}
		})
	}
}

func TestDeleteOwnAccount(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	p := app.SignUp(t, domain.RolePatient)
	if r := p.Do(t, "DELETE", "/api/users/profile", map[string]string{"password": "wrong"}); r.Status != 422 {
		t.Fatalf("wrong password: %d %s", r.Status, r.Raw)
	}
	if r := p.Do(t, "DELETE", "/api/users/profile", map[string]string{"password": p.Password}); r.Status != 200 {
		t.Fatalf("delete: %d %s", r.Status, r.Raw)
	}
	if r := p.Do(t, "GET", "/api/users/profile", nil); r.Status != 401 {
		t.Fatalf("token after deletion: %d", r.Status)
	}
	if r := p.Do(t, "POST", "/api/auth/login", map[string]string{"email": p.Email, "password": p.Password}); r.Status != 401 {
		t.Fatalf("login after deletion: %d", r.Status)
	}
	actions, err := app.Store.AuditActions(context.Background(), "users", p.ID)
	if err != nil || !contains(actions, "account_delete:success") || !contains(actions, "register:success") {
		t.Fatalf("audit kept: %v %v", actions, err)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
