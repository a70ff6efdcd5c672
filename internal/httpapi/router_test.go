package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/go-chi/chi/v5"

	"github.com/medishare/medishare/internal/domain"
)

var testApp = fstest.MapFS{
	"index.html":            {Data: []byte("<!doctype html><title>MediShare</title>")},
	"assets/index-abc12.js": {Data: []byte("console.log('app')")},
	"favicon.svg":           {Data: []byte("<svg/>")},
}

func newTestRouter(t *testing.T, checks ...Check) http.Handler {
	t.Helper()
	return NewRouter(Deps{
		Logger:    slog.New(slog.NewTextHandler(io.Discard, nil)),
		Readiness: NewReadiness(checks...),
		WebApp:    testApp,
	})
}

func do(t *testing.T, h http.Handler, method, target string, body io.Reader) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, body)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestSPAServing(t *testing.T) {
	t.Parallel()
	h := newTestRouter(t)
	tests := []struct {
		name         string
		method, path string
		status       int
		bodyHas      string
		cacheControl string
		contentType  string
	}{
		{"root serves index", "GET", "/", 200, "<title>MediShare", "no-cache", "text/html"},
		{"app route serves index", "GET", "/dashboard", 200, "<title>MediShare", "no-cache", "text/html"},
		{"nested app route serves index", "GET", "/user-profile/42", 200, "<title>MediShare", "no-cache", "text/html"},
		{"unknown route without extension serves index", "GET", "/no/such/page", 200, "<title>MediShare", "no-cache", "text/html"},
		{"hashed asset is immutable", "GET", "/assets/index-abc12.js", 200, "console.log", "public, max-age=31536000, immutable", "javascript"},
		{"other file is revalidated", "GET", "/favicon.svg", 200, "<svg/>", "no-cache", "image/svg+xml"},
		{"missing asset is a real 404", "GET", "/assets/missing.js", 404, "", "", ""},
		{"missing file with extension is a 404", "GET", "/robots.txt", 404, "", "", ""},
		{"path traversal stays inside", "GET", "/assets/../../../etc/hostname.txt", 404, "", "", ""},
		{"HEAD works", "HEAD", "/dashboard", 200, "", "no-cache", "text/html"},
		{"POST to the app is refused", "POST", "/dashboard", 405, "", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := do(t, h, tc.method, tc.path, nil)
			if rec.Code != tc.status {
				t.Fatalf("status = %d, want %d (body %q)", rec.Code, tc.status, rec.Body.String())
			}
			if !strings.Contains(rec.Body.String(), tc.bodyHas) {
				t.Errorf("body %q does not contain %q", rec.Body.String(), tc.bodyHas)
			}
			if tc.cacheControl != "" && rec.Header().Get("Cache-Control") != tc.cacheControl {
				t.Errorf("Cache-Control = %q, want %q", rec.Header().Get("Cache-Control"), tc.cacheControl)
			}
			if !strings.Contains(rec.Header().Get("Content-Type"), tc.contentType) {
				t.Errorf("Content-Type = %q, want it to contain %q", rec.Header().Get("Content-Type"), tc.contentType)
			}
		})
	}
}

func TestSPANotBuilt(t *testing.T) {
	t.Parallel()
	h := NewRouter(Deps{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Readiness: NewReadiness(), WebApp: fstest.MapFS{}})
	rec := do(t, h, "GET", "/", nil)
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "make build") {
		t.Fatalf("got %d %q, want 503 telling to build", rec.Code, rec.Body.String())
	}
}

func TestUnknownAPIPathIsJSON404(t *testing.T) {
	t.Parallel()
	h := newTestRouter(t)
	for _, path := range []string{"/api", "/api/nope", "/api/", "/api/users/../nope", "/api/deeply/nested/unknown.json"} {
		rec := do(t, h, "GET", path, nil)
		if rec.Code != http.StatusNotFound {
			t.Errorf("%s: status = %d, want 404", path, rec.Code)
			continue
		}
		var body errorBody
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body.Message == "" {
			t.Errorf("%s: body %q is not a JSON error with a message", path, rec.Body.String())
		}
		if rec.Header().Get("Cache-Control") != "no-store" {
			t.Errorf("%s: Cache-Control = %q, want no-store", path, rec.Header().Get("Cache-Control"))
		}
	}
}

func TestSecurityHeaders(t *testing.T) {
	t.Parallel()
	for _, hsts := range []bool{false, true} {
		h := NewRouter(Deps{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Readiness: NewReadiness(), WebApp: testApp, HSTS: hsts})
		for _, path := range []string{"/", "/api/nope", "/healthz", "/assets/index-abc12.js"} {
			rec := do(t, h, "GET", path, nil)
			hdr := rec.Header()
			csp := hdr.Get("Content-Security-Policy")
			// 'wasm-unsafe-eval' compiles the viewer's WebAssembly codecs (security.md S21); no other script source.
			for _, want := range []string{"default-src 'self'", "script-src 'self' 'wasm-unsafe-eval';", "frame-ancestors 'none'", "object-src 'none'"} {
				if !strings.Contains(csp, want) {
					t.Errorf("%s: CSP %q lacks %q", path, csp, want)
				}
			}
			if strings.Contains(csp, "'unsafe-inline'") || strings.Contains(csp, "'unsafe-eval'") {
				t.Errorf("%s: CSP allows unsafe sources: %q", path, csp)
			}
			for name, want := range map[string]string{
				"X-Content-Type-Options": "nosniff",
				"Referrer-Policy":        "no-referrer",
				"X-Frame-Options":        "DENY",
			} {
				if got := hdr.Get(name); got != want {
					t.Errorf("%s: %s = %q, want %q", path, name, got, want)
				}
			}
			if got := hdr.Get("Strict-Transport-Security") != ""; got != hsts {
				t.Errorf("%s: HSTS present = %v, want %v", path, got, hsts)
			}
			if hdr.Get("X-Request-Id") == "" {
				t.Errorf("%s: no X-Request-Id", path)
			}
			if hdr.Get("Access-Control-Allow-Origin") != "" {
				t.Errorf("%s: CORS header sent without an allow-list", path)
			}
		}
	}
}

func TestErrorMapping(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err       error
		status    int
		message   string
		code      string
		hasFields bool
	}{
		{domain.Errorf(domain.EINVALID, "Bad request."), 400, "Bad request.", "", false},
		{&domain.Error{Kind: domain.EUNAUTHENTICATED, Message: "Invalid or expired token", Code: "Invalid or expired token"}, 401, "Invalid or expired token", "Invalid or expired token", false},
		{domain.Errorf(domain.EFORBIDDEN, "Not allowed."), 403, "Not allowed.", "", false},
		{domain.Errorf(domain.ENOTFOUND, "Image not found."), 404, "Image not found.", "", false},
		{domain.Errorf(domain.ECONFLICT, "Taken."), 409, "Taken.", "", false},
		{domain.Errorf(domain.EGONE, "This share has expired."), 410, "This share has expired.", "", false},
		{domain.Errorf(domain.ETOOLARGE, "File size exceeds 10MB limit."), 413, "File size exceeds 10MB limit.", "", false},
		{domain.Errorf(domain.EUNSUPPORTED, "Invalid file type."), 415, "Invalid file type.", "", false},
		{domain.ValidationError("Check the fields.", domain.FieldError{Field: "email", Message: "is required"}), 422, "Check the fields.", "", true},
		{&domain.Error{Kind: domain.ETHROTTLED, Message: "Too many attempts.", RetryAfterSeconds: 60}, 429, "Too many attempts.", "", false},
		{domain.Wrap(domain.EUNAVAILABLE, errors.New("dial tcp 10.0.0.5:5432: refused"), "The service is temporarily unavailable."), 503, "The service is temporarily unavailable.", "", false},
		{errors.New("pq: secret internal detail"), 500, "Internal server error.", "", false},
	}
	for _, tc := range tests {
		t.Run(http.StatusText(tc.status), func(t *testing.T) {
			r := chi.NewRouter()
			r.Use(withRequestID)
			r.Get("/", func(w http.ResponseWriter, r *http.Request) { writeError(w, r, tc.err) })
			rec := do(t, r, "GET", "/", nil)
			if rec.Code != tc.status {
				t.Fatalf("status = %d, want %d", rec.Code, tc.status)
			}
			var body errorBody
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
				t.Fatalf("body %q: %v", rec.Body.String(), err)
			}
			if body.Message != tc.message || body.Error != tc.code || (len(body.Errors) > 0) != tc.hasFields {
				t.Errorf("body = %+v", body)
			}
			if strings.Contains(rec.Body.String(), "10.0.0.5") || strings.Contains(rec.Body.String(), "secret internal") {
				t.Errorf("internal details leaked: %q", rec.Body.String())
			}
			if tc.status >= 500 && (body.RequestID == "" || body.RequestID != rec.Header().Get("X-Request-Id")) {
				t.Errorf("5xx request id %q, header %q", body.RequestID, rec.Header().Get("X-Request-Id"))
			}
			if tc.status == 429 && rec.Header().Get("Retry-After") != "60" {
				t.Errorf("Retry-After = %q", rec.Header().Get("Retry-After"))
			}
		})
	}
}

func TestPanicBecomesJSON500WithRequestID(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	r := chi.NewRouter()
	r.Use(withRequestID, withRecover(slog.New(slog.NewJSONHandler(&logs, nil))))
	r.Get("/boom", func(http.ResponseWriter, *http.Request) { panic("kaboom") })
	rec := do(t, r, "GET", "/boom", nil)
	if rec.Code != 500 {
		t.Fatalf("status = %d", rec.Code)
	}
	var body errorBody
	_ = json.Unmarshal(rec.Body.Bytes(), &body)
	if body.Message != "Internal server error." || body.RequestID == "" {
		t.Fatalf("body = %q", rec.Body.String())
	}
	if !strings.Contains(logs.String(), body.RequestID) || !strings.Contains(logs.String(), "kaboom") {
		t.Errorf("log does not name the request id and panic: %s", logs.String())
	}
}

func TestTrustedProxyRule(t *testing.T) {
	t.Parallel()
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	tests := []struct {
		name string
		peer string
		xff  []string
		want string
	}{
		{"direct client, no header", "203.0.113.7:5555", nil, "203.0.113.7"},
		{"untrusted peer cannot spoof", "203.0.113.7:5555", []string{"1.2.3.4"}, "203.0.113.7"},
		{"trusted proxy passes the client", "10.1.2.3:443", []string{"198.51.100.9"}, "198.51.100.9"},
		{"spoofed left entries are ignored", "10.1.2.3:443", []string{"6.6.6.6, 198.51.100.9"}, "198.51.100.9"},
		{"chain of trusted proxies", "10.1.2.3:443", []string{"198.51.100.9, 10.9.9.9"}, "198.51.100.9"},
		{"several header lines", "10.1.2.3:443", []string{"6.6.6.6", "198.51.100.9"}, "198.51.100.9"},
		{"garbage hop stops the walk", "10.1.2.3:443", []string{"198.51.100.9, not-an-ip"}, "10.1.2.3"},
		{"only trusted hops", "10.1.2.3:443", []string{"10.4.4.4"}, "10.4.4.4"},
		{"ipv6 trusted peer", "[::1]:8080", []string{"2001:db8::1"}, "2001:db8::1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got string
			h := withClientIP(trusted)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = ClientIP(r.Context()) }))
			req := httptest.NewRequest("GET", "/", nil)
			req.RemoteAddr = tc.peer
			for _, v := range tc.xff {
				req.Header.Add("X-Forwarded-For", v)
			}
			h.ServeHTTP(httptest.NewRecorder(), req)
			if got != tc.want {
				t.Errorf("client ip = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestReadiness(t *testing.T) {
	t.Parallel()
	var dbDown bool
	h := newTestRouter(t, Check{Name: "database", Ping: func(context.Context) error {
		if dbDown {
			return errors.New("connection refused at 10.0.0.5")
		}
		return nil
	}})
	if rec := do(t, h, "GET", "/readyz", nil); rec.Code != 200 {
		t.Fatalf("ready: %d", rec.Code)
	}
	dbDown = true
	rec := do(t, h, "GET", "/readyz", nil)
	if rec.Code != 503 || strings.Contains(rec.Body.String(), "10.0.0.5") {
		t.Fatalf("down: %d %q", rec.Code, rec.Body.String())
	}
	if rec := do(t, h, "GET", "/healthz", nil); rec.Code != 200 {
		t.Fatalf("healthz while db down: %d", rec.Code)
	}
}

func TestReadJSON(t *testing.T) {
	t.Parallel()
	type payload struct {
		Email string `json:"email"`
	}
	tests := []struct {
		name        string
		contentType string
		body        string
		kind        string
	}{
		{"valid", "application/json", `{"email":"a@b.c","unknown":1}`, ""},
		{"no content type is accepted", "", `{"email":"a@b.c"}`, ""},
		{"empty", "application/json", ``, domain.EINVALID},
		{"malformed", "application/json", `{"email":`, domain.EINVALID},
		{"wrong type", "application/json", `{"email":5}`, domain.EVALIDATION},
		{"two values", "application/json", `{"email":"a"}{"email":"b"}`, domain.EINVALID},
		{"too large", "application/json", `{"email":"` + strings.Repeat("a", maxJSONBody) + `"}`, domain.ETOOLARGE},
		{"not json", "text/plain", `{"email":"a"}`, domain.EUNSUPPORTED},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest("POST", "/", strings.NewReader(tc.body))
			if tc.contentType != "" {
				req.Header.Set("Content-Type", tc.contentType)
			}
			var p payload
			err := readJSON(httptest.NewRecorder(), req, maxJSONBody, &p)
			if tc.kind == "" {
				if err != nil || p.Email != "a@b.c" {
					t.Fatalf("err = %v, payload = %+v", err, p)
				}
				return
			}
			if domain.ErrorKind(err) != tc.kind {
				t.Fatalf("kind = %q (%v), want %q", domain.ErrorKind(err), err, tc.kind)
			}
		})
	}
}

func TestCancelledRequestIsNotAServerError(t *testing.T) {
	var logs bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	defer slog.SetDefault(prev)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptest.NewRequest("GET", "/", nil).WithContext(ctx)
	rec := httptest.NewRecorder()
	writeError(rec, req, fmt.Errorf("query: %w", context.Canceled))
	if strings.Contains(logs.String(), "ERROR") || rec.Body.Len() != 0 {
		t.Fatalf("a client's cancellation was treated as a failure: log %q, body %q", logs.String(), rec.Body.String())
	}
}
