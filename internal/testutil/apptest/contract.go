package apptest

// Every request a test sends to a stack's /api and every answer it gets are
// checked against the OpenAPI document (internal/httpapi/openapi), so the
// document cannot drift from what the server does. The check sits in front
// of the router, on the server side, so it sees every client of the test
// (the Client helpers, http.DefaultClient, streams) alike.
//
// Answers are always checked: their status must be in the document, and
// their headers and bodies must match it. Requests are checked too, but a
// mismatch is reported only when the server accepted the request (a status
// below 400): the tests send malformed requests on purpose, and those are
// the server's to refuse.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/medishare/medishare/internal/httpapi/openapi"
)

// maxChecked is the most of a body kept for the check; a larger body
// (none of the tests' answers is) is left unchecked.
const maxChecked = 16 << 20

var contract struct {
	once   sync.Once
	router routers.Router
	err    error
}

// contractRouter loads and validates the document once per test binary.
func contractRouter() (routers.Router, error) {
	contract.once.Do(func() {
		registerDecoders()
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromData(openapi.YAML)
		if err != nil {
			contract.err = fmt.Errorf("load openapi.yaml: %w", err)
			return
		}
		if err := doc.Validate(loader.Context); err != nil {
			contract.err = fmt.Errorf("openapi.yaml is not a valid OpenAPI document: %w", err)
			return
		}
		contract.router, contract.err = legacy.NewRouter(doc)
	})
	return contract.router, contract.err
}

var uuidPattern = `^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`

// registerDecoders teaches openapi3filter the bodies it cannot read by
// itself, and the uuid format (kin-openapi only knows date, date-time and
// byte unless told).
func registerDecoders() {
	openapi3.DefineStringFormatValidator("uuid", openapi3.NewRegexpFormatValidator(uuidPattern))
	// The reference page and its files are text; their schemas say no more.
	for _, t := range []string{"text/html", "text/javascript", "text/css"} {
		openapi3filter.RegisterBodyDecoder(t, openapi3filter.PlainBodyDecoder)
	}
	// The message stream has no decoder in kin-openapi: read its events.
	openapi3filter.RegisterBodyDecoder("text/event-stream", decodeEventStream)
}

// decodeEventStream reads a text/event-stream body as the document's
// MessageStream schema describes it: a list of events, each with its
// fields (data decoded from JSON), and each comment line as {comment}.
// An event cut off by the end of the stream is dropped, as browsers do.
func decodeEventStream(body io.Reader, _ http.Header, _ *openapi3.SchemaRef, _ openapi3filter.EncodingFn) (any, error) {
	raw, err := io.ReadAll(body)
	if err != nil {
		return nil, err
	}
	blocks := strings.Split(strings.ReplaceAll(string(raw), "\r\n", "\n"), "\n\n")
	events := []any{}
	for _, block := range blocks[:len(blocks)-1] {
		event := map[string]any{}
		var data []string
		for _, line := range strings.Split(block, "\n") {
			if comment, ok := strings.CutPrefix(line, ":"); ok {
				events = append(events, map[string]any{"comment": strings.TrimPrefix(comment, " ")})
				continue
			}
			name, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			if name == "data" {
				data = append(data, value)
				continue
			}
			event[name] = value
		}
		if data != nil {
			var v any
			if err := json.Unmarshal([]byte(strings.Join(data, "\n")), &v); err != nil {
				return nil, fmt.Errorf("event data is not JSON: %w", err)
			}
			event["data"] = v
		}
		if len(event) > 0 {
			events = append(events, event)
		}
	}
	return events, nil
}

// authenticate checks that a request carries what a security scheme asks
// for; whether the credentials are good is the server's business.
func authenticate(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	r, s := in.RequestValidationInput.Request, in.SecurityScheme
	switch {
	case s.Type == "http" && s.Scheme == "bearer":
		if strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
			return nil
		}
	case s.Type == "apiKey" && s.In == "cookie":
		if _, err := r.Cookie(s.Name); err == nil {
			return nil
		}
	case s.Type == "apiKey" && s.In == "query":
		if r.URL.Query().Get(s.Name) != "" {
			return nil
		}
	case s.Type == "apiKey" && s.In == "header":
		if r.Header.Get(s.Name) != "" {
			return nil
		}
	}
	return in.NewError(fmt.Errorf("no %s credentials", in.SecuritySchemeName))
}

// checkContract wraps the stack's router with the check.
func checkContract(t testing.TB, next http.Handler) http.Handler {
	router, err := contractRouter()
	if err != nil {
		t.Fatal(err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/api/") {
			next.ServeHTTP(w, r)
			return
		}
		sent := r.Clone(r.Context())
		body, bodyKept := keepBody(r)
		sent.Body = io.NopCloser(bytes.NewReader(body))
		rec := &recorder{ResponseWriter: w}
		next.ServeHTTP(rec, r) // an answer aborted on purpose panics past the check
		if rec.status == 0 {
			rec.answer(http.StatusOK)
		}
		for _, problem := range check(router, sent, bodyKept, rec) {
			t.Errorf("openapi: %s %s -> %d: %s", r.Method, r.URL.Path, rec.status, problem)
		}
	})
}

// keepBody reads a request body of known, bounded length so that it can
// be checked, and gives the handler the same bytes. A streamed body (no
// Content-Length) is left alone: the tests use those to see the server
// stop reading early.
func keepBody(r *http.Request) ([]byte, bool) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, true
	}
	if r.ContentLength < 0 || r.ContentLength > maxChecked {
		return nil, false
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{err}))
		return nil, false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body, true
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// check returns what in the exchange disagrees with the document.
func check(router routers.Router, req *http.Request, bodyKept bool, rec *recorder) []string {
	ctx := context.Background()
	route, params, err := router.FindRoute(req)
	if err != nil {
		var routeErr *routers.RouteError
		if errors.As(err, &routeErr) && (rec.status == http.StatusNotFound || rec.status == http.StatusMethodNotAllowed) {
			return nil // an unknown path or method, refused by the API's fallbacks
		}
		return []string{"the document has no such operation: " + err.Error()}
	}
	var problems []string
	in := &openapi3filter.RequestValidationInput{
		Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{
			MultiError: true, AuthenticationFunc: authenticate, SkipSettingDefaults: true,
			ExcludeRequestBody: !bodyKept,
		},
	}
	if err := openapi3filter.ValidateRequest(ctx, in); err != nil && rec.status < 400 {
		problems = append(problems, "the server accepted a request the document does not allow: "+describe(err))
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: rec.status, Header: rec.header,
		Options: &openapi3filter.Options{MultiError: true, IncludeResponseStatus: true, ExcludeResponseBody: rec.overflow},
	}
	out.SetBodyBytes(rec.body.Bytes())
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		problems = append(problems, "the answer does not match the document: "+describe(err))
	}
	return problems
}

var blankLines = regexp.MustCompile(`\n\s*\n`)

// describe flattens a (multi-)error onto few lines.
func describe(err error) string {
	var multi openapi3.MultiError
	if errors.As(err, &multi) {
		parts := make([]string, len(multi))
		for i, e := range multi {
			parts[i] = describe(e)
		}
		return strings.Join(parts, "; ")
	}
	return blankLines.ReplaceAllString(strings.TrimSpace(err.Error()), "\n")
}

// recorder passes an answer on and keeps its status, headers and (bounded)
// body for the check.
type recorder struct {
	http.ResponseWriter
	status   int
	header   http.Header
	body     bytes.Buffer
	overflow bool
}

func (r *recorder) answer(status int) {
	r.status = status
	r.header = r.ResponseWriter.Header().Clone()
}

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 && status >= 200 {
		r.answer(status)
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.answer(http.StatusOK)
	}
	if !r.overflow {
		if r.body.Len()+len(b) > maxChecked {
			r.overflow = true
			r.body.Reset()
		} else {
			r.body.Write(b)
		}
	}
	return r.ResponseWriter.Write(b)
}

// Flush and Unwrap keep streaming answers (the message stream) working
// through the recorder.
func (r *recorder) Flush() {
	if r.status == 0 {
		r.answer(http.StatusOK)
	}
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
