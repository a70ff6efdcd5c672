package httpapi

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/medishare/medishare/internal/service"
)

func (a *api) mountAnalysis(r chi.Router) {
	r.Get("/analyze/{imageId}", a.getAnalysis)
	r.Post("/analyze/{imageId}", a.runAnalysis)
}

// conditionJSON is one entry of a differential diagnosis.
type conditionJSON struct {
	Condition  string  `json:"condition"`
	Confidence float64 `json:"confidence"`
}

// measurementJSON is one figure the built-in analyser measured.
type measurementJSON struct {
	Key   string  `json:"key"`
	Label string  `json:"label"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

// analysisJSON is an analysis as api.md spells it.
type analysisJSON struct {
	Description           string            `json:"description"`
	DifferentialDiagnosis []conditionJSON   `json:"differentialDiagnosis"`
	Treatment             []string          `json:"treatment"`
	FollowUp              []string          `json:"followUp"`
	Warnings              []string          `json:"warnings"`
	Confidence            *float64          `json:"confidence"`
	ImageID               string            `json:"imageId"`
	Timestamp             time.Time         `json:"timestamp"`
	Model                 string            `json:"model"`
	Provider              string            `json:"provider"`
	Measurements          []measurementJSON `json:"measurements"`
	// Provenance of an external model's analysis; absent for the built-in one.
	Provenance *provenanceJSON `json:"provenance,omitempty"`
}

// provenanceJSON says what an external analysis rests on.
type provenanceJSON struct {
	PromptVersion    string `json:"promptVersion"`
	SchemaVersion    string `json:"schemaVersion"`
	ImageSHA256      string `json:"imageSha256"`
	DeIdentification string `json:"deIdentification"`
	SentTo           string `json:"sentTo"`
}

func toAnalysisJSON(an service.Analysis) analysisJSON {
	out := analysisJSON{Description: an.Description, Treatment: nonNil(an.Treatment), FollowUp: nonNil(an.FollowUp),
		Warnings: nonNil(an.Warnings), Confidence: an.Confidence, ImageID: an.ImageID, Timestamp: an.CreatedAt.UTC(),
		Model: an.Model, Provider: an.Provider, DifferentialDiagnosis: []conditionJSON{}, Measurements: []measurementJSON{}}
	for _, c := range an.DifferentialDiagnosis {
		out.DifferentialDiagnosis = append(out.DifferentialDiagnosis, conditionJSON{Condition: c.Condition, Confidence: c.Confidence})
	}
	if pv := an.Provenance; pv != nil {
		out.Provenance = &provenanceJSON{PromptVersion: pv.PromptVersion, SchemaVersion: pv.SchemaVersion, ImageSHA256: pv.ImageSHA256,
			DeIdentification: pv.DeIdentification, SentTo: pv.SentTo}
	}
	for _, m := range an.Measurements {
		out.Measurements = append(out.Measurements, measurementJSON{Key: m.Key, Label: m.Label, Value: m.Value, Unit: m.Unit})
	}
	return out
}

// nonNil is list, or an empty list: the app reads [] rather than null.
func nonNil(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

// analysisDone is the message of every analysis answer, the stored one
// included: the app toasts it (product.md §7, "success toast from message").
const analysisDone = "Analysis complete."

func (a *api) getAnalysis(w http.ResponseWriter, r *http.Request) {
	an, err := a.Analysis.Get(r.Context(), principal(r), chi.URLParam(r, "imageId"), meta(r))
	writeAnalysis(w, r, an, err)
}

func (a *api) runAnalysis(w http.ResponseWriter, r *http.Request) {
	an, err := a.Analysis.Run(r.Context(), principal(r), chi.URLParam(r, "imageId"), meta(r))
	writeAnalysis(w, r, an, err)
}

func writeAnalysis(w http.ResponseWriter, r *http.Request, an service.Analysis, err error) {
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, analysisDone, toAnalysisJSON(an))
}
