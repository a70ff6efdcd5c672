// Package apptest runs the whole server stack in a test: a fresh database,
// the real services, the real router on an httptest server, and a real SMTP
// exchange with an in-process server that keeps what it receives.
package apptest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/emersion/go-smtp"

	"github.com/medishare/medishare/internal/analysis"
	"github.com/medishare/medishare/internal/app"
	"github.com/medishare/medishare/internal/blob"
	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/httpapi"
	"github.com/medishare/medishare/internal/mail"
	"github.com/medishare/medishare/internal/secure"
	"github.com/medishare/medishare/internal/service"
	"github.com/medishare/medishare/internal/store/postgres"
	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/pgtest"
)

// JWTSecret and MasterKey are the test stack's keys (made per process).
var (
	JWTSecret = randomKey()
	MasterKey = randomKey()
)

func randomKey() []byte {
	b := []byte(secure.RandomToken(32))
	return b[:32]
}

// App is a running stack.
type App struct {
	URL      string
	Store    *postgres.Store
	DB       *postgres.DB
	Mailbox  *Mailbox
	Services *service.Services
	Clock    *Clock
	BlobDir  string // where the FS blob store keeps contents
	Blobs    *CountingBlobs
	dbURL    string
	// Metrics are the stack's Prometheus metrics (served by cmd/medishare on their own listener).
	Metrics *httpapi.Metrics
}

// CountingBlobs is the content store of the stack, counting the reads of
// each object.
type CountingBlobs struct {
	app.Blobs
	mu    sync.Mutex
	reads map[string]int
}

// Get counts, then opens the object.
func (c *CountingBlobs) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	c.count(key)
	return c.Blobs.Get(ctx, key)
}

// GetRange counts, then opens part of the object.
func (c *CountingBlobs) GetRange(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	c.count(key)
	return c.Blobs.GetRange(ctx, key, offset, length)
}

func (c *CountingBlobs) count(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads[key]++
}

// Reads is how often objects whose keys start with prefix were opened.
func (c *CountingBlobs) Reads(prefix string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for k, v := range c.reads {
		if strings.HasPrefix(k, prefix) {
			n += v
		}
	}
	return n
}

// Clock is a settable clock; it follows the real time until Set.
type Clock struct {
	mu     sync.Mutex
	offset time.Duration
}

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().UTC().Add(c.offset)
}

// Shift moves the clock by d.
func (c *Clock) Shift(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset += d
}

// New starts a stack on a fresh database; analyzers are the analysis
// providers it is configured with besides the built-in one.
func New(t testing.TB, analyzers ...analysis.Analyzer) *App {
	t.Helper()
	return start(t, pgtest.NewDatabase(t), t.TempDir(), nil, Loops{}, analyzers...)
}

// Loops paces the audit chain's background loops, which stacks of New
// and Twin do not run.
type Loops struct {
	CheckpointEvery, AuditCheckEvery time.Duration
}

// NewWithLoops starts a stack like New that also runs the audit chain's
// background loops at the pace of loops.
func NewWithLoops(t testing.TB, loops Loops) *App {
	t.Helper()
	return start(t, pgtest.NewDatabase(t), t.TempDir(), nil, loops)
}

// Twin starts a second server instance on a's database and contents, as a
// deployment with several instances runs: its own pool, listener, clock,
// and in-memory state, and the same mail relay (either instance may send
// a mail the other queued).
func (a *App) Twin(t testing.TB) *App {
	t.Helper()
	return start(t, a.dbURL, a.BlobDir, a.Mailbox, Loops{})
}

// start runs an instance on dbURL and blobDir, relaying mail to box (a
// new one when nil): the program's own wiring (internal/app) with the
// test's parts.
func start(t testing.TB, dbURL, blobDir string, box *Mailbox, loops Loops, analyzers ...analysis.Analyzer) *App {
	t.Helper()
	if box == nil {
		box = StartMailbox(t)
	}
	mailer, err := mail.NewSMTP(mail.SMTPConfig{Host: "127.0.0.1", Port: box.port, From: "MediShare <no-reply@medishare.test>", TLS: "none"})
	if err != nil {
		t.Fatal(err)
	}
	fs, err := blob.NewFS(blobDir)
	if err != nil {
		t.Fatal(err)
	}
	blobs := &CountingBlobs{Blobs: fs, reads: map[string]int{}}
	clock := &Clock{}
	stack, err := app.New(context.Background(), app.Parts{
		DatabaseURL: dbURL, Pool: postgres.PoolOptions{MaxConns: 20, StatementTimeout: 30 * time.Second},
		Blobs: blobs, Mailer: mailer, MasterKey: MasterKey, JWTSecret: JWTSecret,
		PublicURL: "http://medishare.test", WebApp: fstest.MapFS{},
		Now: clock.Now, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Analyzers: analyzers, PreviewBudget: 256 << 20,
		Version: "test", StorageKind: "filesystem", MailKind: "log", Metrics: true,
		CheckpointEvery: loops.CheckpointEvery, AuditCheckEvery: loops.AuditCheckEvery,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stack.Close)
	t.Cleanup(stack.Start())
	srv := httptest.NewServer(checkContract(t, stack.Handler))
	t.Cleanup(srv.Close)
	return &App{URL: srv.URL, Store: stack.Store, DB: stack.DB, Mailbox: box, Services: stack.Services, Clock: clock,
		BlobDir: blobDir, Blobs: blobs, Metrics: stack.Metrics, dbURL: dbURL}
}

// Response is an answer, with its JSON body decoded when there is one.
type Response struct {
	Status int
	Header http.Header
	Body   map[string]any
	Raw    string
}

// Message is the "message" of the body.
func (r *Response) Message() string { s, _ := r.Body["message"].(string); return s }

// Data is the "data" object of the body.
func (r *Response) Data() map[string]any { d, _ := r.Body["data"].(map[string]any); return d }

// List is the "data" array of the body.
func (r *Response) List() []map[string]any {
	raw, _ := r.Body["data"].([]any)
	out := make([]map[string]any, len(raw))
	for i, v := range raw {
		out[i], _ = v.(map[string]any)
	}
	return out
}

// Upload sends a multipart upload: fields in order, the file where "file" is named.
func (c *Client) Upload(t testing.TB, fields [][2]string, fileName string, content []byte) *Response {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, f := range fields {
		if f[0] == "file" {
			fw, err := w.CreateFormFile("file", fileName)
			if err == nil {
				_, err = fw.Write(content)
			}
			if err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := w.WriteField(f[0], f[1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return c.Send(t, "POST", "/api/upload/image", w.FormDataContentType(), &buf)
}

// Send sends a request with a raw body.
func (c *Client) Send(t testing.TB, method, path, contentType string, body io.Reader) *Response {
	t.Helper()
	req, err := http.NewRequest(method, c.app.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return c.send(t, req)
}

// Get fetches a path (or a server-relative URL) with optional headers and returns the raw answer.
func (c *Client) Get(t testing.TB, path string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest("GET", c.app.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// Client is one browser: it keeps cookies.
type Client struct {
	app   *App
	http  *http.Client
	Token string // sent as the bearer token when set
	IP    string // sent as X-Forwarded-For (ignored: no trusted proxies)
}

// Client returns a new browser-like client.
func (a *App) Client() *Client {
	jar, _ := cookiejar.New(nil)
	return &Client{app: a, http: &http.Client{Jar: jar, Timeout: 30 * time.Second}}
}

// BaseURL is the server's address.
func (c *Client) BaseURL() string { return c.app.URL }

// SetCookie gives the client a cookie for the API.
func (c *Client) SetCookie(t testing.TB, name, value string) {
	t.Helper()
	u, err := url.Parse(c.app.URL + "/api/auth")
	if err != nil {
		t.Fatal(err)
	}
	c.http.Jar.SetCookies(u, []*http.Cookie{{Name: name, Value: value, Path: "/api/auth"}})
}

// Do sends a request; body is marshalled to JSON unless it is a string or nil.
func (c *Client) Do(t testing.TB, method, path string, body any) *Response {
	t.Helper()
	return c.DoWith(t, method, path, body, nil)
}

// DoWith is Do with extra request headers.
func (c *Client) DoWith(t testing.TB, method, path string, body any, header map[string]string) *Response {
	t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	default:
		buf, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(buf)
	}
	req, err := http.NewRequest(method, c.app.URL+path, r)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	return c.send(t, req)
}

func (c *Client) send(t testing.TB, req *http.Request) *Response {
	t.Helper()
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	out := &Response{Status: resp.StatusCode, Header: resp.Header, Raw: string(raw)}
	_ = json.Unmarshal(raw, &out.Body)
	return out
}

// Person is an account made for a test.
type Person struct {
	ID, Email, Username, Password, Role string
	*Client
}

// DatabaseURL is where a's database is.
func (a *App) DatabaseURL() string { return a.dbURL }

// As is p, signed in with the same session, talking to instance a.
func (a *App) As(p *Person) *Person {
	c := a.Client()
	c.Token = p.Token
	return &Person{ID: p.ID, Email: p.Email, Username: p.Username, Password: p.Password, Role: p.Role, Client: c}
}

var seq struct {
	sync.Mutex
	n int
}

func next() int {
	seq.Lock()
	defer seq.Unlock()
	seq.n++
	return seq.n
}

// Registration returns a valid registration payload for role.
func Registration(role string) map[string]any {
	n := next()
	name := strings.ToLower(role)
	return map[string]any{
		"email": name + "." + itoa(n) + "@clinic.test", "username": name + itoa(n),
		"password": "Tulip-Harbour-" + itoa(n) + "-Quartz", "role": role,
		"firstname": "Test", "lastname": "Person" + itoa(n), "gender": "Other",
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// SignUp registers and confirms an account of role through the API and
// signs it in. Admins, who cannot register, are made directly.
func (a *App) SignUp(t testing.TB, role string) *Person {
	t.Helper()
	reg := Registration(role)
	p := &Person{Email: reg["email"].(string), Username: reg["username"].(string), Password: reg["password"].(string), Role: role, Client: a.Client()}
	if role == domain.RoleAdmin {
		u, err := a.Services.Registration.CreateAccount(context.Background(), p.Email, p.Username, p.Password, role, "Admin", "Person")
		if err != nil {
			t.Fatal(err)
		}
		p.ID = u.ID
	} else {
		if r := p.Do(t, "POST", "/api/auth/register", reg); r.Status != http.StatusCreated {
			t.Fatalf("register %s: %d %s", role, r.Status, r.Raw)
		}
		code := a.Mailbox.Code(t, p.Email, "Your MediShare confirmation code", `confirmation code is (\d{4})`)
		if r := p.Do(t, "POST", "/api/auth/confirm", map[string]string{"email": p.Email, "code": code}); r.Status != http.StatusOK {
			t.Fatalf("confirm: %d %s", r.Status, r.Raw)
		}
	}
	p.SignIn(t)
	return p
}

// SignIn signs the person in (testutil.SignIn) and keeps the access token
// and the id; the client keeps the refresh cookie.
func (p *Person) SignIn(t testing.TB) testutil.Session {
	t.Helper()
	s := testutil.SignIn(t, p.http, p.app.URL, p.Email, p.Password, http.StatusOK)
	p.Token, p.ID = s.Token, s.ID
	return s
}

// Mailbox is an SMTP server that keeps every message it receives.
type Mailbox struct {
	port int
	mu   sync.Mutex
	msgs []Mail
}

// Mail is one received message.
type Mail struct {
	To   []string
	Data string
}

// Port is where the mailbox listens on 127.0.0.1.
func (b *Mailbox) Port() int { return b.port }

// StartMailbox runs an SMTP server that keeps what it receives, until the test ends.
func StartMailbox(t testing.TB) *Mailbox {
	box := &Mailbox{}
	s := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &mailSession{box: box}, nil }))
	s.Domain = "localhost"
	s.ReadTimeout, s.WriteTimeout = 10*time.Second, 10*time.Second
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.Serve(l) }() // returns when the cleanup closes the server
	t.Cleanup(func() { _ = s.Close() })
	box.port = l.Addr().(*net.TCPAddr).Port
	return box
}

type mailSession struct {
	box *Mailbox
	to  []string
}

func (s *mailSession) Mail(string, *smtp.MailOptions) error { return nil }
func (s *mailSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.to = append(s.to, to)
	return nil
}
func (s *mailSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.box.mu.Lock()
	s.box.msgs = append(s.box.msgs, Mail{To: s.to, Data: decodeQP(string(b))})
	s.box.mu.Unlock()
	return nil
}
func (s *mailSession) Reset()        { s.to = nil }
func (s *mailSession) Logout() error { return nil }

// decodeQP undoes quoted-printable soft line breaks and escapes well enough
// to read codes and links.
func decodeQP(s string) string {
	s = strings.ReplaceAll(s, "=\r\n", "")
	return regexp.MustCompile(`=([0-9A-F]{2})`).ReplaceAllStringFunc(s, func(m string) string {
		var b byte
		for _, c := range m[1:] {
			b <<= 4
			if c >= 'A' {
				b |= byte(c-'A') + 10
			} else {
				b |= byte(c - '0')
			}
		}
		return string([]byte{b})
	})
}

// All returns the messages sent to an address.
func (b *Mailbox) All(to string) []Mail {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []Mail
	for _, m := range b.msgs {
		for _, rcpt := range m.To {
			if strings.EqualFold(rcpt, to) {
				out = append(out, m)
			}
		}
	}
	return out
}

// Count is the number of messages to an address whose text contains subject.
func (b *Mailbox) Count(to, subject string) int {
	n := 0
	for _, m := range b.All(to) {
		if strings.Contains(m.Data, subject) {
			n++
		}
	}
	return n
}

// Wait returns the newest message to an address whose text contains
// subject, waiting for it to come.
func (b *Mailbox) Wait(t testing.TB, to, subject string) Mail {
	t.Helper()
	var found Mail
	testutil.Eventually(t, fmt.Sprintf("a mail to %s with %q", to, subject), func() bool {
		msgs := b.All(to)
		for i := len(msgs) - 1; i >= 0; i-- {
			if strings.Contains(msgs[i].Data, subject) {
				found = msgs[i]
				return true
			}
		}
		return false
	})
	return found
}

// WaitCount waits for n messages to an address whose text contains subject.
func (b *Mailbox) WaitCount(t testing.TB, to, subject string, n int) {
	t.Helper()
	testutil.Eventually(t, fmt.Sprintf("%d mails to %s with %q", n, to, subject), func() bool { return b.Count(to, subject) >= n })
}

// Code returns the first group of pattern in the newest matching message.
func (b *Mailbox) Code(t testing.TB, to, subject, pattern string) string {
	t.Helper()
	m := b.Wait(t, to, subject)
	match := regexp.MustCompile(pattern).FindStringSubmatch(m.Data)
	if match == nil {
		t.Fatalf("mail to %s has no %q:\n%s", to, pattern, m.Data)
	}
	return match[1]
}
