package httpapi_test

import (
	"bytes"
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
	mode     string // ok, error, slow, garbage
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
		content := ""
		switch mode {
		case "error":
			http.Error(w, `{"error":{"message":"overloaded"}}`, http.StatusInternalServerError)
			return
		case "slow": // never answers: the analyzer's timeout (a second here) ends the wait
			<-r.Context().Done()
			return
		case "garbage":
			content = "I think it is a CT scan."
		}
		if content == "" {
			b, _ := json.Marshal(answer)
			content = string(b)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "test-vision-1",
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

func TestOpenAICompatibleAnalysis(t *testing.T) {
	t.Parallel()
	model := newFakeModel(t)
	external, err := analysis.NewOpenAI(analysis.OpenAIConfig{BaseURL: model.URL + "/v1", APIKey: "sk-test-key", Model: "test-vision", Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	app := apptest.New(t, external)
	admin := app.SignUp(t, domain.RoleAdmin)
	provider := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	const caption = "Abdomen CT for Jane Roe, DOB 1970-01-01"
	r := provider.Upload(t, [][2]string{{"caption", caption}, {"patientId", patient.ID}, {"file"}}, "roe_jane_ct.dcm", fixture(t, "CT_small.dcm"))
	if r.Status != http.StatusCreated {
		t.Fatalf("upload: %d %s", r.Status, r.Raw)
	}
	ct := r.Data()["id"].(string)

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

	r = provider.Do(t, "POST", "/api/analyze/"+ct, nil)
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
