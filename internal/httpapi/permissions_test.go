package httpapi_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/apptest"
)

// rolePermissions are the permissions the migrations give each role, in
// name order: what the role's people are told they hold.
var rolePermissions = map[string][]string{
	domain.RolePatient: {"audit:read", "images:view-shared", "messages:send", "users:list"},
	domain.RoleProvider: {"analysis:run", "audit:read", "images:delete", "images:share", "images:upload", "images:view-shared",
		"messages:send", "users:list"},
	domain.RoleAdmin: {"analysis:run", "audit:read", "audit:read-all", "images:delete", "images:manage-all", "images:read-all",
		"images:share", "images:upload", "images:view-shared", "messages:send", "roles:read", "settings:manage",
		"system:monitor", "users:list", "users:manage"},
}

// permissionsOf reads the permissions member of a user object.
func permissionsOf(t *testing.T, user map[string]any) []string {
	t.Helper()
	raw, ok := user["permissions"].([]any)
	if !ok {
		t.Fatalf("no permissions in %v", user)
	}
	out := make([]string, len(raw))
	for i, v := range raw {
		out[i] = v.(string)
	}
	return out
}

// TestOwnRecordStatesPermissions: the caller's own user record (sign-in,
// renewal, GET and PUT /api/users/profile) names the permissions they hold;
// nobody else's record does.
func TestOwnRecordStatesPermissions(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	other := app.SignUp(t, domain.RoleProvider)
	for _, role := range domain.Roles {
		t.Run(role, func(t *testing.T) {
			p := app.SignUp(t, role)
			want := rolePermissions[role]
			own := map[string]map[string]any{
				"sign-in":           p.Do(t, "POST", "/api/auth/login", map[string]string{"email": p.Email, "password": p.Password}).Data()["user"].(map[string]any),
				"GET profile":       p.Do(t, "GET", "/api/users/profile", nil).Data(),
				"PUT profile":       p.Do(t, "PUT", "/api/users/profile", map[string]any{"city": "Lahore"}).Data(),
				"renewal (refresh)": p.Do(t, "POST", "/api/auth/refresh", nil).Data()["user"].(map[string]any),
			}
			for name, user := range own {
				if got := permissionsOf(t, user); !slices.Equal(got, want) {
					t.Errorf("%s: permissions %v, want %v", name, got, want)
				}
			}
			if r := p.Do(t, "GET", "/api/users/"+other.ID, nil); r.Status != http.StatusOK || r.Data()["permissions"] != nil {
				t.Errorf("another's record: %d %s", r.Status, r.Raw)
			}
			if r := p.Do(t, "GET", "/api/users/"+p.ID, nil); r.Data()["permissions"] != nil {
				t.Errorf("one's own directory entry carries permissions: %s", r.Raw)
			}
			if r := p.Do(t, "GET", "/api/users?limit=100", nil); r.Status == http.StatusOK {
				for _, u := range r.List() {
					if _, ok := u["permissions"]; ok {
						t.Errorf("the directory carries permissions: %v", u)
					}
				}
			}
		})
	}
}

// TestReadersOfEveryImageSkipVerification: "The sender or an admin sees
// image content without verification" (product.md): with images:read-all,
// an image shared with the caller comes with its links and opens before the
// share is verified; a patient's comes sealed.
func TestReadersOfEveryImageSkipVerification(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	admin := app.SignUp(t, domain.RoleAdmin)
	imageID := sharedImage(t, provider, patient.ID)
	share(t, app, provider, admin, imageID, nil)
	share(t, app, provider, patient, imageID, nil)

	tests := []struct {
		name  string
		who   *apptest.Person
		opens bool
	}{
		{"admin", admin, true},
		{"patient", patient, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list := sharedList(t, tt.who)
			if len(list) != 1 {
				t.Fatalf("shared images: %v", list)
			}
			im := list[0]
			if im["isShared"] != true || im["isVerified"] != false || im["sharingRequestId"] == nil {
				t.Errorf("the share is not told as it is: %v", im)
			}
			hasLinks := im["image_url"] != nil && im["preview_url"] != nil
			if hasLinks != tt.opens || (im["caption"] != nil) != tt.opens {
				t.Errorf("links and caption before verifying: %v, want %v", im, tt.opens)
			}
			one := tt.who.Do(t, "GET", "/api/upload/image/"+imageID, nil)
			if one.Status != http.StatusOK || (one.Data()["image_url"] != nil) != tt.opens {
				t.Errorf("the image: %d %s", one.Status, one.Raw)
			}
			want := http.StatusForbidden
			if tt.opens {
				want = http.StatusOK
			}
			if s := contentStatus(t, tt.who, imageID); s != want {
				t.Errorf("contents: %d, want %d", s, want)
			}
			if tt.opens {
				if resp, _ := tt.who.Get(t, im["image_url"].(string), nil); resp.StatusCode != http.StatusOK {
					t.Errorf("the signed link: %d", resp.StatusCode)
				}
			}
		})
	}
}

// auditRows are the entries of the caller's audit log as the list shows
// them (every page), each as "id ipaddress userAgent".
func auditRows(t *testing.T, p *apptest.Person) []string {
	t.Helper()
	var rows []string
	for page := 1; ; page++ {
		r := auditPage(t, p, "limit=20&page="+strconv.Itoa(page))
		for _, e := range r.List() {
			rows = append(rows, strconv.FormatFloat(e["id"].(float64), 'f', -1, 64)+" "+e["ipaddress"].(string)+" "+e["userAgent"].(string))
		}
		if r.Body["pagination"].(map[string]any)["hasNextPage"] != true {
			return rows
		}
	}
}

// exportRows are the entries of the caller's CSV export in the same form.
func exportRows(t *testing.T, p *apptest.Person) []string {
	t.Helper()
	resp, body := p.Get(t, "/api/audit/logs/export", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("export as %s: %d %s", p.Role, resp.StatusCode, body)
	}
	records, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, r := range records[1:] {
		rows = append(rows, r[0]+" "+r[8]+" "+r[9])
	}
	return rows
}

// TestAuditListExportAndVerifyAgree: the list and the export give each
// caller the same entries, shown the same way (everything with
// audit:read-all, else the caller's own scope), and only a reader of the
// whole log may verify its chain.
func TestAuditListExportAndVerifyAgree(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	colleague := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	admin := app.SignUp(t, domain.RoleAdmin)
	imageID := sharedImage(t, provider, patient.ID)
	shareID, code := share(t, app, provider, colleague, imageID, nil)
	if r := verify(t, colleague, shareID, code); r.Status != http.StatusOK {
		t.Fatalf("verify: %d %s", r.Status, r.Raw)
	}
	if s := contentStatus(t, colleague, imageID); s != http.StatusOK {
		t.Fatalf("view: %d", s)
	}
	tests := []struct {
		name   string
		who    *apptest.Person
		all    bool
		verify int
	}{
		{"admin", admin, true, http.StatusOK},
		{"provider", provider, false, http.StatusForbidden},
		{"colleague", colleague, false, http.StatusForbidden},
		{"patient", patient, false, http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exported := exportRows(t, tt.who) // recorded first, so the list after it holds it too
			listed := auditRows(t, tt.who)
			if !slices.Equal(exported, listed) {
				t.Errorf("export and list differ:\nexport %q\nlist   %q", exported, listed)
			}
			if len(listed) == 0 {
				t.Error("nothing in the caller's scope")
			}
			var now int
			if err := app.DB.Pool.QueryRow(context.Background(), "SELECT count(*) FROM audit_log").Scan(&now); err != nil {
				t.Fatal(err)
			}
			if whole := len(listed) == now; whole != tt.all {
				t.Errorf("%d of %d entries; the whole log: %v, want %v", len(listed), now, whole, tt.all)
			}
			denied := testutil.AuditCount(t, app.DB.Pool, testutil.Audit{Action: "access_denied", Status: "failure"})
			if r := tt.who.Do(t, "GET", "/api/audit/verify", nil); r.Status != tt.verify {
				t.Errorf("verify: %d %s", r.Status, r.Raw)
			}
			if refused := testutil.AuditCount(t, app.DB.Pool, testutil.Audit{Action: "access_denied", Status: "failure"}) - denied; refused != btoi(tt.verify == http.StatusForbidden) {
				t.Errorf("%d refusals recorded for the verify", refused)
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestGatesFollowPermissions: what a role may do is the role_permissions
// table's to say, not the role's name: taking a permission from admins, or
// giving one to providers, changes the answer at once.
func TestGatesFollowPermissions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change string // run on role_permissions
		role   string
		method string
		path   string
		before int
		after  int
		check  func(t *testing.T, r *apptest.Response, after bool)
	}{
		{name: "every image without images:read-all", change: `DELETE FROM role_permissions WHERE role = 'admin' AND permission = 'images:read-all'`,
			role: domain.RoleAdmin, method: "GET", path: "/api/upload/images", before: 200, after: 403},
		{name: "the health panel with system:monitor", change: `INSERT INTO role_permissions VALUES ('healthProvider', 'system:monitor')`,
			role: domain.RoleProvider, method: "GET", path: "/api/admin/health", before: 403, after: 200},
		{name: "the activity without system:monitor", change: `DELETE FROM role_permissions WHERE role = 'admin' AND permission = 'system:monitor'`,
			role: domain.RoleAdmin, method: "GET", path: "/api/admin/activity", before: 200, after: 403},
		{name: "the whole system's counts with system:monitor", change: `INSERT INTO role_permissions VALUES ('healthProvider', 'system:monitor')`,
			role: domain.RoleProvider, method: "GET", path: "/api/dashboard/stats", before: 200, after: 200,
			check: func(t *testing.T, r *apptest.Response, after bool) {
				if whole := r.Data()["totalUsers"].(float64) >= 2; whole != after {
					t.Errorf("the whole system's users: %v, want %v: %s", whole, after, r.Raw)
				}
			}},
		{name: "the audit chain with audit:read-all", change: `INSERT INTO role_permissions VALUES ('healthProvider', 'audit:read-all')`,
			role: domain.RoleProvider, method: "GET", path: "/api/audit/verify", before: 403, after: 200},
		{name: "the audit chain without audit:read-all", change: `DELETE FROM role_permissions WHERE role = 'admin' AND permission = 'audit:read-all'`,
			role: domain.RoleAdmin, method: "GET", path: "/api/audit/verify", before: 200, after: 403},
		{name: "a patient's details with users:manage", change: `INSERT INTO role_permissions VALUES ('healthProvider', 'users:manage')`,
			role: domain.RoleProvider, method: "GET", path: "/api/users/{patient}", before: 200, after: 200,
			check: func(t *testing.T, r *apptest.Response, after bool) {
				if shown := r.Data()["dob"] != nil && r.Data()["phone"] != nil; shown != after {
					t.Errorf("contact and medical fields shown: %v, want %v: %s", shown, after, r.Raw)
				}
			}},
		{name: "the dashboard without images:upload", change: `DELETE FROM role_permissions WHERE role = 'healthProvider' AND permission = 'images:upload'`,
			role: domain.RoleProvider, method: "GET", path: "/api/dashboard/stats", before: 200, after: 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app := apptest.New(t)
			patient := app.SignUp(t, domain.RolePatient)
			if r := patient.Do(t, "PUT", "/api/users/profile", map[string]any{"phone": "+92 300 0000000", "dob": "1990-01-02"}); r.Status != http.StatusOK {
				t.Fatalf("profile: %d %s", r.Status, r.Raw)
			}
			who := app.SignUp(t, tt.role)
			path := tt.path
			if path == "/api/users/{patient}" {
				path = "/api/users/" + patient.ID
			}
			r := who.Do(t, tt.method, path, nil)
			if r.Status != tt.before {
				t.Fatalf("before: %d %s", r.Status, r.Raw)
			}
			if tt.check != nil {
				tt.check(t, r, false)
			}
			if _, err := app.DB.Pool.Exec(context.Background(), tt.change); err != nil {
				t.Fatal(err)
			}
			r = who.Do(t, tt.method, path, nil)
			if r.Status != tt.after {
				t.Fatalf("after: %d %s", r.Status, r.Raw)
			}
			if tt.check != nil {
				tt.check(t, r, true)
			}
			// The caller is told what they hold now.
			held := permissionsOf(t, who.Do(t, "GET", "/api/users/profile", nil).Data())
			if slices.Equal(held, rolePermissions[tt.role]) {
				t.Errorf("the profile still states the old permissions: %v", held)
			}
		})
	}
}
