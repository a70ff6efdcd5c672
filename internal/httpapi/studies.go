package httpapi

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/medishare/medishare/internal/service"
)

// updateImage changes an image's caption, or gives a study that waits for
// one its patient.
func (a *api) updateImage(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Caption   *string `json:"caption"`
		PatientID *string `json:"patientId"`
	}
	if err := readJSON(w, r, maxJSONBody, &in); err != nil {
		writeError(w, r, err)
		return
	}
	p := principal(r)
	im, err := a.Images.Update(r.Context(), p, chi.URLParam(r, "id"), service.ImageChange(in), meta(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "Image updated.", a.toImageJSON(p, im))
}

// seriesJSON is one series of a study.
type seriesJSON struct {
	SeriesInstanceUID string `json:"seriesInstanceUid"`
	SeriesNumber      *int   `json:"seriesNumber"`
	Modality          string `json:"modality"`
	Description       string `json:"description"`
	BodyPart          string `json:"bodyPart"`
	Instances         int    `json:"instances"`
}

func (a *api) listSeries(w http.ResponseWriter, r *http.Request) {
	series, err := a.Images.Series(r.Context(), principal(r), chi.URLParam(r, "id"), meta(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	out := make([]seriesJSON, len(series))
	for i, s := range series {
		out[i] = seriesJSON{SeriesInstanceUID: s.SeriesUID, SeriesNumber: s.SeriesNumber, Modality: s.Modality,
			Description: s.Description, BodyPart: s.BodyPart, Instances: s.Instances}
	}
	writeOK(w, http.StatusOK, "", out)
}

func (a *api) listUnassigned(w http.ResponseWriter, r *http.Request) {
	p := principal(r)
	images, err := a.Images.ListUnassigned(r.Context(), p, meta(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	out := make([]imageJSON, len(images))
	for i, im := range images {
		out[i] = a.toImageJSON(p, im)
	}
	writeOK(w, http.StatusOK, "", out)
}

func (a *api) uploadLimits(w http.ResponseWriter, r *http.Request) {
	l, err := a.Images.Limits(r.Context())
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "", map[string]int64{
		"maxUploadBytes": l.UploadBytes, "maxInstanceBytes": l.InstanceBytes, "maxStudyBytes": l.StudyBytes,
	})
}
