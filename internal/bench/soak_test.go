package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/medimg"
	"github.com/medishare/medishare/internal/secure"
	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/pgtest"
	"github.com/medishare/medishare/internal/testutil/proctest"
)

// The soak's people: providers and patients registered through the API
// before the clock starts, and the demo admin.
const (
	soakProviders = 12
	soakPatients  = 48
	// soakMaxInFlight bounds the requests the load generator keeps open at
	// once, so a server that stops answering cannot exhaust its memory; a
	// request that finds no room is dropped, and counted as an error.
	soakMaxInFlight = 256
	// soakTimeout is the longest one request may take: longer is an error.
	soakTimeout = 60 * time.Second
	// soakSampleEvery is the pace of the server's memory samples.
	soakSampleEvery = 30 * time.Second
)

// soakMix is the workload: each request kind, its route pattern (a variant
// of a pattern gets its query's shape in the name) and its weight in 100.
var soakMix = []struct {
	key, route string
	weight     int
}{
	{"signin", "POST /api/auth/login", 5},
	{"myImages", "GET /api/upload/my-images", 8},
	{"sharedImages", "GET /api/upload/shared-images", 6},
	{"users", "GET /api/users", 5},
	{"usersSearch", "GET /api/users?search=", 5},
	{"audit", "GET /api/audit/logs", 8},
	{"sent", "GET /api/sharing/sent", 4},
	{"chatList", "GET /api/message/chat-list", 7},
	{"upload", "POST /api/upload/image", 4},
	{"download", "GET /api/upload/image/{id}/content", 10},
	{"preview", "GET /api/upload/image/{id}/preview", 10},
	{"share", "POST /api/sharing/request", 5},
	{"verify", "POST /api/sharing/verify", 4},
	{"send", "POST /api/message/send", 10},
	{"read", "GET /api/message/chat/{userId}", 9},
}

// soakWhy says what a route does that takes time, for the report's note on
// the slowest route (from the code each one runs; see the soak section of
// docs/performance.md).
var soakWhy = map[string]string{
	"POST /api/auth/login": "a sign-in checks the password with argon2id, 19 MiB of memory passed over twice " +
		"(OWASP's minimum), CPU- and memory-bound on purpose, since that is what makes a stolen hash slow to crack; at most four " +
		"run at once (the hashing semaphore), and then the session, its refresh token and the audit entry are written in one " +
		"transaction. It is the one route whose every request does tens of milliseconds of computation",
	"POST /api/upload/image": "an upload reads the multipart body as it arrives, decides the type from the bytes, " +
		"cleans the file, encrypts it in 64 KiB chunks while hashing it (SHA-256), writes it and waits for fsync " +
		"before the record and its audit entry commit; the 2 MiB files dominate",
	"GET /api/upload/image/{id}/preview": "the first view of an image renders its preview: the stored file is read and " +
		"decrypted twice (the header, which sets how much of the preview memory budget to wait for, then the image), decoded " +
		"whole, scaled to at most 1024 px and encoded as a PNG, and the PNG is encrypted and written with fsync before the " +
		"answer; later views read and decrypt the stored PNG only (the lines under the table time the two apart). " +
		"Rendering is CPU-bound, so when several first views and sign-ins meet on two shared cores they queue",
	"GET /api/upload/image/{id}/content": "a download checks access, writes the audit entry and decrypts the file as it sends it",
	"POST /api/sharing/request":          "a share checks the image and the recipient, counts the sharer's shares with that person, and writes the share and its audit entries in one transaction",
}

// soakFiles are the files the workload uploads, a few hundred KB to a few
// MB: a real DICOM file of testdata/dicom (a palette colour image), and
// files made here as the other tests make theirs (the repository keeps no
// JPEG or PNG): a 16-bit CR radiograph of 1024 x 1024 (the benchmarks'
// generator), a photograph-like JPEG and a PNG with noise (so it does not
// compress to nothing). Each has pixels, so each has a preview.
func soakFiles(b *testing.B) []soakFile {
	palette, err := os.ReadFile(filepath.Join(pgtest.RepoRoot(), "testdata", "dicom", "examples_palette.dcm"))
	if err != nil {
		b.Fatal(err)
	}
	noise := rand.New(rand.NewPCG(1, 2))
	picture := func(w, h int) *image.RGBA {
		im := image.NewRGBA(image.Rect(0, 0, w, h))
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				n := uint8(noise.IntN(24))
				im.Set(x, y, color.RGBA{uint8(x*255/w) + n, uint8(y*255/h) + n, 128 + n, 255})
			}
		}
		return im
	}
	var jpg, pngFile bytes.Buffer
	if err := jpeg.Encode(&jpg, picture(1600, 1200), &jpeg.Options{Quality: 90}); err != nil {
		b.Fatal(err)
	}
	if err := png.Encode(&pngFile, picture(1024, 768)); err != nil {
		b.Fatal(err)
	}
	return []soakFile{
		{"palette.dcm", medimg.DICOM, palette},
		{"chest.dcm", medimg.DICOM, newBenchDICOM(1024, 1024).File(newUIDs("SOAK", 1))},
		{"photo.jpg", medimg.JPEG, jpg.Bytes()},
		{"scan.png", medimg.PNG, pngFile.Bytes()},
	}
}

type soakFile struct {
	name, contentType string
	data              []byte
}

// soakAlone is what the two costliest steps take on this machine alone,
// one at a time, without HTTP, the database or encryption (medians): an
// argon2id check of a password, and rendering the preview of each file from
// its stored form (medimg, as the server does, 1024 px at most).
type soakAlone struct {
	argon2Ms float64
	renderMs map[string]float64
}

func measureAlone(b *testing.B, files []soakFile) soakAlone {
	ctx := b.Context()
	pw := secure.NewPasswords(1)
	hash, err := pw.Hash(ctx, "Tulip-Harbour-1-Quartz")
	if err != nil {
		b.Fatal(err)
	}
	out := soakAlone{renderMs: map[string]float64{}}
	out.argon2Ms = medianOfRuns(7, func() float64 {
		start := time.Now()
		if ok, err := pw.Verify(ctx, hash, "Tulip-Harbour-1-Quartz"); !ok || err != nil {
			b.Fatalf("argon2id: %v %v", ok, err)
		}
		return float64(time.Since(start).Microseconds()) / 1000
	})
	previews := medimg.NewPreviewer(384 << 20)
	for _, f := range files {
		var stored bytes.Buffer
		if _, err := medimg.Clean(&stored, bytes.NewReader(f.data), f.contentType); err != nil {
			b.Fatalf("clean %s: %v", f.name, err)
		}
		open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(stored.Bytes())), nil }
		out.renderMs[f.name] = medianOfRuns(5, func() float64 {
			start := time.Now()
			if err := previews.Preview(ctx, io.Discard, open, int64(stored.Len()), f.contentType, 1024); err != nil {
				b.Fatalf("preview %s: %v", f.name, err)
			}
			return float64(time.Since(start).Microseconds()) / 1000
		})
	}
	return out
}

// soakUser is one signed-in person of the workload, behind their own
// client address.
type soakUser struct {
	email, password, role string
	id, ip                string
	mu                    sync.Mutex
	token                 string
	signedIn              time.Time // when the last sign-in was started
	messaged              atomic.Int64
}

func (u *soakUser) bearer() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.token
}

// soakImage is an image someone may open.
type soakImage struct {
	id   string
	size int64
	file string // which of soakFiles
}

type soakAccess struct {
	user  *soakUser
	image soakImage
}

type soakShare struct {
	id        string
	recipient *soakUser
	image     soakImage
}

// soakWorld is what the workload knows: the people, the images each may
// open, and the shares waiting for their recipients' codes.
type soakWorld struct {
	base      string
	client    *http.Client
	files     []soakFile
	mail      *soakMailbox
	providers []*soakUser
	patients  []*soakUser
	everyone  []*soakUser // providers, patients and the admin

	mu        sync.Mutex
	rng       *rand.Rand
	uploads   map[string][]soakImage // by provider id
	accesses  []soakAccess
	shared    map[string]bool // image id + "/" + recipient id
	previewed map[string]bool // images whose preview was asked for
	pending   []soakShare
	turn      map[string]int // round-robin counters
	skipped   map[string]int // requests not sent: nothing to ask for yet
}

// pick returns a random index below n.
func (w *soakWorld) pick(n int) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.rng.IntN(n)
}

// next is a round-robin counter.
func (w *soakWorld) next(name string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := w.turn[name]
	w.turn[name]++
	return n
}

// soakCall is one request and what a correct server answers.
type soakCall struct {
	req     *http.Request
	want    int
	small   bool                             // read the body into memory (JSON, previews)
	check   func(n int64, body []byte) error // the answer's body, once the status is right
	skip    string                           // not sent, and why
	variant string                           // timed apart as well, within its route
}

func (w *soakWorld) request(u *soakUser, method, path string, body io.Reader, contentType string) *http.Request {
	req, _ := http.NewRequest(method, w.base+path, body)
	if t := u.bearer(); t != "" {
		req.Header.Set("Authorization", "Bearer "+t)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	// The server trusts the loopback address as its reverse proxy
	// (MEDISHARE_TRUSTED_PROXIES), so each person is a client of their own.
	req.Header.Set("X-Forwarded-For", u.ip)
	return req
}

func (w *soakWorld) jsonRequest(u *soakUser, method, path string, body any) *http.Request {
	b, _ := json.Marshal(body)
	return w.request(u, method, path, bytes.NewReader(b), "application/json")
}

// soakData decodes the data of a JSON answer.
func soakData[T any](body []byte) (T, error) {
	var out struct{ Data T }
	err := json.Unmarshal(body, &out)
	return out.Data, err
}

// signIn signs u in again, with the right password.
func (w *soakWorld) signIn(u *soakUser) soakCall {
	return soakCall{
		req:   w.jsonRequest(u, "POST", "/api/auth/login", map[string]string{"email": u.email, "password": u.password}),
		want:  http.StatusOK,
		small: true,
		check: func(_ int64, body []byte) error {
			d, err := soakData[struct {
				Token string
				User  struct{ ID string }
			}](body)
			if err == nil && (d.Token == "" || d.User.ID != u.id && u.id != "") {
				err = errors.New("no token, or another user")
			}
			if err == nil {
				u.mu.Lock()
				u.token, u.id = d.Token, d.User.ID
				u.mu.Unlock()
			}
			return err
		},
	}
}

// stalest is the person whose last sign-in is the oldest: signing in again
// keeps every access token (15 minutes) fresh.
func (w *soakWorld) stalest() *soakUser {
	w.mu.Lock()
	defer w.mu.Unlock()
	var oldest *soakUser
	for _, u := range w.everyone {
		u.mu.Lock()
		if oldest == nil || u.signedIn.Before(oldest.signedIn) {
			oldest = u
		}
		u.mu.Unlock()
	}
	oldest.mu.Lock()
	oldest.signedIn = time.Now()
	oldest.mu.Unlock()
	return oldest
}

// upload sends file i for a patient, as provider p.
func (w *soakWorld) upload(p *soakUser, patient *soakUser, f soakFile) soakCall {
	body, contentType := proctest.UploadForm("Soak "+f.name, patient.id, f.name, f.data)
	return soakCall{
		req:   w.request(p, "POST", "/api/upload/image", body, contentType),
		want:  http.StatusCreated,
		small: true,
		check: func(_ int64, body []byte) error {
			d, err := soakData[struct {
				ID   string
				Size int64
			}](body)
			if err == nil && (d.ID == "" || d.Size <= 0) {
				err = errors.New("no id or size")
			}
			if err == nil {
				w.mu.Lock()
				im := soakImage{d.ID, d.Size, f.name}
				w.uploads[p.id] = append(w.uploads[p.id], im)
				w.accesses = append(w.accesses, soakAccess{p, im})
				w.mu.Unlock()
			}
			return err
		},
	}
}

// share shares one of p's images, not shared with the patient before (a
// second share of an image to one person replaces the first), with them.
func (w *soakWorld) share(p, patient *soakUser) soakCall {
	w.mu.Lock()
	var im soakImage
	imgs := w.uploads[p.id]
	for k := range imgs {
		c := imgs[(k+w.rng.IntN(len(imgs)))%len(imgs)]
		if !w.shared[c.id+"/"+patient.id] {
			im = c
			break
		}
	}
	if im.id != "" {
		w.shared[im.id+"/"+patient.id] = true
	}
	w.mu.Unlock()
	if im.id == "" {
		return soakCall{skip: "every image of the provider is shared with the patient"}
	}
	return soakCall{
		req:   w.jsonRequest(p, "POST", "/api/sharing/request", map[string]string{"imagemetadataId": im.id, "createdfor": patient.id}),
		want:  http.StatusCreated,
		small: true,
		check: func(_ int64, body []byte) error {
			d, err := soakData[struct{ ID string }](body)
			if err == nil && d.ID == "" {
				err = errors.New("no share id")
			}
			if err == nil {
				w.mu.Lock()
				w.pending = append(w.pending, soakShare{d.ID, patient, im})
				w.mu.Unlock()
			}
			return err
		},
	}
}

// verify enters the code of the oldest share whose mail has come, as its
// recipient.
func (w *soakWorld) verify() soakCall {
	w.mu.Lock()
	var sh soakShare
	var code string
	for k, s := range w.pending {
		if c := w.mail.shareCode(s.id); c != "" {
			sh, code = s, c
			w.pending = slices.Delete(w.pending, k, k+1)
			break
		}
	}
	w.mu.Unlock()
	if sh.id == "" {
		return soakCall{skip: "no share's code has come yet"}
	}
	return w.verifyShare(sh, code)
}

func (w *soakWorld) verifyShare(sh soakShare, code string) soakCall {
	return soakCall{
		req:   w.jsonRequest(sh.recipient, "POST", "/api/sharing/verify", map[string]string{"sharingRequestId": sh.id, "verificationCode": code}),
		want:  http.StatusOK,
		small: true,
		check: func(int64, []byte) error {
			w.mu.Lock()
			w.accesses = append(w.accesses, soakAccess{sh.recipient, sh.image})
			w.mu.Unlock()
			return nil
		},
	}
}

// images counts the images uploaded, set-up included.
func (w *soakWorld) images() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, imgs := range w.uploads {
		n += len(imgs)
	}
	return n
}

// access is a random image someone may open: an uploader's own, or one
// shared with a patient who verified the share.
func (w *soakWorld) access() soakAccess {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.accesses[w.rng.IntN(len(w.accesses))]
}

func (w *soakWorld) download() soakCall {
	a := w.access()
	return soakCall{
		req:  w.request(a.user, "GET", "/api/upload/image/"+a.image.id+"/content", nil, ""),
		want: http.StatusOK,
		check: func(n int64, _ []byte) error {
			if n != a.image.size {
				return fmt.Errorf("%d bytes, stored %d", n, a.image.size)
			}
			return nil
		},
	}
}

var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// preview asks for an image's preview; the first request for an image
// renders it, later ones read the stored PNG, and the two are timed apart
// too.
func (w *soakWorld) preview() soakCall {
	a := w.access()
	w.mu.Lock()
	variant := "later views (the stored PNG)"
	if !w.previewed[a.image.id] {
		w.previewed[a.image.id], variant = true, "first view of an image (rendered then): "+a.image.file
	}
	w.mu.Unlock()
	return soakCall{
		req:     w.request(a.user, "GET", "/api/upload/image/"+a.image.id+"/preview", nil, ""),
		want:    http.StatusOK,
		small:   true,
		variant: variant,
		check: func(_ int64, body []byte) error {
			if !bytes.HasPrefix(body, pngSignature) {
				return errors.New("not a PNG")
			}
			return nil
		},
	}
}

// counterpart is someone u may write to: a provider for a patient, a
// patient for a provider or an admin.
func (w *soakWorld) counterpart(u *soakUser) *soakUser {
	if u.role == "patient" {
		return w.providers[w.pick(len(w.providers))]
	}
	return w.patients[w.pick(len(w.patients))]
}

// send writes a message; senders take turns, so none comes near the 30
// messages a minute one person may send.
func (w *soakWorld) send() soakCall {
	people := w.everyone[:len(w.providers)+len(w.patients)]
	from := people[w.next("send")%len(people)]
	to := w.counterpart(from)
	n := from.messaged.Add(1)
	return w.okJSON(w.jsonRequest(from, "POST", "/api/message/send",
		map[string]string{"recipientId": to.id, "content": fmt.Sprintf("Soak message %d from %s: how are you today?", n, from.email)}), http.StatusCreated)
}

func (w *soakWorld) okJSON(req *http.Request, want int) soakCall {
	return soakCall{req: req, want: want, small: true, check: func(_ int64, body []byte) error {
		if !json.Valid(body) {
			return errors.New("not JSON")
		}
		return nil
	}}
}

var soakSearches = []string{"nders", "son", "mart", "lee", "ami"}

// call makes the request of kind key.
func (w *soakWorld) call(key string) soakCall {
	anyone := func() *soakUser { return w.everyone[w.pick(len(w.everyone))] }
	provider := func() *soakUser { return w.providers[w.pick(len(w.providers))] }
	patient := func() *soakUser { return w.patients[w.pick(len(w.patients))] }
	get := func(u *soakUser, path string) soakCall {
		return w.okJSON(w.request(u, "GET", path, nil, ""), http.StatusOK)
	}
	switch key {
	case "signin":
		return w.signIn(w.stalest())
	case "myImages":
		return get(provider(), "/api/upload/my-images?page=1&limit=10")
	case "sharedImages":
		return get(patient(), "/api/upload/shared-images?page=1&limit=10")
	case "users":
		return get(anyone(), "/api/users?page=1&limit=10")
	case "usersSearch":
		return get(anyone(), "/api/users?search="+soakSearches[w.pick(len(soakSearches))]+"&page=1&limit=10")
	case "audit":
		return get(anyone(), "/api/audit/logs?page=1&limit=20")
	case "sent":
		return get(provider(), "/api/sharing/sent?page=1&limit=10")
	case "chatList":
		return get(anyone(), "/api/message/chat-list")
	case "upload":
		p := w.providers[w.next("upload")%len(w.providers)]
		return w.upload(p, patient(), w.files[w.pick(len(w.files))])
	case "download":
		return w.download()
	case "preview":
		return w.preview()
	case "share":
		// Each provider in turn, and each provider's patients in turn, so no
		// pair comes near 30 shares an hour.
		p := w.providers[w.next("share")%len(w.providers)]
		return w.share(p, w.patients[w.next("share:"+p.id)%len(w.patients)])
	case "verify":
		return w.verify()
	case "send":
		return w.send()
	case "read":
		u := anyone()
		return get(u, "/api/message/chat/"+w.counterpart(u).id+"?limit=50")
	}
	panic("unknown request kind " + key)
}

// soakStats gathers the answers by route.
type soakStats struct {
	mu      sync.Mutex
	lat     map[string][]float64 // ms, from the scheduled start to the end of the body
	variant map[string][]float64 // route + " | " + variant: the good answers of a variant
	errs    map[string]int       // route + " " + status (or what went wrong)
	samples map[string]string    // one answer per kind of error
}

func (s *soakStats) add(route, variant string, ms float64, fault string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lat[route] = append(s.lat[route], ms)
	if variant != "" && fault == "" {
		s.variant[route+" | "+variant] = append(s.variant[route+" | "+variant], ms)
	}
	if fault != "" {
		s.errs[route+" | "+strings.SplitN(fault, ":", 2)[0]]++
		if _, seen := s.samples[route+" | "+strings.SplitN(fault, ":", 2)[0]]; !seen {
			s.samples[route+" | "+strings.SplitN(fault, ":", 2)[0]] = fault
		}
	}
}

// do sends a call, timed from when it was due, and returns what was wrong
// with the answer ("" when nothing was).
func (w *soakWorld) do(c soakCall, due time.Time) (ms float64, fault string) {
	resp, err := w.client.Do(c.req)
	if err != nil {
		return float64(time.Since(due).Microseconds()) / 1000, "transport: " + err.Error()
	}
	defer resp.Body.Close()
	var body []byte
	var n int64
	if c.small || resp.StatusCode != c.want {
		body, err = io.ReadAll(resp.Body)
		n = int64(len(body))
	} else {
		n, err = io.CopyBuffer(struct{ io.Writer }{io.Discard}, resp.Body, make([]byte, 64<<10))
	}
	ms = float64(time.Since(due).Microseconds()) / 1000
	switch {
	case resp.StatusCode != c.want:
		return ms, fmt.Sprintf("%d: %.200s", resp.StatusCode, body)
	case err != nil:
		return ms, "body: " + err.Error()
	case c.check != nil:
		if err := c.check(n, body); err != nil {
			return ms, "answer: " + err.Error()
		}
	}
	return ms, ""
}

// must sends a set-up call and stops the benchmark unless it succeeds.
func (w *soakWorld) must(b *testing.B, c soakCall) {
	b.Helper()
	if c.skip != "" {
		b.Fatalf("set-up: %s", c.skip)
	}
	if _, fault := w.do(c, time.Now()); fault != "" {
		b.Fatalf("set-up: %s %s: %s", c.req.Method, c.req.URL.Path, fault)
	}
}

// soakMailbox reads the development mailer's .eml files (MEDISHARE_DATA_DIR/mail)
// as they are written: confirmation codes by address, share codes by share.
type soakMailbox struct {
	dir     string
	mu      sync.Mutex
	seen    map[string]bool
	confirm map[string]string
	share   map[string]string
}

var (
	mailTo          = regexp.MustCompile(`(?mi)^To:.*?([\w.+-]+@[\w.-]+)`)
	mailConfirmCode = regexp.MustCompile(`confirmation code is (\d{4})\.`)
	mailShareCode   = regexp.MustCompile(`Sharing id: ([0-9a-f-]{36})\s+Code: (\d{6})`)
)

// poll reads the mail that came since the last call.
func (m *soakMailbox) poll() {
	entries, _ := os.ReadDir(m.dir) // no folder: no mail yet
	for _, e := range entries {
		name := e.Name()
		m.mu.Lock()
		seen := m.seen[name]
		m.mu.Unlock()
		if seen || !strings.HasSuffix(name, ".eml") {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(m.dir, name))
		if err != nil {
			continue
		}
		text := strings.ReplaceAll(string(raw), "\r\n", "\n")
		m.mu.Lock()
		m.seen[name] = true
		if c := mailConfirmCode.FindStringSubmatch(text); c != nil {
			if to := mailTo.FindStringSubmatch(text); to != nil {
				m.confirm[strings.ToLower(to[1])] = c[1]
			}
		}
		if c := mailShareCode.FindStringSubmatch(text); c != nil {
			m.share[c[1]] = c[2]
		}
		m.mu.Unlock()
	}
}

// watch reads new mail five times a second until stop is closed.
func (m *soakMailbox) watch(stop <-chan struct{}) {
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
			m.poll()
		}
	}
}

func (m *soakMailbox) shareCode(id string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.share[id]
}

// wait waits for the mail in which get finds something, and returns it.
func (m *soakMailbox) wait(b *testing.B, what string, get func() string) string {
	var v string
	testutil.Eventually(b, fmt.Sprintf("a mail with %s in %s", what, m.dir), func() bool {
		m.poll()
		m.mu.Lock()
		defer m.mu.Unlock()
		v = get()
		return v != ""
	})
	return v
}

// soakSample is the server's memory at one moment of the run.
type soakSample struct {
	at                          time.Duration
	rssKiB                      int64
	heapInuse, heapAlloc, goros float64
	fds, dbConns                float64
}

// metricsOf reads some of the server's Prometheus metrics.
func metricsOf(url string) map[string]float64 {
	body, _ := proctest.FetchStatus(url, "") // no answer: no figures
	return proctest.ParseMetrics(string(body))
}

func envDuration(b *testing.B, name string, fallback time.Duration) time.Duration {
	s := os.Getenv(name)
	if s == "" {
		return fallback
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		b.Fatalf("%s=%q: want a duration such as 15m", name, s)
	}
	return d
}

// BenchmarkSoak runs a mixed workload against one real server process
// (bin/medishare) for SOAK_DURATION (15m) at SOAK_RATE requests a second
// (50), open-loop: requests start on a fixed schedule whatever the
// latency. It reports errors by route and status, p50/p99/max by route, and
// the server's memory (RSS and Go heap) every 30 s. `make soak` runs it and
// writes its section of docs/performance.md (BENCH_REPORT). Not part of
// `make test` or `make bench`.
func BenchmarkSoak(b *testing.B) {
	duration := envDuration(b, "SOAK_DURATION", 15*time.Minute)
	rate := 50.0
	if s := os.Getenv("SOAK_RATE"); s != "" {
		r, err := strconv.ParseFloat(s, 64)
		if err != nil || r <= 0 {
			b.Fatalf("SOAK_RATE=%q: want requests a second", s)
		}
		rate = r
	}

	env := proctest.Env(b, pgtest.NewDatabase(b))
	env["MEDISHARE_LOG_LEVEL"] = "warn"
	env["MEDISHARE_METRICS_ADDR"] = fmt.Sprintf("127.0.0.1:%d", pgtest.FreePort(b))
	// The load generator stands for many clients behind a reverse proxy on
	// this machine: the server believes the proxy's X-Forwarded-For, so its
	// limits per client address apply to each person, as in production.
	env["MEDISHARE_TRUSTED_PROXIES"] = "127.0.0.1,::1"
	base := "http://" + env["MEDISHARE_ADDR"]
	metricsURL := "http://" + env["MEDISHARE_METRICS_ADDR"] + "/metrics"
	cmd := proctest.Start(b, proctest.Built(b), env, os.Stderr)
	pid := cmd.Process.Pid
	proctest.WaitStatus(b, base+"/readyz", http.StatusOK)

	w := &soakWorld{
		base: base,
		client: &http.Client{Timeout: soakTimeout, Transport: &http.Transport{
			MaxIdleConnsPerHost: soakMaxInFlight, DisableCompression: true,
		}},
		files:     soakFiles(b),
		mail:      &soakMailbox{dir: filepath.Join(env["MEDISHARE_DATA_DIR"], "mail"), seen: map[string]bool{}, confirm: map[string]string{}, share: map[string]string{}},
		rng:       rand.New(rand.NewPCG(14, 7)),
		uploads:   map[string][]soakImage{},
		shared:    map[string]bool{},
		previewed: map[string]bool{},
		turn:      map[string]int{},
		skipped:   map[string]int{},
	}
	alone := measureAlone(b, w.files)
	setupStart := time.Now()
	w.setUp(b, env)
	setupTook := time.Since(setupStart)
	b.Logf("set-up: %d providers, %d patients and the admin signed in, %d images, %d shares waiting, in %s",
		len(w.providers), len(w.patients), w.images(), len(w.pending), setupTook.Round(time.Second))

	stopMail := make(chan struct{})
	go w.mail.watch(stopMail)
	defer close(stopMail)

	// The weighted mix, drawn from a seeded generator: the same run each time.
	var deck []int
	for i, m := range soakMix {
		for range m.weight {
			deck = append(deck, i)
		}
	}
	draw := rand.New(rand.NewPCG(2026, 14))

	stats := &soakStats{lat: map[string][]float64{}, variant: map[string][]float64{}, errs: map[string]int{}, samples: map[string]string{}}
	var samples []soakSample
	var samplesMu sync.Mutex
	start := time.Now()
	sample := func() {
		m := metricsOf(metricsURL)
		s := soakSample{at: time.Since(start), rssKiB: procStatus(pid, "VmRSS"), heapInuse: m["go_memstats_heap_inuse_bytes"],
			heapAlloc: m["go_memstats_heap_alloc_bytes"], goros: m["go_goroutines"], fds: m["process_open_fds"], dbConns: m["medishare_db_pool_total_conns"]}
		samplesMu.Lock()
		samples = append(samples, s)
		samplesMu.Unlock()
	}
	sample()
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(soakSampleEvery)
		defer t.Stop()
		for {
			select {
			case <-stopSampling:
				return
			case <-t.C:
				sample()
			}
		}
	}()

	cpu0, load0 := cpuMillis(pid), loadAverage()
	loads := []string{load0}
	slots := make(chan struct{}, soakMaxInFlight)
	var wg sync.WaitGroup
	var sent, dropped int
	interval := time.Duration(float64(time.Second) / rate)
	for i := 0; ; i++ {
		due := start.Add(time.Duration(i) * interval)
		if due.Sub(start) >= duration {
			break
		}
		// Pacing, not a wait for an effect: each request leaves at its
		// scheduled time, late ones at once (a Ticker would drop the ticks
		// of a late loop, and with them the load it owes).
		time.Sleep(time.Until(due))
		if i%int(rate*60) == 0 && i > 0 {
			loads = append(loads, loadAverage())
		}
		m := soakMix[deck[draw.IntN(len(deck))]]
		select {
		case slots <- struct{}{}:
		default:
			dropped++
			stats.add(m.route, "", 0, "dropped: no room for another request in flight")
			continue
		}
		sent++
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			c := w.call(m.key)
			if c.skip != "" {
				w.mu.Lock()
				w.skipped[m.route+": "+c.skip]++
				w.mu.Unlock()
				return
			}
			ms, fault := w.do(c, due)
			stats.add(m.route, c.variant, ms, fault)
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpuMs := cpuMillis(pid) - cpu0
	loads = append(loads, loadAverage())
	close(stopSampling)
	<-sampled
	if samples[len(samples)-1].at < elapsed-time.Second { // the end, unless a tick just took it
		sample()
	}

	report := soakReport(stats, samples, w.skipped, soakRun{
		duration: duration, rate: rate, elapsed: elapsed, sent: sent, dropped: dropped, cpuMs: cpuMs,
		loads: loads, setup: setupTook, images: w.images(), verified: len(w.accesses) - w.images(), alone: alone, files: w.files,
	})
	fmt.Println(report)
	failed := 0
	for _, n := range stats.errs {
		failed += n
	}
	b.ReportMetric(float64(sent)/elapsed.Seconds(), "req/s")
	b.ReportMetric(float64(failed), "errors")
	if path := os.Getenv("BENCH_REPORT"); path != "" {
		if err := updateReport(path, "soak", report); err != nil {
			b.Fatal(err)
		}
	}
}

// setUp registers and confirms the providers and patients through the API
// (each from an address of their own: registrations are limited per
// address), signs them and the demo admin in, and gives the workload
// images to open and shares to verify.
func (w *soakWorld) setUp(b *testing.B, env map[string]string) {
	ip := func(i int) string { return fmt.Sprintf("10.20.%d.%d", i/250, i%250+1) }
	var mu sync.Mutex
	register := func(i int, role string) *soakUser {
		name := map[string]string{"patient": "patient", "healthProvider": "provider"}[role]
		u := &soakUser{role: role, ip: ip(i),
			email:    fmt.Sprintf("soak.%s.%d@clinic.example", name, i),
			password: fmt.Sprintf("Tulip-Harbour-%d-Quartz", i)}
		w.must(b, w.okJSON(w.jsonRequest(u, "POST", "/api/auth/register", map[string]string{
			"email": u.email, "username": fmt.Sprintf("soak%s%d", name, i), "password": u.password, "role": role,
			"firstname": benchFirstNames[i%len(benchFirstNames)], "lastname": benchLastNames[(i*7)%len(benchLastNames)], "gender": "Other",
		}), http.StatusCreated))
		code := w.mail.wait(b, "the confirmation code of "+u.email, func() string { return w.mail.confirm[u.email] })
		w.must(b, w.okJSON(w.jsonRequest(u, "POST", "/api/auth/confirm", map[string]string{"email": u.email, "code": code}), http.StatusOK))
		u.signedIn = time.Now()
		w.must(b, w.signIn(u))
		return u
	}
	people := make([]*soakUser, soakProviders+soakPatients)
	var wg sync.WaitGroup
	work := make(chan int)
	for range 4 {
		wg.Go(func() {
			for i := range work {
				role := "patient"
				if i < soakProviders {
					role = "healthProvider"
				}
				u := register(i, role)
				mu.Lock()
				people[i] = u
				mu.Unlock()
			}
		})
	}
	for i := range people {
		work <- i
	}
	close(work)
	wg.Wait()
	w.providers, w.patients = people[:soakProviders], people[soakProviders:]

	raw, err := os.ReadFile(filepath.Join(env["MEDISHARE_DATA_DIR"], "demo-accounts.json"))
	if err != nil {
		b.Fatal(err)
	}
	var demo map[string]struct{ Email, Password string }
	if err := json.Unmarshal(raw, &demo); err != nil {
		b.Fatal(err)
	}
	admin := &soakUser{role: "admin", ip: ip(len(people)), email: demo["admin"].Email, password: demo["admin"].Password, signedIn: time.Now()}
	w.must(b, w.signIn(admin))
	w.everyone = append(append([]*soakUser{}, people...), admin)

	// Every provider uploads each file once, for patients in turn, and
	// shares two images with patients; half of those shares are verified.
	for k, p := range w.providers {
		for j, f := range w.files {
			w.must(b, w.upload(p, w.patients[(k*len(w.files)+j)%len(w.patients)], f))
		}
	}
	for range 4 * len(w.providers) {
		w.must(b, w.call("share"))
	}
	w.mu.Lock()
	toVerify := append([]soakShare{}, w.pending[:len(w.pending)/2]...)
	w.pending = w.pending[len(w.pending)/2:]
	w.mu.Unlock()
	for _, sh := range toVerify {
		code := w.mail.wait(b, "the code of share "+sh.id, func() string { return w.mail.share[sh.id] })
		w.must(b, w.verifyShare(sh, code))
	}
	w.mail.wait(b, "every share's code", func() string {
		for _, sh := range w.pending {
			if w.mail.share[sh.id] == "" {
				return ""
			}
		}
		return "all"
	})
}

// soakRun is what the report says about the run as a whole.
type soakRun struct {
	duration, elapsed, setup time.Duration
	rate                     float64
	sent, dropped            int
	alone                    soakAlone
	files                    []soakFile
	images, verified         int
	cpuMs                    float64
	loads                    []string
}

// percentile of sorted values (nearest rank).
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	k := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[max(0, min(k, len(sorted)-1))]
}

// soakReport is the section of docs/performance.md.
func soakReport(stats *soakStats, samples []soakSample, skipped map[string]int, run soakRun) string {
	var routes strings.Builder
	total, errs := 0, 0
	slowest, slowestP99 := "", 0.0
	slowestMedian, slowestP50 := "", 0.0
	for _, m := range soakMix {
		lat := append([]float64(nil), stats.lat[m.route]...)
		slices.Sort(lat)
		bad := 0
		for k, n := range stats.errs {
			if strings.HasPrefix(k, m.route+" | ") {
				bad += n
			}
		}
		total += len(lat)
		errs += bad
		p99 := percentile(lat, 99)
		if p99 > slowestP99 {
			slowest, slowestP99 = m.route, p99
		}
		if p50 := percentile(lat, 50); p50 > slowestP50 {
			slowestMedian, slowestP50 = m.route, p50
		}
		fmt.Fprintf(&routes, "| `%s` | %d%% | %d | %d | %.1f | %.1f | %.1f |\n", m.route, m.weight, len(lat), bad,
			percentile(lat, 50), p99, percentile(lat, 100))
	}

	var variants strings.Builder
	keys := make([]string, 0, len(stats.variant))
	for k := range stats.variant {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		lat := append([]float64(nil), stats.variant[k]...)
		slices.Sort(lat)
		route, name, _ := strings.Cut(k, " | ")
		fmt.Fprintf(&variants, "- `%s`, %s: %d answers, p50 %.1f ms, p99 %.1f ms, max %.1f ms\n", route, name, len(lat),
			percentile(lat, 50), percentile(lat, 99), percentile(lat, 100))
	}
	if variants.Len() > 0 {
		variants.WriteString("\n")
	}

	var errTable strings.Builder
	if errs == 0 {
		errTable.WriteString("No errors: every request got the answer a correct server gives.\n")
	} else {
		errTable.WriteString("| route | status or failure | count | first seen |\n|---|---|---|---|\n")
		keys := make([]string, 0, len(stats.errs))
		for k := range stats.errs {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			route, status, _ := strings.Cut(k, " | ")
			sample := strings.NewReplacer("|", "\\|", "\n", " ", "`", "'").Replace(stats.samples[k])
			fmt.Fprintf(&errTable, "| `%s` | %s | %d | %s |\n", route, status, stats.errs[k], sample)
		}
	}
	var skips strings.Builder
	for k, n := range skipped {
		fmt.Fprintf(&skips, "- %s: %d\n", k, n)
	}

	var mem strings.Builder
	for _, s := range samples {
		fmt.Fprintf(&mem, "| %s | %.0f | %.1f | %.1f | %.0f | %.0f | %.0f |\n", s.at.Round(time.Second), float64(s.rssKiB)/1024,
			s.heapInuse/(1<<20), s.heapAlloc/(1<<20), s.goros, s.fds, s.dbConns)
	}
	flat := soakFlatness(samples, run.duration)

	why := func(route string) string {
		if w := soakWhy[route]; w != "" {
			return w
		}
		return "(no note on what this route does: see soakWhy in internal/bench/soak_test.go)"
	}
	note := fmt.Sprintf("By p99 the slowest was `%s` (p99 %.1f ms): %s.", slowest, slowestP99, why(slowest))
	if slowestMedian != slowest {
		note += fmt.Sprintf("\n\nBy median the slowest was `%s` (p50 %.1f ms): %s.", slowestMedian, slowestP50, why(slowestMedian))
	}
	var renders []string
	for _, f := range run.files {
		renders = append(renders, fmt.Sprintf("%s %.1f ms", f.name, run.alone.renderMs[f.name]))
	}
	note += fmt.Sprintf("\n\nAlone on this machine, before the clock started (one at a time, without HTTP, the database or "+
		"encryption; medians): one argon2id check of a password takes %.1f ms, and rendering a preview from the stored file "+
		"(decoding, scaling, PNG encoding) takes %s. What the routes' p99 adds to these is mostly waiting for a core: the two "+
		"are shared by the server, PostgreSQL, the load generator and other test runs (the load average above).",
		run.alone.argon2Ms, strings.Join(renders, ", "))
	skippedText := ""
	if skips.Len() > 0 {
		skippedText = "\nRequests the workload drew but had nothing to send for (not sent, not counted above):\n\n" + skips.String()
	}

	return fmt.Sprintf(`## Soak

Measured by `+"`make soak`"+` (BenchmarkSoak in internal/bench/soak_test.go) on %s
against the real binary (%s), one instance, local disk store, PostgreSQL and
the load generator on the same machine (%s, 1-minute load average %s to %s:
shared with other test runs). Not part of `+"`make test`"+` or `+"`make bench`"+`.

**The workload.** %s at %.0f requests a second, open-loop: each request is
started at its scheduled time whatever the answers before it, so a slow server
shows as latency, never as a lower rate, and latency is timed from the
scheduled start to the last byte of the answer. At most %d requests are in
flight; one that finds no room is dropped and counted as an error. Before the
clock starts (%s), %d providers and %d patients register through the API,
confirm with the code from their mail, and sign in, with the demo admin; each
provider uploads each of the four files once and makes four shares, half of
them verified. Each person is a client of their own behind a trusted reverse
proxy (`+"`MEDISHARE_TRUSTED_PROXIES`"+`, X-Forwarded-For), so the limits per
address apply to each, as in production; no limit is changed. The mix, drawn
at random by weight: sign-ins with the right password (the person whose last
sign-in is oldest, which also keeps every 15-minute access token fresh);
lists (a provider's uploads, a patient's shared images, the directory and
directory searches, the audit log in each role's scope, a provider's sent
shares, the chat list); uploads by the providers in turn, for random patients, of
one of four files: examples_palette.dcm of testdata/dicom (283 KB), a CR
radiograph of 1024 x 1024 16-bit pixels (2 MiB, the benchmarks' DICOM
generator), a 1600 x 1200 JPEG photograph and a 1024 x 768 PNG (both made
by the benchmark, with noise, as the tests make their JPEG and PNG files);
downloads and previews of a random image someone may open (the uploader's,
or a patient's verified share); shares of a provider's image with a patient
it was never shared with (providers in turn, each provider's patients in
turn); verifications by the recipient, with the code read from the mail
the development server writes (the oldest share whose mail has come);
messages (senders in turn, to a random counterpart) and conversation reads.
An error is any answer other than the one a correct server gives (the
status, and the body: the bytes of a download, a PNG for a preview, JSON),
a failed or timed-out request (%s), or a dropped one.

| measure | result |
|---|---|
| requests | %d in %s (%s planned at %.0f/s over %s) |
| achieved rate | %.1f requests a second |
| errors | %d (target: none) |
| dropped (in-flight limit) | %d |
| images stored by the end | %d (and %d verified shares) |
| server CPU | %.0f%% of one core on average |

| route | share of the mix | requests | errors | p50 (ms) | p99 (ms) | max (ms) |
|---|---|---|---|---|---|---|
%s
%s%s%s
**The server's memory over time**, sampled every %s: its resident set
(VmRSS of /proc/PID/status) and, from its metrics listener
(`+"`MEDISHARE_METRICS_ADDR`"+`), the Go heap in use (go_memstats_heap_inuse_bytes)
and allocated (live objects and garbage not yet collected), goroutines,
open files and database connections. One sample swings with what is in
flight at its moment (each sign-in's argon2id takes 19 MiB, each render
several MiB, given back at a later garbage collection), so the verdict
compares the means of thirds of the run.

| time | RSS (MiB) | Go heap in use (MiB) | heap allocated (MiB) | goroutines | open files | DB connections |
|---|---|---|---|---|---|---|
%s
%s

**Slowest route.** %s
`, time.Now().UTC().Format("2006-01-02"), binaryVersion(), machine(), minLoad(run.loads), maxLoad(run.loads),
		run.duration, run.rate, soakMaxInFlight, run.setup.Round(time.Second), soakProviders, soakPatients, soakTimeout,
		total, run.elapsed.Round(time.Second), grouped(int(run.rate*run.duration.Seconds())), run.rate, run.duration,
		float64(run.sent)/run.elapsed.Seconds(), errs, run.dropped, run.images, run.verified, 100*run.cpuMs/run.elapsed.Seconds()/1000,
		routes.String(), variants.String(), errTable.String(), skippedText, soakSampleEvery, mem.String(), flat, note)
}

// soakFlatness compares the mean memory of the last third of the samples
// with that of the first third, after a warm-up (a fifth of the run, at most
// two minutes): flat when neither the resident set nor the heap in use grew
// by more than 10% (or 8 MiB, for a small heap).
func soakFlatness(samples []soakSample, duration time.Duration) string {
	warmup := min(2*time.Minute, duration/5)
	var after []soakSample
	for _, s := range samples {
		if s.at >= warmup {
			after = append(after, s)
		}
	}
	if len(after) < 3 {
		return fmt.Sprintf("Too few samples after the warm-up (%s) to judge whether memory is flat.", warmup)
	}
	third := len(after) / 3
	mean := func(ss []soakSample, f func(soakSample) float64) float64 {
		t := 0.0
		for _, s := range ss {
			t += f(s)
		}
		return t / float64(len(ss))
	}
	rss := func(s soakSample) float64 { return float64(s.rssKiB) / 1024 }
	heap := func(s soakSample) float64 { return s.heapInuse / (1 << 20) }
	first, last := after[:third], after[len(after)-third:]
	r0, r1, h0, h1 := mean(first, rss), mean(last, rss), mean(first, heap), mean(last, heap)
	grew := func(a, b float64) bool { return b-a > max(0.1*a, 8) }
	verdict := "flat"
	if grew(r0, r1) || grew(h0, h1) {
		verdict = "not flat: it grew"
	}
	return fmt.Sprintf("After a warm-up of %s, the first third of the samples (%d) against the last third: "+
		"RSS %.0f MiB then %.0f MiB (%+.1f%%), Go heap in use %.1f MiB then %.1f MiB (%+.1f%%). "+
		"Verdict (flat when neither grew by more than 10%%, or 8 MiB): **%s** (target: flat).",
		warmup, third, r0, r1, 100*(r1-r0)/r0, h0, h1, 100*(h1-h0)/h0, verdict)
}
