package httpapi_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/apptest"
)

// TestRouteByRoleMatrix calls every route of the accounts feature as
// anonymous, patient, provider, admin and a second user of the same role (S8).
func TestRouteByRoleMatrix(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	people := map[string]*apptest.Person{
		"patient":   app.SignUp(t, domain.RolePatient),
		"patient2":  app.SignUp(t, domain.RolePatient),
		"provider":  app.SignUp(t, domain.RoleProvider),
		"provider2": app.SignUp(t, domain.RoleProvider),
		"admin":     app.SignUp(t, domain.RoleAdmin),
		"admin2":    app.SignUp(t, domain.RoleAdmin),
	}
	anon := &apptest.Person{Client: app.Client()}
	who := func(name string) *apptest.Person {
		if name == "anonymous" {
			return anon
		}
		return people[name]
	}
	patient, provider, admin := people["patient"].ID, people["provider"].ID, people["admin"].ID
	// want: status by caller, in the order anonymous, patient, patient2, provider, provider2, admin, admin2.
	callers := []string{"anonymous", "patient", "patient2", "provider", "provider2", "admin", "admin2"}
	routes := []struct {
		method, path string
		want         [7]int
	}{
		{"GET", "/api/users/profile", [7]int{401, 200, 200, 200, 200, 200, 200}},
		{"GET", "/api/users", [7]int{401, 200, 200, 200, 200, 200, 200}},
		{"GET", "/api/users/" + patient, [7]int{401, 200, 404, 200, 200, 200, 200}},
		{"GET", "/api/users/" + provider, [7]int{401, 200, 200, 200, 200, 200, 200}},
		{"GET", "/api/users/" + admin, [7]int{401, 200, 200, 404, 404, 200, 200}},
		{"GET", "/api/users/not-a-uuid", [7]int{401, 404, 404, 404, 404, 404, 404}},
		{"PATCH", "/api/users/" + patient, [7]int{401, 403, 403, 403, 403, 422, 422}},
		{"DELETE", "/api/users/00000000-0000-4000-8000-000000000000", [7]int{401, 403, 403, 403, 403, 404, 404}},
		{"GET", "/api/roles", [7]int{401, 403, 403, 403, 403, 200, 200}},
		{"GET", "/api/roles/permissions", [7]int{401, 403, 403, 403, 403, 200, 200}},
		{"GET", "/api/dashboard/stats", [7]int{401, 403, 403, 200, 200, 200, 200}},
		{"GET", "/api/settings", [7]int{401, 403, 403, 403, 403, 200, 200}},
		{"PUT", "/api/settings", [7]int{401, 403, 403, 403, 403, 200, 200}},
		{"GET", "/api/admin/health", [7]int{401, 403, 403, 403, 403, 200, 200}},
		{"GET", "/api/admin/activity", [7]int{401, 403, 403, 403, 403, 200, 200}},
		{"POST", "/api/auth/change-password", [7]int{401, 422, 422, 422, 422, 422, 422}},
		{"PUT", "/api/users/profile", [7]int{401, 200, 200, 200, 200, 200, 200}},
		{"DELETE", "/api/users/profile", [7]int{401, 422, 422, 422, 422, 422, 422}}, // no password given
		// Last, since it ends each caller's session.
		{"POST", "/api/auth/logout", [7]int{401, 200, 200, 200, 200, 200, 200}},
	}
	for _, rt := range routes {
		for i, caller := range callers {
			t.Run(fmt.Sprintf("%s %s as %s", rt.method, rt.path, caller), func(t *testing.T) {
				var body any
				if rt.method != "GET" {
					body = map[string]any{}
				}
				r := who(caller).Do(t, rt.method, rt.path, body)
				if r.Status != rt.want[i] {
					t.Fatalf("status %d, want %d: %s", r.Status, rt.want[i], r.Raw)
				}
			})
		}
	}
	// Every refusal of a signed-in caller is audited.
	if denied := testutil.AuditCount(t, app.DB.Pool, testutil.Audit{Action: "access_denied"}); denied == 0 {
		t.Fatalf("denied access audited %d times", denied)
	}
}

func TestUserDirectory(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	admin := app.SignUp(t, domain.RoleAdmin)
	patient := app.SignUp(t, domain.RolePatient)
	provider := app.SignUp(t, domain.RoleProvider)
	for i := 0; i < 6; i++ {
		app.SignUp(t, domain.RolePatient)
	}
	names := func(r *apptest.Response) []string {
		var out []string
		for _, u := range r.List() {
			out = append(out, u["role"].(string))
		}
		return out
	}

	r := admin.Do(t, "GET", "/api/users?limit=5&page=2", nil)
	pg := r.Body["pagination"].(map[string]any)
	if r.Status != 200 || len(r.List()) != 4 || pg["totalItems"] != float64(9) || pg["totalPages"] != float64(2) ||
		pg["currentPage"] != float64(2) || pg["hasPrevPage"] != true || pg["hasNextPage"] != false {
		t.Fatalf("admin page 2: %d %s", r.Status, r.Raw)
	}
	if r := admin.Do(t, "GET", "/api/users?page=9", nil); r.Status != 200 || len(r.List()) != 0 || r.Body["pagination"].(map[string]any)["totalItems"] != float64(9) {
		t.Fatalf("past the last page: %s", r.Raw)
	}
	for _, q := range []string{"limit=0", "limit=101", "page=0", "page=abc", "role=superuser"} {
		if r := admin.Do(t, "GET", "/api/users?"+q, nil); r.Status != 422 {
			t.Errorf("%s: %d %s", q, r.Status, r.Raw)
		}
	}

	// Patients see providers, admins and themselves; providers see patients and providers.
	if got := strings.Join(names(patient.Do(t, "GET", "/api/users?limit=100", nil)), ","); strings.Count(got, "patient") != 1 {
		t.Fatalf("a patient's directory: %s", got)
	}
	r = patient.Do(t, "GET", "/api/users?limit=100&role=patient", nil)
	if len(r.List()) != 1 || r.List()[0]["id"] != patient.ID {
		t.Fatalf("a patient sees other patients: %s", r.Raw)
	}
	r = provider.Do(t, "GET", "/api/users?limit=100&role=admin", nil)
	if len(r.List()) != 0 {
		t.Fatalf("a provider sees admins: %s", r.Raw)
	}
	r = provider.Do(t, "GET", "/api/users?limit=100&role=patient", nil)
	if len(r.List()) != 7 {
		t.Fatalf("provider's patients: %d", len(r.List()))
	}
	for _, u := range r.List() {
		if u["phone"] != nil || u["bloodgroup"] != nil || u["dob"] != nil {
			t.Fatalf("a provider sees medical details without a shared image: %v", u)
		}
	}

	// Search: names and email, LIKE wildcards and SQL taken literally (S23).
	admin.Do(t, "PUT", "/api/users/profile", map[string]any{"firstname": "Zainab", "lastname": "Percent%Under_score"})
	for _, tc := range []struct {
		search string
		want   int
	}{
		{"zain", 1}, {"Percent%", 1}, {"Under_s", 1}, {"%", 1}, {"_", 1}, {"%%", 0}, {"Percent_Under", 0}, {"' OR '1'='1", 0}, {"'; DROP TABLE users;--", 0},
		{strings.Split(patient.Email, "@")[0], 1}, {"Zainab Percent", 1},
	} {
		r := admin.Do(t, "GET", "/api/users?search="+url.QueryEscape(tc.search), nil)
		if r.Status != 200 || len(r.List()) != tc.want {
			t.Errorf("search %q: %d results (%d), want %d", tc.search, len(r.List()), r.Status, tc.want)
		}
	}
}

func TestAdminDeletesAUser(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	admin := app.SignUp(t, domain.RoleAdmin)
	p := app.SignUp(t, domain.RolePatient)
	if r := admin.Do(t, "DELETE", "/api/users/"+p.ID, nil); r.Status != http.StatusOK {
		t.Fatalf("delete: %d %s", r.Status, r.Raw)
	}
	if r := p.Do(t, "GET", "/api/users/profile", nil); r.Status != 401 {
		t.Fatalf("deleted user's token: %d", r.Status)
	}
	if r := admin.Do(t, "GET", "/api/users/"+p.ID, nil); r.Status != 404 {
		t.Fatalf("deleted user still found: %d", r.Status)
	}
	// The email is free again.
	reg := apptest.Registration(domain.RolePatient)
	reg["email"] = p.Email
	if r := app.Client().Do(t, "POST", "/api/auth/register", reg); r.Status != 201 {
		t.Fatalf("re-register: %d", r.Status)
	}
	app.Mailbox.Wait(t, p.Email, "Your MediShare confirmation code")
}

func TestRolesAndStats(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	admin := app.SignUp(t, domain.RoleAdmin)
	provider := app.SignUp(t, domain.RoleProvider)
	app.SignUp(t, domain.RolePatient)
	r := admin.Do(t, "GET", "/api/roles", nil)
	if r.Status != 200 || len(r.List()) != 3 || !strings.Contains(r.Raw, `"name":"healthProvider","permissions":["analysis:run"`) {
		t.Fatalf("roles: %s", r.Raw)
	}
	r = admin.Do(t, "GET", "/api/roles/permissions", nil)
	if len(r.List()) != 15 {
		t.Fatalf("permissions: %s", r.Raw)
	}
	// What only admins may do is a permission of its own, described for the Roles page.
	described := map[string]string{}
	for _, p := range r.List() {
		described[p["name"].(string)] = p["description"].(string)
	}
	for _, name := range []string{"images:read-all", "images:manage-all", "audit:read-all", "system:monitor"} {
		if described[name] == "" {
			t.Errorf("%s is not described: %v", name, described)
		}
	}
	for _, ro := range admin.Do(t, "GET", "/api/roles", nil).List() {
		var held []string
		for _, p := range ro["permissions"].([]any) {
			held = append(held, p.(string))
		}
		if want := rolePermissions[ro["name"].(string)]; !slices.Equal(held, want) {
			t.Errorf("%s holds %v, want %v", ro["name"], held, want)
		}
	}
	if r := admin.Do(t, "GET", "/api/dashboard/stats", nil); r.Data()["totalUsers"] != float64(3) {
		t.Fatalf("admin stats: %s", r.Raw)
	}
	if r := provider.Do(t, "GET", "/api/dashboard/stats", nil); r.Data()["totalUsers"] != float64(0) || r.Data()["totalImages"] != float64(0) {
		t.Fatalf("provider stats: %s", r.Raw)
	}
}
