package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/apptest"
)

// nobody is an id no account has.
const nobody = "6f1d2c3b-4a59-4e8d-9c7b-0a1b2c3d4e5f"

// registerProvider registers and confirms a provider with lastname, and
// returns them with their id, not signed in: while approval is required
// they cannot sign in, so their id comes from the database.
func registerProvider(t *testing.T, app *apptest.App, lastname string) *apptest.Person {
	t.Helper()
	reg := apptest.Registration(domain.RoleProvider)
	reg["lastname"] = lastname
	p := &apptest.Person{Email: reg["email"].(string), Username: reg["username"].(string), Password: reg["password"].(string),
		Role: domain.RoleProvider, Client: app.Client()}
	if r := p.Do(t, "POST", "/api/auth/register", reg); r.Status != http.StatusCreated {
		t.Fatalf("register a provider: %d %s", r.Status, r.Raw)
	}
	code := app.Mailbox.Code(t, p.Email, "Your MediShare confirmation code", `confirmation code is (\d{4})`)
	if r := p.Do(t, "POST", "/api/auth/confirm", map[string]string{"email": p.Email, "code": code}); r.Status != http.StatusOK {
		t.Fatalf("confirm: %d %s", r.Status, r.Raw)
	}
	if err := app.DB.Pool.QueryRow(context.Background(), `SELECT id FROM users WHERE email = $1`, p.Email).Scan(&p.ID); err != nil {
		t.Fatal(err)
	}
	return p
}

// statusAndBody is a response as a caller sees it: its status and its body.
func statusAndBody(r *apptest.Response) string { return fmt.Sprintf("%d %s", r.Status, r.Raw) }

// reachOf is what each way of reaching the person id answers: their
// record, a message, a message about imageID (which the provider uploaded
// for the patient), a share of it, and the conversation with them.
func reachOf(t *testing.T, patient, provider, admin *apptest.Person, imageID, id string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, p := range []*apptest.Person{patient, provider, admin} {
		out[p.Role+": record"] = statusAndBody(p.Do(t, "GET", "/api/users/"+id, nil))
		out[p.Role+": message"] = statusAndBody(send(t, p, id, "hello"))
	}
	for _, p := range []*apptest.Person{patient, provider} {
		out[p.Role+": conversation"] = statusAndBody(p.Do(t, "GET", "/api/message/chat/"+id, nil))
	}
	out["attachment"] = statusAndBody(provider.Do(t, "POST", "/api/message/send", map[string]any{"recipientId": id, "content": "about this image", "imageId": imageID}))
	for _, p := range []*apptest.Person{provider, admin} {
		out[p.Role+": share"] = statusAndBody(p.Do(t, "POST", "/api/sharing/request", map[string]any{"imagemetadataId": imageID, "createdfor": id}))
	}
	return out
}

// directoryIDs are the ids on a page of p's directory, and its total.
func directoryIDs(t *testing.T, p *apptest.Person, query url.Values) ([]string, float64) {
	t.Helper()
	r := p.Do(t, "GET", "/api/users?"+query.Encode(), nil)
	if r.Status != http.StatusOK {
		t.Fatalf("%s's directory (%s): %d %s", p.Role, query.Encode(), r.Status, r.Raw)
	}
	var ids []string
	for _, u := range r.List() {
		ids = append(ids, u["id"].(string))
	}
	total, _ := r.Body["pagination"].(map[string]any)["totalItems"].(float64)
	return ids, total
}

// listed reports whether id is in p's directory: among the providers
// (the plain list, and a page past its end, which counts apart), in a
// search by a fragment with a trigram (user_grams) and in one without
// (the names walked). A search holds one match at most.
func listed(t *testing.T, p *apptest.Person, id string, want bool, providers float64, trigram, noTrigram string) {
	t.Helper()
	ids, total := directoryIDs(t, p, url.Values{"role": {domain.RoleProvider}, "limit": {"100"}})
	if contains(ids, id) != want || total != providers || float64(len(ids)) != providers {
		t.Errorf("%s's providers (want %s listed: %v, %v in all): %v, total %v", p.Role, id, want, providers, ids, total)
	}
	if _, total := directoryIDs(t, p, url.Values{"role": {domain.RoleProvider}, "page": {"9"}}); total != providers {
		t.Errorf("%s's providers past the last page: total %v, want %v", p.Role, total, providers)
	}
	for _, fragment := range []string{trigram, noTrigram} {
		ids, total := directoryIDs(t, p, url.Values{"search": {fragment}})
		if contains(ids, id) != want || total != float64(len(ids)) || len(ids) > 1 {
			t.Errorf("%s searching %q (want %s listed: %v): %v, total %v", p.Role, fragment, id, want, ids, total)
		}
	}
}

// TestUnapprovedProviderIsUnreachable (S8, S9): while approval is
// required, a provider waiting for it is in no directory or search but an
// admin's, and no one may send them a message, an image in a message or a
// share: each answer, and each entry of the audit log, is the one for an
// id nobody has. Signing in tells them apart only once the
// password is right. Approval makes them reachable at once.
func TestUnapprovedProviderIsUnreachable(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	admin := app.SignUp(t, domain.RoleAdmin)
	provider := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	imageID := sharedImage(t, provider, patient.ID)
	if r := putSettings(t, admin, map[string]any{"providerApprovalRequired": true}); r.Status != http.StatusOK {
		t.Fatalf("require approval: %d %s", r.Status, r.Raw)
	}
	waiting := registerProvider(t, app, "Quxbyvale")

	// Directories and searches: "xby" is a trigram of the name, "xb" has none.
	for _, p := range []*apptest.Person{patient, provider} {
		listed(t, p, waiting.ID, false, 1, "quxby", "xb")
	}
	listed(t, admin, waiting.ID, true, 2, "quxby", "xb") // the user table, where admins approve

	// Every other way to them answers as for nobody.
	got, want := reachOf(t, patient, provider, admin, imageID, waiting.ID), reachOf(t, patient, provider, admin, imageID, nobody)
	for path, w := range want {
		if path == "admin: record" { // admins find everyone, to approve them
			continue
		}
		if got[path] != w {
			t.Errorf("%s: the waiting provider gets\n  %s\nnobody gets\n  %s", path, got[path], w)
		}
	}
	if n := app.Mailbox.Count(waiting.Email, shareSubject); n != 0 {
		t.Errorf("%d share mails to the waiting provider", n)
	}
	// Each refusal is recorded as one of an id nobody has.
	denied := func(id string) int {
		return testutil.AuditCount(t, app.DB.Pool, testutil.Audit{Record: id, Action: "access_denied"})
	}
	if waited, none := denied(waiting.ID), denied(nobody); waited != none {
		t.Errorf("%d refusals name the waiting provider in the audit log, %d an id nobody has", waited, none)
	}

	// Signing in: a wrong password gets the answer of an unknown email;
	// only the right one learns that the account waits.
	wrong := statusAndBody(waiting.Do(t, "POST", "/api/auth/login", map[string]string{"email": waiting.Email, "password": "Wrong-Password-42"}))
	unknown := statusAndBody(waiting.Do(t, "POST", "/api/auth/login", map[string]string{"email": "nobody.here@clinic.test", "password": "Wrong-Password-42"}))
	if wrong != unknown || wrong[:3] != "401" {
		t.Errorf("a wrong password for the waiting provider: %s; for an unknown email: %s", wrong, unknown)
	}
	r := waiting.Do(t, "POST", "/api/auth/login", map[string]string{"email": waiting.Email, "password": waiting.Password})
	if r.Status != http.StatusForbidden || r.Body["error"] != "account_not_approved" {
		t.Errorf("the right password before approval: %d %s", r.Status, r.Raw)
	}

	// Approved: reachable at once, by every path.
	if r := admin.Do(t, "PATCH", "/api/users/"+waiting.ID, map[string]any{"approved": true}); r.Status != http.StatusOK {
		t.Fatalf("approve: %d %s", r.Status, r.Raw)
	}
	for _, p := range []*apptest.Person{patient, provider, admin} {
		listed(t, p, waiting.ID, true, 2, "quxby", "xb")
		if r := p.Do(t, "GET", "/api/users/"+waiting.ID, nil); r.Status != http.StatusOK {
			t.Errorf("%s reading the approved provider's record: %d %s", p.Role, r.Status, r.Raw)
		}
	}
	mustSend(t, patient, waiting.ID, "hello, doctor")
	mustSend(t, provider, waiting.ID, "hello, colleague")
	if r := provider.Do(t, "GET", "/api/message/chat/"+waiting.ID, nil); r.Status != http.StatusOK || len(r.List()) != 1 {
		t.Errorf("the conversation with the approved provider: %d %s", r.Status, r.Raw)
	}
	waiting.SignIn(t)
	shareID, code := share(t, app, provider, waiting, imageID, nil)
	if r := verify(t, waiting, shareID, code); r.Status != http.StatusOK {
		t.Fatalf("verify: %d %s", r.Status, r.Raw)
	}
	r = provider.Do(t, "POST", "/api/message/send", map[string]any{"recipientId": waiting.ID, "content": "about this image", "imageId": imageID})
	if r.Status != http.StatusCreated {
		t.Errorf("an image in a message to the approved provider: %d %s", r.Status, r.Raw)
	}
}

// TestApprovalOffLeavesReachUnchanged: without the setting a provider is
// reachable as soon as they confirm, as before; approval belongs to the
// account, so turning the setting off neither approves nor reveals a
// provider who still waits.
func TestApprovalOffLeavesReachUnchanged(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	admin := app.SignUp(t, domain.RoleAdmin)
	provider := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	imageID := sharedImage(t, provider, patient.ID)

	newcomer := registerProvider(t, app, "Quxbyvale")
	for _, p := range []*apptest.Person{patient, provider, admin} {
		listed(t, p, newcomer.ID, true, 2, "quxby", "xb")
	}
	got := reachOf(t, patient, provider, admin, imageID, newcomer.ID)
	for path, status := range map[string]string{
		"patient: record": "200", "healthProvider: record": "200", "admin: record": "200",
		"patient: message": "201", "healthProvider: message": "201", "admin: message": "201",
		"patient: conversation": "200", "healthProvider: conversation": "200",
		"attachment":            "422", // the newcomer cannot see the image: the rule of attachments, not of reach
		"healthProvider: share": "201", "admin: share": "201",
	} {
		if got[path][:3] != status {
			t.Errorf("%s: %s, want %s", path, got[path], status)
		}
	}
	newcomer.SignIn(t)

	// A provider who registered while approval was required still waits
	// once it no longer is, unseen, until an admin approves them.
	if r := putSettings(t, admin, map[string]any{"providerApprovalRequired": true}); r.Status != http.StatusOK {
		t.Fatalf("require approval: %d %s", r.Status, r.Raw)
	}
	waiting := registerProvider(t, app, "Wyvernholt")
	if r := putSettings(t, admin, map[string]any{"providerApprovalRequired": false}); r.Status != http.StatusOK {
		t.Fatalf("stop requiring approval: %d %s", r.Status, r.Raw)
	}
	listed(t, patient, waiting.ID, false, 2, "wyvern", "rn")
	if r := send(t, patient, waiting.ID, "hello"); r.Status != http.StatusUnprocessableEntity {
		t.Errorf("a message to the provider still waiting: %d %s", r.Status, r.Raw)
	}
	listed(t, patient, newcomer.ID, true, 2, "quxby", "xb")
}

// TestWaitingProviderKeepsEarlierHistory: a provider who was reached
// before approval was enforced (only this weakness made that possible)
// and still waits keeps what was sent to them: the sender still sees the
// conversation and the share, and may revoke it, but nothing new reaches
// them; they see it all once approved.
func TestWaitingProviderKeepsEarlierHistory(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	imageID := sharedImage(t, provider, patient.ID)
	waiting := registerProvider(t, app, "Quxbyvale")
	mustSend(t, patient, waiting.ID, "a question from before")
	shareID, _ := share(t, app, provider, waiting, imageID, nil)
	// As an account reached before approval was enforced would be.
	if _, err := app.DB.Pool.Exec(context.Background(), `UPDATE users SET approved = false WHERE id = $1`, waiting.ID); err != nil {
		t.Fatal(err)
	}

	r := patient.Do(t, "GET", "/api/message/chat-list", nil)
	if r.Status != http.StatusOK || len(r.List()) != 1 || r.List()[0]["id"] != waiting.ID {
		t.Errorf("the patient's chat list: %d %s", r.Status, r.Raw)
	}
	if r := patient.Do(t, "GET", "/api/message/chat/"+waiting.ID, nil); r.Status != http.StatusOK || len(r.List()) != 1 {
		t.Errorf("the patient's conversation from before: %d %s", r.Status, r.Raw)
	}
	if got, want := statusAndBody(send(t, patient, waiting.ID, "and another")), statusAndBody(send(t, patient, nobody, "and another")); got != want {
		t.Errorf("a new message: %s, to nobody: %s", got, want)
	}
	r = provider.Do(t, "GET", "/api/sharing/sent", nil)
	if r.Status != http.StatusOK || len(r.List()) != 1 || r.List()[0]["id"] != shareID {
		t.Errorf("the sharer's shares: %d %s", r.Status, r.Raw)
	}
	if r := provider.Do(t, "DELETE", "/api/sharing/"+shareID, nil); r.Status != http.StatusOK {
		t.Errorf("revoking the share from before: %d %s", r.Status, r.Raw)
	}
}
