package analysis_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/medishare/medishare/internal/analysis"
)

// Images whose pixels may carry identifying text never leave the server.
func TestOpenAIWithholdsImagesWithTextInThePixels(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls.Add(1) }))
	defer srv.Close()
	o, err := analysis.NewOpenAI(analysis.OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []analysis.Facts{{Modality: "US"}, {Modality: "SC"}, {Modality: "OT"}, {Modality: "CT", BurnedInAnnotation: true}} {
		if _, sent := o.Discloses(f); sent {
			t.Errorf("%+v would be sent", f)
		}
		r, err := o.Analyze(context.Background(), analysis.Input{Pixels: phantom(300), Facts: f})
		if err != nil {
			t.Fatal(err)
		}
		if r.Provider != "builtin" || !strings.HasPrefix(r.Warnings[len(r.Warnings)-1], "Not sent to the external model: ") {
			t.Errorf("%+v: provider %q, warnings %v", f, r.Provider, r.Warnings)
		}
	}
	if calls.Load() != 0 {
		t.Errorf("%d requests reached the model", calls.Load())
	}
	if to, sent := o.Discloses(analysis.Facts{Modality: "CT"}); !sent || !strings.HasPrefix(srv.URL, "http://"+to) {
		t.Errorf("a CT: sent %v to %q", sent, to)
	}
}

func TestNewOpenAIChecksItsConfiguration(t *testing.T) {
	for _, c := range []analysis.OpenAIConfig{{BaseURL: "ftp://x/v1", Model: "m"}, {BaseURL: "not a url", Model: "m"}, {BaseURL: "http://127.0.0.1:1/v1"}} {
		if _, err := analysis.NewOpenAI(c); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}
