package mail

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"math/big"
	"mime"
	"mime/quotedprintable"
	"net"
	netmail "net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/testutil"
)

// received is one message as the test server saw it.
type received struct {
	from   string
	to     []string
	data   []byte
	authed string // SASL mechanism used, "" without AUTH
	tls    bool   // the session ran over TLS
}

// testServer is a real SMTP server (emersion/go-smtp) on 127.0.0.1.
type testServer struct {
	addr string
	port int

	user, pass string // AUTH PLAIN required when user is set

	mu   sync.Mutex
	mail []received
}

type serverOptions struct {
	user, pass string
	starttls   *tls.Config // offered with STARTTLS
	implicit   *tls.Config // TLS from the first byte
}

func startServer(t *testing.T, o serverOptions) *testServer {
	t.Helper()
	ts := &testServer{user: o.user, pass: o.pass}
	s := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		_, isTLS := c.TLSConnectionState()
		return &session{srv: ts, tls: isTLS}, nil
	}))
	s.Domain = "localhost"
	s.AllowInsecureAuth = true // PLAIN over plain TCP, for the "none" mode
	s.ReadTimeout = 10 * time.Second
	s.WriteTimeout = 10 * time.Second
	s.TLSConfig = o.starttls

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if o.implicit != nil {
		l = tls.NewListener(l, o.implicit)
	}
	go func() { _ = s.Serve(l) }() // returns when the cleanup closes the server
	t.Cleanup(func() { _ = s.Close() })
	ts.addr = l.Addr().String()
	ts.port = l.Addr().(*net.TCPAddr).Port
	return ts
}

func (ts *testServer) received() []received {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]received(nil), ts.mail...)
}

type session struct {
	srv    *testServer
	tls    bool
	authed string
	cur    received
}

func (s *session) AuthMechanisms() []string {
	if s.srv.user == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (s *session) Auth(mech string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(identity, username, password string) error {
		if username != s.srv.user || password != s.srv.pass {
			return errors.New("invalid username or password")
		}
		s.authed = mech
		return nil
	}), nil
}

func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	if s.srv.user != "" && s.authed == "" {
		return smtp.ErrAuthRequired
	}
	s.cur = received{from: from, authed: s.authed, tls: s.tls}
	return nil
}

func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.cur.to = append(s.cur.to, to)
	return nil
}

func (s *session) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.cur.data = b
	s.srv.mu.Lock()
	s.srv.mail = append(s.srv.mail, s.cur)
	s.srv.mu.Unlock()
	return nil
}

func (s *session) Reset()        { s.cur = received{} }
func (s *session) Logout() error { return nil }

// testCert returns a self-signed certificate for 127.0.0.1 and a pool that
// trusts it.
func testCert(t *testing.T) (*tls.Config, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "medishare test smtp"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}, pool
}

func newTestSMTP(t *testing.T, cfg SMTPConfig, roots *x509.CertPool) *SMTP {
	t.Helper()
	s, err := NewSMTP(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.rootCAs = roots
	return s
}

func TestSMTPSend(t *testing.T) {
	serverTLS, roots := testCert(t)
	msg := Templates{PublicURL: "https://medishare.test"}.ResetCode("alice@example.com", "Alice", "042917", "tok+en/=")

	tests := []struct {
		name     string
		server   serverOptions
		tlsMode  string
		user     string
		pass     string
		wantAuth string
		wantTLS  bool
		wantErr  string // error kind; "" for delivered
	}{
		{name: "plain delivery", tlsMode: TLSNone},
		{name: "auth plain", server: serverOptions{user: "mailer", pass: "s3cret"}, tlsMode: TLSNone, user: "mailer", pass: "s3cret", wantAuth: sasl.Plain},
		{name: "wrong password", server: serverOptions{user: "mailer", pass: "s3cret"}, tlsMode: TLSNone, user: "mailer", pass: "guess", wantErr: domain.EUNAVAILABLE},
		{name: "starttls", server: serverOptions{starttls: serverTLS}, tlsMode: TLSStartTLS, wantTLS: true},
		{name: "starttls with auth", server: serverOptions{starttls: serverTLS, user: "mailer", pass: "s3cret"}, tlsMode: TLSStartTLS, user: "mailer", pass: "s3cret", wantAuth: sasl.Plain, wantTLS: true},
		{name: "starttls required but not offered", tlsMode: TLSStartTLS, wantErr: domain.EUNAVAILABLE},
		{name: "implicit tls", server: serverOptions{implicit: serverTLS}, tlsMode: TLSImplicit, wantTLS: true},
		{name: "implicit tls against a plain server", tlsMode: TLSImplicit, wantErr: domain.EUNAVAILABLE},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startServer(t, tt.server)
			s := newTestSMTP(t, SMTPConfig{
				Host: "127.0.0.1", Port: srv.port, Username: tt.user, Password: tt.pass,
				From: "MediShare <no-reply@medishare.test>", TLS: tt.tlsMode,
			}, roots)

			err := s.Send(context.Background(), msg)
			got := srv.received()
			if tt.wantErr != "" {
				if domain.ErrorKind(err) != tt.wantErr || domain.ErrorMessage(err) != sendFailed {
					t.Errorf("err = %v, want %s %q", err, tt.wantErr, sendFailed)
				}
				t.Logf("err: %v", err)
				if errors.Unwrap(err) == nil {
					t.Error("cause not kept")
				}
				if len(got) != 0 {
					t.Errorf("server received %d messages, want none", len(got))
				}
				return
			}
			if err != nil {
				t.Fatalf("Send: %v", err)
			}
			if len(got) != 1 {
				t.Fatalf("server received %d messages, want 1", len(got))
			}
			r := got[0]
			if r.authed != tt.wantAuth || r.tls != tt.wantTLS {
				t.Errorf("auth %q tls %v, want auth %q tls %v", r.authed, r.tls, tt.wantAuth, tt.wantTLS)
			}
			if r.from != "no-reply@medishare.test" || len(r.to) != 1 || r.to[0] != "alice@example.com" {
				t.Errorf("envelope from %q to %q", r.from, r.to)
			}
			checkReceived(t, r.data, msg)
		})
	}
}

// checkReceived parses what the server got as a mail client would.
func checkReceived(t *testing.T, data []byte, want Message) {
	t.Helper()
	m, err := netmail.ReadMessage(strings.NewReader(string(data)))
	if err != nil {
		t.Fatalf("received message does not parse: %v\n%s", err, data)
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
	if err != nil || subject != want.Subject {
		t.Errorf("Subject = %q (%v), want %q", subject, err, want.Subject)
	}
	if from, err := m.Header.AddressList("From"); err != nil || len(from) != 1 || from[0].Address != "no-reply@medishare.test" || from[0].Name != "MediShare" {
		t.Errorf("From = %v (%v)", from, err)
	}
	if to, err := m.Header.AddressList("To"); err != nil || len(to) != 1 || to[0].Address != want.To {
		t.Errorf("To = %v (%v)", to, err)
	}
	if _, err := m.Header.Date(); err != nil {
		t.Errorf("Date: %v", err)
	}
	if id := m.Header.Get("Message-Id"); !strings.HasPrefix(id, "<") || !strings.HasSuffix(id, "@medishare.test>") {
		t.Errorf("Message-ID = %q", id)
	}
	if ct := m.Header.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
		t.Errorf("Content-Type = %q", ct)
	}
	body := m.Body
	if m.Header.Get("Content-Transfer-Encoding") == "quoted-printable" {
		body = quotedprintable.NewReader(m.Body)
	}
	b, err := io.ReadAll(body)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(b), "\r\n", "\n")
	if strings.TrimRight(text, "\n") != strings.TrimRight(want.Text, "\n") {
		t.Errorf("body:\n%s\nwant:\n%s", text, want.Text)
	}
}

// A relay that is down is noticed by the refused connection, not by a
// timeout: Send gives up by itself, long before the test's deadline.
func TestSMTPServerDown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil { // nothing listens there now
		t.Fatal(err)
	}

	s := newTestSMTP(t, SMTPConfig{Host: "127.0.0.1", Port: port, From: "no-reply@medishare.test", TLS: TLSNone}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), testutil.EventuallyTimeout)
	defer cancel()
	err = s.Send(ctx, Message{To: "alice@example.com", Subject: "x", Text: "x"})
	if domain.ErrorKind(err) != domain.EUNAVAILABLE {
		t.Errorf("err = %v, want EUNAVAILABLE", err)
	}
	if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Send waited for a deadline to notice the server is down: %v", err)
	}
}

// A relay that accepts the connection and never greets holds Send until
// the caller's context ends, and no longer: the error is the caller's
// cancellation, not Send's own 15-second limit.
func TestSMTPSendHonoursContext(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	accepted := make(chan struct{}, 1)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer func() { _ = c.Close() }()
			accepted <- struct{}{}
		}
	}()
	s := newTestSMTP(t, SMTPConfig{Host: "127.0.0.1", Port: l.Addr().(*net.TCPAddr).Port, From: "no-reply@medishare.test", TLS: TLSNone}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sent := make(chan error, 1)
	go func() { sent <- s.Send(ctx, Message{To: "alice@example.com", Subject: "x", Text: "x"}) }()
	select {
	case <-accepted: // Send waits for a greeting that never comes
	case <-time.After(testutil.EventuallyTimeout):
		t.Fatal("Send never connected")
	}
	cancel()
	select {
	case err := <-sent:
		if domain.ErrorKind(err) != domain.EUNAVAILABLE || !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want EUNAVAILABLE caused by the cancellation", err)
		}
	case <-time.After(testutil.EventuallyTimeout):
		t.Fatal("Send ignored its context")
	}
}

func TestSMTPInvalidRecipient(t *testing.T) {
	srv := startServer(t, serverOptions{})
	s := newTestSMTP(t, SMTPConfig{Host: "127.0.0.1", Port: srv.port, From: "no-reply@medishare.test", TLS: TLSNone}, nil)
	tests := []struct {
		name string
		to   string
	}{
		{"empty", ""},
		{"no domain", "alice"},
		{"injected header", "alice@example.com\r\nBcc: mallory@example.com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.Send(context.Background(), Message{To: tt.to, Subject: "x", Text: "x"})
			if domain.ErrorKind(err) != domain.EINVALID {
				t.Errorf("err = %v, want EINVALID", err)
			}
		})
	}
	if n := len(srv.received()); n != 0 {
		t.Errorf("server received %d messages", n)
	}
}

func TestNewSMTPValidates(t *testing.T) {
	ok := SMTPConfig{Host: "smtp.example.org", Port: 587, From: "MediShare <no-reply@example.org>", TLS: TLSStartTLS}
	tests := []struct {
		name   string
		change func(*SMTPConfig)
		valid  bool
	}{
		{"valid", func(*SMTPConfig) {}, true},
		{"implicit tls", func(c *SMTPConfig) { c.TLS, c.Port = TLSImplicit, 465 }, true},
		{"no host", func(c *SMTPConfig) { c.Host = "" }, false},
		{"port zero", func(c *SMTPConfig) { c.Port = 0 }, false},
		{"port too big", func(c *SMTPConfig) { c.Port = 70000 }, false},
		{"unknown tls mode", func(c *SMTPConfig) { c.TLS = "ssl" }, false},
		{"empty tls mode", func(c *SMTPConfig) { c.TLS = "" }, false},
		{"bad from", func(c *SMTPConfig) { c.From = "MediShare" }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := ok
			tt.change(&cfg)
			_, err := NewSMTP(cfg)
			if tt.valid && err != nil {
				t.Errorf("refused: %v", err)
			}
			if !tt.valid && domain.ErrorKind(err) != domain.EINVALID {
				t.Errorf("err = %v, want EINVALID", err)
			}
		})
	}
}
