package httpapi_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/medimg/synth"
	"github.com/medishare/medishare/internal/testutil/apptest"
)

// stowBody is a multipart/related body of DICOM parts (and any other
// parts given as [type, bytes]).
func stowBody(t *testing.T, files [][]byte, others ...[2]string) (string, *bytes.Buffer) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	add := func(ct string, b []byte) {
		part, err := w.CreatePart(textproto.MIMEHeader{"Content-Type": {ct}})
		if err != nil {
			t.Fatal(err)
		}
		_, _ = part.Write(b)
	}
	for _, f := range files {
		add("application/dicom", f)
	}
	for _, o := range others {
		add(o[0], []byte(o[1]))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return `multipart/related; type="application/dicom"; boundary=` + w.Boundary(), &buf
}

func stow(t *testing.T, p *apptest.Person, query string, files [][]byte, others ...[2]string) *apptest.Response {
	t.Helper()
	ct, body := stowBody(t, files, others...)
	return p.Send(t, "POST", "/dicomweb/studies"+query, ct, body)
}

// sequence returns the items of a DICOM JSON sequence attribute.
func sequence(r *apptest.Response, tag string) []any {
	a, _ := r.Body[tag].(map[string]any)
	v, _ := a["Value"].([]any)
	return v
}

// qido runs a QIDO-RS search and returns its data sets.
func qido(t *testing.T, p *apptest.Person, path string) (int, []map[string]any) {
	t.Helper()
	resp, body := p.Get(t, path, map[string]string{"Accept": "application/dicom+json"})
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, nil
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/dicom+json" {
		t.Errorf("%s: Content-Type %q", path, ct)
	}
	var out []map[string]any
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("%s: %v %s", path, err, body)
	}
	return resp.StatusCode, out
}

// value is the first value of an attribute of a DICOM JSON data set.
func value(ds map[string]any, tag string) any {
	a, _ := ds[tag].(map[string]any)
	v, _ := a["Value"].([]any)
	if len(v) == 0 {
		return nil
	}
	return v[0]
}

// parts reads a multipart/related answer's parts.
func parts(t *testing.T, resp *http.Response, body []byte) [][]byte {
	t.Helper()
	mt, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/related" || params["type"] != "application/dicom" {
		t.Fatalf("Content-Type %q", resp.Header.Get("Content-Type"))
	}
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	var out [][]byte
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(part)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
}

func TestDICOMwebStoreSearchRetrieve(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider, patient := app.SignUp(t, domain.RoleProvider), app.SignUp(t, domain.RolePatient)
	stranger := app.SignUp(t, domain.RoleProvider)
	px := synth.NewPixels(16, 16)
	study := synth.Study("Doe^Jane", "P-1", "CT head", "CT", 2, 2)
	files := make([][]byte, len(study))
	for i, in := range study {
		files[i] = px.File(in)
	}

	// Three instances, one of them twice, and a part that is not DICOM.
	r := stow(t, provider, "?patient="+patient.ID, [][]byte{files[0], files[1], files[2], files[0]}, [2]string{"application/dicom", "not a DICOM file"})
	if r.Status != http.StatusAccepted || len(sequence(r, "00081199")) != 4 || len(sequence(r, "00081198")) != 1 {
		t.Fatalf("stow: %d %s", r.Status, r.Raw)
	}
	if !strings.Contains(r.Header.Get("Warning"), "Only DICOM files can join a study.") {
		t.Errorf("Warning %q", r.Header.Get("Warning"))
	}
	imageID := r.Header.Get("MediShare-Image-Id")
	got := provider.Do(t, "GET", "/api/upload/image/"+imageID, nil).Data()
	st, _ := got["study"].(map[string]any)
	if st == nil || st["series"] != 2.0 || st["instances"] != 3.0 || st["description"] != "CT head" || fmt.Sprint(st["modalities"]) != "[CT]" {
		t.Fatalf("the study after the first STOW: %v", got)
	}
	// The fourth instance, sent later, joins the study.
	if r := stow(t, provider, "?patient="+patient.ID, files[3:]); r.Status != http.StatusOK || r.Header.Get("MediShare-Image-Id") != imageID {
		t.Fatalf("stow the fourth: %d %s %q", r.Status, r.Raw, r.Header.Get("MediShare-Image-Id"))
	}
	if n := len(provider.Do(t, "GET", "/api/upload/image/"+imageID+"/series", nil).List()); n != 2 {
		t.Errorf("%d series, want 2", n)
	}
	uid := study[0].Study

	// QIDO-RS: matching on the sealed and the clear keys.
	for path, want := range map[string]int{
		"/dicomweb/studies":                                                      1,
		"/dicomweb/studies?PatientName=doe*":                                     1,
		"/dicomweb/studies?PatientName=Smith*":                                   0,
		"/dicomweb/studies?PatientID=P-1":                                        1,
		"/dicomweb/studies?AccessionNumber=AP-1":                                 1,
		"/dicomweb/studies?StudyDate=20260101-20261231":                          1,
		"/dicomweb/studies?StudyDate=-20251231":                                  0,
		"/dicomweb/studies?ModalitiesInStudy=CT":                                 1,
		"/dicomweb/studies?ModalitiesInStudy=MR":                                 0,
		"/dicomweb/studies?StudyInstanceUID=" + uid:                              1,
		"/dicomweb/studies?0020000D=" + uid + ",1.2.3":                           1,
		"/dicomweb/studies/" + uid + "/series":                                   2,
		"/dicomweb/studies/" + uid + "/instances":                                4,
		"/dicomweb/studies/" + uid + "/series?Modality=CT":                       2,
		"/dicomweb/studies/" + uid + "/series/" + study[0].Series + "/instances": 2,
		"/dicomweb/instances?StudyInstanceUID=" + uid:                            4,
		"/dicomweb/studies/" + uid + "/instances?limit=3&offset=2":               2,
	} {
		if status, sets := qido(t, provider, path); status != http.StatusOK || len(sets) != want {
			t.Errorf("%s: %d, %d results, want %d", path, status, len(sets), want)
		}
	}
	admin := app.SignUp(t, domain.RoleAdmin)
	for path, want := range map[string]int{"?ModalitiesInStudy=CT": 1, "?ModalitiesInStudy=MR": 0, "?ModalitiesInStudy=CT&StudyDate=20260101-": 1} {
		if _, sets := qido(t, admin, "/dicomweb/studies"+path); len(sets) != want {
			t.Errorf("an admin's search %s: %d results, want %d", path, len(sets), want)
		}
	}
	_, sets := qido(t, provider, "/dicomweb/studies?PatientName=DOE^JANE")
	if len(sets) != 1 || fmt.Sprint(value(sets[0], "00100010")) != "map[Alphabetic:Doe^Jane]" ||
		value(sets[0], "00201208") != 4.0 || value(sets[0], "0020000D") != uid {
		t.Fatalf("the study found: %v", sets)
	}
	for _, bad := range []string{"?StudyDate=2026", "?limit=0", "?StudyInstanceUID=abc"} {
		if status, _ := qido(t, provider, "/dicomweb/studies"+bad); status != http.StatusBadRequest && status != http.StatusUnprocessableEntity {
			t.Errorf("%s: %d, want a refusal", bad, status)
		}
	}

	// WADO-RS: the instances byte for byte, their metadata, a thumbnail.
	resp, body := provider.Get(t, "/dicomweb/studies/"+uid, map[string]string{"Accept": `multipart/related; type="application/dicom"`})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("retrieve: %d %s", resp.StatusCode, body)
	}
	got4 := parts(t, resp, body)
	if len(got4) != 4 {
		t.Fatalf("%d instances retrieved", len(got4))
	}
	for _, f := range files {
		found := false
		for _, g := range got4 {
			found = found || bytes.Equal(f, g)
		}
		if !found {
			t.Errorf("an instance did not come back byte for byte")
		}
	}
	resp, body = provider.Get(t, "/dicomweb/studies/"+uid+"/series/"+study[2].Series+"/instances/"+study[2].SOP, nil)
	if one := parts(t, resp, body); len(one) != 1 || !bytes.Equal(one[0], files[2]) {
		t.Errorf("retrieve one instance: %d parts", len(one))
	}
	if resp, _ := provider.Get(t, "/dicomweb/studies/"+uid, map[string]string{"Accept": "image/jpeg"}); resp.StatusCode != http.StatusNotAcceptable {
		t.Errorf("an Accept it cannot meet: %d", resp.StatusCode)
	}
	resp, body = provider.Get(t, "/dicomweb/studies/"+uid+"/metadata", nil)
	var meta []map[string]any
	if err := json.Unmarshal(body, &meta); err != nil || resp.StatusCode != http.StatusOK || len(meta) != 4 {
		t.Fatalf("metadata: %d %v %.300s", resp.StatusCode, err, body)
	}
	if px, _ := meta[0]["7FE00010"].(map[string]any); px == nil || !strings.Contains(fmt.Sprint(px["BulkDataURI"]), "/frames/1") {
		t.Errorf("pixel data: %v", meta[0]["7FE00010"])
	}
	if fmt.Sprint(value(meta[0], "00100010")) != "map[Alphabetic:Doe^Jane]" || value(meta[0], "00280010") != 16.0 {
		t.Errorf("metadata: %v %v", meta[0]["00100010"], meta[0]["00280010"])
	}
	resp, body = provider.Get(t, "/dicomweb/studies/"+uid+"/series/"+study[0].Series+"/thumbnail", nil)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/png" || !bytes.HasPrefix(body, []byte("\x89PNG")) {
		t.Errorf("thumbnail: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}

	// The study as a ZIP, through its signed link: every instance, a folder per series.
	link, _ := provider.Do(t, "GET", "/api/upload/image/"+imageID, nil).Data()["archive_url"].(string)
	resp, body = app.Client().Get(t, link, nil)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/zip" {
		t.Fatalf("archive: %d %q", resp.StatusCode, link)
	}
	zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		t.Fatal(err)
	}
	folders := map[string]bool{}
	for _, f := range zr.File {
		folders[strings.Split(f.Name, "/")[0]] = true
		rc, _ := f.Open()
		b, _ := io.ReadAll(rc)
		if !slices.ContainsFunc(files, func(want []byte) bool { return bytes.Equal(want, b) }) {
			t.Errorf("%s is not an instance sent", f.Name)
		}
	}
	if len(zr.File) != 4 || len(folders) != 2 || !folders["001 CT Series 1"] {
		t.Errorf("archive: %d files in %v", len(zr.File), folders)
	}

	// Access: nobody else finds or retrieves it; the patient does once the share is verified.
	for _, who := range []*apptest.Person{stranger, patient} {
		if _, sets := qido(t, who, "/dicomweb/studies"); len(sets) != 0 {
			t.Errorf("%s finds %d studies", who.Role, len(sets))
		}
		if resp, _ := who.Get(t, "/dicomweb/studies/"+uid, nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s retrieves: %d", who.Role, resp.StatusCode)
		}
	}
	shareID, code := share(t, app, provider, patient, imageID, nil)
	if _, sets := qido(t, patient, "/dicomweb/studies"); len(sets) != 0 {
		t.Errorf("before verifying, the patient finds %d studies", len(sets))
	}
	if sealed := patient.Do(t, "GET", "/api/upload/image/"+imageID, nil).Data(); sealed["study"] != nil || sealed["archive_url"] != nil {
		t.Errorf("before verifying, the study shows: %v", sealed)
	}
	if r := verify(t, patient, shareID, code); r.Status != http.StatusOK {
		t.Fatalf("verify: %d %s", r.Status, r.Raw)
	}
	if _, sets := qido(t, patient, "/dicomweb/studies"); len(sets) != 1 {
		t.Errorf("after verifying, the patient finds %d studies", len(sets))
	}
	if resp, body := patient.Get(t, "/dicomweb/studies/"+uid, nil); resp.StatusCode != http.StatusOK || len(parts(t, resp, body)) != 4 {
		t.Errorf("the patient retrieves: %d", resp.StatusCode)
	}
	if r := provider.Do(t, "DELETE", "/api/sharing/"+shareID, nil); r.Status != http.StatusOK {
		t.Fatalf("revoke: %d", r.Status)
	}
	if resp, _ := patient.Get(t, "/dicomweb/studies/"+uid+"/metadata", nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("after revocation: %d", resp.StatusCode)
	}

	// Deleting the study removes every instance's contents.
	var keys []string
	rows, err := app.DB.Pool.Query(context.Background(), `SELECT blob_key FROM study_instances WHERE image_id = $1`, imageID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k string
		_ = rows.Scan(&k)
		keys = append(keys, k)
	}
	rows.Close()
	if len(keys) != 4 {
		t.Fatalf("%d instance rows", len(keys))
	}
	if r := provider.Do(t, "DELETE", "/api/upload/image/"+imageID, nil); r.Status != http.StatusOK {
		t.Fatalf("delete: %d %s", r.Status, r.Raw)
	}
	for _, k := range keys {
		if _, err := os.Stat(filepath.Join(app.BlobDir, filepath.FromSlash(k))); !os.IsNotExist(err) {
			t.Errorf("the contents of %s are still there: %v", k, err)
		}
	}
	if status, sets := qido(t, provider, "/dicomweb/studies"); status != http.StatusOK || len(sets) != 0 {
		t.Errorf("after deletion: %d studies", len(sets))
	}
}

func TestDICOMwebUnassignedStudies(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider, patient := app.SignUp(t, domain.RoleProvider), app.SignUp(t, domain.RolePatient)
	study := synth.Study("Roe^Rick", "P-2", "Chest", "CR", 1)
	r := stow(t, provider, "", [][]byte{synth.NewPixels(8, 8).File(study[0])})
	if r.Status != http.StatusOK {
		t.Fatalf("stow: %d %s", r.Status, r.Raw)
	}
	id := r.Header.Get("MediShare-Image-Id")
	waiting := provider.Do(t, "GET", "/api/upload/unassigned", nil).List()
	if len(waiting) != 1 || waiting[0]["id"] != id || waiting[0]["patient"] != nil {
		t.Fatalf("unassigned: %v", waiting)
	}
	if mine := provider.Do(t, "GET", "/api/upload/my-images", nil); len(mine.List()) != 0 || mine.Body["pagination"].(map[string]any)["totalItems"] != 0.0 {
		t.Errorf("my images list an unassigned study: %s", mine.Raw)
	}
	r = provider.Do(t, "POST", "/api/sharing/request", map[string]any{"imagemetadataId": id, "createdfor": patient.ID})
	if r.Status != http.StatusUnprocessableEntity || r.Message() != "Please choose a patient for this study before sharing it." {
		t.Errorf("share an unassigned study: %d %s", r.Status, r.Raw)
	}
	if r := provider.Do(t, "PATCH", "/api/upload/image/"+id, map[string]string{"patientId": provider.ID}); r.Status != http.StatusUnprocessableEntity {
		t.Errorf("assign a provider: %d %s", r.Status, r.Raw)
	}
	r = provider.Do(t, "PATCH", "/api/upload/image/"+id, map[string]string{"patientId": patient.ID, "caption": "Chest X-ray"})
	if r.Status != http.StatusOK || r.Data()["caption"] != "Chest X-ray" || r.Data()["patient"] == nil {
		t.Fatalf("assign: %d %s", r.Status, r.Raw)
	}
	if r := provider.Do(t, "PATCH", "/api/upload/image/"+id, map[string]string{"patientId": patient.ID}); r.Status != http.StatusUnprocessableEntity {
		t.Errorf("assign again: %d %s", r.Status, r.Raw)
	}
	if mine := provider.Do(t, "GET", "/api/upload/my-images", nil).List(); len(mine) != 1 {
		t.Errorf("after assigning, %d images", len(mine))
	}
	if n := len(provider.Do(t, "GET", "/api/upload/unassigned", nil).List()); n != 0 {
		t.Errorf("%d still unassigned", n)
	}
	// A PACS stores and searches with its owner's personal access token,
	// as a bearer token or as the password of Basic authentication.
	tok := provider.Do(t, "POST", "/api/tokens", map[string]any{"name": "PACS", "expiresInDays": 30})
	secret, _ := tok.Data()["token"].(string)
	if tok.Status != http.StatusCreated || secret == "" {
		t.Fatalf("token: %d %s", tok.Status, tok.Raw)
	}
	machine := app.Client()
	for _, auth := range []string{"Bearer " + secret, "Basic " + base64.StdEncoding.EncodeToString([]byte("pacs:"+secret))} {
		resp, body := machine.Get(t, "/dicomweb/studies", map[string]string{"Authorization": auth})
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), study[0].Study) {
			t.Errorf("%s: %d %s", strings.Fields(auth)[0], resp.StatusCode, body)
		}
	}
	machine.Token = secret
	if r := stow(t, &apptest.Person{Client: machine}, "", [][]byte{synth.NewPixels(8, 8).File(synth.Study("C^D", "Y", "", "CR", 1)[0])}); r.Status != http.StatusOK {
		t.Errorf("store with a token: %d %s", r.Status, r.Raw)
	}
	if n := len(provider.Do(t, "GET", "/api/upload/unassigned", nil).List()); n != 1 {
		t.Errorf("the token's study waits unassigned for its owner: %d", n)
	}

	// A patient can neither store nor assign.
	if r := stow(t, patient, "", [][]byte{synth.NewPixels(8, 8).File(synth.Study("A^B", "X", "", "CR", 1)[0])}); r.Status != http.StatusForbidden {
		t.Errorf("a patient stores: %d", r.Status)
	}
}

func TestDICOMwebLimitsAndRefusals(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider, patient := app.SignUp(t, domain.RoleProvider), app.SignUp(t, domain.RolePatient)
	if _, err := app.DB.Pool.Exec(context.Background(), `UPDATE settings SET value = '10' WHERE key IN ('max_instance_megabytes', 'max_study_megabytes')`); err != nil {
		t.Fatal(err)
	}
	limits := provider.Do(t, "GET", "/api/upload/limits", nil).Data()
	if limits["maxUploadBytes"] != float64(10<<20) || limits["maxInstanceBytes"] != float64(10<<20) || limits["maxStudyBytes"] != float64(10<<20) {
		t.Fatalf("limits: %v", limits)
	}
	big := synth.NewPixels(2300, 2300) // 10.1 MiB of pixels
	study := synth.Study("Big^Ben", "P-3", "", "CR", 2)
	r := stow(t, provider, "?patient="+patient.ID, [][]byte{big.File(study[0])})
	if r.Status != http.StatusConflict || !strings.Contains(r.Header.Get("Warning"), "The DICOM instance exceeds the 10 MB limit.") {
		t.Fatalf("an instance over the limit: %d %q %s", r.Status, r.Header.Get("Warning"), r.Raw)
	}
	if failed := sequence(r, "00081198"); len(failed) != 1 || fmt.Sprint(value(failed[0].(map[string]any), "00081197")) != fmt.Sprint(0xA700) {
		t.Errorf("failure reason: %v", failed)
	}
	half := synth.NewPixels(1700, 1700) // 5.5 MiB
	if r := stow(t, provider, "?patient="+patient.ID, [][]byte{half.File(study[0])}); r.Status != http.StatusOK {
		t.Fatalf("the first half: %d %s", r.Status, r.Raw)
	}
	r = stow(t, provider, "?patient="+patient.ID, [][]byte{half.File(study[1])})
	if r.Status != http.StatusConflict || !strings.Contains(r.Header.Get("Warning"), "The study exceeds the 10 MB limit.") {
		t.Errorf("a study over the limit: %d %q", r.Status, r.Header.Get("Warning"))
	}
	for name, req := range map[string][2]string{
		"not multipart": {"application/dicom", "x"},
		"another type":  {`multipart/related; type="application/json"; boundary=x`, "--x--"},
		"no boundary":   {"multipart/related", ""},
		"nothing in it": {`multipart/related; type="application/dicom"; boundary=x`, "--x--\r\n"},
	} {
		if r := provider.Send(t, "POST", "/dicomweb/studies?patient="+patient.ID, req[0], strings.NewReader(req[1])); r.Status < 400 || r.Status >= 500 {
			t.Errorf("%s: %d %s", name, r.Status, r.Raw)
		}
	}
	if r := stow(t, provider, "?patient="+provider.ID, [][]byte{half.File(study[1])}); r.Status != http.StatusUnprocessableEntity {
		t.Errorf("a patient who is not one: %d", r.Status)
	}
	if r := app.Client().Send(t, "GET", "/dicomweb/studies", "", nil); r.Status != http.StatusUnauthorized {
		t.Errorf("no token: %d", r.Status)
	}
}

// TestStudyInstancesKeptAndScrubbed: the janitor keeps every instance's
// contents, and the scrub reads every instance, not only the first.
func TestStudyInstancesKeptAndScrubbed(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider, patient := app.SignUp(t, domain.RoleProvider), app.SignUp(t, domain.RolePatient)
	study := synth.Study("Poe^Ed", "P-4", "MR", "MR", 1, 1)
	px := synth.NewPixels(200, 200) // more than one 64 KiB chunk
	r := stow(t, provider, "?patient="+patient.ID, [][]byte{px.File(study[0]), px.File(study[1])})
	if r.Status != http.StatusOK {
		t.Fatalf("stow: %d %s", r.Status, r.Raw)
	}
	id := r.Header.Get("MediShare-Image-Id")
	var second string
	if err := app.DB.Pool.QueryRow(t.Context(), `SELECT blob_key FROM study_instances WHERE image_id = $1 AND id <> $1`, id).Scan(&second); err != nil {
		t.Fatal(err)
	}
	stored, _ := filepath.Glob(filepath.Join(app.BlobDir, "images", "*"))
	old := time.Now().Add(-2 * time.Hour)
	for _, p := range stored {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := app.Services.Integrity.CollectOrphans(t.Context()); err != nil || n != 0 {
		t.Fatalf("the janitor removed %d objects: %v", n, err)
	}
	if reason, err := app.Services.Integrity.CheckImage(t.Context(), id); err != nil || reason != "" {
		t.Fatalf("an intact study: %q %v", reason, err)
	}
	flipByte(t, filepath.Join(app.BlobDir, filepath.FromSlash(second)), 70000)
	if reason, err := app.Services.Integrity.CheckImage(t.Context(), id); err != nil || !strings.HasPrefix(reason, "instance "+study[1].SOP+": chunk 1") {
		t.Fatalf("a damaged second instance: %q %v", reason, err)
	}
}

func TestDICOMwebFrames(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider, patient := app.SignUp(t, domain.RoleProvider), app.SignUp(t, domain.RolePatient)
	in := synth.Study("Frame^Fay", "P-5", "", "CR", 1)[0]
	native := synth.NewPixels(16, 16).File(in)
	jpeg, err := os.ReadFile(filepath.Join("..", "..", "testdata", "dicom", "JPEG-lossy.dcm"))
	if err != nil {
		t.Fatal(err)
	}
	r := stow(t, provider, "?patient="+patient.ID, [][]byte{native, jpeg})
	if r.Status != http.StatusOK {
		t.Fatalf("stow: %d %s", r.Status, r.Raw)
	}
	frame := func(url, accept string) (int, [][]byte) {
		t.Helper()
		resp, body := provider.Get(t, url, map[string]string{"Accept": accept})
		if resp.StatusCode != http.StatusOK {
			return resp.StatusCode, nil
		}
		mt, params, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
		if mt != "multipart/related" || params["type"] != "application/octet-stream" {
			t.Fatalf("Content-Type %q", resp.Header.Get("Content-Type"))
		}
		var out [][]byte
		mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
		for {
			part, err := mr.NextPart()
			if err != nil {
				return resp.StatusCode, out
			}
			b, _ := io.ReadAll(part)
			out = append(out, b)
		}
	}
	url := "/dicomweb/studies/" + in.Study + "/series/" + in.Series + "/instances/" + in.SOP + "/frames/1"
	status, got := frame(url, `multipart/related; type="application/octet-stream"`)
	if status != http.StatusOK || len(got) != 1 || !bytes.Equal(got[0], native[len(native)-16*16*2:]) {
		t.Fatalf("a native frame: %d, %d parts", status, len(got))
	}
	if status, _ := frame(strings.Replace(url, "/frames/1", "/frames/2", 1), ""); status != http.StatusBadRequest {
		t.Errorf("a frame it does not have: %d", status)
	}
	if status, _ := frame(strings.Replace(url, "/frames/1", "/frames/x", 1), ""); status != http.StatusBadRequest {
		t.Errorf("a malformed list: %d", status)
	}

	// The compressed file: its frame as stored, a JPEG, when asked for as it is.
	_, sets := qido(t, provider, "/dicomweb/instances?SOPClassUID=1.2.840.10008.5.1.4.1.1.7")
	if len(sets) != 1 {
		t.Fatalf("%d JPEG instances found", len(sets))
	}
	jurl := fmt.Sprintf("/dicomweb/studies/%s/series/%s/instances/%s/frames/1", value(sets[0], "0020000D"), value(sets[0], "0020000E"), value(sets[0], "00080018"))
	status, got = frame(jurl, `multipart/related; type="application/octet-stream"; transfer-syntax=*`)
	if status != http.StatusOK || len(got) != 1 || !bytes.HasPrefix(got[0], []byte{0xFF, 0xD8}) {
		t.Fatalf("a JPEG frame: %d %d", status, len(got))
	}
	// As Cornerstone's loader and OHIF write it: the type unquoted.
	status, got = frame(jurl, `multipart/related; type=application/octet-stream; transfer-syntax=*`)
	if status != http.StatusOK || len(got) != 1 || !bytes.HasPrefix(got[0], []byte{0xFF, 0xD8}) {
		t.Fatalf("a JPEG frame asked for with an unquoted type: %d %d", status, len(got))
	}
	if status, _ := frame(jurl, `multipart/related; type="application/octet-stream"`); status != http.StatusNotAcceptable {
		t.Errorf("a compressed frame asked for uncompressed: %d", status)
	}
	// Rendered, it is decoded: a 12-bit JPEG, in the sandboxed IJG decoder.
	resp, body := provider.Get(t, strings.TrimSuffix(jurl, "/frames/1")+"/rendered", map[string]string{"Accept": "image/png"})
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/png" || !bytes.HasPrefix(body, []byte("\x89PNG")) {
		t.Errorf("the 12-bit JPEG instance rendered: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}

// TestDICOMwebStoresRawDatasets: STOW takes DICOM objects written without
// the Part 10 wrapping (no preamble, no meta group), in each encoding, and
// WADO gives them back as Part 10 with the dataset unchanged.
func TestDICOMwebStoresRawDatasets(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider, patient := app.SignUp(t, domain.RoleProvider), app.SignUp(t, domain.RolePatient)
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "dicom", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	rtstruct := read("rtstruct.dcm")
	mr := read("MR_small.dcm")
	metaLen := int(mr[140]) | int(mr[141])<<8 | int(mr[142])<<16 | int(mr[143])<<24
	rawMR := mr[144+metaLen:] // MR_small without preamble and meta group
	files := [][]byte{read("ExplVR_LitEndNoMeta.dcm"), read("ExplVR_BigEndNoMeta.dcm"), rtstruct, rawMR}
	r := stow(t, provider, "?patient="+patient.ID, files)
	if r.Status != http.StatusOK || len(sequence(r, "00081199")) != len(files) || len(sequence(r, "00081198")) != 0 {
		t.Fatalf("stow: %d %s", r.Status, r.Raw)
	}
	_, sets := qido(t, provider, "/dicomweb/instances?SOPClassUID=1.2.840.10008.5.1.4.1.1.481.3")
	if len(sets) != 1 {
		t.Fatalf("%d RT structure sets found", len(sets))
	}
	url := fmt.Sprintf("/dicomweb/studies/%s/series/%s/instances/%s", value(sets[0], "0020000D"), value(sets[0], "0020000E"), value(sets[0], "00080018"))
	resp, body := provider.Get(t, url, map[string]string{"Accept": `multipart/related; type="application/dicom"`})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("retrieve: %d %s", resp.StatusCode, body)
	}
	got := parts(t, resp, body)
	if len(got) != 1 || len(got[0]) < 132 || string(got[0][128:132]) != "DICM" || !bytes.HasSuffix(got[0], rtstruct) {
		t.Fatalf("retrieved %d parts, not the wrapped RT structure set", len(got))
	}
}

// The metadata of an instance is read without its pixels (they are read as
// zeros, not fetched; TestOpenWithoutPixels): what lies before and after
// them is all still there.
func TestDICOMwebMetadataAroundThePixels(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider, patient := app.SignUp(t, domain.RoleProvider), app.SignUp(t, domain.RolePatient)
	in := synth.Study("Doe^Jane", "P-1", "CT chest", "CT", 1)[0]
	file := synth.NewPixels(512, 512).File(in) // 512 KiB of pixels: skipped
	// A private element after the pixel data (its creator), as some modalities write.
	trailer := []byte{0xE1, 0x7F, 0x10, 0x00, 'L', 'O', 8, 0}
	file = append(append(file, trailer...), "VENDOR  "...)
	if r := stow(t, provider, "?patient="+patient.ID, [][]byte{file}); r.Status != http.StatusOK {
		t.Fatalf("stow: %d %s", r.Status, r.Raw)
	}
	resp, body := provider.Get(t, "/dicomweb/studies/"+in.Study+"/series/"+in.Series+"/metadata", nil)
	var meta []map[string]any
	if err := json.Unmarshal(body, &meta); err != nil || resp.StatusCode != http.StatusOK || len(meta) != 1 {
		t.Fatalf("metadata: %d %v %.300s", resp.StatusCode, err, body)
	}
	if value(meta[0], "00280010") != 512.0 || value(meta[0], "00200013") != 1.0 {
		t.Errorf("before the pixels: rows %v, instance %v", value(meta[0], "00280010"), value(meta[0], "00200013"))
	}
	if px, _ := meta[0]["7FE00010"].(map[string]any); px == nil || !strings.HasSuffix(fmt.Sprint(px["BulkDataURI"]), "/frames/1") {
		t.Errorf("the pixels: %v", meta[0]["7FE00010"])
	}
	if value(meta[0], "7FE10010") != "VENDOR" {
		t.Errorf("after the pixels: %v", meta[0]["7FE10010"])
	}
}
