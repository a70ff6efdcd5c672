package httpapi_test

// The findings of an outside security probe, each as the request that once
// answered wrongly.

import (
	"net/http"
	"strings"
	"testing"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/apptest"
)

// TestTextThatPostgresCannotStore: a NUL byte or invalid UTF-8 in any string
// input is refused at the edge with 400 or 422 in the product's words,
// never a 500 (PostgreSQL refuses to store those bytes).
func TestTextThatPostgresCannotStore(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	anon := app.Client()

	type request struct {
		name string
		send func() *apptest.Response
	}
	raw := func(c *apptest.Client, method, path, body string) func() *apptest.Response {
		return func() *apptest.Response { return c.Send(t, method, path, "application/json", strings.NewReader(body)) }
	}
	caption := func(text string) func() *apptest.Response {
		return func() *apptest.Response {
			return provider.Upload(t, [][2]string{{"caption", text}, {"patientId", patient.ID}, {"file"}}, "a.jpg", jpegBytes(t))
		}
	}
	tests := []request{
		{"search with NUL", func() *apptest.Response { return provider.Do(t, "GET", "/api/users?search=%00", nil) }},
		{"search with invalid UTF-8", func() *apptest.Response { return provider.Do(t, "GET", "/api/users?search=%ff%fe", nil) }},
		{"query name with NUL", func() *apptest.Response { return provider.Do(t, "GET", "/api/users?%00=1", nil) }},
		{"malformed query", func() *apptest.Response { return provider.Do(t, "GET", "/api/users?search=%zz", nil) }},
		{"login email with NUL", raw(anon, "POST", "/api/auth/login", `{"email":"a\u0000@example.org","password":"x"}`)},
		{"confirm email with NUL", raw(anon, "POST", "/api/auth/confirm", `{"email":"a\u0000@example.org","code":"1234"}`)},
		{"reset email with NUL", raw(anon, "POST", "/api/auth/reset-password", `{"email":"a\u0000@example.org","otp":"123456","newPassword":"Tulip-Harbour-9-Quartz"}`)},
		{"forgot email with NUL", raw(anon, "POST", "/api/auth/forgot-password", `{"email":"a\u0000@example.org"}`)},
		{"JSON body with invalid UTF-8", raw(anon, "POST", "/api/auth/login", "{\"email\":\"a\xff@example.org\",\"password\":\"x\"}")},
		{"profile field with NUL", raw(provider.Client, "PUT", "/api/users/profile", `{"bio":"x\u0000y"}`)},
		{"profile form with invalid UTF-8", func() *apptest.Response {
			return provider.Send(t, "PUT", "/api/users/profile", "application/x-www-form-urlencoded", strings.NewReader("bio=%ff"))
		}},
		{"caption with NUL", caption("knee\x00")},
		{"caption with invalid UTF-8", caption("knee\xff\xfe")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.send()
			if r.Status != http.StatusBadRequest && r.Status != http.StatusUnprocessableEntity {
				t.Fatalf("%d %s, want 400 or 422", r.Status, r.Raw)
			}
			if r.Message() == "" || strings.Contains(r.Raw, "SQLSTATE") || strings.Contains(r.Raw, "Internal") {
				t.Fatalf("not an answer in the product's words: %s", r.Raw)
			}
		})
	}
	// Nothing was stored on the way.
	if n := len(provider.Do(t, "GET", "/api/upload/my-images", nil).List()); n != 0 {
		t.Errorf("%d images stored", n)
	}
}

// TestCodeRequestsTakeTheSameWork: forgot-password and
// resend-confirmation do the same work before answering whether or not
// the account exists, so their timing cannot tell accounts apart: the
// lookup and the new code happen after the response.
func TestCodeRequestsTakeTheSameWork(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	unconfirmed := apptest.Registration(domain.RolePatient)
	if r := app.Client().Do(t, "POST", "/api/auth/register", unconfirmed); r.Status != http.StatusCreated {
		t.Fatalf("register: %d %s", r.Status, r.Raw)
	}
	app.Mailbox.Code(t, unconfirmed["email"].(string), "Your MediShare confirmation code", `confirmation code is (\d{4})`)
	known := app.SignUp(t, domain.RolePatient)

	tests := []struct {
		path, email, subject string
	}{
		{"/api/auth/forgot-password", known.Email, "Your MediShare password reset code"},
		{"/api/auth/resend-confirmation", unconfirmed["email"].(string), "Your MediShare confirmation code"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			app.Services.Background.Hold()
			t.Cleanup(app.Services.Background.Release) // also when the test fails
			before, codesBefore := testutil.AuditCount(t, app.DB.Pool, testutil.Audit{}), codeIDs(t, app, tt.email)
			known := app.Client().Do(t, "POST", tt.path, map[string]string{"email": tt.email})
			unknown := app.Client().Do(t, "POST", tt.path, map[string]string{"email": "nobody." + tt.email})
			// Answered before any work that only a real account needs.
			if known.Status != http.StatusOK || known.Raw != unknown.Raw || known.Status != unknown.Status {
				t.Fatalf("known %d %s, unknown %d %s", known.Status, known.Raw, unknown.Status, unknown.Raw)
			}
			if n := testutil.AuditCount(t, app.DB.Pool, testutil.Audit{}); n != before {
				t.Fatalf("%d audit entries written before the answer", n-before)
			}
			if codeIDs(t, app, tt.email) != codesBefore {
				t.Fatal("a code was made before the answer")
			}
			// The work runs afterwards, and the mail arrives.
			mails := app.Mailbox.Count(tt.email, tt.subject)
			app.Services.Background.Release()
			app.Services.Background.Wait()
			app.Mailbox.WaitCount(t, tt.email, tt.subject, mails+1)
		})
	}
}

// codeIDs lists the ids of an account's codes: a new code changes it.
func codeIDs(t *testing.T, app *apptest.App, email string) string {
	t.Helper()
	var ids string
	if err := app.DB.Pool.QueryRow(t.Context(), `SELECT coalesce(string_agg(c.id::text, ',' ORDER BY c.id), '') FROM one_time_codes c JOIN users u ON u.id = c.user_id WHERE u.email = $1`, email).Scan(&ids); err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestRegistrationFloods: one address cannot register without limit; the
// owner of a registered email hears of new attempts once a day at most;
// text typed by whoever registers never reaches a mail.
func TestRegistrationFloods(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	owner := app.SignUp(t, domain.RolePatient)

	// Registering someone's email again and again: one notice.
	for i := range 5 {
		reg := apptest.Registration(domain.RolePatient)
		reg["email"] = owner.Email
		reg["firstname"] = "Click https://evil.example/login"
		if r := app.Client().Do(t, "POST", "/api/auth/register", reg); r.Status != http.StatusCreated {
			t.Fatalf("attempt %d: %d %s", i, r.Status, r.Raw)
		}
	}
	app.Services.Background.Wait()
	if n := app.Mailbox.Count(owner.Email, "Someone tried to register with your email"); n != 1 {
		t.Fatalf("%d notices, want 1", n)
	}

	// A stranger registers a victim's address: the mail carries no name.
	victim := apptest.Registration(domain.RolePatient)
	victim["firstname"] = "Click https://evil.example/login"
	if r := app.Client().Do(t, "POST", "/api/auth/register", victim); r.Status != http.StatusCreated {
		t.Fatalf("register: %d %s", r.Status, r.Raw)
	}
	app.Services.Background.Wait()
	app.Mailbox.Wait(t, victim["email"].(string), "Your MediShare confirmation code")
	for _, m := range app.Mailbox.All(victim["email"].(string)) {
		if strings.Contains(m.Data, "evil.example") || strings.Contains(m.Data, "Click") {
			t.Errorf("a stranger's text is in the mail:\n%s", m.Data)
		}
	}

	// One client address registers 20 accounts an hour, then waits.
	var last *apptest.Response
	for range 25 {
		last = app.Client().Do(t, "POST", "/api/auth/register", apptest.Registration(domain.RolePatient))
		if last.Status == http.StatusTooManyRequests {
			break
		}
	}
	if last.Status != http.StatusTooManyRequests || last.Header.Get("Retry-After") == "" ||
		last.Message() != "Too many registrations from this network. Please try again later." {
		t.Fatalf("registration is not throttled: %d %s", last.Status, last.Raw)
	}
}

// TestRefreshRefusesCrossSite: a cookie-authenticated request that a browser
// marks as coming from another site is refused, even with a good cookie.
func TestRefreshRefusesCrossSite(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	p := app.SignUp(t, domain.RolePatient)
	refresh := func(header map[string]string) int {
		return p.DoWith(t, "POST", "/api/auth/refresh", nil, header).Status
	}
	for name, header := range map[string]map[string]string{
		"Origin of another site":    {"Origin": "https://evil.example"},
		"Sec-Fetch-Site cross-site": {"Sec-Fetch-Site": "cross-site"},
		"Sec-Fetch-Site same-site":  {"Sec-Fetch-Site": "same-site"},
	} {
		if s := refresh(header); s != http.StatusForbidden {
			t.Errorf("%s: %d, want 403", name, s)
		}
	}
	before := testutil.AuditCount(t, app.DB.Pool, testutil.Audit{})
	for name, header := range map[string]map[string]string{
		"the app's own origin": {"Origin": "http://medishare.test", "Sec-Fetch-Site": "same-origin"},
		"no browser headers":   nil,
	} {
		if s := refresh(header); s != http.StatusOK {
			t.Errorf("%s: %d, want 200", name, s)
		}
	}
	if testutil.AuditCount(t, app.DB.Pool, testutil.Audit{}) != before {
		t.Error("an allowed refresh was recorded as refused")
	}
}

// TestEachRefusalRecordedOnce: every refused access leaves exactly one
// access_denied entry, whichever layer refused it.
func TestEachRefusalRecordedOnce(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	imageID := sharedImage(t, provider, patient.ID)
	share(t, app, provider, patient, imageID, nil) // pending: the patient has not entered the code

	tests := []struct {
		name   string
		caller *apptest.Person
		method string
		path   string
		status int
	}{
		{"a patient's uploads", patient, "GET", "/api/upload/my-images", 403},
		{"every image, not an admin", provider, "GET", "/api/upload/images", 403},
		{"roles, not an admin", provider, "GET", "/api/roles", 403},
		{"the dashboard, a patient", patient, "GET", "/api/dashboard/stats", 403},
		{"managing users, not an admin", provider, "DELETE", "/api/users/" + patient.ID, 403},
		{"contents before the code", patient, "GET", "/api/upload/image/" + imageID + "/content", 403},
		{"deleting through a share", patient, "DELETE", "/api/upload/image/" + imageID, 403},
		{"an image of someone else", app.SignUp(t, domain.RoleProvider), "GET", "/api/upload/image/" + imageID, 404},
		{"uploading, a patient", patient, "POST", "/api/upload/image", 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := testutil.AuditCount(t, app.DB.Pool, testutil.Audit{Action: "access_denied"})
			if r := tt.caller.Do(t, tt.method, tt.path, nil); r.Status != tt.status {
				t.Fatalf("%d %s, want %d", r.Status, r.Raw, tt.status)
			}
			if n := testutil.AuditCount(t, app.DB.Pool, testutil.Audit{Action: "access_denied"}) - before; n != 1 {
				t.Fatalf("%d access_denied entries, want 1", n)
			}
		})
	}
}
