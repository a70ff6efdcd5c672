package httpapi_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/secure"
	"github.com/medishare/medishare/internal/testutil/apptest"
	"github.com/medishare/medishare/internal/testutil/pgtest"
)

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(pgtest.RepoRoot(), "testdata", "dicom", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func pngBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := 0; x < w; x++ {
		img.Set(x, x%h, color.RGBA{200, 30, 30, 255})
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func jpegBytes(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, image.NewGray(image.Rect(0, 0, 32, 24)), nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// pdfOfSize is a minimal PDF padded to exactly n bytes.
func pdfOfSize(n int, marker string) []byte {
	head := "%PDF-1.4\n% " + marker + "\n1 0 obj << /Type /Catalog >> endobj\n"
	tail := "\ntrailer << /Root 1 0 R >>\n%%EOF\n"
	pad := n - len(head) - len(tail)
	return []byte(head + strings.Repeat(" ", pad) + tail)
}

// hugePNG is a valid PNG header claiming 50000 x 50000 pixels, and nothing else.
func hugePNG() []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], 50000)
	binary.BigEndian.PutUint32(ihdr[4:], 50000)
	ihdr[8], ihdr[9] = 8, 6
	chunk := func(typ string, data []byte) {
		b.Write(binary.BigEndian.AppendUint32(nil, uint32(len(data))))
		b.WriteString(typ)
		b.Write(data)
		b.Write(binary.BigEndian.AppendUint32(nil, crc32.ChecksumIEEE(append([]byte(typ), data...))))
	}
	chunk("IHDR", ihdr)
	chunk("IEND", nil)
	return b.Bytes()
}

func upload(t *testing.T, p *apptest.Person, patientID, name string, content []byte) *apptest.Response {
	t.Helper()
	return p.Upload(t, [][2]string{{"caption", "Scan " + name}, {"patientId", patientID}, {"file"}}, name, content)
}

func TestDICOMFixtures(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	tests := []struct {
		file    string
		status  int
		preview []int // allowed preview statuses
	}{
		{"CT_small.dcm", 201, []int{200}},
		{"MR_small.dcm", 201, []int{200}},
		{"MR_small_implicit.dcm", 201, []int{200}},
		{"MR_small_bigendian.dcm", 201, []int{200, 404}},
		{"MR_small_RLE.dcm", 201, []int{200}},
		{"JPEG-lossy.dcm", 201, []int{200}},
		{"SC_rgb_jpeg.dcm", 201, []int{200}},
		{"SC_rgb_small_odd.dcm", 201, []int{200}},
		{"ExplVR_BigEnd.dcm", 201, []int{200, 404}},
		{"examples_palette.dcm", 201, []int{200}},
		{"image_dfl.dcm", 201, []int{200, 404}},
		{"JPEG2000.dcm", 201, []int{200}},
		{"CT_small_j2k.dcm", 201, []int{200}},
		{"CT_small_jpegls.dcm", 201, []int{200}},
		{"MR_small_lossless.dcm", 201, []int{200}},
		{"US_rgb_lossless_sv1.dcm", 201, []int{200}},
		{"liver_1frame.dcm", 201, []int{200}},
		{"rtplan.dcm", 201, []int{404}},
		{"test-SR.dcm", 201, []int{404}},
		{"waveform_ecg.dcm", 201, []int{404}},
		{"MR_truncated.dcm", 0, []int{404}}, // 201 with no preview, or 422
		{"no_meta.dcm", 415, nil},
		{"ExplVR_LitEndNoMeta.dcm", 201, []int{404}},
		{"ExplVR_BigEndNoMeta.dcm", 201, []int{404}},
		{"rtstruct.dcm", 201, []int{404}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			r := upload(t, provider, patient.ID, tc.file, fixture(t, tc.file))
			if tc.status == 0 {
				if r.Status != 201 && r.Status != 422 {
					t.Fatalf("status %d: %s", r.Status, r.Raw)
				}
			} else if r.Status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.Status, tc.status, r.Raw)
			}
			if r.Status == 415 && r.Message() != "Invalid file type. Allowed: .jpg, .png, .pdf, .dicom" {
				t.Fatalf("message %q", r.Message())
			}
			if r.Status != 201 {
				return
			}
			im := r.Data()
			if im["contentType"] != "application/dicom" || im["dicom"] == nil {
				t.Fatalf("image: %v", im)
			}
			if strings.Contains(strings.ToLower(r.Raw), "patientname") {
				t.Fatalf("PHI field in the answer: %s", r.Raw)
			}
			resp, body := provider.Get(t, "/api/upload/image/"+im["id"].(string)+"/preview", nil)
			if !containsInt(tc.preview, resp.StatusCode) {
				t.Fatalf("preview status %d: %s", resp.StatusCode, body)
			}
			if resp.StatusCode == 200 {
				if _, err := png.Decode(bytes.NewReader(body)); err != nil {
					t.Fatalf("preview is not a PNG: %v", err)
				}
			} else if !strings.Contains(string(body), "Preview not available.") {
				t.Fatalf("no-preview body: %s", body)
			}
			// The original comes back byte for byte, but for the zeroed preamble (S13);
			// a raw dataset comes back after the Part 10 wrapping it was given.
			resp, content := provider.Get(t, "/api/upload/image/"+im["id"].(string)+"/content", nil)
			orig := fixture(t, tc.file)
			if !bytes.Equal(orig[128:min(len(orig), 132)], []byte("DICM")) {
				if resp.StatusCode != 200 || len(content) < 132 || string(content[128:132]) != "DICM" || !bytes.HasSuffix(content, orig) {
					t.Fatalf("wrapped content: %d, %d bytes", resp.StatusCode, len(content))
				}
				return
			}
			if resp.StatusCode != 200 || !bytes.Equal(content[128:], orig[128:]) || !bytes.Equal(content[:128], make([]byte, 128)) {
				t.Fatalf("content: %d, %d bytes", resp.StatusCode, len(content))
			}
		})
	}
}

func containsInt(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func TestUploadRefusesBadInput(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	other := app.SignUp(t, domain.RoleProvider)
	elf := append([]byte("\x7fELF\x02\x01\x01"), make([]byte, 200)...)
	tests := []struct {
		name    string
		fields  [][2]string
		file    string
		content []byte
		status  int
		message string
	}{
		{"text named .dcm", nil, "notes.dcm", []byte("just some text, not DICOM at all............................................................................................................................"), 415, "Invalid file type. Allowed: .jpg, .png, .pdf, .dicom"},
		{"executable named .png", nil, "photo.png", elf, 415, "Invalid file type. Allowed: .jpg, .png, .pdf, .dicom"},
		{"PNG named .pdf", nil, "report.pdf", pngBytes(t, 4, 4), 415, "Invalid file type. Allowed: .jpg, .png, .pdf, .dicom"},
		{"empty file", nil, "empty.png", nil, 415, "Invalid file type. Allowed: .jpg, .png, .pdf, .dicom"},
		{"10 MiB + 1 byte", nil, "big.pdf", pdfOfSize(domain.MaxUploadBytes+1, "x"), 413, "File size exceeds 10MB limit."},
		{"blank caption", [][2]string{{"caption", "   "}, {"patientId", patient.ID}, {"file"}}, "a.png", pngBytes(t, 4, 4), 422, "Please provide a caption."},
		{"missing file", [][2]string{{"caption", "x"}, {"patientId", patient.ID}}, "", nil, 422, "Please select a file to upload."},
		{"patient is a provider", [][2]string{{"caption", "x"}, {"patientId", other.ID}, {"file"}}, "a.png", pngBytes(t, 4, 4), 422, "Please choose an active patient."},
		{"patient does not exist", [][2]string{{"caption", "x"}, {"patientId", "00000000-0000-4000-8000-000000000000"}, {"file"}}, "a.png", pngBytes(t, 4, 4), 422, "Please choose an active patient."},
		{"patient id after the file", [][2]string{{"caption", "x"}, {"file"}, {"patientId", other.ID}}, "a.png", pngBytes(t, 4, 4), 422, "Please choose an active patient."},
		{"50000 x 50000 PNG", nil, "huge.png", hugePNG(), 422, "The image is too large to process."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fields := tc.fields
			if fields == nil {
				fields = [][2]string{{"caption", "A scan"}, {"patientId", patient.ID}, {"file"}}
			}
			r := provider.Upload(t, fields, tc.file, tc.content)
			if r.Status != tc.status || r.Message() != tc.message {
				t.Fatalf("%d %s, want %d %q", r.Status, r.Raw, tc.status, tc.message)
			}
		})
	}
	// Nothing was left in the store by the refused uploads.
	if n := countFiles(t, app.BlobDir); n != 0 {
		t.Fatalf("%d objects left behind", n)
	}
}

func countFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	// What cannot be read is not counted: the callback, so WalkDir, returns no error.
	_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return nil
	})
	return n
}

func TestUploadLimitsAndNames(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)

	exact := pdfOfSize(domain.MaxUploadBytes, "EXACT-LIMIT")
	r := upload(t, provider, patient.ID, "exact.pdf", exact)
	if r.Status != 201 || r.Data()["size"] != float64(domain.MaxUploadBytes) || r.Data()["preview_url"] != nil {
		t.Fatalf("exactly 10 MiB: %d %s", r.Status, r.Raw[:min(300, len(r.Raw))])
	}

	// A chunked upload with no length that goes over the limit.
	pr, pw := io.Pipe()
	go func() {
		w := newMultipart(pw)
		w.field("caption", "chunked")
		w.field("patientId", patient.ID)
		w.file("stream.pdf", io.MultiReader(bytes.NewReader(pdfOfSize(1024, "c")[:1000]), strings.NewReader(strings.Repeat("x", domain.MaxUploadBytes+100<<10))))
		pw.CloseWithError(w.close())
	}()
	r = provider.Send(t, "POST", "/api/upload/image", "multipart/form-data; boundary="+boundary, pr)
	if r.Status != 413 || r.Message() != "File size exceeds 10MB limit." {
		t.Fatalf("chunked over the limit: %d %s", r.Status, r.Raw)
	}

	// A name with ../, backslashes and control characters, sent RFC 2231-encoded as a browser may.
	var body bytes.Buffer
	w := newMultipart(&body)
	w.field("caption", "odd name")
	w.field("patientId", patient.ID)
	fmt.Fprintf(&body, "--%s\r\nContent-Disposition: form-data; name=\"file\"; filename*=UTF-8''..%%2F..%%5Cetc%%2F%%1B%%5B31mscan%%07%%E2%%80%%AE.png\r\n\r\n", boundary)
	body.Write(pngBytes(t, 8, 8))
	body.WriteString("\r\n")
	if err := w.close(); err != nil {
		t.Fatal(err)
	}
	r = provider.Send(t, "POST", "/api/upload/image", "multipart/form-data; boundary="+boundary, &body)
	if r.Status != 201 {
		t.Fatalf("odd name: %d %s", r.Status, r.Raw)
	}
	name := r.Data()["fileName"].(string)
	if strings.ContainsAny(name, "/\\\x00\x1b\x07\u202e") || strings.Contains(name, "..") || !strings.HasSuffix(name, ".png") {
		t.Fatalf("file name kept path or control characters: %q", name)
	}
	resp, _ := provider.Get(t, "/api/upload/image/"+r.Data()["id"].(string)+"/content", nil)
	if cd := resp.Header.Get("Content-Disposition"); strings.ContainsAny(cd, "/\x1b\x00") {
		t.Fatalf("Content-Disposition %q", cd)
	}
}

const boundary = "medishare-test-boundary"

// mp writes a multipart body by hand. Like a bufio.Writer it keeps the
// first write error and skips the writes after it; close returns it.
type mp struct {
	w   io.Writer
	err error
}

func newMultipart(w io.Writer) *mp { return &mp{w: w} }
func (m *mp) field(name, value string) {
	m.printf("--%s\r\nContent-Disposition: form-data; name=%q\r\n\r\n%s\r\n", boundary, name, value)
}
func (m *mp) file(name string, r io.Reader) {
	m.printf("--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=%q\r\nContent-Type: application/octet-stream\r\n\r\n", boundary, name)
	if m.err == nil {
		_, m.err = io.Copy(m.w, r)
	}
	m.printf("\r\n")
}
func (m *mp) printf(format string, args ...any) {
	if m.err == nil {
		_, m.err = fmt.Fprintf(m.w, format, args...)
	}
}
func (m *mp) close() error { m.printf("--%s--\r\n", boundary); return m.err }

func TestContentsAreEncryptedAtRest(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	marker := "PLAINTEXT-MARKER-7f3a9c"
	a := upload(t, provider, patient.ID, "a.pdf", pdfOfSize(200<<10, marker))
	b := upload(t, provider, patient.ID, "b.pdf", pdfOfSize(200<<10, "other"))
	if a.Status != 201 || b.Status != 201 {
		t.Fatal(a.Raw, b.Raw)
	}
	var objects []string
	// What cannot be read is not listed (the count below fails): WalkDir returns no error.
	_ = filepath.WalkDir(app.BlobDir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			objects = append(objects, path)
			data, _ := os.ReadFile(path)
			if bytes.Contains(data, []byte(marker)) || bytes.Contains(data, []byte("%PDF")) {
				t.Errorf("%s holds plaintext", path)
			}
		}
		return nil
	})
	if len(objects) != 2 {
		t.Fatalf("objects: %v", objects)
	}
	idA, idB := a.Data()["id"].(string), b.Data()["id"].(string)
	pathOf := func(id string) string {
		for _, o := range objects {
			if strings.Contains(o, id) {
				return o
			}
		}
		t.Fatalf("no object for %s", id)
		return ""
	}
	// Range requests work on the decrypted stream.
	resp, body := provider.Get(t, "/api/upload/image/"+idA+"/content", map[string]string{"Range": "bytes=2-7"})
	if resp.StatusCode != 206 || string(body) != "DF-1.4" || resp.Header.Get("Content-Range") != fmt.Sprintf("bytes 2-7/%d", 200<<10) {
		t.Fatalf("range: %d %q %s", resp.StatusCode, body, resp.Header.Get("Content-Range"))
	}
	if resp, _ := provider.Get(t, "/api/upload/image/"+idA+"/content", map[string]string{"Range": "bytes=999999999-"}); resp.StatusCode != 416 {
		t.Fatalf("unsatisfiable range: %d", resp.StatusCode)
	}
	resp, body = provider.Get(t, "/api/upload/image/"+idA+"/content", nil)
	for k, v := range map[string]string{"Content-Type": "application/pdf", "X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"} {
		if resp.Header.Get(k) != v {
			t.Errorf("%s = %q", k, resp.Header.Get(k))
		}
	}
	if !strings.Contains(resp.Header.Get("Content-Security-Policy"), "sandbox") || !strings.Contains(resp.Header.Get("Content-Disposition"), `filename=a.pdf`) {
		t.Errorf("headers: %v", resp.Header)
	}
	if !bytes.Contains(body, []byte(marker)) {
		t.Fatal("download lost the contents")
	}

	// A flipped byte in the second 64 KiB chunk: the download is read once,
	// so the first chunk has gone out when the second fails its check; the
	// transfer breaks off and not one byte of the damaged chunk is sent.
	pa, pb := pathOf(idA), pathOf(idB)
	orig, _ := os.ReadFile(pa)
	plain := pdfOfSize(200<<10, marker)
	flipped := bytes.Clone(orig)
	flipped[len(flipped)/2] ^= 0x01
	if err := os.WriteFile(pa, flipped, 0o600); err != nil {
		t.Fatal(err)
	}
	if ok, body := fetchWhole(t, provider, idA); ok || len(body) > secure.ChunkSize || !bytes.Equal(body, plain[:len(body)]) {
		t.Fatalf("a flipped byte in the second chunk: complete %v, %d bytes, a prefix of the original: %v", ok, len(body), bytes.Equal(body, plain[:min(len(body), len(plain))]))
	}
	// The byte sits in the second 64 KiB chunk. A range decrypts only the
	// chunks it covers: one inside the first chunk still reads, one that
	// touches the damaged chunk fails.
	if ok, body := fetchRange(t, provider, idA, "bytes=2-7"); !ok || string(body) != "DF-1.4" {
		t.Fatalf("a range in an intact chunk: %v %q", ok, body)
	}
	if ok, _ := fetchRange(t, provider, idA, "bytes=70000-70009"); ok {
		t.Fatal("a range in the damaged chunk was served")
	}
	// Damaged from the first chunk: a clean error before the answer begins.
	flipped[secure.HeaderSize+100] ^= 0x01
	if err := os.WriteFile(pa, flipped, 0o600); err != nil {
		t.Fatal(err)
	}
	if r := provider.Do(t, "GET", "/api/upload/image/"+idA+"/content", nil); r.Status != 500 || r.Message() != "The file could not be decrypted." {
		t.Fatalf("a damaged first chunk: %d %s", r.Status, r.Raw)
	}
	// Cut short by its last chunk: the transfer breaks off.
	record := secure.ChunkSize + 16
	if err := os.WriteFile(pa, orig[:secure.HeaderSize+3*record], 0o600); err != nil {
		t.Fatal(err)
	}
	if ok, body := fetchWhole(t, provider, idA); ok || !bytes.Equal(body, plain[:len(body)]) {
		t.Fatalf("a truncated object was served whole (%d bytes)", len(body))
	}
	// Two objects swapped: both fail.
	ob, _ := os.ReadFile(pb)
	if err := os.WriteFile(pa, ob, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pb, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	if ok, _ := fetchWhole(t, provider, idA); ok {
		t.Fatal("a swapped object was served")
	}
	if ok, _ := fetchWhole(t, provider, idB); ok {
		t.Fatal("a swapped object was served")
	}
}

// fetchRange asks for a range of the contents and reports whether a
// complete 206 answer came back.
func fetchRange(t *testing.T, p *apptest.Person, id, rng string) (bool, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", p.BaseURL()+"/api/upload/image/"+id+"/content", nil)
	req.Header.Set("Authorization", "Bearer "+p.Token)
	req.Header.Set("Range", rng)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false, nil
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return err == nil && resp.StatusCode == http.StatusPartialContent, body
}

// fetchWhole downloads contents and reports whether a complete, successful answer came back.
func fetchWhole(t *testing.T, p *apptest.Person, id string) (bool, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", p.BaseURL()+"/api/upload/image/"+id+"/content", nil)
	req.Header.Set("Authorization", "Bearer "+p.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false, nil
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return err == nil && resp.StatusCode == 200, body
}

func TestSignedURLsAndAccess(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	provider2 := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	patient2 := app.SignUp(t, domain.RolePatient)
	admin := app.SignUp(t, domain.RoleAdmin)
	r := upload(t, provider, patient.ID, "x.jpg", jpegBytes(t))
	if r.Status != 201 {
		t.Fatal(r.Raw)
	}
	id := r.Data()["id"].(string)
	signed := r.Data()["image_url"].(string)
	anon := app.Client()
	if resp, body := anon.Get(t, signed, nil); resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/jpeg" || len(body) == 0 {
		t.Fatalf("signed URL without a bearer: %d", resp.StatusCode)
	}
	if resp, _ := anon.Get(t, strings.Replace(signed, "/content", "/preview", 1), nil); resp.StatusCode != 401 {
		t.Fatalf("a content signature used for the preview: %d", resp.StatusCode)
	}
	if resp, _ := anon.Get(t, signed+"x", nil); resp.StatusCode != 401 {
		t.Fatalf("tampered signature: %d", resp.StatusCode)
	}
	app.Clock.Shift(6 * time.Minute)
	if resp, _ := anon.Get(t, signed, nil); resp.StatusCode != 401 {
		t.Fatalf("signed URL after 6 minutes: %d", resp.StatusCode)
	}
	app.Clock.Shift(-6 * time.Minute)

	// The route-by-role matrix of the images routes (S8, S9).
	callers := []*apptest.Person{{Client: app.Client()}, patient, patient2, provider, provider2, admin}
	routes := []struct {
		method, path string
		want         [6]int // anonymous, patient, patient2, provider, provider2, admin
	}{
		{"GET", "/api/upload/my-images", [6]int{401, 403, 403, 200, 200, 200}},
		{"GET", "/api/upload/shared-images", [6]int{401, 200, 200, 200, 200, 200}},
		{"GET", "/api/upload/images", [6]int{401, 403, 403, 403, 403, 200}},
		{"GET", "/api/upload/image/" + id, [6]int{401, 404, 404, 200, 404, 200}},
		{"GET", "/api/upload/image/" + id + "/content", [6]int{401, 404, 404, 200, 404, 200}},
		{"GET", "/api/upload/image/" + id + "/preview", [6]int{401, 404, 404, 200, 404, 200}},
		{"GET", "/api/upload/image/00000000-0000-4000-8000-000000000000", [6]int{401, 404, 404, 404, 404, 404}},
		{"POST", "/api/upload/image", [6]int{401, 403, 403, 400, 400, 400}},
		{"DELETE", "/api/upload/image/" + id, [6]int{401, 404, 404, 200, 404, 404}},
	}
	for _, rt := range routes {
		for i, c := range callers {
			t.Run(fmt.Sprintf("%s %s #%d", rt.method, rt.path, i), func(t *testing.T) {
				var status int
				if rt.method == "GET" {
					resp, _ := c.Get(t, rt.path, nil)
					status = resp.StatusCode
				} else {
					status = c.Send(t, rt.method, rt.path, "", nil).Status
				}
				if status != rt.want[i] {
					t.Fatalf("status %d, want %d", status, rt.want[i])
				}
			})
		}
	}
	// After deletion the contents are gone from the store too.
	if n := countFiles(t, app.BlobDir); n != 0 {
		t.Fatalf("%d objects left after deletion", n)
	}
	if r := provider.Do(t, "GET", "/api/upload/my-images", nil); len(r.List()) != 0 {
		t.Fatalf("deleted image listed: %s", r.Raw)
	}
}

func TestJanitorRemovesOrphans(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	provider := app.SignUp(t, domain.RoleProvider)
	patient := app.SignUp(t, domain.RolePatient)
	if r := upload(t, provider, patient.ID, "kept.png", pngBytes(t, 4, 4)); r.Status != 201 {
		t.Fatal(r.Raw)
	}
	orphan := filepath.Join(app.BlobDir, "images", "00000000-0000-4000-8000-0000000000aa")
	if err := os.WriteFile(orphan, []byte("left by a crash"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := provider.Do(t, "GET", "/api/dashboard/stats", nil); r.Data()["totalImages"] != float64(1) || r.Data()["totalUsers"] != float64(1) {
		t.Fatalf("provider stats after an upload: %s", r.Raw)
	}
	if n, err := app.Services.Integrity.CollectOrphans(t.Context()); err != nil || n != 0 {
		t.Fatalf("a fresh orphan was removed: %d %v", n, err)
	}
	old := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(orphan, old, old); err != nil {
		t.Fatal(err)
	}
	if n, err := app.Services.Integrity.CollectOrphans(t.Context()); err != nil || n != 1 {
		t.Fatalf("orphans removed: %d %v", n, err)
	}
	if n := countFiles(t, app.BlobDir); n != 1 {
		t.Fatalf("%d objects left, want the referenced one", n)
	}
}
