package httpapi_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/medishare/medishare/internal/analysis"
	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/testutil/apptest"
)

func uploaded(t *testing.T, provider *apptest.Person, patientID, name string, content []byte) string {
	t.Helper()
	r := upload(t, provider, patientID, name, content)
	if r.Status != http.StatusCreated {
		t.Fatalf("upload %s: %d %s", name, r.Status, r.Raw)
	}
	return r.Data()["id"].(string)
}

func TestBuiltinAnalysis(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	ct := uploaded(t, provider, patient.ID, "ct.dcm", fixture(t, "CT_small.dcm"))

	r := provider.Do(t, "GET", "/api/analyze/"+ct, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("analysis: %d %s", r.Status, r.Raw)
	}
	// The app toasts the message of the answer (product.md §7).
	if r.Message() != "Analysis complete." {
		t.Errorf("message %q, want %q", r.Message(), "Analysis complete.")
	}
	a := r.Data()
	warnings, _ := a["warnings"].([]any)
	if a["provider"] != "builtin" || a["model"] != analysis.BuiltinModel || a["imageId"] != ct || a["confidence"] != nil ||
		len(a["differentialDiagnosis"].([]any)) != 0 || len(a["treatment"].([]any)) != 0 ||
		len(warnings) == 0 || warnings[0] != analysis.NotADiagnosis || !strings.HasPrefix(a["description"].(string), "A CT image") {
		t.Fatalf("the built-in analysis of a CT: %s", r.Raw)
	}
	if len(a["measurements"].([]any)) < 10 || len(a["followUp"].([]any)) == 0 || !strings.Contains(r.Raw, `"key":"bit_depth_used"`) {
		t.Errorf("measurements and follow-up: %s", r.Raw)
	}

	// The stored analysis comes back as it was; POST runs a new one.
	if again := provider.Do(t, "GET", "/api/analyze/"+ct, nil); again.Data()["timestamp"] != a["timestamp"] || again.Message() != "Analysis complete." {
		t.Errorf("a second GET ran again or says nothing: %v then %v, %q", a["timestamp"], again.Data()["timestamp"], again.Message())
	}
	app.Clock.Shift(2e9)
	rerun := provider.Do(t, "POST", "/api/analyze/"+ct, nil)
	if rerun.Status != http.StatusOK || rerun.Data()["timestamp"] == a["timestamp"] {
		t.Fatalf("run again: %d %s", rerun.Status, rerun.Raw)
	}
	if n := audited(t, app, "analyze", ct, true); n != 2 {
		t.Errorf("%d analyses audited, want 2", n)
	}
	var rows int
	_ = app.DB.Pool.QueryRow(context.Background(), `SELECT count(*) FROM analyses WHERE image_id = $1`, ct).Scan(&rows)
	if rows != 2 {
		t.Errorf("%d analyses kept, want both (the history)", rows)
	}

	// Sealed at rest: the description is nowhere in the table.
	var sealed []byte
	_ = app.DB.Pool.QueryRow(context.Background(), `SELECT sealed FROM analyses WHERE image_id = $1 LIMIT 1`, ct).Scan(&sealed)
	if len(sealed) == 0 || bytes.Contains(sealed, []byte("CT image")) || bytes.Contains(sealed, []byte(analysis.NotADiagnosis)) {
		t.Errorf("the stored analysis is readable: %q", sealed)
	}

	// The patient sees who analysed their image.
	history := auditPage(t, patient, "limit=20&imageId="+ct)
	found := false
	for _, e := range history.List() {
		found = found || e["actiontype"] == "analyze"
	}
	if !found {
		t.Errorf("no analysis in the patient's history: %s", history.Raw)
	}
}

func TestAnalysisRules(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	colleague := app.SignUp(t, domain.RoleProvider)
	stranger := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	admin := app.SignUp(t, domain.RoleAdmin)
	img := uploaded(t, provider, patient.ID, "knee.png", pngBytes(t, 300, 200))
	pdf := uploaded(t, provider, patient.ID, "report.pdf", pdfOfSize(2000, "analysis"))

	if r := provider.Do(t, "GET", "/api/analyze/"+pdf, nil); r.Status != http.StatusUnprocessableEntity || r.Message() != "AI analysis is available for images only." {
		t.Errorf("a PDF: %d %s", r.Status, r.Raw)
	}
	if r := patient.Do(t, "GET", "/api/analyze/"+img, nil); r.Status != http.StatusForbidden {
		t.Errorf("a patient: %d %s", r.Status, r.Raw)
	}
	if r := stranger.Do(t, "GET", "/api/analyze/"+img, nil); r.Status != http.StatusNotFound || r.Message() != "Image not found." {
		t.Errorf("a provider who may not see it: %d %s", r.Status, r.Raw)
	}
	for _, bad := range []string{"not-an-id", "00000000-0000-0000-0000-000000000000"} {
		if r := provider.Do(t, "POST", "/api/analyze/"+bad, nil); r.Status != http.StatusNotFound {
			t.Errorf("image %q: %d %s", bad, r.Status, r.Raw)
		}
	}
	shareID, code := share(t, app, provider, colleague, img, nil)
	if r := colleague.Do(t, "GET", "/api/analyze/"+img, nil); r.Status != http.StatusForbidden {
		t.Errorf("a colleague before verifying the share: %d %s", r.Status, r.Raw)
	}
	verify(t, colleague, shareID, code)
	for _, p := range []*apptest.Person{colleague, admin} {
		if r := p.Do(t, "GET", "/api/analyze/"+img, nil); r.Status != http.StatusOK {
			t.Errorf("%s: %d %s", p.Role, r.Status, r.Raw)
		}
	}
	if n := audited(t, app, "access_denied", pdf, false); n != 1 {
		t.Errorf("%d refusals of the PDF's analysis recorded, want 1", n)
	}

	// At most 20 new analyses an hour per person.
	for i := range 21 {
		r := admin.Do(t, "POST", "/api/analyze/"+img, nil)
		if i < 20 && r.Status != http.StatusOK {
			t.Fatalf("analysis %d: %d %s", i+1, r.Status, r.Raw)
		}
		if i == 20 && (r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "") {
			t.Errorf("analysis 21: %d %s", r.Status, r.Raw)
		}
	}
	// A stored analysis is still read.
	if r := admin.Do(t, "GET", "/api/analyze/"+img, nil); r.Status != http.StatusOK {
		t.Errorf("reading the stored analysis when throttled: %d %s", r.Status, r.Raw)
	}
}

// TestAnalysisRouteMatrix walks both analysis routes with every kind of
// caller (S8, S9): the image's patient and another, its uploader and
// another provider, an admin.
func TestAnalysisRouteMatrix(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	provider2 := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	patient2 := app.SignUp(t, domain.RolePatient)
	admin := app.SignUp(t, domain.RoleAdmin)
	img := uploaded(t, provider, patient.ID, "knee.png", pngBytes(t, 300, 200))
	callers := []*apptest.Person{{Client: app.Client()}, patient, patient2, provider, provider2, admin}
	names := []string{"anonymous", "patient", "patient2", "provider", "provider2", "admin"}
	for _, method := range []string{"GET", "POST"} {
		for i, c := range callers {
			want := [6]int{401, 403, 403, 200, 404, 200}[i]
			if r := c.Do(t, method, "/api/analyze/"+img, nil); r.Status != want {
				t.Errorf("%s as %s: %d, want %d: %s", method, names[i], r.Status, want, r.Raw)
			}
		}
	}
}
