package httpapi

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/medimg"
	"github.com/medishare/medishare/internal/service"
)

// DICOMweb (PS3.18) under /dicomweb: STOW-RS, QIDO-RS and WADO-RS, with the
// access rules of /api (docs/dicomweb.md is the conformance statement).

const dicomJSONType = "application/dicom+json"

// mountDICOMweb mounts the DICOMweb routes; auth authenticates callers.
func (a *api) mountDICOMweb(r chi.Router, auth func(http.Handler) http.Handler) {
	r.Use(withCleanQuery, auth)
	r.Post("/studies", a.stow)
	r.Get("/studies", a.qidoStudies)
	r.Get("/series", a.qidoSeries)
	r.Get("/instances", a.qidoInstances)
	r.Get("/studies/{study}/series", a.qidoSeries)
	r.Get("/studies/{study}/instances", a.qidoInstances)
	r.Get("/studies/{study}/series/{series}/instances", a.qidoInstances)
	for _, level := range []string{"/studies/{study}", "/studies/{study}/series/{series}", "/studies/{study}/series/{series}/instances/{instance}"} {
		r.Get(level, a.wadoRetrieve)
		r.Get(level+"/metadata", a.wadoMetadata)
		r.Get(level+"/rendered", a.wadoRendered)
		r.Get(level+"/thumbnail", a.wadoRendered)
	}
	r.Get("/studies/{study}/series/{series}/instances/{instance}/frames/{frames}", a.wadoFrames)
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, r, domain.Errorf(domain.ENOTFOUND, "Not found."))
	})
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusMethodNotAllowed, errorBody{Message: "Method not allowed."})
	})
}

// dicomURL is the absolute URL of a DICOMweb resource.
func (a *api) dicomURL(r *http.Request, parts ...string) string {
	base := a.publicOrigin
	if base == "" {
		base = requestOrigin(r)
	}
	u := base + "/dicomweb"
	for i, p := range parts {
		u += []string{"/studies/", "/series/", "/instances/"}[i] + url.PathEscape(p)
	}
	return u
}

// attr makes one DICOM JSON attribute; empty values leave it without Value.
func attr(vr string, values ...any) medimg.DICOMJSONAttr {
	out := medimg.DICOMJSONAttr{VR: vr}
	for _, v := range values {
		if s, ok := v.(string); ok && s == "" {
			continue
		}
		out.Value = append(out.Value, v)
	}
	return out
}

func personName(s string) any {
	if s == "" {
		return ""
	}
	return medimg.PersonName{Alphabetic: s}
}

func optionalNumber(n *int) []any {
	if n == nil {
		return nil
	}
	return []any{*n}
}

var errStowType = domain.Errorf(domain.EUNSUPPORTED, `Please send DICOM instances as multipart/related; type="application/dicom".`)

// STOW-RS failure reasons (PS3.18 table I.2-1 and PS3.4 annex B).
const (
	failureOutOfResources = 0xA700
	failureCannotRead     = 0xC000
	failureProcessing     = 0x0110
)

// stow stores the instances of a multipart/related body one by one, each
// streamed through the checks of an upload into its study.
func (a *api) stow(w http.ResponseWriter, r *http.Request) {
	mediaType, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mediaType != "multipart/related" || params["boundary"] == "" ||
		(params["type"] != "" && params["type"] != "application/dicom") {
		writeError(w, r, errStowType)
		return
	}
	p := principal(r)
	patientID := r.URL.Query().Get("patient")
	limits, err := a.Images.PrepareStow(r.Context(), p, patientID, meta(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	body := r.Body
	r.Body = http.MaxBytesReader(w, bufferedBody{bufio.NewReaderSize(body, 64<<10), body}, limits.StudyBytes+limits.InstanceBytes)
	mr := multipart.NewReader(r.Body, params["boundary"])
	var stored, failed []any
	studies := map[string]bool{}
	var studyIDs []string
	var studyUID string
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if len(stored)+len(failed) == 0 {
				writeError(w, r, domain.Errorf(domain.EINVALID, "The multipart body could not be read."))
				return
			}
			failed = append(failed, medimg.DICOMJSON{"00081197": attr("US", failureCannotRead)})
			break
		}
		if ct, _, _ := mime.ParseMediaType(part.Header.Get("Content-Type")); ct != "" && ct != "application/dicom" {
			_ = part.Close()
			failed = append(failed, medimg.DICOMJSON{"00081197": attr("US", failureCannotRead)})
			continue
		}
		in, err := a.Images.StoreInstance(r.Context(), p, patientID, limits, &fileLimit{r: part, left: limits.InstanceBytes}, meta(r))
		_ = part.Close()
		if err != nil {
			reason := failureCannotRead
			switch domain.ErrorKind(err) {
			case domain.ETOOLARGE:
				reason = failureOutOfResources
			case domain.EUNAVAILABLE, domain.EINTERNAL:
				reason = failureProcessing
			}
			failed = append(failed, medimg.DICOMJSON{"00081197": attr("US", reason)})
			// The reason in the product's words, for the app and people reading the answer.
			w.Header().Add("Warning", fmt.Sprintf("299 medishare %q", domain.ErrorMessage(err)))
			continue
		}
		if !studies[in.Study.ID] {
			studies[in.Study.ID] = true
			studyIDs = append(studyIDs, in.Study.ID)
		}
		studyUID = in.Study.Study.StudyInstanceUID
		stored = append(stored, medimg.DICOMJSON{
			"00081150": attr("UI", in.SOPClassUID),
			"00081155": attr("UI", in.SOPUID),
			"00081190": attr("UR", a.dicomURL(r, studyUID, in.SeriesUID, in.SOPUID)),
		})
	}
	if len(stored)+len(failed) == 0 {
		writeError(w, r, domain.Errorf(domain.EVALIDATION, "No DICOM instances were sent."))
		return
	}
	out := medimg.DICOMJSON{}
	if len(stored) > 0 {
		out["00081199"] = attr("SQ", stored...)
		if len(studyIDs) == 1 {
			out["00081190"] = attr("UR", a.dicomURL(r, studyUID))
		}
	}
	if len(failed) > 0 {
		out["00081198"] = attr("SQ", failed...)
	}
	status := http.StatusOK
	switch {
	case len(stored) == 0:
		status = http.StatusConflict
	case len(failed) > 0:
		status = http.StatusAccepted
	}
	w.Header().Set("MediShare-Image-Id", strings.Join(studyIDs, ","))
	writeDICOMJSON(w, status, out)
}

func writeDICOMJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", dicomJSONType)
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // a client that left gets nothing either way
}

// queryValue reads a matching key given by keyword or by tag.
func queryValue(q url.Values, keyword, tag string) string {
	if v := q.Get(keyword); v != "" {
		return v
	}
	return q.Get(tag)
}

var (
	dicomDate      = regexp.MustCompile(`^\d{8}$`)
	errBadDate     = domain.Errorf(domain.EINVALID, "StudyDate must be a date or a range of dates (YYYYMMDD-YYYYMMDD).")
	errBadPaging   = domain.Errorf(domain.EINVALID, "limit and offset must be whole numbers (limit at most 1000).")
	errBadUIDQuery = domain.Errorf(domain.EINVALID, "UIDs must be DICOM UIDs, separated by commas or backslashes.")
)

// studyQuery reads a QIDO-RS query's study-level matching keys.
func studyQuery(q url.Values) (service.StudyQuery, error) {
	out := service.StudyQuery{
		PatientName: queryValue(q, "PatientName", "00100010"),
		PatientID:   queryValue(q, "PatientID", "00100020"),
		Accession:   queryValue(q, "AccessionNumber", "00080050"),
		Limit:       100,
	}
	out.Modality = queryValue(q, "ModalitiesInStudy", "00080061")
	if uids := queryValue(q, "StudyInstanceUID", "0020000D"); uids != "" {
		for _, u := range strings.FieldsFunc(uids, func(r rune) bool { return r == ',' || r == '\\' }) {
			if !medimg.ValidUID(u) {
				return out, errBadUIDQuery
			}
			out.StudyUIDs = append(out.StudyUIDs, u)
		}
	}
	if date := queryValue(q, "StudyDate", "00080020"); date != "" {
		from, to, isRange := strings.Cut(date, "-")
		if !isRange {
			to = from
		}
		if (from != "" && !dicomDate.MatchString(from)) || (to != "" && !dicomDate.MatchString(to)) || (from == "" && to == "") {
			return out, errBadDate
		}
		out.DateFrom, out.DateTo = from, to
	}
	var err error
	if out.Limit, out.Offset, err = paging(q); err != nil {
		return out, err
	}
	if out.StudyUIDs == nil {
		out.StudyUIDs = []string{}
	}
	return out, nil
}

func paging(q url.Values) (limit, offset int, err error) {
	limit, offset = 100, 0
	if v := q.Get("limit"); v != "" {
		if limit, err = strconv.Atoi(v); err != nil || limit < 1 || limit > 1000 {
			return 0, 0, errBadPaging
		}
	}
	if v := q.Get("offset"); v != "" {
		if offset, err = strconv.Atoi(v); err != nil || offset < 0 || offset > 1_000_000 {
			return 0, 0, errBadPaging
		}
	}
	return limit, offset, nil
}

// studyAttrs are a study's attributes in a QIDO-RS answer.
func (a *api) studyAttrs(r *http.Request, m service.StudyMatch) medimg.DICOMJSON {
	st := m.Image.Study
	modalities := make([]any, len(st.Modalities))
	for i, mod := range st.Modalities {
		modalities[i] = mod
	}
	return medimg.DICOMJSON{
		"00080020": attr("DA", st.Date),
		"00080030": attr("TM", m.Patient.StudyTime),
		"00080050": attr("SH", m.Patient.Accession),
		"00080061": attr("CS", modalities...),
		"00080090": attr("PN", personName(m.Patient.Referring)),
		"00081030": attr("LO", st.Description),
		"00081190": attr("UR", a.dicomURL(r, st.StudyInstanceUID)),
		"00100010": attr("PN", personName(m.Patient.Name)),
		"00100020": attr("LO", m.Patient.ID),
		"00100030": attr("DA", m.Patient.BirthDate),
		"00100040": attr("CS", m.Patient.Sex),
		"0020000D": attr("UI", st.StudyInstanceUID),
		"00200010": attr("SH", m.Patient.StudyID),
		"00201206": attr("IS", st.Series),
		"00201208": attr("IS", st.Instances),
	}
}

func (a *api) qidoStudies(w http.ResponseWriter, r *http.Request) {
	q, err := studyQuery(r.URL.Query())
	if err != nil {
		writeError(w, r, err)
		return
	}
	found, err := a.Images.SearchStudies(r.Context(), principal(r), q)
	if err != nil {
		writeError(w, r, err)
		return
	}
	out := make([]medimg.DICOMJSON, len(found))
	for i, m := range found {
		out[i] = a.studyAttrs(r, m)
	}
	writeDICOMJSON(w, http.StatusOK, out)
}

// qidoScope reads a QIDO-RS query below the study level: its paging, and
// the studies it covers: the one in the path, or those the study-level
// keys match.
func (a *api) qidoScope(r *http.Request) (studies []domain.Image, limit, offset int, err error) {
	if limit, offset, err = paging(r.URL.Query()); err != nil {
		return nil, 0, 0, err
	}
	if uid := chi.URLParam(r, "study"); uid != "" {
		studies, err = a.Images.ReachStudy(r.Context(), principal(r), uid, meta(r))
		return studies, limit, offset, err
	}
	q, err := studyQuery(r.URL.Query())
	if err != nil {
		return nil, 0, 0, err
	}
	q.Limit, q.Offset = 100, 0
	found, err := a.Images.SearchStudies(r.Context(), principal(r), q)
	for _, m := range found {
		studies = append(studies, m.Image)
	}
	return studies, limit, offset, err
}

func (a *api) qidoSeries(w http.ResponseWriter, r *http.Request) {
	studies, limit, offset, err := a.qidoScope(r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	q := r.URL.Query()
	modality, seriesUID, number := queryValue(q, "Modality", "00080060"), queryValue(q, "SeriesInstanceUID", "0020000E"), queryValue(q, "SeriesNumber", "00200011")
	out := []medimg.DICOMJSON{}
	for _, im := range studies {
		series, err := a.Images.StudySeries(r.Context(), []domain.Image{im})
		if err != nil {
			writeError(w, r, err)
			return
		}
		for _, s := range series {
			if (modality != "" && s.Modality != modality) || (seriesUID != "" && s.SeriesUID != seriesUID) ||
				(number != "" && (s.SeriesNumber == nil || strconv.Itoa(*s.SeriesNumber) != number)) {
				continue
			}
			out = append(out, medimg.DICOMJSON{
				"00080060": attr("CS", s.Modality),
				"0008103E": attr("LO", s.Description),
				"00180015": attr("CS", s.BodyPart),
				"00081190": attr("UR", a.dicomURL(r, im.Study.StudyInstanceUID, s.SeriesUID)),
				"0020000D": attr("UI", im.Study.StudyInstanceUID),
				"0020000E": attr("UI", s.SeriesUID),
				"00200011": attr("IS", optionalNumber(s.SeriesNumber)...),
				"00201209": attr("IS", s.Instances),
			})
		}
	}
	writeDICOMJSON(w, http.StatusOK, page(out, limit, offset))
}

func page[T any](list []T, limit, offset int) []T {
	if offset >= len(list) {
		return []T{}
	}
	return list[offset:min(len(list), offset+limit)]
}

func (a *api) qidoInstances(w http.ResponseWriter, r *http.Request) {
	studies, limit, offset, err := a.qidoScope(r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	q := r.URL.Query()
	sop, class, number := queryValue(q, "SOPInstanceUID", "00080018"), queryValue(q, "SOPClassUID", "00080016"), queryValue(q, "InstanceNumber", "00200013")
	seriesUID := chi.URLParam(r, "series")
	if seriesUID == "" {
		seriesUID = queryValue(q, "SeriesInstanceUID", "0020000E")
	}
	out := []medimg.DICOMJSON{}
	seen := map[string]bool{}
	for _, im := range studies {
		instances, err := a.Images.ListInstances(r.Context(), im, seriesUID, sop)
		if err != nil {
			writeError(w, r, err)
			return
		}
		for _, in := range instances {
			if seen[in.SOPUID] || (class != "" && in.SOPClassUID != class) ||
				(number != "" && (in.InstanceNumber == nil || strconv.Itoa(*in.InstanceNumber) != number)) {
				continue
			}
			seen[in.SOPUID] = true
			item := medimg.DICOMJSON{
				"00080016": attr("UI", in.SOPClassUID),
				"00080018": attr("UI", in.SOPUID),
				"00080060": attr("CS", in.Modality),
				"00081190": attr("UR", a.dicomURL(r, im.Study.StudyInstanceUID, in.SeriesUID, in.SOPUID)),
				"0020000D": attr("UI", im.Study.StudyInstanceUID),
				"0020000E": attr("UI", in.SeriesUID),
				"00200013": attr("IS", optionalNumber(in.InstanceNumber)...),
			}
			if in.DICOM.Rows > 0 {
				item["00280010"] = attr("US", in.DICOM.Rows)
				item["00280011"] = attr("US", in.DICOM.Columns)
				item["00280008"] = attr("IS", max(in.DICOM.Frames, 1))
			}
			out = append(out, item)
		}
	}
	writeDICOMJSON(w, http.StatusOK, page(out, limit, offset))
}

// wadoInstances reaches the study in the path and returns the instances
// the path names, with their reading recorded.
func (a *api) wadoInstances(r *http.Request, kind domain.AuditAction) ([]domain.Instance, error) {
	p := principal(r)
	studies, err := a.Images.ReachStudy(r.Context(), p, chi.URLParam(r, "study"), meta(r))
	if err != nil {
		return nil, err
	}
	return a.Images.StudyInstances(r.Context(), p, studies, chi.URLParam(r, "series"), chi.URLParam(r, "instance"), kind, meta(r))
}

var errNotAcceptable = domain.Errorf(domain.EUNSUPPORTED, `This resource is served as multipart/related; type="application/dicom".`)

// acceptsDICOM reports whether the Accept header allows the instances as
// they are stored.
func acceptsDICOM(accept string) bool {
	if accept == "" {
		return true
	}
	for _, item := range strings.Split(accept, ",") {
		mt, params, ok := parseAcceptItem(item)
		if !ok {
			continue
		}
		switch {
		case mt == "*/*", mt == "multipart/*", mt == "application/dicom":
			return true
		case mt == "multipart/related" && (params["type"] == "" || params["type"] == "application/dicom"):
			return true
		}
	}
	return false
}

// parseAcceptItem reads one media range of an Accept header. DICOMweb
// clients (Cornerstone's loader, OHIF and the viewers built on them) write
// type=application/octet-stream unquoted, which RFC 2045's grammar and so
// mime.ParseMediaType refuse; a value holding a slash is taken as written
// instead of refusing the client.
func parseAcceptItem(item string) (string, map[string]string, bool) {
	item = strings.TrimSpace(item)
	if mt, params, err := mime.ParseMediaType(item); err == nil {
		return mt, params, true
	}
	parts := strings.Split(item, ";")
	mt := strings.ToLower(strings.TrimSpace(parts[0]))
	if !strings.Contains(mt, "/") {
		return "", nil, false
	}
	params := map[string]string{}
	for _, p := range parts[1:] {
		k, v, found := strings.Cut(p, "=")
		if !found {
			return "", nil, false
		}
		params[strings.ToLower(strings.TrimSpace(k))] = strings.Trim(strings.TrimSpace(v), `"`)
	}
	return mt, params, true
}

// wadoRetrieve streams the instances byte for byte as stored, decrypted on
// the fly, one part each.
func (a *api) wadoRetrieve(w http.ResponseWriter, r *http.Request) {
	if !acceptsDICOM(r.Header.Get("Accept")) {
		w.Header().Set("Content-Type", "application/json")
		writeJSON(w, http.StatusNotAcceptable, errorBody{Message: errNotAcceptable.Message})
		return
	}
	instances, err := a.wadoInstances(r, domain.ActionView)
	if err != nil {
		writeError(w, r, err)
		return
	}
	first, err := a.openInstance(r, instances[0])
	if err != nil {
		writeError(w, r, err)
		return
	}
	mw := multipart.NewWriter(w)
	h := w.Header()
	h.Set("Content-Type", fmt.Sprintf(`multipart/related; type="application/dicom"; boundary=%s`, mw.Boundary()))
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	for i, in := range instances {
		body := first
		if i > 0 {
			if body, err = a.openInstance(r, in); err != nil {
				panic(http.ErrAbortHandler) // the answer has begun: break it off rather than end it short
			}
		}
		part, err := mw.CreatePart(textproto.MIMEHeader{
			"Content-Type":   {"application/dicom; transfer-syntax=" + in.TransferSyntax},
			"Content-Length": {strconv.FormatInt(in.Size, 10)},
		})
		if err == nil {
			var sent int64
			sent, err = io.Copy(part, body)
			if err == nil && sent != in.Size {
				err = io.ErrUnexpectedEOF
			}
		}
		_ = body.Close()
		if err != nil {
			panic(http.ErrAbortHandler)
		}
	}
	if err := mw.Close(); err != nil {
		panic(http.ErrAbortHandler)
	}
}

func (a *api) openInstance(r *http.Request, in domain.Instance) (io.ReadCloser, error) {
	c, err := a.Images.InstanceContents(in)
	if err != nil {
		return nil, err
	}
	return c.Open(r.Context())
}

// wadoMetadata answers each instance's data set in the DICOM JSON model,
// read from the stored file, one instance at a time, without fetching or
// decrypting its pixels (a CT series' metadata opens the viewer).
func (a *api) wadoMetadata(w http.ResponseWriter, r *http.Request) {
	instances, err := a.wadoInstances(r, domain.ActionView)
	if err != nil {
		writeError(w, r, err)
		return
	}
	study := chi.URLParam(r, "study")
	sets := make([]medimg.DICOMJSON, 0, len(instances))
	for _, in := range instances {
		c, err := a.Images.InstanceContents(in)
		if err != nil {
			writeError(w, r, err)
			return
		}
		body := c.OpenWithoutPixels(r.Context(), in.PixelSpans)
		ds, err := medimg.Metadata(body, a.dicomURL(r, study, in.SeriesUID, in.SOPUID))
		_ = body.Close()
		if err != nil {
			writeError(w, r, err)
			return
		}
		sets = append(sets, ds)
	}
	w.Header().Set("Cache-Control", "no-store")
	writeDICOMJSON(w, http.StatusOK, sets)
}

// wadoRendered renders the first instance the path names (a study's or
// series' first, or the instance) as a PNG for a browser.
func (a *api) wadoRendered(w http.ResponseWriter, r *http.Request) {
	instances, err := a.wadoInstances(r, domain.ActionPreview)
	if err != nil {
		writeError(w, r, err)
		return
	}
	in := instances[0]
	if i := slices.IndexFunc(instances, func(in domain.Instance) bool { return in.DICOM.Rows > 0 }); i >= 0 {
		in = instances[i]
	}
	c, err := a.Images.InstanceContents(in)
	if err != nil {
		writeError(w, r, err)
		return
	}
	png, err := a.Previews.Render(r.Context(), c)
	if err != nil {
		writeError(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "image/png")
	h.Set("Cache-Control", "private, no-store")
	h.Set("Content-Security-Policy", contentPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(len(png)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(png) // a client that left gets nothing either way
}

var errBadFrames = domain.Errorf(domain.EINVALID, "Frames are a comma-separated list of frame numbers.")

// maxFramesAsked bounds one frames request.
const maxFramesAsked = 1000

// wadoFrames serves frames of one instance, cut out of the stored file and
// decrypted chunk by chunk: native pixels as application/octet-stream,
// encapsulated ones as stored, in their transfer syntax, when the Accept
// header allows it (no transcoding).
func (a *api) wadoFrames(w http.ResponseWriter, r *http.Request) {
	var frames []int
	for _, s := range strings.Split(chi.URLParam(r, "frames"), ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || len(frames) >= maxFramesAsked {
			writeError(w, r, errBadFrames)
			return
		}
		frames = append(frames, n)
	}
	instances, err := a.wadoInstances(r, domain.ActionView)
	if err != nil {
		writeError(w, r, err)
		return
	}
	in := instances[0]
	spans, ts, err := service.FrameSpans(in, frames)
	if err != nil {
		writeError(w, r, err)
		return
	}
	if !acceptsFrames(r.Header.Get("Accept"), ts) {
		writeJSON(w, http.StatusNotAcceptable, errorBody{Message: fmt.Sprintf(
			"This frame is stored in transfer syntax %s and is not transcoded; ask for it with transfer-syntax=* or that syntax.", ts)})
		return
	}
	c, err := a.Images.InstanceContents(in)
	if err != nil {
		writeError(w, r, err)
		return
	}
	mw := multipart.NewWriter(w)
	w.Header().Set("Content-Type", fmt.Sprintf(`multipart/related; type="application/octet-stream"; boundary=%s`, mw.Boundary()))
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	for _, frame := range spans {
		var size int64
		for _, s := range frame {
			size += s.Length
		}
		part, err := mw.CreatePart(textproto.MIMEHeader{
			"Content-Type":   {"application/octet-stream; transfer-syntax=" + ts},
			"Content-Length": {strconv.FormatInt(size, 10)},
		})
		if err != nil {
			panic(http.ErrAbortHandler)
		}
		for _, s := range frame {
			body, err := c.OpenRange(r.Context(), s.Offset, s.Length)
			if err != nil {
				panic(http.ErrAbortHandler) // the answer has begun: break it off rather than end it short
			}
			sent, err := io.Copy(part, body)
			_ = body.Close()
			if err != nil || sent != s.Length {
				panic(http.ErrAbortHandler)
			}
		}
	}
	if err := mw.Close(); err != nil {
		panic(http.ErrAbortHandler)
	}
}

// acceptsFrames reports whether the Accept header allows frames in ts.
func acceptsFrames(accept, ts string) bool {
	if accept == "" {
		return true
	}
	for _, item := range strings.Split(accept, ",") {
		mt, params, ok := parseAcceptItem(item)
		if !ok {
			continue
		}
		want := params["transfer-syntax"]
		switch mt {
		case "*/*", "multipart/*":
			return true
		case "multipart/related", "application/octet-stream":
			if typ := params["type"]; mt == "multipart/related" && typ != "" && typ != "application/octet-stream" {
				continue
			}
			if want == "*" || want == ts || (want == "" && ts == "1.2.840.10008.1.2.1") {
				return true
			}
		}
	}
	return false
}
