package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/testutil/apptest"
)

func TestAuditImageHistory(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	colleague := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	other := app.SignUp(t, domain.RolePatient)

	mine := sharedImage(t, provider, patient.ID)
	theirs := sharedImage(t, provider, other.ID)
	shareID, code := share(t, app, provider, colleague, mine, nil)
	if r := verify(t, colleague, shareID, code); r.Status != http.StatusOK {
		t.Fatalf("verify: %d %s", r.Status, r.Raw)
	}
	if s := contentStatus(t, colleague, mine); s != http.StatusOK {
		t.Fatalf("colleague's view: %d", s)
	}

	// "Who has seen this": the image's entries and its share's, newest first.
	r := auditPage(t, patient, "limit=20&imageId="+mine)
	var got []string
	for _, e := range r.List() {
		got = append(got, e["actiontype"].(string)+":"+e["recordId"].(string))
	}
	want := []string{"view:" + mine, "share_verify:" + shareID, "share:" + shareID, "upload:" + mine}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("the patient's history of one image:\n got %v\nwant %v", got, want)
	}
	if n := len(auditPage(t, patient, "limit=20&imageId="+theirs).List()); n != 0 {
		t.Errorf("a patient sees %d entries of another patient's image", n)
	}
	if n := len(auditPage(t, other, "limit=20&imageId="+mine).List()); n != 0 {
		t.Errorf("another patient sees %d entries of the image", n)
	}
	if n := len(auditPage(t, provider, "limit=20&imageId="+mine).List()); n != len(want) {
		t.Errorf("the uploader sees %d entries of their image, want %d", n, len(want))
	}

	// The access history of every image about the patient: no sign-ins.
	r = auditPage(t, patient, "limit=20&about=images")
	if len(r.List()) != len(want) {
		t.Errorf("the patient's access history holds %d entries, want %d", len(r.List()), len(want))
	}
	for _, e := range r.List() {
		if e["actiontype"] == "login" {
			t.Error("a sign-in among the entries about images")
		}
	}

	for _, bad := range []string{"imageId=42", "about=users"} {
		if r := patient.Do(t, "GET", "/api/audit/logs?limit=5&"+bad, nil); r.Status != http.StatusUnprocessableEntity {
			t.Errorf("?%s: %d %s", bad, r.Status, r.Raw)
		}
	}
}

// settingsOf reads the settings as admin.
func settingsOf(t *testing.T, admin *apptest.Person) map[string]any {
	t.Helper()
	r := admin.Do(t, "GET", "/api/settings", nil)
	if r.Status != http.StatusOK {
		t.Fatalf("GET /api/settings: %d %s", r.Status, r.Raw)
	}
	return r.Data()
}

func putSettings(t *testing.T, admin *apptest.Person, body map[string]any) *apptest.Response {
	t.Helper()
	return admin.Do(t, "PUT", "/api/settings", body)
}

// fieldsOf are the field names of an error's field errors.
func fieldsOf(r *apptest.Response) []string {
	errs, _ := r.Body["errors"].([]any)
	var out []string
	for _, e := range errs {
		out = append(out, e.(map[string]any)["field"].(string))
	}
	return out
}

func TestSettingsAreValidatedTogether(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	admin := app.SignUp(t, domain.RoleAdmin)
	provider := app.SignUp(t, domain.RoleProvider)

	before := settingsOf(t, admin)
	if before["shareLifetimeDefaultHours"] != 24.0 || before["shareLifetimeMaxHours"] != 168.0 || before["registrationOpen"] != true ||
		before["providerApprovalRequired"] != false || before["analysisProvider"] != "builtin" || before["analysisSendUnscreened"] != false {
		t.Fatalf("default settings: %v", before)
	}
	if providers, _ := before["analysisProviders"].([]any); len(providers) != 1 || providers[0] != "builtin" {
		t.Errorf("analysisProviders = %v, want [builtin]", before["analysisProviders"])
	}

	for _, c := range []struct {
		body   map[string]any
		fields string
	}{
		{map[string]any{"shareLifetimeDefaultHours": 200}, "shareLifetimeDefaultHours"}, // above the current maximum
		{map[string]any{"shareLifetimeMaxHours": 12}, "shareLifetimeDefaultHours"},      // below the current default
		{map[string]any{"shareLifetimeDefaultHours": 0, "shareLifetimeMaxHours": 721}, "shareLifetimeMaxHours shareLifetimeDefaultHours"},
		{map[string]any{"shareLifetimeDefaultHours": 2, "registrationOpen": false, "analysisProvider": "openai"}, "analysisProvider"},
	} {
		r := putSettings(t, admin, c.body)
		if r.Status != http.StatusUnprocessableEntity || r.Message() != "Please check the settings." || strings.Join(fieldsOf(r), " ") != c.fields {
			t.Errorf("PUT %v: %d %s, want 422 on %s", c.body, r.Status, r.Raw, c.fields)
		}
		if after := settingsOf(t, admin); after["shareLifetimeDefaultHours"] != 24.0 || after["registrationOpen"] != true {
			t.Fatalf("a refused change changed the settings: %v", after)
		}
	}
	if r := putSettings(t, admin, map[string]any{"shareLifetimeDefaultHours": "two"}); r.Status != http.StatusUnprocessableEntity {
		t.Errorf("a string for a number: %d %s", r.Status, r.Raw)
	}

	// Both limits moved at once are checked against each other, not the old values.
	r := putSettings(t, admin, map[string]any{"shareLifetimeDefaultHours": 300, "shareLifetimeMaxHours": 400})
	if r.Status != http.StatusOK || r.Message() != "Settings saved." || r.Data()["shareLifetimeDefaultHours"] != 300.0 {
		t.Fatalf("PUT both limits: %d %s", r.Status, r.Raw)
	}
	var reason string
	err := app.DB.Pool.QueryRow(context.Background(),
		`SELECT reason FROM audit_log WHERE action = 'settings_update' AND actor_id = $1 ORDER BY id DESC LIMIT 1`, admin.ID).Scan(&reason)
	if err != nil || reason != "shareLifetimeDefaultHours 24 to 300; shareLifetimeMaxHours 168 to 400" {
		t.Errorf("audited change: %q, %v", reason, err)
	}

	// Only admins.
	for _, call := range []struct{ method, path string }{{"GET", "/api/settings"}, {"PUT", "/api/settings"}} {
		if r := provider.Do(t, call.method, call.path, map[string]any{"registrationOpen": false}); r.Status != http.StatusForbidden ||
			r.Message() != "Only admins can change settings." {
			t.Errorf("%s %s as a provider: %d %s", call.method, call.path, r.Status, r.Raw)
		}
	}
	if after := settingsOf(t, admin); after["registrationOpen"] != true {
		t.Error("a provider closed registration")
	}
}

func TestSettingsTakeEffectOnEveryInstance(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	twin := app.Twin(t) // a second instance on the same database
	admin := app.SignUp(t, domain.RoleAdmin)
	provider := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	image := sharedImage(t, provider, patient.ID)

	// The default lifetime of a share, changed on one instance, used by the other.
	if r := putSettings(t, admin, map[string]any{"shareLifetimeDefaultHours": 2}); r.Status != http.StatusOK {
		t.Fatalf("PUT default lifetime: %d %s", r.Status, r.Raw)
	}
	r := twin.As(provider).Do(t, "POST", "/api/sharing/request", map[string]any{"imagemetadataId": image, "createdfor": patient.ID})
	if r.Status != http.StatusCreated {
		t.Fatalf("share: %d %s", r.Status, r.Raw)
	}
	expires, err := time.Parse(time.RFC3339, r.Data()["expiresAt"].(string))
	if lifetime := time.Until(expires); err != nil || lifetime < 110*time.Minute || lifetime > 2*time.Hour {
		t.Errorf("a share without a lifetime lasts %v (%v), want the new default of 2 hours", lifetime, err)
	}

	// Registration closed on one instance is closed on the other.
	if r := putSettings(t, admin, map[string]any{"registrationOpen": false}); r.Status != http.StatusOK {
		t.Fatalf("close registration: %d %s", r.Status, r.Raw)
	}
	reg := apptest.Registration(domain.RolePatient)
	r = twin.Client().Do(t, "POST", "/api/auth/register", reg)
	if r.Status != http.StatusForbidden || r.Message() != "Registration is closed. Please contact the administrator." {
		t.Errorf("register while closed: %d %s", r.Status, r.Raw)
	}
	if n := twin.Mailbox.Count(reg["email"].(string), ""); n != 0 {
		t.Errorf("%d mails to a refused registration", n)
	}
	if r := putSettings(t, admin, map[string]any{"registrationOpen": true}); r.Status != http.StatusOK {
		t.Fatalf("open registration: %d %s", r.Status, r.Raw)
	}

	// Approval required: a new provider confirms but cannot sign in until approved.
	if r := putSettings(t, admin, map[string]any{"providerApprovalRequired": true}); r.Status != http.StatusOK {
		t.Fatalf("require approval: %d %s", r.Status, r.Raw)
	}
	newcomer := &apptest.Person{Client: twin.Client()}
	reg = apptest.Registration(domain.RoleProvider)
	newcomer.Email, newcomer.Password = reg["email"].(string), reg["password"].(string)
	if r := newcomer.Do(t, "POST", "/api/auth/register", reg); r.Status != http.StatusCreated {
		t.Fatalf("register a provider: %d %s", r.Status, r.Raw)
	}
	code := twin.Mailbox.Code(t, newcomer.Email, "Your MediShare confirmation code", `confirmation code is (\d{4})`)
	if r := newcomer.Do(t, "POST", "/api/auth/confirm", map[string]string{"email": newcomer.Email, "code": code}); r.Status != http.StatusOK {
		t.Fatalf("confirm: %d %s", r.Status, r.Raw)
	}
	login := map[string]string{"email": newcomer.Email, "password": newcomer.Password}
	r = newcomer.Do(t, "POST", "/api/auth/login", login)
	if r.Status != http.StatusForbidden || r.Body["error"] != "account_not_approved" || r.Message() != "Your account is waiting for an administrator's approval." {
		t.Fatalf("sign-in before approval: %d %s", r.Status, r.Raw)
	}
	var id string
	if err := app.DB.Pool.QueryRow(context.Background(), `SELECT id FROM users WHERE email = $1`, newcomer.Email).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if u := admin.Do(t, "GET", "/api/users/"+id, nil); u.Status != http.StatusOK || u.Data()["approved"] != false {
		t.Errorf("the waiting provider as an admin sees them: %d %s", u.Status, u.Raw)
	}
	// A patient registering meanwhile needs no approval.
	if p := twin.SignUp(t, domain.RolePatient); p.Token == "" {
		t.Error("a patient could not sign in while provider approval is required")
	}

	if r := admin.Do(t, "PATCH", "/api/users/"+id, map[string]any{"approved": false}); r.Status != http.StatusUnprocessableEntity {
		t.Errorf("approved false: %d %s", r.Status, r.Raw)
	}
	if r := provider.Do(t, "PATCH", "/api/users/"+id, map[string]any{"approved": true}); r.Status != http.StatusForbidden {
		t.Errorf("a provider approving: %d %s", r.Status, r.Raw)
	}
	r = admin.Do(t, "PATCH", "/api/users/"+id, map[string]any{"approved": true})
	if r.Status != http.StatusOK || r.Message() != "User updated successfully." || r.Data()["approved"] != true {
		t.Fatalf("approve: %d %s", r.Status, r.Raw)
	}
	if n := audited(t, app, "user_approve", id, true); n != 1 {
		t.Errorf("%d user_approve entries, want 1", n)
	}
	if r := newcomer.Do(t, "POST", "/api/auth/login", login); r.Status != http.StatusOK {
		t.Errorf("sign-in after approval: %d %s", r.Status, r.Raw)
	}
}

func TestAdminHealth(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	admin := app.SignUp(t, domain.RoleAdmin)
	provider := app.SignUp(t, domain.RoleProvider)

	r := admin.Do(t, "GET", "/api/admin/health", nil)
	if r.Status != http.StatusOK {
		t.Fatalf("health: %d %s", r.Status, r.Raw)
	}
	h := r.Data()
	part := func(name string) map[string]any { m, _ := h[name].(map[string]any); return m }
	if h["version"] != "test" || h["startedAt"] == "" || part("database")["ok"] != true || part("storage")["ok"] != true ||
		part("storage")["kind"] != "filesystem" || part("mail")["kind"] != "log" || part("mail")["ok"] != true {
		t.Errorf("health: %s", r.Raw)
	}
	// Before any check of the chain: not checked, which is not intact.
	if c := part("auditChain"); c["ok"] != false || c["checkedAt"] != nil || c["firstBrokenId"] != nil {
		t.Errorf("audit chain before any check: %v", c)
	}
	// After one (GET /api/audit/verify here; the background check too):
	// its result.
	if r := admin.Do(t, "GET", "/api/audit/verify", nil); r.Data()["ok"] != true {
		t.Fatalf("verify: %s", r.Raw)
	}
	chain := admin.Do(t, "GET", "/api/admin/health", nil).Data()["auditChain"].(map[string]any)
	if chain["ok"] != true || chain["checked"].(float64) < 3 || chain["checkedAt"] == nil { // at least the sign-ins and registrations above
		t.Errorf("audit chain after a check: %v", chain)
	}

	for _, path := range []string{"/api/admin/health", "/api/admin/activity"} {
		if r := provider.Do(t, "GET", path, nil); r.Status != http.StatusForbidden {
			t.Errorf("%s as a provider: %d %s", path, r.Status, r.Raw)
		}
	}
}

// today is the activity row of today, read as admin.
func today(t *testing.T, admin *apptest.Person) map[string]any {
	t.Helper()
	r := admin.Do(t, "GET", "/api/admin/activity?days=1", nil)
	if r.Status != http.StatusOK || len(r.List()) != 1 {
		t.Fatalf("activity: %d %s", r.Status, r.Raw)
	}
	return r.List()[0]
}

func TestAdminActivity(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	admin := app.SignUp(t, domain.RoleAdmin)
	provider := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)

	before := today(t, admin)
	if day := before["day"]; day != time.Now().In(domain.Zone).Format(time.DateOnly) {
		t.Errorf("today is %v", day)
	}
	image := sharedImage(t, provider, patient.ID)
	shareID, code := share(t, app, provider, patient, image, nil)
	if r := verify(t, patient, shareID, code); r.Status != http.StatusOK {
		t.Fatalf("verify: %d %s", r.Status, r.Raw)
	}
	contentStatus(t, patient, image)
	if r := send(t, provider, patient.ID, "hello"); r.Status != http.StatusCreated {
		t.Fatalf("message: %d %s", r.Status, r.Raw)
	}
	patient.SignIn(t)
	if r := patient.Do(t, "POST", "/api/auth/login", map[string]string{"email": patient.Email, "password": "not-the-password"}); r.Status != http.StatusUnauthorized {
		t.Fatalf("wrong password: %d", r.Status)
	}

	after := today(t, admin)
	for name, grew := range map[string]float64{"signIns": 1, "failedSignIns": 1, "uploads": 1, "shares": 1, "verifications": 1, "views": 1, "messages": 1} {
		if d := after[name].(float64) - before[name].(float64); d != grew {
			t.Errorf("%s grew by %v, want %v", name, d, grew)
		}
	}

	r := admin.Do(t, "GET", "/api/admin/activity", nil)
	days := r.List()
	if r.Status != http.StatusOK || len(days) != 14 || days[13]["day"] != after["day"] || days[0]["signIns"] != 0.0 {
		t.Errorf("fourteen days: %d %s", r.Status, r.Raw)
	}
	for _, bad := range []string{"0", "91", "two"} {
		if r := admin.Do(t, "GET", "/api/admin/activity?days="+bad, nil); r.Status != http.StatusUnprocessableEntity {
			t.Errorf("days=%s: %d %s", bad, r.Status, r.Raw)
		}
	}
}
