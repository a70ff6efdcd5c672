package httpapi_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/testutil/apptest"
)

func scrape(t *testing.T, app *apptest.App) string {
	t.Helper()
	rec := httptest.NewRecorder()
	app.Metrics.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	return string(body)
}

// Requests are counted by route pattern, never by the raw path with its ids.
func TestMetricsByRoutePattern(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	img := uploaded(t, provider, patient.ID, "knee.png", pngBytes(t, 64, 64))
	if r := provider.Do(t, "GET", "/api/upload/image/"+img, nil); r.Status != http.StatusOK {
		t.Fatalf("get image: %d", r.Status)
	}
	provider.Do(t, "GET", "/api/upload/image/00000000-0000-0000-0000-000000000000", nil)
	provider.Do(t, "GET", "/api/no/such/"+img, nil)

	got := scrape(t, app)
	for _, want := range []string{
		`medishare_http_requests_total{method="GET",route="/api/upload/image/{id}",status="200"} 1`,
		`medishare_http_requests_total{method="GET",route="/api/upload/image/{id}",status="404"} 1`,
		`medishare_http_requests_total{method="POST",route="/api/auth/login",status="200"}`,
		`medishare_http_request_duration_seconds_bucket{method="GET",route="/api/upload/image/{id}",status="404",le="0.005"}`,
		"medishare_http_requests_in_flight 0",
		"go_goroutines",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-`).MatchString(got) {
		t.Error("an id reached a metric label")
	}
}

// series are the HTTP metrics' series in a scrape: each name with its
// labels, without the value.
func series(scraped string) map[string]bool {
	out := map[string]bool{}
	for line := range strings.SplitSeq(scraped, "\n") {
		if strings.HasPrefix(line, "medishare_http_") {
			name, _, _ := strings.Cut(line, " ")
			out[name] = true
		}
	}
	return out
}

// TestMetricsLabelsAreBounded: whatever a client sends, the HTTP metrics'
// labels take values from closed sets (an unauthenticated client with
// made-up methods once grew /metrics to 386 MB): a method the server does
// not know is "other", and a path no route matches is one route label,
// never the raw path.
func TestMetricsLabelsAreBounded(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	c := app.Client()
	send := func(method, path string) {
		t.Helper()
		if r := c.Send(t, method, path, "", nil); r.Status < 400 {
			t.Fatalf("%s %s: %d", method, path, r.Status)
		}
	}
	// One request of each kind first, so that its series exist.
	send("BREW", "/api/auth/login")
	send("BREW", "/api/no/such/route-x")
	send("GET", "/api/no/such/route-x")
	send("BREW", "/no/such/page-x.png")
	send("GET", "/no/such/page-x.png")
	before := series(scrape(t, app))

	for i := range 10 {
		method := fmt.Sprintf("PROBE%d", i)
		send(method, "/api/auth/login")
		send(method, fmt.Sprintf("/api/no/such/route-%d", i))
		send("GET", fmt.Sprintf("/api/no/such/route-%d", i))
		send(method, fmt.Sprintf("/no/such/page-%d.png", i))
		send("GET", fmt.Sprintf("/no/such/page-%d.png", i))
	}
	got := scrape(t, app)
	after := series(got)
	for s := range after {
		if !before[s] {
			t.Errorf("a new series: %s", s)
		}
	}
	if !strings.Contains(got, `method="other"`) {
		t.Error(`no method="other"`)
	}
	// Every path no route matched, in the API or not, is one route label.
	for _, leak := range []string{"BREW", "PROBE", "no/such", `route="/api/*"`} {
		if strings.Contains(got, leak) {
			t.Errorf("%q reached a metric label", leak)
		}
	}
}
