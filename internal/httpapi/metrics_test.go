package httpapi_test

import (
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
