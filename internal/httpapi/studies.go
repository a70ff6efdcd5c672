package httpapi

import (
	"archive/zip"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode"

	"github.com/go-chi/chi/v5"

	"github.com/medishare/medishare/internal/domain"
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

// studyArchive streams a study as a ZIP: its instances as stored, in a
// folder per series, each decrypted as it is written. Instances are stored,
// not deflated: most DICOM pixels are compressed already or compress
// poorly for the time it takes, and a stored entry streams at disk speed.
func (a *api) studyArchive(w http.ResponseWriter, r *http.Request) {
	im, instances, err := a.Images.Archive(r.Context(), principal(r), chi.URLParam(r, "id"), meta(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/zip")
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": archiveName(im)}))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	zw := zip.NewWriter(w)
	folders := map[string]string{}
	for _, in := range instances {
		folder, ok := folders[in.SeriesUID]
		if !ok {
			folder = seriesFolder(len(folders)+1, in)
			folders[in.SeriesUID] = folder
		}
		number := 0
		if in.InstanceNumber != nil {
			number = *in.InstanceNumber
		}
		entry, err := zw.CreateHeader(&zip.FileHeader{
			Name: fmt.Sprintf("%s/%05d_%s.dcm", folder, number, in.SOPUID), Method: zip.Store, Modified: in.CreatedAt,
		})
		if err != nil {
			panic(http.ErrAbortHandler)
		}
		body, err := a.openInstance(r, in)
		if err != nil {
			panic(http.ErrAbortHandler) // the answer has begun: break it off rather than end it short
		}
		sent, err := io.Copy(entry, body)
		_ = body.Close()
		if err != nil || sent != in.Size {
			panic(http.ErrAbortHandler)
		}
	}
	if err := zw.Close(); err != nil {
		panic(http.ErrAbortHandler)
	}
}

// archiveName names a study's download after its date.
func archiveName(im domain.Image) string {
	if im.Study.Date != "" {
		return "study-" + safeName(im.Study.Date) + ".zip"
	}
	return "study.zip"
}

// seriesFolder names a series' folder: its place, modality and description.
func seriesFolder(n int, in domain.Instance) string {
	name := fmt.Sprintf("%03d", n)
	if in.SeriesNumber != nil {
		name = fmt.Sprintf("%03d", *in.SeriesNumber)
	}
	for _, part := range []string{in.Modality, in.SeriesDescription} {
		if s := safeName(part); s != "" {
			name += " " + s
		}
	}
	return name
}

// safeName keeps letters, digits, spaces and a few marks, so a name from a
// DICOM header is a plain file name everywhere.
func safeName(s string) string {
	out := strings.Map(func(r rune) rune {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == ' ', r == '-', r == '_', r == '.':
			return r
		}
		return -1
	}, s)
	out = strings.Trim(strings.TrimSpace(out), ".")
	if len(out) > 48 {
		out = out[:48]
	}
	return strings.ToValidUTF8(out, "")
}
