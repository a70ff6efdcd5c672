package httpapi_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/analysis"
	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/testutil/apptest"
)

// fakeModel is an HTTP server that speaks the Chat Completions protocol,
// as OpenAI, Ollama or vLLM do, and answers as its mode says.
type fakeModel struct {
	*httptest.Server
	mu       sync.Mutex
	mode     string // ok, error, slow, garbage, huge (a 2 MiB answer), longname (a 200 KB model name)
	requests []modelRequest
}

type modelRequest struct {
	authorization string
	body          []byte
}

// answer is a valid analysis in the schema, with values the server must bound.
var answer = map[string]any{
	"description":           "**Findings:** an axial CT slice of the abdomen.",
	"differentialDiagnosis": conditions(12),
	"treatment":             []string{},
	"followUp":              []string{"Compare with prior imaging."},
	"warnings":              []string{"Single slice only."},
	"confidence":            1.7,
}

func conditions(n int) []map[string]any {
	out := make([]map[string]any, n)
	for i := range out {
		out[i] = map[string]any{"condition": fmt.Sprintf("Finding %d", i+1), "confidence": -0.2 + float64(i)*0.1}
	}
	return out
}

func newFakeModel(t *testing.T) *fakeModel {
	m := &fakeModel{mode: "ok"}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		m.mu.Lock()
		m.requests = append(m.requests, modelRequest{authorization: r.Header.Get("Authorization"), body: body})
		mode := m.mode
		m.mu.Unlock()
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		content, model := "", "test-vision-1"
		switch mode {
		case "error":
			http.Error(w, `{"error":{"message":"overloaded"}}`, http.StatusInternalServerError)
			return
		case "slow": // never answers: the analyzer's timeout (five seconds here) ends the wait
			<-r.Context().Done()
			return
		case "garbage":
			content = "I think it is a CT scan."
		case "huge":
			content = strings.Repeat("x", 2<<20)
		case "longname":
			model = strings.Repeat("m", 200<<10)
		}
		if content == "" {
			b, _ := json.Marshal(answer)
			content = string(b)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": content, "refusal": nil}}},
		})
	}))
	t.Cleanup(m.Close)
	return m
}

func (m *fakeModel) set(mode string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.mode = mode
}

func (m *fakeModel) sent() []modelRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]modelRequest(nil), m.requests...)
}

// openAIWorld is a stack configured with the fake OpenAI-compatible model,
// with an admin, a provider and a patient.
type openAIWorld struct {
	model                    *fakeModel
	app                      *apptest.App
	admin, provider, patient *apptest.Person
}

func newOpenAIWorld(t *testing.T, apiKey string) openAIWorld {
	t.Helper()
	model := newFakeModel(t)
	external, err := analysis.NewOpenAI(analysis.OpenAIConfig{BaseURL: model.URL + "/v1", APIKey: apiKey, Model: "test-vision",
		// Long enough for a 2 MiB answer to be read under -race on a busy
		// machine (one second was not), short enough for the "slow" cases.
		Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	app := apptest.New(t, external)
	return openAIWorld{model: model, app: app, admin: app.SignUp(t, domain.RoleAdmin),
		provider: app.SignUp(t, domain.RoleProvider), patient: app.SignUp(t, domain.RolePatient)}
}

// upload is the id of a file the provider uploads for the patient.
func (w openAIWorld) upload(t *testing.T, caption, name string, content []byte) string {
	t.Helper()
	r := w.provider.Upload(t, [][2]string{{"caption", caption}, {"patientId", w.patient.ID}, {"file"}}, name, content)
	if r.Status != http.StatusCreated {
		t.Fatalf("upload: %d %s", r.Status, r.Raw)
	}
	return r.Data()["id"].(string)
}

func TestOpenAICompatibleAnalysis(t *testing.T) {
	t.Parallel()
	w := newOpenAIWorld(t, "sk-test-key")
	model, app, admin, provider, patient := w.model, w.app, w.admin, w.provider, w.patient
	const caption = "Abdomen CT for Jane Roe, DOB 1970-01-01"
	ct := w.upload(t, caption, "roe_jane_ct.dcm", fixture(t, "CT_small.dcm"))

	// Off until an admin selects it.
	settings := settingsOf(t, admin)
	if providers := settings["analysisProviders"].([]any); len(providers) != 2 || providers[1] != "openai" {
		t.Fatalf("configured providers: %v", providers)
	}
	if to := settings["analysisSendsTo"].(map[string]any)["openai"]; !strings.HasPrefix(model.URL, "http://"+to.(string)) {
		t.Errorf("the settings say images go to %v", to)
	}
	if got := provider.Do(t, "GET", "/api/analyze/"+ct, nil); got.Data()["provider"] != "builtin" || len(model.sent()) != 0 {
		t.Fatalf("before the admin chose the model: %s, %d requests", got.Raw, len(model.sent()))
	}
	if r := putSettings(t, admin, map[string]any{"analysisProvider": "openai"}); r.Status != http.StatusOK {
		t.Fatalf("choose the model: %d %s", r.Status, r.Raw)
	}

	r := provider.Do(t, "POST", "/api/analyze/"+ct, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("analysis by the model: %d %s", r.Status, r.Raw)
	}
	a := r.Data()
	dd := a["differentialDiagnosis"].([]any)
	first, last := dd[0].(map[string]any), dd[len(dd)-1].(map[string]any)
	if a["provider"] != "openai" || a["model"] != "test-vision-1" || a["confidence"] != 1.0 || len(dd) != 10 ||
		first["confidence"] != 0.0 || last["confidence"].(float64) > 1 || len(a["measurements"].([]any)) < 10 {
		t.Errorf("the model's analysis, bounded: %s", r.Raw)
	}
	if pv, _ := a["provenance"].(map[string]any); pv == nil || pv["promptVersion"] != analysis.PromptVersion || len(pv["imageSha256"].(string)) != 64 {
		t.Errorf("provenance: %v", a["provenance"])
	}

	// What left the server: a PNG, the key as a bearer token, nothing identifying.
	sent := model.sent()
	if len(sent) != 1 || sent[0].authorization != "Bearer sk-test-key" {
		t.Fatalf("requests to the model: %d, authorization %q", len(sent), sent[0].authorization)
	}
	body := string(sent[0].body)
	picture := regexp.MustCompile(`data:image/png;base64,([A-Za-z0-9+/=]+)`).FindStringSubmatch(body)
	if picture == nil {
		t.Fatalf("no PNG in the request: %.300s", body)
	}
	pngBytes, err := base64.StdEncoding.DecodeString(picture[1])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(pngBytes)); err != nil {
		t.Fatalf("the image sent is not a PNG: %v", err)
	}
	for _, secret := range []string{"Jane", "Roe", "1970", "roe_jane", "CompressedSamples", "1CT1", "JFK", "20040119", "DICM",
		patient.Username, provider.Username, patient.ID, ct, "Person"} {
		if strings.Contains(body, secret) || bytes.Contains(pngBytes, []byte(secret)) {
			t.Errorf("%q left the server", secret)
		}
	}
	if !strings.Contains(body, "Modality: CT") || !strings.Contains(body, "RMS contrast") {
		t.Errorf("the request lacks the modality or the measurements: %.500s", body)
	}

	// The send is a disclosure the patient sees.
	if n := audited(t, app, "disclose", ct, true); n != 1 {
		t.Errorf("%d disclosures recorded, want 1", n)
	}
	found := false
	for _, e := range auditPage(t, patient, "limit=20&imageId="+ct).List() {
		found = found || e["actiontype"] == "disclose"
	}
	if !found {
		t.Error("the patient does not see the disclosure")
	}

	// A model that fails, is too slow, or answers outside the schema: 503,
	// and the last good analysis stays.
	for _, mode := range []string{"error", "slow", "garbage"} {
		model.set(mode)
		r := provider.Do(t, "POST", "/api/analyze/"+ct, nil)
		if r.Status != http.StatusServiceUnavailable || r.Message() != "The analysis service is not available right now. Please try again later." {
			t.Errorf("%s: %d %s", mode, r.Status, r.Raw)
		}
		if kept := provider.Do(t, "GET", "/api/analyze/"+ct, nil); kept.Data()["timestamp"] != a["timestamp"] || kept.Data()["provider"] != "openai" {
			t.Errorf("%s: the last good analysis did not stay: %s", mode, kept.Raw)
		}
	}
	if n := audited(t, app, "analyze", ct, false); n != 3 {
		t.Errorf("%d failed analyses recorded, want 3", n)
	}
}

// reasonsSeenBy are the reasons of the entries of an action about an
// image, as p reads them in the audit log, newest first.
func reasonsSeenBy(t *testing.T, p *apptest.Person, imageID, action string) []string {
	t.Helper()
	var out []string
	for _, e := range auditPage(t, p, "limit=20&imageId="+imageID).List() {
		if e["actiontype"] == action {
			out = append(out, e["reason"].(string))
		}
	}
	return out
}

// What comes back from the model is bounded: an answer past 1 MiB is a
// failed analysis, a model name of any length is cut before it is stored
// or audited, and a failure reaches the audit log, which the image's
// patient reads, in plain words, never as the error's text.
func TestOpenAIAnswersAreBounded(t *testing.T) {
	t.Parallel()
	w := newOpenAIWorld(t, "")
	model, admin, provider, patient := w.model, w.admin, w.provider, w.patient
	ct := w.upload(t, "CT", "ct.dcm", fixture(t, "CT_small.dcm"))
	if r := putSettings(t, admin, map[string]any{"analysisProvider": "openai"}); r.Status != http.StatusOK {
		t.Fatalf("choose the model: %d %s", r.Status, r.Raw)
	}

	model.set("longname")
	r := provider.Do(t, "POST", "/api/analyze/"+ct, nil)
	if name, _ := r.Data()["model"].(string); r.Status != http.StatusOK || name != strings.Repeat("m", 100) {
		t.Fatalf("a 200 KB model name: %d, model %.120q", r.Status, name)
	}
	if reasons := reasonsSeenBy(t, patient, ct, "analyze"); len(reasons) != 1 || reasons[0] != "provider openai, model "+strings.Repeat("m", 100) {
		t.Errorf("the audited analysis: %.200q", reasons)
	}

	for _, c := range []struct{ mode, reason string }{
		{"huge", "provider openai: The analysis service sent an answer that is too long."},
		{"slow", "provider openai: The analysis service did not answer in time."},
		{"error", "provider openai: The analysis service failed."},
		{"garbage", "provider openai: The analysis service sent an answer that could not be read."},
	} {
		model.set(c.mode)
		r := provider.Do(t, "POST", "/api/analyze/"+ct, nil)
		if r.Status != http.StatusServiceUnavailable || r.Message() != "The analysis service is not available right now. Please try again later." {
			t.Errorf("%s: %d %.300s", c.mode, r.Status, r.Raw)
		}
		if reasons := reasonsSeenBy(t, patient, ct, "analyze"); reasons[0] != c.reason {
			t.Errorf("%s: the patient reads %.300q, want %q", c.mode, reasons[0], c.reason)
		}
	}
	if kept := provider.Do(t, "GET", "/api/analyze/"+ct, nil); kept.Data()["model"] != strings.Repeat("m", 100) {
		t.Errorf("the last good analysis did not stay: %.300s", kept.Raw)
	}
}

// Images the screen cannot vouch for (here a JPEG photograph) stay on the
// server, with the built-in analysis and a warning, until an admin turns
// on analysisSendUnscreened; the change is audited, and so is each send,
// saying it was unscreened.
func TestOpenAISendUnscreenedSetting(t *testing.T) {
	t.Parallel()
	w := newOpenAIWorld(t, "")
	model, admin, provider, patient := w.model, w.admin, w.provider, w.patient
	photo := w.upload(t, "Rash", "rash.jpg", jpegBytes(t))
	if r := putSettings(t, admin, map[string]any{"analysisProvider": "openai"}); r.Status != http.StatusOK || r.Data()["analysisSendUnscreened"] != false {
		t.Fatalf("choose the model: %d %s", r.Status, r.Raw)
	}

	r := provider.Do(t, "POST", "/api/analyze/"+photo, nil)
	warnings, _ := r.Data()["warnings"].([]any)
	if r.Status != http.StatusOK || r.Data()["provider"] != "builtin" || len(warnings) == 0 ||
		!strings.HasPrefix(warnings[len(warnings)-1].(string), "Not sent to the external model: photographs") {
		t.Fatalf("a photograph while unscreened images stay: %d %s", r.Status, r.Raw)
	}
	if len(model.sent()) != 0 || audited(t, w.app, "disclose", photo, true) != 0 {
		t.Fatalf("the photograph left the server: %d requests", len(model.sent()))
	}

	r = putSettings(t, admin, map[string]any{"analysisSendUnscreened": true})
	if r.Status != http.StatusOK || r.Data()["analysisSendUnscreened"] != true || settingsOf(t, admin)["analysisSendUnscreened"] != true {
		t.Fatalf("allow unscreened images: %d %s", r.Status, r.Raw)
	}
	var reason string
	if err := w.app.DB.Pool.QueryRow(context.Background(),
		`SELECT reason FROM audit_log WHERE action = 'settings_update' AND actor_id = $1 ORDER BY id DESC LIMIT 1`, admin.ID).Scan(&reason); err != nil ||
		reason != "analysisSendUnscreened false to true" {
		t.Errorf("audited change: %q, %v", reason, err)
	}

	r = provider.Do(t, "POST", "/api/analyze/"+photo, nil)
	warnings, _ = r.Data()["warnings"].([]any)
	if r.Status != http.StatusOK || r.Data()["provider"] != "openai" || len(model.sent()) != 1 ||
		!strings.HasPrefix(warnings[len(warnings)-1].(string), "Sent to the external model unscreened") {
		t.Fatalf("a photograph once unscreened images may go: %d %s, %d requests", r.Status, r.Raw, len(model.sent()))
	}
	if disclosures := reasonsSeenBy(t, patient, photo, "disclose"); len(disclosures) != 1 || !strings.Contains(disclosures[0], "unscreened") {
		t.Errorf("the patient reads the disclosure as %q", disclosures)
	}
}
