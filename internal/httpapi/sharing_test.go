package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/apptest"
)

const shareSubject = "A medical image was shared with you on MediShare"

// sharedImage uploads a JPEG for patient as provider and returns its id.
func sharedImage(t *testing.T, provider *apptest.Person, patientID string) string {
	t.Helper()
	r := upload(t, provider, patientID, "knee.jpg", jpegBytes(t))
	if r.Status != http.StatusCreated {
		t.Fatalf("upload: %d %s", r.Status, r.Raw)
	}
	return r.Data()["id"].(string)
}

// share shares imageID with recipient and returns the share id and the
// code from the recipient's mail.
func share(t *testing.T, app *apptest.App, sharer, recipient *apptest.Person, imageID string, body map[string]any) (string, string) {
	t.Helper()
	if body == nil {
		body = map[string]any{}
	}
	body["imagemetadataId"], body["createdfor"] = imageID, recipient.ID
	r := sharer.Do(t, "POST", "/api/sharing/request", body)
	if r.Status != http.StatusCreated || r.Message() != "Image shared successfully." {
		t.Fatalf("share: %d %s", r.Status, r.Raw)
	}
	id := r.Data()["id"].(string)
	return id, app.Mailbox.Code(t, recipient.Email, id, `Code: (\d{6})`)
}

func verify(t *testing.T, p *apptest.Person, shareID, code string) *apptest.Response {
	t.Helper()
	return p.Do(t, "POST", "/api/sharing/verify", map[string]string{"sharingRequestId": shareID, "verificationCode": code})
}

// wrongCode is a well-formed code other than code.
func wrongCode(code string) string {
	if code == "000000" {
		return "111111"
	}
	return "000000"
}

func sharedList(t *testing.T, p *apptest.Person) []map[string]any {
	t.Helper()
	r := p.Do(t, "GET", "/api/upload/shared-images", nil)
	if r.Status != http.StatusOK {
		t.Fatalf("shared-images: %d %s", r.Status, r.Raw)
	}
	return r.List()
}

func contentStatus(t *testing.T, p *apptest.Person, imageID string) int {
	t.Helper()
	resp, _ := p.Get(t, "/api/upload/image/"+imageID+"/content", nil)
	return resp.StatusCode
}

// audited counts the audit entries of an action on a record, succeeded or failed.
func audited(t *testing.T, app *apptest.App, action, recordID string, success bool) int {
	t.Helper()
	status := "failure"
	if success {
		status = "success"
	}
	return testutil.AuditCount(t, app.DB.Pool, testutil.Audit{Action: action, Record: recordID, Status: status})
}

func TestShareVerifyViewRevoke(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	colleague := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	imageID := sharedImage(t, provider, patient.ID)
	jpeg := jpegBytes(t)

	start := app.Clock.Now()
	shareID, code := share(t, app, provider, patient, imageID, nil)

	// The mail names the sharer, the id, the code and the expiry; never the
	// caption, which is health information that waits for the code.
	mail := app.Mailbox.Wait(t, patient.Email, shareID).Data
	for _, want := range []string{shareSubject, "Test " + lastname(t, provider), "Sharing id: " + shareID, "Code: " + code, "UTC"} {
		if !strings.Contains(mail, want) {
			t.Errorf("share mail lacks %q:\n%s", want, mail)
		}
	}
	if strings.Contains(mail, "Scan knee") {
		t.Errorf("share mail holds the caption:\n%s", mail)
	}

	// Before verification: listed, not viewable.
	list := sharedList(t, patient)
	if len(list) != 1 {
		t.Fatalf("shared-images: %v", list)
	}
	got := list[0]
	expires, _ := time.Parse(time.RFC3339, got["expiresAt"].(string))
	if got["id"] != imageID || got["isShared"] != true || got["isVerified"] != false || got["image_url"] != nil ||
		got["preview_url"] != nil || got["sharingRequestId"] != shareID || got["sharedBy"].(map[string]any)["id"] != provider.ID ||
		expires.Sub(start) < 24*time.Hour-time.Minute || expires.Sub(start) > 24*time.Hour+time.Minute {
		t.Fatalf("unverified shared image: %v", got)
	}
	// Before the code, only who shared it, when, the type and the expiry:
	// nothing about the patient or the file.
	single := patient.Do(t, "GET", "/api/upload/image/"+imageID, nil)
	if single.Status != 200 {
		t.Fatalf("image before verification: %d %s", single.Status, single.Raw)
	}
	for name, item := range map[string]map[string]any{"list": got, "image": single.Data()} {
		for _, hidden := range []string{"caption", "fileName", "size", "createdAt", "patient", "uploadedBy", "dicom", "image_url", "preview_url"} {
			if v, present := item[hidden]; !present || v != nil {
				t.Errorf("%s before verification: %s = %v, want null", name, hidden, v)
			}
		}
		if item["contentType"] != "image/jpeg" || item["sharedAt"] == nil || item["expiresAt"] == nil || item["sharedBy"] == nil {
			t.Errorf("%s before verification lacks what may be shown: %v", name, item)
		}
		if raw, _ := json.Marshal(item); strings.Contains(string(raw), "Scan knee") || strings.Contains(string(raw), lastname(t, patient)) {
			t.Errorf("%s before verification shows the caption or the patient: %s", name, raw)
		}
	}
	if s := contentStatus(t, patient, imageID); s != http.StatusForbidden {
		t.Fatalf("content before verification: %d", s)
	}

	// A wrong code says how many tries are left; the right one verifies.
	if r := verify(t, patient, shareID, wrongCode(code)); r.Status != 400 || r.Message() != "Invalid code. 4 attempts left." {
		t.Fatalf("wrong code: %d %s", r.Status, r.Raw)
	}
	if r := verify(t, patient, shareID, code); r.Status != 200 || r.Message() != "Image verified successfully." {
		t.Fatalf("right code: %d %s", r.Status, r.Raw)
	}
	if r := verify(t, patient, shareID, code); r.Status != 400 || r.Message() != "This share is already verified." {
		t.Fatalf("code used twice: %d %s", r.Status, r.Raw)
	}

	// After verification: viewable, through the signed URL too.
	got = sharedList(t, patient)[0]
	signed, _ := got["image_url"].(string)
	if got["isVerified"] != true || signed == "" || got["preview_url"] == nil || got["caption"] != "Scan knee.jpg" ||
		got["patient"].(map[string]any)["id"] != patient.ID {
		t.Fatalf("verified shared image: %v", got)
	}
	anon := app.Client()
	if resp, body := anon.Get(t, signed, nil); resp.StatusCode != 200 || !bytes.Equal(body[:3], jpeg[:3]) {
		t.Fatalf("signed URL after verification: %d", resp.StatusCode)
	}
	if s := contentStatus(t, patient, imageID); s != 200 {
		t.Fatalf("content after verification: %d", s)
	}

	// The sharer sees the share on the card, in the sent list and the stats.
	mine := provider.Do(t, "GET", "/api/upload/my-images", nil).List()[0]
	shares := mine["shares"].([]any)
	if mine["isShared"] != true || len(shares) != 1 || shares[0].(map[string]any)["status"] != "verified" ||
		shares[0].(map[string]any)["sharedWith"].(map[string]any)["id"] != patient.ID ||
		shares[0].(map[string]any)["sharedBy"].(map[string]any)["id"] != provider.ID {
		t.Fatalf("uploader's card: %v", mine)
	}
	sent := provider.Do(t, "GET", "/api/sharing/sent", nil)
	if len(sent.List()) != 1 || sent.List()[0]["status"] != "verified" || sent.List()[0]["image"].(map[string]any)["id"] != imageID {
		t.Fatalf("sent: %s", sent.Raw)
	}
	if st := provider.Do(t, "GET", "/api/dashboard/stats", nil).Data(); st["sharedImages"] != float64(1) {
		t.Fatalf("stats: %v", st)
	}

	// Only the sharer or an admin revokes; access ends at once.
	if r := patient.Do(t, "DELETE", "/api/sharing/"+shareID, nil); r.Status != 403 {
		t.Fatalf("recipient revokes: %d", r.Status)
	}
	if r := colleague.Do(t, "DELETE", "/api/sharing/"+shareID, nil); r.Status != 404 {
		t.Fatalf("another provider revokes: %d", r.Status)
	}
	if r := provider.Do(t, "DELETE", "/api/sharing/"+shareID, nil); r.Status != 200 || r.Message() != "Share revoked." {
		t.Fatalf("revoke: %d %s", r.Status, r.Raw)
	}
	if resp, _ := anon.Get(t, signed, nil); resp.StatusCode != 404 {
		t.Fatalf("signed URL made before the revocation: %d", resp.StatusCode)
	}
	if s := contentStatus(t, patient, imageID); s != 404 {
		t.Fatalf("content after revocation: %d", s)
	}
	if list := sharedList(t, patient); len(list) != 0 {
		t.Fatalf("revoked share still listed: %v", list)
	}
	if r := verify(t, patient, shareID, code); r.Status != 410 || r.Message() != "This share was revoked." {
		t.Fatalf("verify after revocation: %d %s", r.Status, r.Raw)
	}
	if sent := provider.Do(t, "GET", "/api/sharing/sent", nil).List(); sent[0]["status"] != "revoked" {
		t.Fatalf("sent after revocation: %v", sent)
	}
	if shares := provider.Do(t, "GET", "/api/upload/my-images", nil).List()[0]["shares"].([]any); len(shares) != 0 {
		t.Fatalf("revoked share on the card: %v", shares)
	}

	// Every step is in the audit log.
	for _, e := range []struct {
		action, record string
		success        bool
	}{
		{"share", shareID, true}, {"share_verify", shareID, false}, {"share_verify", shareID, true}, {"share_revoke", shareID, true},
	} {
		if audited(t, app, e.action, e.record, e.success) == 0 {
			t.Errorf("no audit entry %s %s success=%v", e.action, e.record, e.success)
		}
	}
	viewsUnderShare := testutil.AuditCount(t, app.DB.Pool, testutil.Audit{Action: "view", Record: imageID, Reason: "via share " + shareID})
	if viewsUnderShare != 2 {
		t.Errorf("views under the share audited %d times, want 2", viewsUnderShare)
	}
}

// lastname reads a person's last name from their profile.
func lastname(t *testing.T, p *apptest.Person) string {
	t.Helper()
	return p.Do(t, "GET", "/api/users/profile", nil).Data()["lastname"].(string)
}

func TestShareMailKeepsThePatientOut(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	colleague := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	r := provider.Upload(t, [][2]string{{"caption", "Follow-up study"}, {"patientId", patient.ID}, {"file"}}, "CT_small.dcm", fixture(t, "CT_small.dcm"))
	if r.Status != http.StatusCreated {
		t.Fatal(r.Raw)
	}
	shareID, _ := share(t, app, provider, colleague, r.Data()["id"].(string), nil)
	mail := app.Mailbox.Wait(t, colleague.Email, shareID).Data
	for _, leak := range []string{lastname(t, patient), "CT_small", "Modality", "CT "} {
		if strings.Contains(mail, leak) {
			t.Errorf("share mail to a colleague contains %q:\n%s", leak, mail)
		}
	}
}

func TestShareCodeTriesAndVoiding(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	shareID, code := share(t, app, provider, patient, sharedImage(t, provider, patient.ID), nil)
	wrong := wrongCode(code)
	for i, want := range []string{"Invalid code. 4 attempts left.", "Invalid code. 3 attempts left.", "Invalid code. 2 attempts left.", "Invalid code. 1 attempt left."} {
		if r := verify(t, patient, shareID, wrong); r.Status != 400 || r.Message() != want {
			t.Fatalf("wrong code #%d: %d %s", i+1, r.Status, r.Raw)
		}
	}
	voided := "Too many wrong codes: this share is void. Please ask the sender to share the image again."
	if r := verify(t, patient, shareID, wrong); r.Status != 410 || r.Message() != voided {
		t.Fatalf("fifth wrong code: %d %s", r.Status, r.Raw)
	}
	if r := verify(t, patient, shareID, code); r.Status != 410 || r.Message() != voided {
		t.Fatalf("right code after five wrong ones: %d %s", r.Status, r.Raw)
	}
	if r := verify(t, patient, shareID, "12ab"); r.Status != 422 || r.Message() != "Please enter the 6-digit code." {
		t.Fatalf("malformed code: %d %s", r.Status, r.Raw)
	}
	if list := sharedList(t, patient); len(list) != 0 {
		t.Fatalf("void share still listed: %v", list)
	}
	if sent := provider.Do(t, "GET", "/api/sharing/sent", nil).List(); sent[0]["status"] != "voided" {
		t.Fatalf("sent status: %v", sent)
	}
	if audited(t, app, "share_void", shareID, true) != 1 {
		t.Fatal("voiding not audited once")
	}
}

func TestConcurrentShareCodes(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	imageID := sharedImage(t, provider, patient.ID)

	// 50 concurrent wrong guesses: exactly five are counted.
	shareID, code := share(t, app, provider, patient, imageID, nil)
	statuses := concurrently(t, 50, func() int { return verify(t, patient, shareID, wrongCode(code)).Status })
	if statuses[400] != 4 || statuses[410] != 46 {
		t.Fatalf("50 concurrent wrong codes: %v", statuses)
	}
	var tries int
	if err := app.DB.Pool.QueryRow(context.Background(), `SELECT tries FROM shares WHERE id = $1`, shareID).Scan(&tries); err != nil {
		t.Fatal(err)
	}
	if tries != domain.ShareMaxCodeTries {
		t.Fatalf("tries = %d, want %d", tries, domain.ShareMaxCodeTries)
	}
	if r := verify(t, patient, shareID, code); r.Status != 410 {
		t.Fatalf("right code after the guesses: %d", r.Status)
	}

	// 50 concurrent right codes on a new share: one verifies.
	shareID, code = share(t, app, provider, patient, imageID, nil)
	statuses = concurrently(t, 50, func() int { return verify(t, patient, shareID, code).Status })
	if statuses[200] != 1 || statuses[400] != 49 {
		t.Fatalf("50 concurrent right codes: %v", statuses)
	}
}

func concurrently(t *testing.T, n int, fn func() int) map[int]int {
	t.Helper()
	var mu sync.Mutex
	var wg sync.WaitGroup
	statuses := map[int]int{}
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := fn()
			mu.Lock()
			statuses[s]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	return statuses
}

func TestShareExpiry(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	viewed := sharedImage(t, provider, patient.ID)
	pending := sharedImage(t, provider, patient.ID)
	viewedShare, code := share(t, app, provider, patient, viewed, map[string]any{"expiresInHours": 1})
	if r := verify(t, patient, viewedShare, code); r.Status != 200 {
		t.Fatal(r.Raw)
	}
	pendingShare, pendingCode := share(t, app, provider, patient, pending, map[string]any{"expiresInHours": 2})
	signed := sharedList(t, patient)[1]["image_url"].(string)
	if s := contentStatus(t, patient, viewed); s != 200 {
		t.Fatalf("before expiry: %d", s)
	}

	app.Clock.Shift(61 * time.Minute)
	patient.SignIn(t) // the access token expired with the clock too
	provider.SignIn(t)
	if s := contentStatus(t, patient, viewed); s != 404 {
		t.Fatalf("content after expiry: %d", s)
	}
	if s := contentStatus(t, patient, viewed); s != 404 {
		t.Fatalf("content after expiry, again: %d", s)
	}
	if resp, _ := app.Client().Get(t, signed, nil); resp.StatusCode == 200 {
		t.Fatal("signed URL works after expiry")
	}
	if list := sharedList(t, patient); len(list) != 1 || list[0]["id"] != pending {
		t.Fatalf("listed after expiry: %v", list)
	}
	if sent := provider.Do(t, "GET", "/api/sharing/sent", nil).List(); sent[1]["status"] != "expired" {
		t.Fatalf("sent status after expiry: %v", sent)
	}
	if n := audited(t, app, "share_expired", viewedShare, true); n != 1 {
		t.Fatalf("expiry audited %d times, want once", n)
	}

	app.Clock.Shift(time.Hour)
	patient.SignIn(t)
	provider.SignIn(t)
	if r := verify(t, patient, pendingShare, pendingCode); r.Status != 410 || r.Message() != "This share has expired." {
		t.Fatalf("verify after expiry: %d %s", r.Status, r.Raw)
	}
	if st := provider.Do(t, "GET", "/api/dashboard/stats", nil).Data(); st["sharedImages"] != float64(0) {
		t.Fatalf("expired shares counted: %v", st)
	}
}

func TestShareRules(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	colleague := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	patient2 := app.SignUp(t, domain.RolePatient)
	admin := app.SignUp(t, domain.RoleAdmin)
	imageID := sharedImage(t, provider, patient.ID)
	shareID, code := share(t, app, provider, patient, imageID, nil)

	// Someone else's share is not there for a second patient.
	if r := verify(t, patient2, shareID, code); r.Status != 404 || r.Message() != "Share not found." {
		t.Fatalf("second patient verifies: %d %s", r.Status, r.Raw)
	}
	if s := contentStatus(t, patient2, imageID); s != 404 {
		t.Fatalf("second patient reads: %d", s)
	}
	if r := verify(t, patient, "not-a-share", code); r.Status != 404 {
		t.Fatalf("unknown share: %d", r.Status)
	}
	// The second patient's tries did not count against the share.
	if r := verify(t, patient, shareID, code); r.Status != 200 {
		t.Fatalf("recipient after another's tries: %d %s", r.Status, r.Raw)
	}

	bad := []struct {
		name   string
		who    *apptest.Person
		body   map[string]any
		status int
		msg    string
	}{
		{"patient shares", patient, map[string]any{"imagemetadataId": imageID, "createdfor": patient2.ID}, 403, "You are not allowed to share images."},
		{"not the uploader", colleague, map[string]any{"imagemetadataId": imageID, "createdfor": patient2.ID}, 404, "Image not found."},
		{"with oneself", provider, map[string]any{"imagemetadataId": imageID, "createdfor": provider.ID}, 422, "You cannot share an image with yourself."},
		{"unknown user", provider, map[string]any{"imagemetadataId": imageID, "createdfor": "00000000-0000-4000-8000-000000000000"}, 422, "Please choose an active user to share with."},
		{"no user", provider, map[string]any{"imagemetadataId": imageID}, 422, "Please choose a user to share with."},
		{"no image", provider, map[string]any{"createdfor": patient2.ID}, 422, "Please choose an image to share."},
		{"unknown image", provider, map[string]any{"imagemetadataId": "00000000-0000-4000-8000-000000000000", "createdfor": patient2.ID}, 404, "Image not found."},
		{"zero hours", provider, map[string]any{"imagemetadataId": imageID, "createdfor": patient2.ID, "expiresInHours": 0}, 422, "The share lifetime must be between 1 and 168 hours."},
		{"over the cap", provider, map[string]any{"imagemetadataId": imageID, "createdfor": patient2.ID, "expiresInHours": 169}, 422, "The share lifetime must be between 1 and 168 hours."},
		{"hours as text", provider, map[string]any{"imagemetadataId": imageID, "createdfor": patient2.ID, "expiresInHours": "24"}, 422, ""},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.who.Do(t, "POST", "/api/sharing/request", tt.body)
			if r.Status != tt.status || (tt.msg != "" && r.Message() != tt.msg) {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
		})
	}

	// The cap follows the setting.
	if _, err := app.DB.Pool.Exec(context.Background(), `UPDATE settings SET value = '48' WHERE key = 'share_lifetime_max_hours'`); err != nil {
		t.Fatal(err)
	}
	if r := provider.Do(t, "POST", "/api/sharing/request", map[string]any{"imagemetadataId": imageID, "createdfor": patient2.ID, "expiresInHours": 72}); r.Status != 422 || r.Message() != "The share lifetime must be between 1 and 48 hours." {
		t.Fatalf("over a lowered cap: %d %s", r.Status, r.Raw)
	}

	// Sharing again with the same recipient revokes the earlier share.
	newID, newCode := share(t, app, provider, patient, imageID, map[string]any{"expiresInHours": 48})
	if r := verify(t, patient, shareID, code); r.Status != 410 {
		t.Fatalf("earlier share after a new one: %d %s", r.Status, r.Raw)
	}
	if list := sharedList(t, patient); len(list) != 1 || list[0]["sharingRequestId"] != newID || list[0]["isVerified"] != false {
		t.Fatalf("after re-sharing: %v", list)
	}
	if r := verify(t, patient, newID, newCode); r.Status != 200 {
		t.Fatalf("new share: %d %s", r.Status, r.Raw)
	}

	// A colleague who received the image can see it but not share or delete it.
	colleagueShare, colleagueCode := share(t, app, provider, colleague, imageID, nil)
	if r := verify(t, colleague, colleagueShare, colleagueCode); r.Status != 200 {
		t.Fatal(r.Raw)
	}
	if r := colleague.Do(t, "POST", "/api/sharing/request", map[string]any{"imagemetadataId": imageID, "createdfor": patient2.ID}); r.Status != 404 {
		t.Fatalf("recipient re-shares: %d %s", r.Status, r.Raw)
	}
	if r := colleague.Do(t, "DELETE", "/api/upload/image/"+imageID, nil); r.Status != 403 {
		t.Fatalf("recipient deletes: %d %s", r.Status, r.Raw)
	}

	// Admins share any image and revoke any share.
	adminShare, _ := share(t, app, admin, patient2, imageID, nil)
	if r := admin.Do(t, "DELETE", "/api/sharing/"+newID, nil); r.Status != 200 {
		t.Fatalf("admin revokes: %d %s", r.Status, r.Raw)
	}
	if r := provider.Do(t, "DELETE", "/api/sharing/"+adminShare, nil); r.Status != 404 {
		t.Fatalf("provider revokes the admin's share: %d", r.Status)
	}
}

// TestSharingRouteMatrix walks the sharing routes with every kind of caller (S8, S9).
func TestSharingRouteMatrix(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	provider2 := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	patient2 := app.SignUp(t, domain.RolePatient)
	admin := app.SignUp(t, domain.RoleAdmin)
	imageID := sharedImage(t, provider, patient.ID)
	callers := []*apptest.Person{{Client: app.Client()}, patient, patient2, provider, provider2, admin}
	names := []string{"anonymous", "patient", "patient2", "provider", "provider2", "admin"}

	type route struct {
		method, path string
		body         func() any
		want         [6]int
	}
	newShare := func() string { id, _ := share(t, app, provider, patient, imageID, nil); return id }
	routes := []route{
		{"POST", "/api/sharing/request", func() any {
			return map[string]any{"imagemetadataId": imageID, "createdfor": patient2.ID}
		}, [6]int{401, 403, 403, 201, 404, 201}},
		{"GET", "/api/sharing/sent", nil, [6]int{401, 403, 403, 200, 200, 200}},
		{"GET", "/api/sharing/limits", nil, [6]int{401, 403, 403, 200, 200, 200}},
		{"POST", "/api/sharing/verify", func() any {
			return map[string]any{"sharingRequestId": newShare(), "verificationCode": "000000"}
		}, [6]int{401, 400, 404, 404, 404, 404}},
		{"DELETE", "/api/sharing/{new}", nil, [6]int{401, 403, 404, 200, 404, 200}},
	}
	for _, rt := range routes {
		for i, c := range callers {
			t.Run(fmt.Sprintf("%s %s %s", rt.method, rt.path, names[i]), func(t *testing.T) {
				path := rt.path
				if before, after, ok := strings.Cut(path, "{new}"); ok { // newShare makes a share: only when needed
					path = before + newShare() + after
				}
				var body any
				if rt.body != nil {
					body = rt.body()
				}
				r := c.Do(t, rt.method, path, body)
				if r.Status != rt.want[i] {
					t.Fatalf("status %d, want %d: %s", r.Status, rt.want[i], r.Raw)
				}
			})
		}
	}
}

// TestShareLimits: whoever may share reads the admin's share lifetimes,
// which are not otherwise theirs to read (GET /api/settings is for admins),
// so that the Share dialog offers what the server accepts; they follow a
// change at once, and the server still refuses more than the maximum.
func TestShareLimits(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	admin := app.SignUp(t, domain.RoleAdmin)
	limits := func(p *apptest.Person) [2]any {
		t.Helper()
		r := p.Do(t, "GET", "/api/sharing/limits", nil)
		if r.Status != http.StatusOK {
			t.Fatalf("GET /api/sharing/limits as %s: %d %s", p.Role, r.Status, r.Raw)
		}
		return [2]any{r.Data()["shareLifetimeDefaultHours"], r.Data()["shareLifetimeMaxHours"]}
	}
	if got := limits(provider); got != [2]any{float64(24), float64(168)} {
		t.Errorf("the limits by default: %v, want [24 168]", got)
	}
	if r := putSettings(t, admin, map[string]any{"shareLifetimeDefaultHours": 48, "shareLifetimeMaxHours": 72}); r.Status != http.StatusOK {
		t.Fatalf("settings: %d %s", r.Status, r.Raw)
	}
	for _, p := range []*apptest.Person{provider, admin} {
		if got := limits(p); got != [2]any{float64(48), float64(72)} {
			t.Errorf("the limits for %s after the change: %v, want [48 72]", p.Role, got)
		}
	}
	if r := patient.Do(t, "GET", "/api/sharing/limits", nil); r.Status != http.StatusForbidden || r.Message() != "You are not allowed to share images." {
		t.Errorf("a patient: %d %s", r.Status, r.Raw)
	}

	imageID := sharedImage(t, provider, patient.ID)
	over := provider.Do(t, "POST", "/api/sharing/request", map[string]any{"imagemetadataId": imageID, "createdfor": patient.ID, "expiresInHours": 73})
	if over.Status != http.StatusUnprocessableEntity || over.Message() != "The share lifetime must be between 1 and 72 hours." {
		t.Errorf("73 hours: %d %s", over.Status, over.Raw)
	}
	share(t, app, provider, patient, imageID, map[string]any{"expiresInHours": 72})
}

// TestProviderSeesTheirPatientsDetails: a provider sees a patient's contact
// and medical fields once they uploaded an image for them (api.md), and no
// other provider does.
func TestProviderSeesTheirPatientsDetails(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	colleague := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	if r := patient.Do(t, "PUT", "/api/users/profile", map[string]any{"phone": "0300-1234567", "bloodgroup": "O+"}); r.Status != 200 {
		t.Fatal(r.Raw)
	}
	details := func(p *apptest.Person) any {
		t.Helper()
		r := p.Do(t, "GET", "/api/users/"+patient.ID, nil)
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Raw)
		}
		return r.Data()["bloodgroup"]
	}
	if got := details(provider); got != nil {
		t.Fatalf("before any image: %v", got)
	}
	sharedImage(t, provider, patient.ID)
	if got := details(provider); got != "O+" {
		t.Fatalf("after uploading for the patient: %v", got)
	}
	if got := details(colleague); got != nil {
		t.Fatalf("another provider: %v", got)
	}
}

// TestShareMailsAreThrottled: one sharer cannot flood one person's mailbox
// with share codes; other recipients are not affected.
func TestShareMailsAreThrottled(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	patient2 := app.SignUp(t, domain.RolePatient)
	imageID := sharedImage(t, provider, patient.ID)
	body := func(to string) map[string]any { return map[string]any{"imagemetadataId": imageID, "createdfor": to} }
	for i := 0; i < 30; i++ {
		if r := provider.Do(t, "POST", "/api/sharing/request", body(patient.ID)); r.Status != 201 {
			t.Fatalf("share %d: %d %s", i+1, r.Status, r.Raw)
		}
	}
	r := provider.Do(t, "POST", "/api/sharing/request", body(patient.ID))
	if r.Status != 429 || r.Message() != "Too many shares with this person in a short time. Please try again later." {
		t.Fatalf("31st share: %d %s", r.Status, r.Raw)
	}
	if r := provider.Do(t, "POST", "/api/sharing/request", body(patient2.ID)); r.Status != 201 {
		t.Fatalf("another recipient: %d %s", r.Status, r.Raw)
	}
	// Only the last of the 30 shares is open: each new one revoked the one before.
	if list := sharedList(t, patient); len(list) != 1 {
		t.Fatalf("open shares: %d", len(list))
	}
}

// The sender extends a share within the admin's maximum, counted from its
// creation; an expired share opens again; the recipient, others and a
// revoked share are refused; each extension is audited.
func TestShareExtend(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	stranger := app.SignUp(t, domain.RoleProvider)
	img := sharedImage(t, provider, patient.ID)
	id, code := share(t, app, provider, patient, img, map[string]any{"expiresInHours": 1})
	if r := verify(t, patient, id, code); r.Status != http.StatusOK {
		t.Fatal(r.Raw)
	}
	extend := func(p *apptest.Person, hours any) *apptest.Response {
		return p.Do(t, "POST", "/api/sharing/"+id+"/extend", map[string]any{"hours": hours})
	}
	created := provider.Do(t, "GET", "/api/sharing/sent", nil).List()[0]["createdAt"].(string)
	start, err := time.Parse(time.RFC3339, created)
	if err != nil {
		t.Fatal(err)
	}

	r := extend(provider, 5)
	expires, _ := time.Parse(time.RFC3339, fmt.Sprint(r.Data()["expiresAt"]))
	if r.Status != http.StatusOK || r.Message() != "Share extended." || !expires.Equal(start.Add(6*time.Hour)) {
		t.Fatalf("extend by 5 hours: %d %s", r.Status, r.Raw)
	}
	settings := provider.Do(t, "GET", "/api/sharing/limits", nil).Data()
	maxHours := int(settings["shareLifetimeMaxHours"].(float64))
	if r := extend(provider, maxHours); r.Status != http.StatusUnprocessableEntity ||
		r.Message() != fmt.Sprintf("A share can last at most %d hours from when it was made.", maxHours) {
		t.Errorf("beyond the maximum: %d %s", r.Status, r.Raw)
	}
	if r := extend(provider, 0); r.Status != http.StatusUnprocessableEntity {
		t.Errorf("0 hours: %d %s", r.Status, r.Raw)
	}
	if r := extend(patient, 1); r.Status != http.StatusForbidden || r.Message() != "Only the sender can extend a share." {
		t.Errorf("the recipient: %d %s", r.Status, r.Raw)
	}
	if r := extend(stranger, 1); r.Status != http.StatusNotFound {
		t.Errorf("a stranger: %d %s", r.Status, r.Raw)
	}

	// Expired, then extended: the recipient sees it again.
	app.Clock.Shift(7 * time.Hour)
	patient.SignIn(t)
	provider.SignIn(t)
	if s := contentStatus(t, patient, img); s != http.StatusNotFound {
		t.Fatalf("content after expiry: %d", s)
	}
	if r := extend(provider, 2); r.Status != http.StatusOK || r.Data()["status"] == "expired" {
		t.Fatalf("extend an expired share: %d %s", r.Status, r.Raw)
	}
	if s := contentStatus(t, patient, img); s != http.StatusOK {
		t.Errorf("content after the extension: %d", s)
	}
	if n := audited(t, app, "share_extend", id, true); n != 2 {
		t.Errorf("%d share_extend entries, want 2", n)
	}

	if r := provider.Do(t, "DELETE", "/api/sharing/"+id, nil); r.Status != http.StatusOK {
		t.Fatal(r.Raw)
	}
	if r := extend(provider, 1); r.Status != http.StatusConflict || r.Message() != "This share was revoked and cannot be extended." {
		t.Errorf("a revoked share: %d %s", r.Status, r.Raw)
	}
}
