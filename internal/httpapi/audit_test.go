package httpapi_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/apptest"
)

// auditPage is one page of GET /api/audit/logs as p sees it.
func auditPage(t *testing.T, p *apptest.Person, query string) *apptest.Response {
	t.Helper()
	r := p.Do(t, "GET", "/api/audit/logs?"+query, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("audit logs ?%s as %s: %d %s", query, p.Role, r.Status, r.Raw)
	}
	return r
}

// entriesAbout are the actions of a page's entries about one record, as
// "action:username", newest first.
func entriesAbout(r *apptest.Response, recordID string) []string {
	var out []string
	for _, e := range r.List() {
		if e["recordId"] == recordID {
			who := "-"
			if u, ok := e["user"].(map[string]any); ok {
				who = u["username"].(string)
			}
			out = append(out, e["actiontype"].(string)+":"+who)
		}
	}
	return out
}

func TestAuditLogScopes(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	colleague := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	other := app.SignUp(t, domain.RolePatient)
	admin := app.SignUp(t, domain.RoleAdmin)

	// The provider uploads an image of the patient and one of another
	// patient; a colleague is given the first and opens it.
	mine := sharedImage(t, provider, patient.ID)
	theirs := sharedImage(t, provider, other.ID)
	shareID, code := share(t, app, provider, colleague, mine, nil)
	if r := verify(t, colleague, shareID, code); r.Status != http.StatusOK {
		t.Fatalf("verify: %d %s", r.Status, r.Raw)
	}
	if s := contentStatus(t, colleague, mine); s != http.StatusOK {
		t.Fatalf("colleague's view: %d", s)
	}

	// The patient's access history: who did what to the image about them,
	// newest first, and their own sign-in; nothing about the other patient.
	r := auditPage(t, patient, "limit=20")
	got := entriesAbout(r, mine)
	want := []string{"view:" + colleague.Username, "upload:" + provider.Username}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("patient's history of their image: %v, want %v", got, want)
	}
	if n := len(entriesAbout(r, shareID)); n != 2 { // shared, verified
		t.Errorf("patient sees %d entries about the share, want 2 (share and verify)", n)
	}
	if n := len(entriesAbout(r, theirs)); n != 0 {
		t.Errorf("patient sees %d entries about another patient's image", n)
	}
	signIns := 0
	for _, e := range r.List() {
		if e["actiontype"] == "login" {
			signIns++
			if e["user"].(map[string]any)["username"] != patient.Username || e["ipaddress"] == "" {
				t.Errorf("patient's sign-in: %v", e)
			}
		}
		if e["actiontype"] == "view" && e["ipaddress"] != "" {
			t.Errorf("the colleague's address is shown to the patient: %v", e)
		}
	}
	if signIns != 1 {
		t.Errorf("patient sees %d sign-ins, want their own one", signIns)
	}

	// The uploading provider sees the events on both their images and their
	// own actions; the colleague only their own actions.
	r = auditPage(t, provider, "limit=20")
	if n := len(entriesAbout(r, mine)); n != 2 {
		t.Errorf("provider sees %d entries about their image, want 2", n)
	}
	if n := len(entriesAbout(r, theirs)); n != 1 {
		t.Errorf("provider sees %d entries about their other image, want 1", n)
	}
	r = auditPage(t, colleague, "limit=20")
	if n := len(entriesAbout(r, mine)); n != 1 { // their view, not the upload
		t.Errorf("colleague sees %d entries about the image, want their own view", n)
	}

	// Admins see everything: the whole log's total is exact, whatever its size.
	entries := float64(testutil.AuditCount(t, app.DB.Pool, testutil.Audit{}))
	r = auditPage(t, admin, "limit=5")
	if p := r.Body["pagination"].(map[string]any); p["totalItems"] != entries || p["totalAtLeast"] != nil || len(r.List()) != 5 {
		t.Errorf("admin's whole log: %v, %d entries in the database", p, int(entries))
	}

	if p := auditPage(t, admin, "limit=20&page=1000").Body["pagination"].(map[string]any); p["totalItems"] != entries {
		t.Errorf("admin past the last page: %v", p)
	}

	// Admins filter it.
	r = auditPage(t, admin, "limit=20&action=view")
	if got := entriesAbout(r, mine); len(got) != 1 || len(r.List()) != 1 {
		t.Errorf("admin's views: %v of %d", got, len(r.List()))
	}
	r = auditPage(t, admin, "limit=20&search="+url.QueryEscape(colleague.Username))
	for _, e := range r.List() {
		if e["user"].(map[string]any)["username"] != colleague.Username {
			t.Errorf("search by username found %v", e)
		}
	}
	if len(r.List()) < 3 { // sign-in, verify, view
		t.Errorf("search by username found %d entries", len(r.List()))
	}

	// A failed sign-in is the patient's to see, as a failure.
	if r := patient.Do(t, "POST", "/api/auth/login", map[string]string{"email": patient.Email, "password": "wrong password 1!"}); r.Status != http.StatusUnauthorized {
		t.Fatalf("wrong password: %d", r.Status)
	}
	r = auditPage(t, patient, "limit=5&status=failure")
	if len(r.List()) != 1 || r.List()[0]["actiontype"] != "login" || r.List()[0]["status"] != "failure" {
		t.Errorf("patient's failures: %s", r.Raw)
	}

	// Dates are days in Pakistan time, both ends included.
	today := time.Now().In(domain.Zone).Format("2006-01-02")
	tomorrow := time.Now().In(domain.Zone).AddDate(0, 0, 1).Format("2006-01-02")
	if n := len(auditPage(t, patient, "limit=20&from="+today+"&to="+today).List()); n == 0 {
		t.Error("nothing found today")
	}
	if n := len(auditPage(t, patient, "limit=20&from="+tomorrow).List()); n != 0 {
		t.Errorf("%d entries found from tomorrow", n)
	}

	// Deleting the image is in the patient's history too.
	if r := provider.Do(t, "DELETE", "/api/upload/image/"+mine, nil); r.Status != http.StatusOK {
		t.Fatalf("delete: %d %s", r.Status, r.Raw)
	}
	if got := entriesAbout(auditPage(t, patient, "limit=5"), mine); len(got) == 0 || got[0] != "delete:"+provider.Username {
		t.Errorf("patient's history after the delete: %v", got)
	}
}

func TestAuditLogPagesAndRefusals(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	patient := app.SignUp(t, domain.RolePatient)
	for i := 0; i < 6; i++ {
		patient.SignIn(t)
	}
	// Seven sign-ins: pages of five, newest first.
	first := auditPage(t, patient, "limit=5")
	p := first.Body["pagination"].(map[string]any)
	if len(first.List()) != 5 || p["totalItems"] != float64(7) || p["totalPages"] != float64(2) || p["hasNextPage"] != true {
		t.Fatalf("page 1: %d entries, %v", len(first.List()), p)
	}
	past := auditPage(t, patient, "limit=5&page=3")
	if p := past.Body["pagination"].(map[string]any); len(past.List()) != 0 || p["totalItems"] != float64(7) || p["hasNextPage"] != false {
		t.Errorf("past the last page: %s", past.Raw)
	}
	second := auditPage(t, patient, "limit=5&page=2")
	if len(second.List()) != 2 || second.List()[0]["id"].(float64) >= first.List()[4]["id"].(float64) {
		t.Errorf("page 2: %s", second.Raw)
	}

	for _, tc := range []struct{ query, field string }{
		{"limit=7", "limit"},
		{"action=dance", "action"},
		{"status=maybe", "status"},
		{"from=yesterday", "from"},
		{"to=2026-13-01", "to"},
		{"from=2026-05-02&to=2026-05-01", "to"},
	} {
		r := patient.Do(t, "GET", "/api/audit/logs?"+tc.query, nil)
		if r.Status != http.StatusUnprocessableEntity || !hasFieldError(r, tc.field) {
			t.Errorf("?%s: %d %s", tc.query, r.Status, r.Raw)
		}
	}
	if r := app.Client().Do(t, "GET", "/api/audit/logs", nil); r.Status != http.StatusUnauthorized {
		t.Errorf("anonymous: %d", r.Status)
	}
}

func hasFieldError(r *apptest.Response, field string) bool {
	errs, _ := r.Body["errors"].([]any)
	for _, e := range errs {
		if e.(map[string]any)["field"] == field {
			return true
		}
	}
	return false
}

// TestAuditVerify: an admin checks the audit log's hash chain through the
// API; anyone else is refused (and recorded); an entry edited by someone
// able to bypass the append-only trigger is found.
func TestAuditVerify(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	admin, provider := app.SignUp(t, domain.RoleAdmin), app.SignUp(t, domain.RoleProvider)
	r := admin.Do(t, "GET", "/api/audit/verify", nil)
	if r.Status != 200 || r.Data()["ok"] != true || r.Data()["checked"].(float64) < 2 || r.Data()["firstBrokenId"] != nil {
		t.Fatalf("intact: %d %s", r.Status, r.Raw)
	}
	if r := provider.Do(t, "GET", "/api/audit/verify", nil); r.Status != 403 {
		t.Errorf("a provider: %d %s", r.Status, r.Raw)
	}
	ctx := context.Background()
	var id int64
	if err := app.DB.Pool.QueryRow(ctx, "SELECT min(id) + 1 FROM audit_log").Scan(&id); err != nil {
		t.Fatal(err)
	}
	// Edited, every later hash rewritten and the head moved, as whoever
	// holds the database can: the keyed hashes give it away.
	testutil.ForgeAuditLog(t, app.DB.Pool, id, domain.ChainLegacy, fmt.Sprintf("UPDATE audit_log SET reason = 'edited' WHERE id = %d", id))
	r = admin.Do(t, "GET", "/api/audit/verify", nil)
	if r.Status != 200 || r.Data()["ok"] != false || r.Data()["firstBrokenId"] != float64(id) || r.Data()["problem"] == nil {
		t.Fatalf("tampered: %d %s", r.Status, r.Raw)
	}
	// The health panel shows that check's result, on every instance.
	for _, instance := range []*apptest.App{app, app.Twin(t)} {
		chain := instance.As(admin).Do(t, "GET", "/api/admin/health", nil).Data()["auditChain"].(map[string]any)
		if chain["ok"] != false || chain["firstBrokenId"] != float64(id) {
			t.Errorf("health after the check found a break: %v", chain)
		}
	}
}

// TestAuditChainTruncation: removing the newest entries and moving the
// head back, as whoever holds the database can, is found against the
// signed checkpoint in the content store.
func TestAuditChainTruncation(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	admin := app.SignUp(t, domain.RoleAdmin)
	app.SignUp(t, domain.RoleProvider)
	ctx := context.Background()
	if err := app.Services.AuditChain.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	var head int64
	if err := app.DB.Pool.QueryRow(ctx, "SELECT id FROM audit_head").Scan(&head); err != nil {
		t.Fatal(err)
	}
	testutil.ForgeAuditLog(t, app.DB.Pool, head+1, domain.ChainKeyed, fmt.Sprintf("DELETE FROM audit_log WHERE id > %d", head-2))
	r := admin.Do(t, "GET", "/api/audit/verify", nil)
	if r.Status != 200 || r.Data()["ok"] != false || r.Data()["firstBrokenId"] != float64(head) {
		t.Fatalf("truncated: %d %s", r.Status, r.Raw)
	}
}

// TestAuditChainBackgroundCheck: the whole chain is checked again in the
// background, so an edit of an old entry shows on the health panel
// without anyone asking; the checkpoint is written on the way.
func TestAuditChainBackgroundCheck(t *testing.T) {
	t.Parallel()
	app := apptest.NewWithLoops(t, apptest.Loops{CheckpointEvery: 20 * time.Millisecond, AuditCheckEvery: 40 * time.Millisecond})
	admin := app.SignUp(t, domain.RoleAdmin)
	health := func() map[string]any {
		return admin.Do(t, "GET", "/api/admin/health", nil).Data()["auditChain"].(map[string]any)
	}
	testutil.Eventually(t, "a background check to find the chain intact", func() bool {
		c := health()
		return c["ok"] == true && c["checkedAt"] != nil
	})
	testutil.Eventually(t, "a checkpoint in the content store", func() bool {
		_, err := os.Stat(filepath.Join(app.BlobDir, "audit", "checkpoint"))
		return err == nil
	})
	var oldest int64
	if err := app.DB.Pool.QueryRow(context.Background(), "SELECT min(id) FROM audit_log").Scan(&oldest); err != nil {
		t.Fatal(err)
	}
	testutil.ForgeAuditLog(t, app.DB.Pool, oldest, domain.ChainKeyed, fmt.Sprintf("UPDATE audit_log SET ip = '10.6.6.6' WHERE id = %d", oldest))
	testutil.Eventually(t, "a background check to find the edited entry", func() bool {
		c := health()
		return c["ok"] == false && c["firstBrokenId"] == float64(oldest)
	})
}

// TestAuditExport: an admin exports the audit log as CSV with the list's
// filters, one header row, every entry's fields as columns, formula cells
// neutralised; the export is itself recorded; others export their own
// scope (TestAuditListExportAndVerifyAgree).
func TestAuditExport(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	admin, provider := app.SignUp(t, domain.RoleAdmin), app.SignUp(t, domain.RoleProvider)
	// A failed sign-in whose browser names itself as a formula.
	if r := app.Client().DoWith(t, "POST", "/api/auth/login", map[string]string{"email": provider.Email, "password": "Wrong-Password-1"},
		map[string]string{"User-Agent": "=HYPERLINK(\"http://evil.test\")"}); r.Status != 401 {
		t.Fatalf("failed sign-in: %d", r.Status)
	}
	resp, body := admin.Get(t, "/api/audit/logs/export?action=login&status=failure", nil)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") || !strings.Contains(resp.Header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("export: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	rows, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatalf("not CSV: %v\n%s", err, body)
	}
	header := "id,createAt,firstname,lastname,username,actiontype,tablename,recordId,ipaddress,userAgent,status,reason"
	if len(rows) != 2 || strings.Join(rows[0], ",") != header {
		t.Fatalf("rows: %q", rows)
	}
	if row := rows[1]; row[5] != "login" || row[10] != "failure" || row[9] != `'=HYPERLINK("http://evil.test")` {
		t.Errorf("the failed sign-in: %q", row)
	}
	// Everything, newest first: the export of a moment ago is in it.
	_, body = admin.Get(t, "/api/audit/logs/export", nil)
	all, _ := csv.NewReader(bytes.NewReader(body)).ReadAll()
	if len(all) < 5 || all[1][5] != "audit_export" || all[1][4] != admin.Username {
		t.Errorf("the whole log: %d rows, newest %q", len(all), all[1])
	}
	if resp, _ := admin.Get(t, "/api/audit/logs/export?action=nonsense", nil); resp.StatusCode != 422 {
		t.Errorf("a bad filter: %d", resp.StatusCode)
	}
	// A provider's export holds their own sign-ins, not the admin's export.
	resp, body = provider.Get(t, "/api/audit/logs/export", nil)
	mine, _ := csv.NewReader(bytes.NewReader(body)).ReadAll()
	if resp.StatusCode != 200 || len(mine) < 2 {
		t.Fatalf("a provider's export: %d %q", resp.StatusCode, mine)
	}
	for _, row := range mine[1:] {
		if row[4] != provider.Username && row[4] != "" {
			t.Errorf("a provider's export holds another's action: %q", row)
		}
	}
}

// TestRefusalsReadTheSameWhetherOrNotTheIDExists: asking for an image, a
// share or a person out of one's reach leaves the same trace in one's own
// audit log whether or not the id names anything (api.md "Audit log"), so
// the log cannot serve to find which ids exist. Each refusal is recorded:
// the answers are alike too.
func TestRefusalsReadTheSameWhetherOrNotTheIDExists(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	owner, patient := app.SignUp(t, domain.RoleProvider), app.SignUp(t, domain.RolePatient)
	caller := app.SignUp(t, domain.RoleProvider)              // a provider reads their own actions
	admin := app.SignUp(t, domain.RoleAdmin)                  // outside a provider's directory
	imageID := sharedImage(t, owner, patient.ID)              // someone else's image
	shareID, _ := share(t, app, owner, patient, imageID, nil) // someone else's share

	noImage, noShare, nobody := uuid.NewString(), uuid.NewString(), uuid.NewString()
	missing := map[string]string{imageID: noImage, shareID: noShare, admin.ID: nobody}
	probes := []struct {
		name     string
		existing string
		ask      func(id string) *apptest.Response
	}{
		{"an image", imageID, func(id string) *apptest.Response {
			return caller.Do(t, "GET", "/api/upload/image/"+id, nil)
		}},
		{"an image, its id in capitals", imageID, func(id string) *apptest.Response {
			return caller.Do(t, "GET", "/api/upload/image/"+strings.ToUpper(id), nil)
		}},
		{"an image's contents", imageID, func(id string) *apptest.Response {
			return caller.Do(t, "GET", "/api/upload/image/"+id+"/content", nil)
		}},
		{"deleting an image", imageID, func(id string) *apptest.Response {
			return caller.Do(t, "DELETE", "/api/upload/image/"+id, nil)
		}},
		{"sharing an image", imageID, func(id string) *apptest.Response {
			return caller.Do(t, "POST", "/api/sharing/request", map[string]any{"imagemetadataId": id, "createdfor": patient.ID})
		}},
		{"revoking a share", shareID, func(id string) *apptest.Response {
			return caller.Do(t, "DELETE", "/api/sharing/"+id, nil)
		}},
		{"reading a conversation", admin.ID, func(id string) *apptest.Response {
			return caller.Do(t, "GET", "/api/message/chat/"+id, nil)
		}},
		{"writing to a person", admin.ID, func(id string) *apptest.Response {
			return send(t, caller, id, "hello")
		}},
	}
	for _, p := range probes {
		there, absent := p.ask(p.existing), p.ask(missing[p.existing])
		if there.Status != absent.Status || there.Message() != absent.Message() || there.Status < 400 {
			t.Errorf("%s: %d %q for an existing id, %d %q for a missing one", p.name, there.Status, there.Message(), absent.Status, absent.Message())
		}
	}

	// The caller's own log: the entries about each existing id read as
	// those about the missing one.
	entries := auditPage(t, caller, "limit=20&action=access_denied").List()
	trace := func(id string) []string {
		var out []string
		for _, e := range entries {
			if e["recordId"] == id {
				out = append(out, fmt.Sprint(e["actiontype"], " ", e["tablename"], " ", e["status"], " ", e["reason"]))
			}
		}
		return out
	}
	for existing, absent := range missing {
		there, gone := trace(existing), trace(absent)
		if len(there) == 0 || strings.Join(there, "\n") != strings.Join(gone, "\n") {
			t.Errorf("the caller's log about %s:\n%s\nabout a missing id:\n%s", existing, strings.Join(there, "\n"), strings.Join(gone, "\n"))
		}
	}
}
