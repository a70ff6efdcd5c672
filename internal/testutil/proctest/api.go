package proctest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// APIJSON calls the API with a bearer token (none when empty) and a JSON
// body (none when nil), returning the status and the body.
func APIJSON(t testing.TB, method, url, token string, body any) (int, string) {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, url, r)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Fetch GETs url, with a bearer token when one is given.
func Fetch(t testing.TB, url, token string) ([]byte, int) {
	t.Helper()
	b, status := FetchStatus(url, token)
	if status == 0 {
		t.Fatalf("GET %s: no answer", url)
	}
	return b, status
}

// FetchStatus GETs url, with a bearer token when one is given; status 0
// when there was no answer. Safe outside the test's goroutine.
func FetchStatus(url, token string) ([]byte, int) {
	req, _ := http.NewRequest("GET", url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, 0
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body) // a broken transfer shows as fewer bytes
	return b, resp.StatusCode
}

// WriteUploadForm writes the form of POST /api/upload/image and closes it.
func WriteUploadForm(w *multipart.Writer, caption, patientID, name string, file []byte) error {
	err := w.WriteField("caption", caption)
	if err == nil {
		err = w.WriteField("patientId", patientID)
	}
	var fw io.Writer
	if err == nil {
		fw, err = w.CreateFormFile("file", name)
	}
	if err == nil {
		_, err = fw.Write(file)
	}
	if err == nil {
		err = w.Close()
	}
	return err
}

// UploadForm is the form of POST /api/upload/image in memory, with its content type.
func UploadForm(caption, patientID, name string, file []byte) (*bytes.Buffer, string) {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	_ = WriteUploadForm(w, caption, patientID, name, file) // writes to memory cannot fail
	return &body, w.FormDataContentType()
}

// Upload uploads file for the patient under name and caption, streaming
// the form, and returns the status and the new image's id.
func Upload(t testing.TB, base, token, patientID, caption, name string, file []byte) (int, string) {
	t.Helper()
	status, id, err := upload(base, token, patientID, caption, name, file)
	if err != nil {
		t.Fatal(err)
	}
	return status, id
}

// MustUpload uploads file for the patient and returns the new image's id.
func MustUpload(t testing.TB, base, token, patientID, name string, file []byte) string {
	t.Helper()
	status, id := Upload(t, base, token, patientID, "upload", name, file)
	if status != http.StatusCreated {
		t.Fatalf("upload of %s: %d", name, status)
	}
	return id
}

// UploadFile uploads file for the patient (a PNG or, otherwise, a PDF) and
// returns the new image's id. Safe outside the test's goroutine.
func UploadFile(base, token, patientID, caption string, file []byte) (string, error) {
	name := "file.pdf"
	if bytes.HasPrefix(file, []byte("\x89PNG")) {
		name = "file.png"
	}
	status, id, err := upload(base, token, patientID, caption, name, file)
	if err == nil && (status != http.StatusCreated || id == "") {
		err = fmt.Errorf("upload: %d", status)
	}
	return id, err
}

func upload(base, token, patientID, caption, name string, file []byte) (int, string, error) {
	pr, pw := io.Pipe()
	w := multipart.NewWriter(pw)
	go func() {
		pw.CloseWithError(WriteUploadForm(w, caption, patientID, name, file)) // the request fails with the error, or the body ends
	}()
	req, _ := http.NewRequest("POST", base+"/api/upload/image", pr)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", w.FormDataContentType())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	var out struct{ Data struct{ ID string } }
	_ = json.NewDecoder(resp.Body).Decode(&out) // an error answer has no id
	return resp.StatusCode, out.Data.ID, nil
}

// client keeps a connection per concurrent download.
var client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 32}}

// Download downloads an image's contents and checks their size.
func Download(t testing.TB, base, token, id string, size int) {
	t.Helper()
	GetSized(t, base+"/api/upload/image/"+id+"/content", token, size)
}

// GetSized downloads url (with the bearer token, when given) and checks
// that it answers 200 with size bytes.
func GetSized(t testing.TB, url, token string, size int) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	// io.Discard would read in 8 KiB pieces, and a load generator shares the cores.
	n, _ := io.CopyBuffer(struct{ io.Writer }{io.Discard}, resp.Body, make([]byte, 256<<10))
	if resp.StatusCode != http.StatusOK || n != int64(size) {
		t.Fatalf("download: %d, %d bytes", resp.StatusCode, n)
	}
}

// Preview fetches an image's preview, expecting status.
func Preview(t testing.TB, base, token, id string, status int) []byte {
	t.Helper()
	body, got := Fetch(t, base+"/api/upload/image/"+id+"/preview", token)
	if got != status {
		t.Fatalf("preview: %d %s", got, body)
	}
	return body
}

// probeImage is a gentle 16-bit gradient with some transparency (so the
// encoder writes RGBA, colour type 6, depth 16), computed per pixel so that
// making the file costs no more than the file.
type probeImage struct{ side int }

func (p probeImage) ColorModel() color.Model { return color.NRGBA64Model }
func (p probeImage) Bounds() image.Rectangle { return image.Rect(0, 0, p.side, p.side) }
func (p probeImage) Opaque() bool            { return false }
func (p probeImage) At(x, y int) color.Color {
	return color.NRGBA64{R: uint16(x * 8), G: uint16(y * 8), B: 0x8000, A: 0xF000}
}

// ProbePNG is a PNG side pixels a side whose decoded size its header
// tells: 8 bytes a pixel.
func ProbePNG(t testing.TB, side int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, probeImage{side}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// OpenStream opens a message stream (from lastEventID when set) and gives
// the ids of its message events; the channel closes when the stream ends.
func OpenStream(t testing.TB, base, token, lastEventID string) <-chan string {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/api/message/stream", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("stream: %v %v", resp, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	ids := make(chan string, 100)
	go func() {
		defer close(ids) // the stream ended
		lines := bufio.NewScanner(resp.Body)
		for lines.Scan() {
			if id, ok := strings.CutPrefix(lines.Text(), "id: "); ok {
				ids <- id
			}
		}
	}()
	return ids
}

// ParseMetrics reads a Prometheus text scrape: each series's value.
func ParseMetrics(scrape string) map[string]float64 {
	out := map[string]float64{}
	for _, line := range strings.Split(scrape, "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && !strings.HasPrefix(line, "#") {
			if v, err := strconv.ParseFloat(f[1], 64); err == nil {
				out[f[0]] = v
			}
		}
	}
	return out
}
