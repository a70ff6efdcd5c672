package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/go-chi/chi/v5"

	"github.com/medishare/medishare/internal/httpapi/openapi"
	"github.com/medishare/medishare/internal/service"
)

// loadDocument loads and validates an OpenAPI document with kin-openapi.
func loadDocument(t *testing.T, data []byte) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(data)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if err := doc.Validate(context.Background(), openapi3.EnableMultiError()); err != nil {
		t.Fatalf("not a valid OpenAPI document: %v", err)
	}
	return doc
}

// chiParam is a chi path parameter, with or without a pattern: {id}, {id:[0-9]+}.
var chiParam = regexp.MustCompile(`\{([^}:]+)(:[^}]*)?\}`)

// TestOpenAPIDescribesEveryRoute walks the router: every /api route must be
// in the document, and every operation of the document must be served.
func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	t.Parallel()
	doc := loadDocument(t, openapi.YAML)
	h := NewRouter(Deps{
		Logger:    slog.New(slog.NewTextHandler(io.Discard, nil)),
		Readiness: NewReadiness(),
		WebApp:    testApp,
		Services:  &service.Services{}, // mounts every route; none is called
	})
	served := map[string]bool{}
	err := chi.Walk(h.(chi.Routes), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if !strings.HasPrefix(route, "/api/") && !strings.HasPrefix(route, "/dicomweb/") {
			return nil
		}
		if strings.Contains(route, "*") {
			t.Errorf("%s %s: a wildcard route cannot be described", method, route)
			return nil
		}
		path := chiParam.ReplaceAllString(strings.TrimSuffix(route, "/"), "{$1}")
		served[method+" "+path] = true
		if item := doc.Paths.Value(path); item == nil || item.GetOperation(method) == nil {
			t.Errorf("%s %s is served but missing from internal/httpapi/openapi/openapi.yaml", method, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(served) < 40 {
		t.Fatalf("the walk found only %d /api routes", len(served))
	}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			if !served[method+" "+path] {
				t.Errorf("openapi.yaml describes %s %s, which the router does not serve", method, path)
			}
		}
	}
}

func TestOpenAPIDocumentServed(t *testing.T) {
	t.Parallel()
	h := newTestRouter(t)
	rec := do(t, h, "GET", "/api/openapi.json", nil)
	if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		t.Fatalf("%d %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	var top struct {
		OpenAPI string `json:"openapi"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &top); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if !regexp.MustCompile(`^3\.1\.\d+$`).MatchString(top.OpenAPI) {
		t.Fatalf("openapi = %q, want 3.1.x", top.OpenAPI)
	}
	doc := loadDocument(t, rec.Body.Bytes())
	if !doc.IsOpenAPI31OrLater() || doc.Paths.Value("/api/auth/login") == nil {
		t.Fatalf("the served document lacks its routes")
	}
	// Public: no token needed, and like all of /api never cached.
	if rec.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("Cache-Control = %q", rec.Header().Get("Cache-Control"))
	}
}

func TestReferencePage(t *testing.T) {
	t.Parallel()
	h := newTestRouter(t)
	tests := []struct {
		path, contentType, has string
	}{
		{"/api/docs", "text/html; charset=utf-8", `<script src="/api/docs/docs.js" defer></script>`},
		{"/api/docs/docs.js", "text/javascript; charset=utf-8", "/api/openapi.json"},
		{"/api/docs/docs.css", "text/css; charset=utf-8", ".method"},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			rec := do(t, h, "GET", tc.path, nil)
			if rec.Code != 200 || rec.Header().Get("Content-Type") != tc.contentType {
				t.Fatalf("%d %q, want 200 %q", rec.Code, rec.Header().Get("Content-Type"), tc.contentType)
			}
			if rec.Header().Get("Content-Security-Policy") != contentSecurityPolicy {
				t.Errorf("CSP = %q", rec.Header().Get("Content-Security-Policy"))
			}
			if !strings.Contains(rec.Body.String(), tc.has) {
				t.Errorf("body lacks %q", tc.has)
			}
		})
	}
	// The page keeps the CSP: its script and style come from files, nothing inline.
	page := do(t, h, "GET", "/api/docs", nil).Body.String()
	for _, inline := range []*regexp.Regexp{
		regexp.MustCompile(`<script(?:\s[^>]*)?>\s*[^<\s]`), // a script with a body
		regexp.MustCompile(`<style`),
		regexp.MustCompile(`\sstyle=`),
		regexp.MustCompile(`\son[a-z]+=`), // event handler attributes
	} {
		if inline.MatchString(page) {
			t.Errorf("the page has inline script or style: %s", inline)
		}
	}
	if !strings.Contains(page, `<link rel="stylesheet" href="/api/docs/docs.css">`) {
		t.Error("the page does not load its style sheet")
	}
}
