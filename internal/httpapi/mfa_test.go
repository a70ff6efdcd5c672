package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/secure"
	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/apptest"
)

// totpNow is the authenticator's code for the app's current time.
func totpNow(t *testing.T, app *apptest.App, secret string) string {
	t.Helper()
	code, err := secure.TOTPCode(secret, secure.TOTPStep(app.Clock.Now()))
	if err != nil {
		t.Fatal(err)
	}
	return code
}

// enableTOTP turns a person's authenticator on and returns its secret and
// recovery codes; the clock then moves to the next step, since the code
// that enabled it is spent.
func enableTOTP(t *testing.T, app *apptest.App, p *apptest.Person) (string, []string) {
	t.Helper()
	r := p.Do(t, "POST", "/api/auth/mfa/totp/setup", nil)
	if r.Status != http.StatusOK {
		t.Fatalf("setup: %d %s", r.Status, r.Raw)
	}
	secret, _ := r.Data()["secret"].(string)
	if url, _ := r.Data()["otpauthUrl"].(string); !strings.HasPrefix(url, "otpauth://totp/MediShare:") || !strings.Contains(url, "secret="+secret) {
		t.Fatalf("otpauthUrl = %q", url)
	}
	r = p.Do(t, "POST", "/api/auth/mfa/totp/enable", map[string]string{"code": totpNow(t, app, secret)})
	if r.Status != http.StatusOK {
		t.Fatalf("enable: %d %s", r.Status, r.Raw)
	}
	raw, _ := r.Data()["recoveryCodes"].([]any)
	codes := make([]string, len(raw))
	for i, c := range raw {
		codes[i], _ = c.(string)
	}
	app.Clock.Shift(30 * time.Second)
	return secret, codes
}

// firstStep signs in with the password and returns the mfaToken.
func firstStep(t *testing.T, app *apptest.App, p *apptest.Person) (*apptest.Client, string) {
	t.Helper()
	c := app.Client()
	r := c.Do(t, "POST", "/api/auth/login", map[string]string{"email": p.Email, "password": p.Password})
	if r.Status != http.StatusOK || r.Data()["mfaRequired"] != true {
		t.Fatalf("login: %d %s", r.Status, r.Raw)
	}
	if _, ok := r.Data()["token"]; ok {
		t.Errorf("the first step gave an access token: %s", r.Raw)
	}
	if h := r.Header.Get("Set-Cookie"); h != "" {
		t.Errorf("the first step set a cookie: %s", h)
	}
	token, _ := r.Data()["mfaToken"].(string)
	return c, token
}

func secondStep(t *testing.T, c *apptest.Client, token, code string) *apptest.Response {
	t.Helper()
	return c.Do(t, "POST", "/api/auth/login/mfa", map[string]string{"mfaToken": token, "code": code})
}

func wantError(t *testing.T, what string, r *apptest.Response, status int, text string) {
	t.Helper()
	if r.Status != status || r.Body["error"] != text {
		t.Errorf("%s: %d %s; want %d with error %q", what, r.Status, r.Raw, status, text)
	}
}

const (
	invalidCode = "Invalid code."
	expiredMFA  = "Your sign-in has expired. Please sign in again."
)

func TestTOTPEnrolmentAndTwoStepSignIn(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	p := app.SignUp(t, domain.RolePatient)

	r := p.Do(t, "POST", "/api/auth/mfa/totp/setup", nil)
	secret, _ := r.Data()["secret"].(string)
	wrong := totpNow(t, app, secret)
	wrong = string(rune('0'+(wrong[0]-'0'+1)%10)) + wrong[1:]
	r = p.Do(t, "POST", "/api/auth/mfa/totp/enable", map[string]string{"code": wrong})
	wantError(t, "enable with a wrong code", r, http.StatusUnprocessableEntity, invalidCode)
	if r := p.Do(t, "GET", "/api/users/profile", nil); r.Data()["mfa"].(map[string]any)["totp"] != false {
		t.Fatalf("a setup not enabled is in force: %s", r.Raw)
	}

	secret, codes := enableTOTP(t, app, p)
	if len(codes) != 10 {
		t.Fatalf("recovery codes = %v", codes)
	}
	for _, c := range codes {
		if _, ok := secure.NormalRecoveryCode(c); !ok || len(c) != 11 || c[5] != '-' {
			t.Errorf("recovery code %q is not xxxxx-xxxxx", c)
		}
	}
	if r := p.Do(t, "GET", "/api/users/profile", nil); r.Data()["mfa"].(map[string]any)["totp"] != true {
		t.Errorf("profile after enabling: %s", r.Raw)
	}
	if n := testutil.AuditCount(t, app.DB.Pool, testutil.Audit{Action: "mfa_totp_enabled", Actor: p.ID, Status: "success"}); n != 1 {
		t.Errorf("%d mfa_totp_enabled entries", n)
	}

	// A wrong code, then the right one.
	c, token := firstStep(t, app, p)
	wantError(t, "a wrong code", secondStep(t, c, token, wrong), http.StatusUnauthorized, invalidCode)
	code := totpNow(t, app, secret)
	r = secondStep(t, c, token, code)
	if r.Status != http.StatusOK || r.Data()["token"] == nil || !strings.Contains(r.Header.Get("Set-Cookie"), "medishare_refresh=") {
		t.Fatalf("second step: %d %s", r.Status, r.Raw)
	}
	if mfa := r.Data()["user"].(map[string]any)["mfa"].(map[string]any); mfa["totp"] != true {
		t.Errorf("login answer's mfa = %v", mfa)
	}
	wantError(t, "the used mfaToken again", secondStep(t, c, token, code), http.StatusUnauthorized, expiredMFA)

	// The same code (the same time step) does not work twice.
	c, token = firstStep(t, app, p)
	wantError(t, "a replayed code", secondStep(t, c, token, code), http.StatusUnauthorized, invalidCode)

	// A recovery code works, once; typed in upper case without its hyphen.
	typed := strings.ToUpper(strings.ReplaceAll(codes[3], "-", ""))
	if r := secondStep(t, c, token, typed); r.Status != http.StatusOK {
		t.Fatalf("recovery code: %d %s", r.Status, r.Raw)
	}
	c, token = firstStep(t, app, p)
	wantError(t, "a used recovery code", secondStep(t, c, token, codes[3]), http.StatusUnauthorized, invalidCode)

	for _, a := range []testutil.Audit{
		{Action: "mfa_challenge_succeeded", Actor: p.ID, Status: "success", Reason: "method: totp"},
		{Action: "mfa_challenge_succeeded", Actor: p.ID, Status: "success", Reason: "method: recovery"},
		{Action: "mfa_recovery_code_used", Actor: p.ID, Status: "success"},
		{Action: "mfa_challenge_failed", Actor: p.ID, Status: "failure"},
	} {
		if testutil.AuditCount(t, app.DB.Pool, a) == 0 {
			t.Errorf("no audit entry %+v", a)
		}
	}
	// The person sees their second-factor events in their own audit view.
	p.Token = r.Data()["token"].(string)
	if r := p.Do(t, "GET", "/api/audit/logs?action=mfa_totp_enabled", nil); r.Status != http.StatusOK || len(r.List()) != 1 {
		t.Errorf("own audit view: %d %s", r.Status, r.Raw)
	}
}

func TestTOTPCodeWorksOnceAcrossInstances(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	twin := app.Twin(t)
	p := app.SignUp(t, domain.RolePatient)
	secret, _ := enableTOTP(t, app, p)
	twin.Clock.Shift(30 * time.Second)

	c1, t1 := firstStep(t, app, p)
	c2, t2 := firstStep(t, twin, p)
	code := totpNow(t, app, secret)
	if r := secondStep(t, c1, t1, code); r.Status != http.StatusOK {
		t.Fatalf("first instance: %d %s", r.Status, r.Raw)
	}
	wantError(t, "the same code on the second instance", secondStep(t, c2, t2, code), http.StatusUnauthorized, invalidCode)
	if n := testutil.AuditCount(t, app.DB.Pool, testutil.Audit{Action: "mfa_challenge_failed", Actor: p.ID, Reason: "authenticator code used before"}); n != 1 {
		t.Errorf("%d replay entries", n)
	}
}

func TestMFATokenEndsAfterFiveTriesAndFiveMinutes(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	p := app.SignUp(t, domain.RolePatient)
	secret, _ := enableTOTP(t, app, p)

	c, token := firstStep(t, app, p)
	for i := range 5 {
		wantError(t, "wrong code "+itoa(i), secondStep(t, c, token, "000000"), http.StatusUnauthorized, invalidCode)
	}
	wantError(t, "right code after five wrong", secondStep(t, c, token, totpNow(t, app, secret)), http.StatusUnauthorized, expiredMFA)

	c, token = firstStep(t, app, p)
	app.Clock.Shift(5*time.Minute + time.Second)
	wantError(t, "right code after five minutes", secondStep(t, c, token, totpNow(t, app, secret)), http.StatusUnauthorized, expiredMFA)

	c, token = firstStep(t, app, p)
	app.Clock.Shift(4 * time.Minute)
	if r := secondStep(t, c, token, totpNow(t, app, secret)); r.Status != http.StatusOK {
		t.Errorf("right code after four minutes: %d %s", r.Status, r.Raw)
	}
}

func itoa(i int) string { return string(rune('0' + i)) }

func TestMFARequiredRolesGiveEnrolmentOnlySessions(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	admin := app.SignUp(t, domain.RoleAdmin)
	p := app.SignUp(t, domain.RoleProvider)
	if r := putSettings(t, admin, map[string]any{"mfaRequiredRoles": []string{domain.RoleProvider}}); r.Status != http.StatusOK {
		t.Fatalf("settings: %d %s", r.Status, r.Raw)
	} else if roles, _ := r.Data()["mfaRequiredRoles"].([]any); len(roles) != 1 || roles[0] != domain.RoleProvider {
		t.Fatalf("mfaRequiredRoles = %v", r.Data()["mfaRequiredRoles"])
	}
	if n := testutil.AuditCount(t, app.DB.Pool, testutil.Audit{Action: "settings_update", Reason: "mfaRequiredRoles [] to [healthProvider]"}); n != 1 {
		t.Errorf("%d settings_update entries", n)
	}
	if r := putSettings(t, admin, map[string]any{"mfaRequiredRoles": []string{"nurse"}}); r.Status != http.StatusUnprocessableEntity {
		t.Errorf("an unknown role: %d %s", r.Status, r.Raw)
	}

	p.SignIn(t)
	r := p.Do(t, "GET", "/api/users/profile", nil)
	if mfa := r.Data()["mfa"].(map[string]any); r.Status != http.StatusOK || mfa["required"] != true || mfa["totp"] != false {
		t.Fatalf("profile of an enrolment-only session: %d %s", r.Status, r.Raw)
	}
	wantError(t, "a normal call", p.Do(t, "GET", "/api/upload/my-images", nil), http.StatusForbidden, "mfa_enrollment_required")

	enableTOTP(t, app, p)
	if r := p.Do(t, "GET", "/api/upload/my-images", nil); r.Status != http.StatusOK {
		t.Errorf("after enabling, the same session: %d %s", r.Status, r.Raw)
	}
	// The admin's list shows who has a second factor.
	r = admin.Do(t, "GET", "/api/users?role=healthProvider&limit=100", nil)
	found := false
	for _, u := range r.List() {
		if u["id"] == p.ID {
			found = true
			if mfa := u["mfa"].(map[string]any); mfa["totp"] != true || mfa["required"] != true {
				t.Errorf("admin list's mfa = %v", mfa)
			}
		}
	}
	if !found {
		t.Errorf("the person is not in the admin's list: %s", r.Raw)
	}
}

func TestAdminResetsSecondFactors(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	admin := app.SignUp(t, domain.RoleAdmin)
	p := app.SignUp(t, domain.RolePatient)
	enableTOTP(t, app, p)
	other := app.SignUp(t, domain.RolePatient)

	if r := other.Do(t, "DELETE", "/api/users/"+p.ID+"/mfa", nil); r.Status != http.StatusForbidden {
		t.Errorf("a patient resets: %d %s", r.Status, r.Raw)
	}
	if r := admin.Do(t, "DELETE", "/api/users/"+p.ID+"/mfa", nil); r.Status != http.StatusOK || r.Message() != "The second factors are reset." {
		t.Fatalf("reset: %d %s", r.Status, r.Raw)
	}
	if n := testutil.AuditCount(t, app.DB.Pool, testutil.Audit{Action: "mfa_reset_by_admin", Actor: admin.ID, Record: p.ID, Status: "success"}); n != 1 {
		t.Errorf("%d mfa_reset_by_admin entries", n)
	}
	m := app.Mailbox.Wait(t, p.Email, "Your MediShare second factors were reset")
	if strings.Contains(m.Data, "Person") {
		t.Errorf("the mail names more than the greeting: %s", m.Data)
	}
	if r := p.Do(t, "GET", "/api/users/profile", nil); r.Status != http.StatusUnauthorized {
		t.Errorf("the old session after the reset: %d", r.Status)
	}
	p.SignIn(t) // the password alone signs in again
	// The person sees the reset in their own audit view.
	r := p.Do(t, "GET", "/api/audit/logs?action=mfa_reset_by_admin", nil)
	if r.Status != http.StatusOK || len(r.List()) != 1 {
		t.Errorf("own audit view: %d %s", r.Status, r.Raw)
	}
}

func TestPasswordResetAsksForTheSecondFactor(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	p := app.SignUp(t, domain.RolePatient)
	secret, codes := enableTOTP(t, app, p)

	c := app.Client()
	if r := c.Do(t, "POST", "/api/auth/forgot-password", map[string]string{"email": p.Email}); r.Status != http.StatusOK {
		t.Fatal(r.Raw)
	}
	otp := app.Mailbox.Code(t, p.Email, "Your MediShare password reset code", `reset code is (\d{6})`)
	next := "Harbor-Lantern-6604-Moss"
	reset := func(mfaCode string) *apptest.Response {
		return c.Do(t, "POST", "/api/auth/reset-password", map[string]string{"email": p.Email, "otp": otp, "newPassword": next, "mfaCode": mfaCode})
	}
	r := reset("")
	wantError(t, "without mfaCode", r, http.StatusUnauthorized, "Enter a code from your authenticator app or a recovery code.")
	if r.Body["mfaRequired"] != true {
		t.Errorf("no mfaRequired: %s", r.Raw)
	}
	wantError(t, "a wrong mfaCode", reset("000000"), http.StatusUnauthorized, invalidCode)
	if r := reset(codes[0]); r.Status != http.StatusOK {
		t.Fatalf("with a recovery code: %d %s", r.Status, r.Raw)
	}
	// The second factor stays: the new password asks for it.
	p.Password = next
	c2, token := firstStep(t, app, p)
	if r := secondStep(t, c2, token, totpNow(t, app, secret)); r.Status != http.StatusOK {
		t.Errorf("sign-in after the reset: %d %s", r.Status, r.Raw)
	}
}

func TestTurnTOTPOff(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	p := app.SignUp(t, domain.RolePatient)
	secret, _ := enableTOTP(t, app, p)

	r := p.Do(t, "DELETE", "/api/auth/mfa/totp", map[string]string{"password": "wrong-password-1", "code": totpNow(t, app, secret)})
	if r.Status != http.StatusUnauthorized || r.Message() != "Invalid email or password." {
		t.Errorf("wrong password: %d %s", r.Status, r.Raw)
	}
	wantError(t, "wrong code", p.Do(t, "DELETE", "/api/auth/mfa/totp", map[string]string{"password": p.Password, "code": "000000"}), http.StatusUnauthorized, invalidCode)
	r = p.Do(t, "POST", "/api/auth/mfa/recovery-codes", map[string]string{"code": totpNow(t, app, secret)})
	if raw, _ := r.Data()["recoveryCodes"].([]any); r.Status != http.StatusOK || len(raw) != 10 {
		t.Fatalf("regenerate: %d %s", r.Status, r.Raw)
	}
	app.Clock.Shift(30 * time.Second)
	r = p.Do(t, "DELETE", "/api/auth/mfa/totp", map[string]string{"password": p.Password, "code": totpNow(t, app, secret)})
	if r.Status != http.StatusOK || r.Message() != "The authenticator is turned off." {
		t.Fatalf("turn off: %d %s", r.Status, r.Raw)
	}
	p.SignIn(t) // the password alone signs in again
	for _, action := range []string{"mfa_recovery_codes_regenerated", "mfa_totp_disabled"} {
		if n := testutil.AuditCount(t, app.DB.Pool, testutil.Audit{Action: action, Actor: p.ID, Status: "success"}); n != 1 {
			t.Errorf("%d %s entries", n, action)
		}
	}
}

// A requirement holds at once: sessions begun before it may only enrol from
// the admin's change on, and are let go when it is lifted.
func TestMFARequiredRolesReachLiveSessions(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	admin := app.SignUp(t, domain.RoleAdmin)
	p := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	if r := p.Do(t, "GET", "/api/upload/my-images", nil); r.Status != http.StatusOK {
		t.Fatalf("before the requirement: %d %s", r.Status, r.Raw)
	}
	if r := putSettings(t, admin, map[string]any{"mfaRequiredRoles": []string{domain.RoleProvider}}); r.Status != http.StatusOK {
		t.Fatalf("settings: %d %s", r.Status, r.Raw)
	}
	wantError(t, "the live session of a provider", p.Do(t, "GET", "/api/upload/my-images", nil), http.StatusForbidden, "mfa_enrollment_required")
	if r := patient.Do(t, "GET", "/api/users/profile", nil); r.Status != http.StatusOK || r.Data()["mfa"].(map[string]any)["required"] != false {
		t.Errorf("a patient, not required: %d %s", r.Status, r.Raw)
	}
	if r := putSettings(t, admin, map[string]any{"mfaRequiredRoles": []string{}}); r.Status != http.StatusOK {
		t.Fatalf("settings: %d %s", r.Status, r.Raw)
	}
	if r := p.Do(t, "GET", "/api/upload/my-images", nil); r.Status != http.StatusOK {
		t.Errorf("after the requirement is lifted: %d %s", r.Status, r.Raw)
	}
}
