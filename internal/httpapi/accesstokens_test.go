package httpapi_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/httpapi"
	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/apptest"
)

// createToken makes a token for p and returns its id and secret.
func createToken(t *testing.T, p *apptest.Person, name string, days int) (string, string) {
	t.Helper()
	r := p.Do(t, "POST", "/api/tokens", map[string]any{"name": name, "expiresInDays": days})
	if r.Status != http.StatusCreated || r.Message() != "Token created." {
		t.Fatalf("create token: %d %s", r.Status, r.Raw)
	}
	return r.Data()["id"].(string), r.Data()["token"].(string)
}

func listTokens(t *testing.T, p *apptest.Person) []map[string]any {
	t.Helper()
	r := p.Do(t, "GET", "/api/tokens", nil)
	if r.Status != http.StatusOK {
		t.Fatalf("list tokens: %d %s", r.Status, r.Raw)
	}
	return r.List()
}

// dicomweb serves a handler that answers the caller's id behind
// requireDICOMwebAuth, and returns a function that sends it a request with
// the given Authorization header and returns the status, the body and the
// challenge.
func dicomweb(t *testing.T, app *apptest.App) func(authorization string) (int, string, []string) {
	t.Helper()
	srv := httptest.NewServer(httpapi.DICOMwebAuth(app.Services)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, httpapi.CallerID(r))
	})))
	t.Cleanup(srv.Close)
	return func(authorization string) (int, string, []string) {
		t.Helper()
		req, err := http.NewRequest("GET", srv.URL+"/dicomweb/studies", nil)
		if err != nil {
			t.Fatal(err)
		}
		if authorization != "" {
			req.Header.Set("Authorization", authorization)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header.Values("WWW-Authenticate")
	}
}

func basic(user, password string) string {
	req, _ := http.NewRequest("GET", "/", nil)
	req.SetBasicAuth(user, password)
	return req.Header.Get("Authorization")
}

// TestAccessTokenLifecycle: a token is made with its secret shown once,
// kept only as a keyed hash, listed without the secret, opens /dicomweb as
// its owner (bearer or Basic) and never /api, and stops at once when
// revoked; each step is audited.
func TestAccessTokenLifecycle(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	send := dicomweb(t, app)

	start := app.Clock.Now()
	r := provider.Do(t, "POST", "/api/tokens", map[string]any{"name": "  Radiology PACS  ", "expiresInDays": 90})
	if r.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	data := r.Data()
	id, secret := data["id"].(string), data["token"].(string)
	expires, _ := time.Parse(time.RFC3339, data["expiresAt"].(string))
	if data["name"] != "Radiology PACS" || !strings.HasPrefix(secret, "msp_") || len(secret) != len("msp_")+43 ||
		expires.Sub(start) < 90*24*time.Hour-time.Minute || expires.Sub(start) > 90*24*time.Hour+time.Minute {
		t.Fatalf("created token: %v", data)
	}

	// At rest: a 32-byte keyed hash, neither the secret nor a plain SHA-256 of it.
	var hash []byte
	var name string
	if err := app.DB.Pool.QueryRow(context.Background(), `SELECT token_hash, name FROM access_tokens WHERE id = $1`, id).Scan(&hash, &name); err != nil {
		t.Fatal(err)
	}
	row := string(hash) + name
	if len(hash) != 32 || strings.Contains(row, secret) || strings.Contains(row, strings.TrimPrefix(secret, "msp_")) {
		t.Fatalf("the row holds the secret: %x %q", hash, name)
	}

	// Listed, without the secret, never used yet.
	list := listTokens(t, provider)
	if len(list) != 1 || list[0]["id"] != id || list[0]["name"] != "Radiology PACS" || list[0]["lastUsedAt"] != nil {
		t.Fatalf("list: %v", list)
	}
	if raw := provider.Do(t, "GET", "/api/tokens", nil).Raw; strings.Contains(raw, secret) || strings.Contains(raw, `"token"`) {
		t.Fatalf("the list shows the secret: %s", raw)
	}

	// /dicomweb takes it as a bearer token and as a Basic password, under
	// any user name, and acts as the owner.
	for name, auth := range map[string]string{
		"bearer":             "Bearer " + secret,
		"basic":              basic("orthanc", secret),
		"basic, no username": basic("", secret),
	} {
		if status, body, _ := send(auth); status != http.StatusOK || body != provider.ID {
			t.Errorf("%s: %d %q, want 200 %s", name, status, body, provider.ID)
		}
	}
	// A session's own access token works there too, exactly as under /api.
	if status, body, _ := send("Bearer " + provider.Token); status != http.StatusOK || body != provider.ID {
		t.Errorf("session token under /dicomweb: %d %q", status, body)
	}
	// The use is recorded, once for the burst, and shown in the list.
	if n := testutil.AuditCount(t, app.DB.Pool, testutil.Audit{Action: "token_use", Table: "access_tokens", Record: id, Actor: provider.ID}); n != 1 {
		t.Errorf("token_use entries after a burst: %d, want 1", n)
	}
	if used := listTokens(t, provider)[0]["lastUsedAt"]; used == nil {
		t.Errorf("lastUsedAt not set after use")
	}

	// Under /api the token is nobody.
	pat := app.Client()
	pat.Token = secret
	if r := pat.Do(t, "GET", "/api/users/profile", nil); r.Status != http.StatusUnauthorized || r.Body["error"] != "Invalid or expired token" {
		t.Fatalf("PAT under /api: %d %s", r.Status, r.Raw)
	}
	if r := pat.Do(t, "GET", "/api/tokens", nil); r.Status != http.StatusUnauthorized {
		t.Fatalf("PAT listing tokens: %d %s", r.Status, r.Raw)
	}

	// Revoked: gone from the list, refused at once, with the body of any bad token.
	if r := provider.Do(t, "DELETE", "/api/tokens/"+id, nil); r.Status != http.StatusOK || r.Message() != "Token revoked." {
		t.Fatalf("revoke: %d %s", r.Status, r.Raw)
	}
	if list := listTokens(t, provider); len(list) != 0 {
		t.Fatalf("list after revoke: %v", list)
	}
	status, body, challenge := send("Bearer " + secret)
	_, unknownBody, _ := send("Bearer msp_" + strings.Repeat("A", 43))
	if status != http.StatusUnauthorized || body != unknownBody || !strings.Contains(body, "Invalid or expired token") {
		t.Fatalf("revoked token: %d %s (unknown: %s)", status, body, unknownBody)
	}
	if strings.Join(challenge, ", ") != `Bearer realm="medishare", Basic realm="medishare", charset="UTF-8"` {
		t.Errorf("challenge: %q", challenge)
	}
	if status, _, _ := send(basic("orthanc", secret)); status != http.StatusUnauthorized {
		t.Errorf("revoked token over Basic: %d", status)
	}
	// Revoking again changes nothing.
	if r := provider.Do(t, "DELETE", "/api/tokens/"+id, nil); r.Status != http.StatusOK {
		t.Fatalf("revoke again: %d %s", r.Status, r.Raw)
	}

	for action, want := range map[string]int{"token_create": 1, "token_revoke": 2} {
		if n := testutil.AuditCount(t, app.DB.Pool, testutil.Audit{Action: action, Table: "access_tokens", Record: id, Actor: provider.ID, Status: "success"}); n != want {
			t.Errorf("%s entries: %d, want %d", action, n, want)
		}
	}
}

// TestDICOMwebAuthRefusals: what requireDICOMwebAuth refuses, each with a
// 401 that challenges for both schemes.
func TestDICOMwebAuthRefusals(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	patient := app.SignUp(t, domain.RolePatient)
	send := dicomweb(t, app)
	_, secret := createToken(t, patient, "Viewer", 30)

	tests := []struct {
		name, authorization, error string
	}{
		{"no credentials", "", "unauthenticated"},
		{"an unknown token", "Bearer msp_unknown", "Invalid or expired token"},
		{"a token without its prefix", "Bearer " + strings.TrimPrefix(secret, "msp_"), "Invalid or expired token"},
		{"the account's password over Basic", basic(patient.Email, patient.Password), "Invalid or expired token"},
		{"a session token over Basic", basic("x", patient.Token), "Invalid or expired token"},
		{"a forged JWT", "Bearer eyJhbGciOiJIUzI1NiJ9.e30.x", "Invalid or expired token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body, challenge := send(tt.authorization)
			if status != http.StatusUnauthorized || !strings.Contains(body, `"error":"`+tt.error+`"`) || len(challenge) != 2 {
				t.Errorf("%d %s %q", status, body, challenge)
			}
		})
	}
	// A token works for a patient too: it reaches what they may see.
	if status, body, _ := send("Bearer " + secret); status != http.StatusOK || body != patient.ID {
		t.Errorf("patient's token: %d %q", status, body)
	}
}

// TestAccessTokenExpiry: a token stops working, and leaves the list, once
// its lifetime has passed.
func TestAccessTokenExpiry(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	send := dicomweb(t, app)
	_, secret := createToken(t, provider, "Short", 1)

	app.Clock.Shift(24*time.Hour - time.Minute)
	if status, _, _ := send("Bearer " + secret); status != http.StatusOK {
		t.Fatalf("a minute before expiry: %d", status)
	}
	app.Clock.Shift(time.Minute)
	if status, body, _ := send("Bearer " + secret); status != http.StatusUnauthorized || !strings.Contains(body, "Invalid or expired token") {
		t.Fatalf("at expiry: %d %s", status, body)
	}
	// The clock moved a day, so the session is renewed for the list.
	provider.SignIn(t)
	if list := listTokens(t, provider); len(list) != 0 {
		t.Fatalf("expired token listed: %v", list)
	}
}

// TestAccessTokenUseAuditedOncePerMinute: a burst writes one token_use
// entry; the next one, after a minute, another.
func TestAccessTokenUseAuditedOncePerMinute(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	send := dicomweb(t, app)
	id, secret := createToken(t, provider, "Modality", 30)
	uses := func() int {
		return testutil.AuditCount(t, app.DB.Pool, testutil.Audit{Action: "token_use", Record: id})
	}
	for range 20 {
		if status, _, _ := send(basic("pacs", secret)); status != http.StatusOK {
			t.Fatalf("use: %d", status)
		}
	}
	if n := uses(); n != 1 {
		t.Fatalf("token_use entries after 20 requests: %d, want 1", n)
	}
	app.Clock.Shift(59 * time.Second)
	send(basic("pacs", secret))
	if n := uses(); n != 1 {
		t.Fatalf("token_use entries within the minute: %d, want 1", n)
	}
	app.Clock.Shift(time.Second)
	send(basic("pacs", secret))
	if n := uses(); n != 2 {
		t.Fatalf("token_use entries after the minute: %d, want 2", n)
	}
}

// TestAccessTokenOwnership: someone else's token, an unknown id and a
// malformed one are all 404 Token not found., each refusal recorded, and
// the owner's token still works.
func TestAccessTokenOwnership(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	owner := app.SignUp(t, domain.RoleProvider)
	other := app.SignUp(t, domain.RoleAdmin)
	send := dicomweb(t, app)
	id, secret := createToken(t, owner, "PACS", 30)

	for name, target := range map[string]string{
		"someone else's": id, "unknown": "0b8c2f6e-9d1f-4d8e-9a57-3f1f0d7b1c11", "not a uuid": "nope",
	} {
		if r := other.Do(t, "DELETE", "/api/tokens/"+target, nil); r.Status != http.StatusNotFound || r.Message() != "Token not found." {
			t.Errorf("%s: %d %s", name, r.Status, r.Raw)
		}
	}
	if n := testutil.AuditCount(t, app.DB.Pool, testutil.Audit{Action: "access_denied", Table: "access_tokens", Actor: other.ID}); n != 3 {
		t.Errorf("refusals recorded: %d, want 3", n)
	}
	if list := listTokens(t, other); len(list) != 0 {
		t.Errorf("another person's list: %v", list)
	}
	if status, _, _ := send("Bearer " + secret); status != http.StatusOK {
		t.Errorf("the owner's token after another's revoke: %d", status)
	}
}

// TestAccessTokenValidation: the messages of a refused creation, and the
// cap of live tokens.
func TestAccessTokenValidation(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	p := app.SignUp(t, domain.RolePatient)
	const lifetime = "The lifetime must be a whole number of days from 1 to 365."
	tests := []struct {
		name    string
		body    any
		message string
		field   string
	}{
		{"no name", map[string]any{"expiresInDays": 30}, "Please give the token a name.", "name"},
		{"a blank name", map[string]any{"name": "   ", "expiresInDays": 30}, "Please give the token a name.", "name"},
		{"a long name", map[string]any{"name": strings.Repeat("é", 101), "expiresInDays": 30}, "The name must be at most 100 characters.", "name"},
		{"a name of two lines", map[string]any{"name": "a\nb", "expiresInDays": 30}, "The name must be one line of text.", "name"},
		{"no lifetime", map[string]any{"name": "x"}, lifetime, "expiresInDays"},
		{"zero days", map[string]any{"name": "x", "expiresInDays": 0}, lifetime, "expiresInDays"},
		{"366 days", map[string]any{"name": "x", "expiresInDays": 366}, lifetime, "expiresInDays"},
		{"a fraction", `{"name":"x","expiresInDays":1.5}`, "Please check the highlighted fields.", "expiresInDays"},
		{"a string", `{"name":"x","expiresInDays":"30"}`, "Please check the highlighted fields.", "expiresInDays"},
		{"both wrong", map[string]any{"name": "", "expiresInDays": 0}, "Please check the highlighted fields.", "name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := p.Do(t, "POST", "/api/tokens", tt.body)
			errs, _ := r.Body["errors"].([]any)
			if r.Status != http.StatusUnprocessableEntity || r.Message() != tt.message || len(errs) == 0 ||
				errs[0].(map[string]any)["field"] != tt.field {
				t.Errorf("%d %s", r.Status, r.Raw)
			}
		})
	}
	if n := len(listTokens(t, p)); n != 0 {
		t.Fatalf("refused creations made %d tokens", n)
	}

	// The cap: 20 live tokens; a revoked one frees its place.
	ids := make([]string, domain.AccessTokenMaxLive)
	for i := range ids {
		ids[i], _ = createToken(t, p, "Machine", 365)
	}
	r := p.Do(t, "POST", "/api/tokens", map[string]any{"name": "One more", "expiresInDays": 1})
	if r.Status != http.StatusUnprocessableEntity ||
		r.Message() != "You already have 20 active tokens, the most you may hold. Please revoke one you no longer use." {
		t.Fatalf("past the cap: %d %s", r.Status, r.Raw)
	}
	if r := p.Do(t, "DELETE", "/api/tokens/"+ids[0], nil); r.Status != http.StatusOK {
		t.Fatalf("revoke: %d", r.Status)
	}
	createToken(t, p, "One more", 1)
	if n := len(listTokens(t, p)); n != domain.AccessTokenMaxLive {
		t.Fatalf("listed: %d", n)
	}
}

// TestAccessTokensEndWithTheAccount: deactivating or deleting the owner
// ends their tokens for good; reactivating does not bring them back.
func TestAccessTokensEndWithTheAccount(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	admin := app.SignUp(t, domain.RoleAdmin)
	deactivated := app.SignUp(t, domain.RoleProvider)
	deleted := app.SignUp(t, domain.RolePatient)
	send := dicomweb(t, app)
	_, deactivatedSecret := createToken(t, deactivated, "PACS", 30)
	_, deletedSecret := createToken(t, deleted, "Viewer", 30)

	if r := admin.Do(t, "PATCH", "/api/users/"+deactivated.ID, map[string]any{"active": false}); r.Status != http.StatusOK {
		t.Fatalf("deactivate: %d %s", r.Status, r.Raw)
	}
	if status, _, _ := send("Bearer " + deactivatedSecret); status != http.StatusUnauthorized {
		t.Errorf("deactivated owner's token: %d", status)
	}
	if r := admin.Do(t, "PATCH", "/api/users/"+deactivated.ID, map[string]any{"active": true}); r.Status != http.StatusOK {
		t.Fatalf("reactivate: %d %s", r.Status, r.Raw)
	}
	if status, _, _ := send("Bearer " + deactivatedSecret); status != http.StatusUnauthorized {
		t.Errorf("token after reactivation: %d", status)
	}

	if r := admin.Do(t, "DELETE", "/api/users/"+deleted.ID, nil); r.Status != http.StatusOK {
		t.Fatalf("delete: %d %s", r.Status, r.Raw)
	}
	if status, _, _ := send("Bearer " + deletedSecret); status != http.StatusUnauthorized {
		t.Errorf("deleted owner's token: %d", status)
	}
	var live int
	if err := app.DB.Pool.QueryRow(context.Background(),
		`SELECT count(*) FROM access_tokens WHERE user_id = ANY($1::uuid[]) AND revoked_at IS NULL`,
		[]string{deactivated.ID, deleted.ID}).Scan(&live); err != nil {
		t.Fatal(err)
	}
	if live != 0 {
		t.Errorf("tokens left unrevoked: %d", live)
	}
}
