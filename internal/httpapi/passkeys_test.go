package httpapi_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/fxamacker/cbor/v2"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/apptest"
)

// testOrigin is where the test stacks are reached (apptest's public URL).
const testOrigin = "http://medishare.test"

var b64 = base64.RawURLEncoding

// softKey is a software authenticator holding one passkey: an ECDSA P-256
// key, as a platform authenticator would, with "none" attestation.
type softKey struct {
	id    []byte
	key   *ecdsa.PrivateKey
	count uint32
}

func newSoftKey(t *testing.T) *softKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	id := make([]byte, 32)
	_, _ = rand.Read(id)
	return &softKey{id: id, key: key}
}

// clientData is the browser's collected client data for a ceremony.
func clientData(t *testing.T, kind, challenge string) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"type": kind, "challenge": challenge, "origin": testOrigin, "crossOrigin": false})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// options reads a begin's {publicKey} answer.
func options(t *testing.T, r *apptest.Response) map[string]any {
	t.Helper()
	pk, ok := r.Data()["publicKey"].(map[string]any)
	if r.Status != http.StatusOK || !ok {
		t.Fatalf("begin: %d %s", r.Status, r.Raw)
	}
	return pk
}

// create answers registration options as navigator.credentials.create
// would: RegistrationResponseJSON.
func (k *softKey) create(t *testing.T, opts map[string]any) map[string]any {
	t.Helper()
	challenge, _ := opts["challenge"].(string)
	rpID, _ := opts["rp"].(map[string]any)["id"].(string)
	cose, err := cbor.Marshal(map[int]any{1: 2, 3: -7, -1: 1, -2: k.key.X.FillBytes(make([]byte, 32)), -3: k.key.Y.FillBytes(make([]byte, 32))})
	if err != nil {
		t.Fatal(err)
	}
	rpHash := sha256.Sum256([]byte(rpID))
	auth := append([]byte{}, rpHash[:]...)
	auth = append(auth, 0x45) // user present, user verified, attested credential data
	auth = binary.BigEndian.AppendUint32(auth, k.count)
	auth = append(auth, make([]byte, 16)...) // AAGUID
	auth = binary.BigEndian.AppendUint16(auth, uint16(len(k.id)))
	auth = append(auth, k.id...)
	auth = append(auth, cose...)
	att, err := cbor.Marshal(map[string]any{"fmt": "none", "attStmt": map[string]any{}, "authData": auth})
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{
		"id": b64.EncodeToString(k.id), "rawId": b64.EncodeToString(k.id), "type": "public-key",
		"authenticatorAttachment": "platform", "clientExtensionResults": map[string]any{},
		"response": map[string]any{
			"clientDataJSON":    b64.EncodeToString(clientData(t, "webauthn.create", challenge)),
			"attestationObject": b64.EncodeToString(att),
			"transports":        []string{"internal"},
		},
	}
}

// get answers assertion options as navigator.credentials.get would:
// AuthenticationResponseJSON, its signature counter one up.
func (k *softKey) get(t *testing.T, opts map[string]any, userID string) map[string]any {
	t.Helper()
	challenge, _ := opts["challenge"].(string)
	rpID, _ := opts["rpId"].(string)
	k.count++
	rpHash := sha256.Sum256([]byte(rpID))
	auth := append([]byte{}, rpHash[:]...)
	auth = append(auth, 0x05) // user present, user verified
	auth = binary.BigEndian.AppendUint32(auth, k.count)
	cd := clientData(t, "webauthn.get", challenge)
	cdHash := sha256.Sum256(cd)
	digest := sha256.Sum256(append(append([]byte{}, auth...), cdHash[:]...))
	sig, err := ecdsa.SignASN1(rand.Reader, k.key, digest[:])
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{
		"id": b64.EncodeToString(k.id), "rawId": b64.EncodeToString(k.id), "type": "public-key",
		"authenticatorAttachment": "platform", "clientExtensionResults": map[string]any{},
		"response": map[string]any{
			"clientDataJSON":    b64.EncodeToString(cd),
			"authenticatorData": b64.EncodeToString(auth),
			"signature":         b64.EncodeToString(sig),
			"userHandle":        b64.EncodeToString([]byte(userID)),
		},
	}
}

// addPasskey registers k for p under name and returns the finish's answer.
func addPasskey(t *testing.T, p *apptest.Person, k *softKey, name string) *apptest.Response {
	t.Helper()
	opts := options(t, p.Do(t, "POST", "/api/auth/webauthn/register/begin", nil))
	return p.Do(t, "POST", "/api/auth/webauthn/register/finish", map[string]any{"name": name, "credential": k.create(t, opts)})
}

func passkeyOf(t *testing.T, r *apptest.Response) map[string]any {
	t.Helper()
	pk, ok := r.Data()["passkey"].(map[string]any)
	if r.Status != http.StatusCreated || !ok {
		t.Fatalf("register finish: %d %s", r.Status, r.Raw)
	}
	return pk
}

func methodsOf(t *testing.T, app *apptest.App, p *apptest.Person) []string {
	t.Helper()
	r := app.Client().Do(t, "POST", "/api/auth/login", map[string]string{"email": p.Email, "password": p.Password})
	var out []string
	for _, m := range r.Data()["methods"].([]any) {
		out = append(out, m.(string))
	}
	return out
}

func TestPasskeysAreAddedListedRenamedAndRemoved(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	p := app.SignUp(t, domain.RolePatient)
	other := app.SignUp(t, domain.RolePatient)

	opts := options(t, p.Do(t, "POST", "/api/auth/webauthn/register/begin", nil))
	if rp := opts["rp"].(map[string]any); rp["id"] != "medishare.test" || rp["name"] != "MediShare" {
		t.Errorf("rp = %v", rp)
	}
	if sel := opts["authenticatorSelection"].(map[string]any); sel["residentKey"] != "preferred" || sel["userVerification"] != "preferred" {
		t.Errorf("authenticatorSelection = %v", sel)
	}

	// The first passkey comes with recovery codes; the name defaults.
	first := newSoftKey(t)
	r := p.Do(t, "POST", "/api/auth/webauthn/register/finish", map[string]any{"name": "  ", "credential": first.create(t, opts)})
	pk := passkeyOf(t, r)
	if pk["name"] != "Passkey" || pk["lastUsedAt"] != nil || pk["createdAt"] == nil {
		t.Errorf("passkey = %v", pk)
	}
	if codes, _ := r.Data()["recoveryCodes"].([]any); len(codes) != 10 {
		t.Errorf("the first passkey's recovery codes: %s", r.Raw)
	}
	// The ceremony is used once.
	r = p.Do(t, "POST", "/api/auth/webauthn/register/finish", map[string]any{"name": "Again", "credential": newSoftKey(t).create(t, opts)})
	wantError(t, "the same registration twice", r, http.StatusUnprocessableEntity, "Adding the passkey took too long. Please try again.")

	// The second passkey: no recovery codes, and the first is excluded.
	opts = options(t, p.Do(t, "POST", "/api/auth/webauthn/register/begin", nil))
	if ex, _ := opts["excludeCredentials"].([]any); len(ex) != 1 || ex[0].(map[string]any)["id"] != b64.EncodeToString(first.id) {
		t.Errorf("excludeCredentials = %v", opts["excludeCredentials"])
	}
	second := newSoftKey(t)
	r = p.Do(t, "POST", "/api/auth/webauthn/register/finish", map[string]any{"name": "Work laptop", "credential": second.create(t, opts)})
	secondID := passkeyOf(t, r)["id"].(string)
	if _, ok := r.Data()["recoveryCodes"]; ok {
		t.Errorf("the second passkey came with recovery codes: %s", r.Raw)
	}
	// The same authenticator again is refused.
	wantError(t, "the same passkey again", addPasskey(t, p, first, "Twice"), http.StatusConflict, "This passkey is added already.")
	// A response made for another origin does not verify.
	opts = options(t, p.Do(t, "POST", "/api/auth/webauthn/register/begin", nil))
	forged := newSoftKey(t).create(t, opts)
	forged["response"].(map[string]any)["clientDataJSON"] = b64.EncodeToString([]byte(strings.Replace(
		string(clientData(t, "webauthn.create", opts["challenge"].(string))), testOrigin, "https://evil.example", 1)))
	r = p.Do(t, "POST", "/api/auth/webauthn/register/finish", map[string]any{"credential": forged})
	wantError(t, "another origin", r, http.StatusUnprocessableEntity, "The passkey could not be verified. Please try again.")

	r = p.Do(t, "GET", "/api/auth/webauthn", nil)
	if list := r.List(); r.Status != http.StatusOK || len(list) != 2 || list[0]["name"] != "Passkey" || list[1]["name"] != "Work laptop" {
		t.Fatalf("list: %d %s", r.Status, r.Raw)
	}
	if mfa := p.Do(t, "GET", "/api/users/profile", nil).Data()["mfa"].(map[string]any); mfa["passkeys"] != float64(2) || mfa["totp"] != false {
		t.Errorf("profile mfa = %v", mfa)
	}

	r = p.Do(t, "PATCH", "/api/auth/webauthn/"+secondID, map[string]string{"name": "Office"})
	if r.Status != http.StatusOK || r.Data()["name"] != "Office" || r.Data()["id"] != secondID {
		t.Errorf("rename: %d %s", r.Status, r.Raw)
	}
	wantError(t, "a name too long", p.Do(t, "PATCH", "/api/auth/webauthn/"+secondID, map[string]string{"name": strings.Repeat("x", 65)}),
		http.StatusUnprocessableEntity, "The name must be 1 to 64 printable characters.")
	wantError(t, "a name with a control character", p.Do(t, "PATCH", "/api/auth/webauthn/"+secondID, map[string]string{"name": "a\tb"}),
		http.StatusUnprocessableEntity, "The name must be 1 to 64 printable characters.")
	wantError(t, "renaming another's", other.Do(t, "PATCH", "/api/auth/webauthn/"+secondID, map[string]string{"name": "Mine"}), http.StatusNotFound, "Passkey not found.")
	wantError(t, "removing another's", other.Do(t, "DELETE", "/api/auth/webauthn/"+secondID, nil), http.StatusNotFound, "Passkey not found.")
	wantError(t, "removing a bad id", p.Do(t, "DELETE", "/api/auth/webauthn/nope", nil), http.StatusNotFound, "Passkey not found.")

	r = p.Do(t, "DELETE", "/api/auth/webauthn/"+secondID, nil)
	if r.Status != http.StatusOK || r.Message() != "The passkey is removed." {
		t.Fatalf("remove: %d %s", r.Status, r.Raw)
	}
	if list := p.Do(t, "GET", "/api/auth/webauthn", nil).List(); len(list) != 1 {
		t.Errorf("after removing, %d passkeys", len(list))
	}

	for _, a := range []testutil.Audit{
		{Action: "mfa_passkey_added", Actor: p.ID, Status: "success"},
		{Action: "mfa_passkey_renamed", Actor: p.ID, Status: "success", Reason: "passkey " + secondID},
		{Action: "mfa_passkey_removed", Actor: p.ID, Status: "success", Reason: "passkey " + secondID},
	} {
		if n := testutil.AuditCount(t, app.DB.Pool, a); n == 0 {
			t.Errorf("no audit entry %+v", a)
		}
	}
	if n := testutil.AuditCount(t, app.DB.Pool, testutil.Audit{Action: "mfa_passkey_added", Actor: p.ID, Status: "success"}); n != 2 {
		t.Errorf("%d mfa_passkey_added entries", n)
	}
	if n := testutil.AuditCount(t, app.DB.Pool, testutil.Audit{Action: "mfa_passkey_added", Actor: p.ID, Status: "failure"}); n != 1 {
		t.Errorf("%d failed mfa_passkey_added entries", n)
	}
	if r := p.Do(t, "GET", "/api/audit/logs?action=mfa_passkey_added", nil); r.Status != http.StatusOK || len(r.List()) != 3 {
		t.Errorf("own audit view: %d %s", r.Status, r.Raw)
	}
}

func TestSignInWithAPasskey(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	twin := app.Twin(t)
	p := app.SignUp(t, domain.RolePatient)
	k := newSoftKey(t)
	passkeyOf(t, addPasskey(t, p, k, "Phone"))

	if m := methodsOf(t, app, p); !slices.Equal(m, []string{"recovery", "webauthn"}) {
		t.Errorf("methods = %v", m)
	}

	// Begin on one instance, finish on the other.
	c, token := firstStep(t, app, p)
	opts := options(t, c.Do(t, "POST", "/api/auth/login/webauthn/begin", map[string]string{"mfaToken": token}))
	if allow, _ := opts["allowCredentials"].([]any); opts["rpId"] != "medishare.test" || len(allow) != 1 || allow[0].(map[string]any)["id"] != b64.EncodeToString(k.id) {
		t.Errorf("assertion options = %v", opts)
	}
	assertion := k.get(t, opts, p.ID)
	tc := twin.Client()
	r := tc.Do(t, "POST", "/api/auth/login/webauthn/finish", map[string]any{"mfaToken": token, "credential": assertion})
	if r.Status != http.StatusOK || r.Message() != "Login successful." || r.Data()["token"] == nil || !strings.Contains(r.Header.Get("Set-Cookie"), "medishare_refresh=") {
		t.Fatalf("finish: %d %s", r.Status, r.Raw)
	}
	if mfa := r.Data()["user"].(map[string]any)["mfa"].(map[string]any); mfa["passkeys"] != float64(1) {
		t.Errorf("login answer's mfa = %v", mfa)
	}
	p.Token = r.Data()["token"].(string)
	if r := p.Do(t, "GET", "/api/users/profile", nil); r.Status != http.StatusOK {
		t.Errorf("the session works: %d %s", r.Status, r.Raw)
	}
	// The same assertion again: the sign-in is over.
	r = tc.Do(t, "POST", "/api/auth/login/webauthn/finish", map[string]any{"mfaToken": token, "credential": assertion})
	wantError(t, "the used mfaToken again", r, http.StatusUnauthorized, expiredMFA)
	// The passkey's use is recorded.
	if list := p.Do(t, "GET", "/api/auth/webauthn", nil).List(); len(list) != 1 || list[0]["lastUsedAt"] == nil {
		t.Errorf("after signing in: %v", list)
	}

	// A replayed assertion (its challenge is another ceremony's, its
	// counter not forward) is a wrong code.
	c, token = firstStep(t, app, p)
	options(t, c.Do(t, "POST", "/api/auth/login/webauthn/begin", map[string]string{"mfaToken": token}))
	r = c.Do(t, "POST", "/api/auth/login/webauthn/finish", map[string]any{"mfaToken": token, "credential": assertion})
	wantError(t, "a replayed assertion", r, http.StatusUnauthorized, invalidCode)

	// A signature counter that goes backwards is refused as a copy.
	opts = options(t, c.Do(t, "POST", "/api/auth/login/webauthn/begin", map[string]string{"mfaToken": token}))
	k.count = 0
	r = c.Do(t, "POST", "/api/auth/login/webauthn/finish", map[string]any{"mfaToken": token, "credential": k.get(t, opts, p.ID)})
	wantError(t, "a counter gone back", r, http.StatusUnauthorized, invalidCode)

	// The ceremony's session data is used once: a finish without a new
	// begin fails even with a right assertion.
	k.count = 10
	r = c.Do(t, "POST", "/api/auth/login/webauthn/finish", map[string]any{"mfaToken": token, "credential": k.get(t, opts, p.ID)})
	wantError(t, "the ceremony's second finish", r, http.StatusUnauthorized, invalidCode)

	// Right after a new begin, it works.
	opts = options(t, c.Do(t, "POST", "/api/auth/login/webauthn/begin", map[string]string{"mfaToken": token}))
	if r := c.Do(t, "POST", "/api/auth/login/webauthn/finish", map[string]any{"mfaToken": token, "credential": k.get(t, opts, p.ID)}); r.Status != http.StatusOK {
		t.Fatalf("a right assertion after three wrong: %d %s", r.Status, r.Raw)
	}

	if n := testutil.AuditCount(t, app.DB.Pool, testutil.Audit{Action: "mfa_challenge_succeeded", Actor: p.ID, Status: "success", Reason: "method: webauthn"}); n != 2 {
		t.Errorf("%d mfa_challenge_succeeded entries", n)
	}
	if n := testutil.AuditCount(t, app.DB.Pool, testutil.Audit{Action: "mfa_challenge_failed", Actor: p.ID, Status: "failure"}); n != 3 {
		t.Errorf("%d mfa_challenge_failed entries", n)
	}
	if n := testutil.AuditCount(t, app.DB.Pool, testutil.Audit{Action: "login", Actor: p.ID, Status: "success", Reason: "second factor: webauthn"}); n != 2 {
		t.Errorf("%d login entries", n)
	}
}

func TestPasskeyFailuresCountAsWrongCodes(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	p := app.SignUp(t, domain.RolePatient)
	k := newSoftKey(t)
	passkeyOf(t, addPasskey(t, p, k, "Phone"))

	c, token := firstStep(t, app, p)
	for i := range 5 {
		opts := options(t, c.Do(t, "POST", "/api/auth/login/webauthn/begin", map[string]string{"mfaToken": token}))
		bad := k.get(t, opts, p.ID)
		sig, _ := b64.DecodeString(bad["response"].(map[string]any)["signature"].(string))
		sig[len(sig)-1] ^= 0xff
		bad["response"].(map[string]any)["signature"] = b64.EncodeToString(sig)
		r := c.Do(t, "POST", "/api/auth/login/webauthn/finish", map[string]any{"mfaToken": token, "credential": bad})
		wantError(t, "a bad signature "+itoa(i), r, http.StatusUnauthorized, invalidCode)
	}
	// Five wrong tries end the mfaToken, for a begin as for a finish.
	r := c.Do(t, "POST", "/api/auth/login/webauthn/begin", map[string]string{"mfaToken": token})
	wantError(t, "begin after five wrong", r, http.StatusUnauthorized, expiredMFA)
	r = c.Do(t, "POST", "/api/auth/login/webauthn/finish", map[string]any{"mfaToken": token, "credential": map[string]any{}})
	wantError(t, "finish after five wrong", r, http.StatusUnauthorized, expiredMFA)
	if n := testutil.AuditCount(t, app.DB.Pool, testutil.Audit{Action: "mfa_challenge_failed", Actor: p.ID, Status: "failure"}); n != 5 {
		t.Errorf("%d mfa_challenge_failed entries", n)
	}

	// A person without passkeys gets no passkey ceremony.
	q := app.SignUp(t, domain.RolePatient)
	enableTOTP(t, app, q)
	if m := methodsOf(t, app, q); !slices.Equal(m, []string{"totp", "recovery"}) {
		t.Errorf("methods without passkeys = %v", m)
	}
	c, token = firstStep(t, app, q)
	wantError(t, "begin without passkeys", c.Do(t, "POST", "/api/auth/login/webauthn/begin", map[string]string{"mfaToken": token}),
		http.StatusUnprocessableEntity, "This account has no passkeys.")
}

func TestPasskeyEndsAnEnrolmentOnlySession(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	admin := app.SignUp(t, domain.RoleAdmin)
	p := app.SignUp(t, domain.RoleProvider)
	if r := putSettings(t, admin, map[string]any{"mfaRequiredRoles": []string{domain.RoleProvider}}); r.Status != http.StatusOK {
		t.Fatalf("settings: %d %s", r.Status, r.Raw)
	}
	p.SignIn(t)
	wantError(t, "a normal call", p.Do(t, "GET", "/api/upload/my-images", nil), http.StatusForbidden, "mfa_enrollment_required")
	if r := p.Do(t, "GET", "/api/auth/webauthn", nil); r.Status != http.StatusOK || len(r.List()) != 0 {
		t.Errorf("list in an enrolment-only session: %d %s", r.Status, r.Raw)
	}

	k := newSoftKey(t)
	r := addPasskey(t, p, k, "Phone")
	id := passkeyOf(t, r)["id"].(string)
	if codes, _ := r.Data()["recoveryCodes"].([]any); len(codes) != 10 {
		t.Errorf("recovery codes: %s", r.Raw)
	}
	if r := p.Do(t, "GET", "/api/upload/my-images", nil); r.Status != http.StatusOK {
		t.Errorf("after adding a passkey, the same session: %d %s", r.Status, r.Raw)
	}

	// Removing the only factor makes the sessions enrolment-only again.
	if r := p.Do(t, "DELETE", "/api/auth/webauthn/"+id, nil); r.Status != http.StatusOK {
		t.Fatalf("remove: %d %s", r.Status, r.Raw)
	}
	wantError(t, "after removing the only passkey", p.Do(t, "GET", "/api/upload/my-images", nil), http.StatusForbidden, "mfa_enrollment_required")
}

func TestAdminResetRemovesPasskeys(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	admin := app.SignUp(t, domain.RoleAdmin)
	p := app.SignUp(t, domain.RolePatient)
	passkeyOf(t, addPasskey(t, p, newSoftKey(t), "Phone"))

	if r := admin.Do(t, "DELETE", "/api/users/"+p.ID+"/mfa", nil); r.Status != http.StatusOK {
		t.Fatalf("reset: %d %s", r.Status, r.Raw)
	}
	p.SignIn(t) // the password alone signs in again
	if r := p.Do(t, "GET", "/api/auth/webauthn", nil); len(r.List()) != 0 {
		t.Errorf("passkeys after the reset: %s", r.Raw)
	}
	if mfa := p.Do(t, "GET", "/api/users/profile", nil).Data()["mfa"].(map[string]any); mfa["passkeys"] != float64(0) {
		t.Errorf("profile mfa = %v", mfa)
	}
}
