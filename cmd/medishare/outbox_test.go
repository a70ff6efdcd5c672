package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/mail"
	"github.com/medishare/medishare/internal/secure"
	"github.com/medishare/medishare/internal/service"
	"github.com/medishare/medishare/internal/store/postgres"
	"github.com/medishare/medishare/internal/testutil/apptest"
	"github.com/medishare/medishare/internal/testutil/pgtest"
)

// recordingMailer keeps what it was asked to send; fail, when set, decides
// whether a delivery fails.
type recordingMailer struct {
	mu    sync.Mutex
	sent  map[string]int // by subject
	tries int
	fail  func(try int) error
	delay time.Duration
}

func (m *recordingMailer) Send(ctx context.Context, msg mail.Message) error {
	time.Sleep(m.delay)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.tries++
	if m.fail != nil {
		if err := m.fail(m.tries); err != nil {
			return err
		}
	}
	if m.sent == nil {
		m.sent = map[string]int{}
	}
	m.sent[msg.Subject]++
	return nil
}

func (m *recordingMailer) count() (sent map[string]int, tries int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]int{}
	for k, v := range m.sent {
		out[k] = v
	}
	return out, m.tries
}

type outboxFixture struct {
	store *postgres.Store
	db    *postgres.DB
	texts *secure.TextSealer
}

func newOutboxFixture(t *testing.T) outboxFixture {
	db, err := postgres.Open(context.Background(), pgtest.NewDatabase(t), postgres.PoolOptions{MaxConns: 10})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	texts, err := secure.NewTextSealer(apptest.MasterKey)
	if err != nil {
		t.Fatal(err)
	}
	return outboxFixture{store: postgres.NewStore(db), db: db, texts: texts}
}

// run starts an outbox (one instance's senders) until the test ends.
func (f outboxFixture) run(t *testing.T, mailer mail.Mailer) *service.Outbox {
	o := service.NewOutbox(f.store, f.texts, mailer, slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { o.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return o
}

func (f outboxFixture) queued(t *testing.T) int {
	var n int
	if err := f.db.Pool.QueryRow(context.Background(), "SELECT count(*) FROM mail_outbox").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 15 s for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Three instances' senders take the same outbox: every mail goes out once.
func TestOutboxSendsEveryMailOnceAcrossInstances(t *testing.T) {
	f := newOutboxFixture(t)
	mailer := &recordingMailer{delay: 5 * time.Millisecond}
	producer := service.NewOutbox(f.store, f.texts, mailer, slog.Default())
	const total = 60
	for i := range total {
		if err := producer.Queue(context.Background(), mail.Message{To: "p@clinic.test", Subject: fmt.Sprint("mail ", i), Text: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		f.run(t, mailer)
	}
	waitFor(t, "every mail sent", func() bool { sent, _ := mailer.count(); return len(sent) == total })
	time.Sleep(300 * time.Millisecond) // a second delivery of any would show now
	sent, tries := mailer.count()
	for subject, n := range sent {
		if n != 1 {
			t.Errorf("%q sent %d times", subject, n)
		}
	}
	if tries != total || f.queued(t) != 0 {
		t.Errorf("%d deliveries for %d mails, %d rows left", tries, total, f.queued(t))
	}
}

// Queue writes in the caller's transaction: a rolled back change leaves no
// mail, and the row holds neither the recipient nor the text readable.
func TestOutboxQueuesInTheCallersTransaction(t *testing.T) {
	f := newOutboxFixture(t)
	o := service.NewOutbox(f.store, f.texts, &recordingMailer{}, slog.Default())
	failed := errors.New("the change failed")
	err := f.store.InTx(context.Background(), func(ctx context.Context) error {
		if err := o.Queue(ctx, mail.Message{To: "rolled.back@clinic.test", Subject: "code", Text: "code 1234"}); err != nil {
			return err
		}
		return failed
	})
	if !errors.Is(err, failed) || f.queued(t) != 0 {
		t.Fatalf("after a rollback: err %v, %d rows", err, f.queued(t))
	}
	if err := o.Queue(context.Background(), mail.Message{To: "kept@clinic.test", Subject: "Your code", Text: "Your code is 987654"}); err != nil {
		t.Fatal(err)
	}
	var sealed []byte
	if err := f.db.Pool.QueryRow(context.Background(), "SELECT sealed FROM mail_outbox").Scan(&sealed); err != nil {
		t.Fatal(err)
	}
	for _, plain := range []string{"kept@clinic.test", "987654", "Your code"} {
		if bytes.Contains(sealed, []byte(plain)) {
			t.Errorf("the stored mail shows %q", plain)
		}
	}
}

// A relay that fails is retried with growing waits.
func TestOutboxRetriesWithBackoff(t *testing.T) {
	f := newOutboxFixture(t)
	mailer := &recordingMailer{fail: func(try int) error {
		if try <= 2 {
			return domain.Errorf(domain.EUNAVAILABLE, "Mail could not be sent.")
		}
		return nil
	}}
	o := f.run(t, mailer)
	if err := o.Queue(context.Background(), mail.Message{To: "p@clinic.test", Subject: "retried", Text: "x"}); err != nil {
		t.Fatal(err)
	}
	var waits []time.Duration
	for attempt := 1; attempt <= 2; attempt++ {
		var wait time.Duration
		waitFor(t, fmt.Sprint("attempt ", attempt), func() bool {
			var attempts int
			var seconds float64
			err := f.db.Pool.QueryRow(context.Background(),
				"SELECT attempts, extract(epoch FROM next_attempt_at - now()) FROM mail_outbox").Scan(&attempts, &seconds)
			wait = time.Duration(seconds * float64(time.Second))
			return err == nil && attempts == attempt
		})
		waits = append(waits, wait)
		// Bring the retry forward rather than wait for it.
		if _, err := f.db.Pool.Exec(context.Background(), "UPDATE mail_outbox SET next_attempt_at = now()"); err != nil {
			t.Fatal(err)
		}
		o.Wake()
	}
	if waits[0] < 3*time.Second || waits[0] > 5*time.Second || waits[1] < 8*time.Second || waits[1] > 10*time.Second {
		t.Errorf("waits before retries: %v, want about 5 s then 10 s", waits)
	}
	waitFor(t, "the third attempt to go out", func() bool { sent, _ := mailer.count(); return sent["retried"] == 1 })
	waitFor(t, "the row to go", func() bool { return f.queued(t) == 0 })
	if o.Failed() != 2 || o.Sent() != 1 {
		t.Errorf("failed %d, sent %d", o.Failed(), o.Sent())
	}
}

// An address the relay refuses for good is given up at once.
func TestOutboxGivesUpARefusedAddress(t *testing.T) {
	f := newOutboxFixture(t)
	refused := &recordingMailer{fail: func(int) error {
		return domain.Errorf(domain.EINVALID, "The email address is not valid.")
	}}
	o2 := f.run(t, refused)
	if err := o2.Queue(context.Background(), mail.Message{To: "p@clinic.test", Subject: "refused", Text: "x"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the refused mail to be dropped", func() bool { _, tries := refused.count(); return tries >= 1 && f.queued(t) == 0 })
	if _, tries := refused.count(); tries != 1 || o2.Failed() != 1 {
		t.Errorf("%d attempts, %d failures; want one of each", tries, o2.Failed())
	}
}

// blackHole accepts SMTP connections and never answers, like a relay that
// hangs: a sender holds its mail's row until it is killed.
func blackHole(t *testing.T) (port int, connected <-chan struct{}) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() }) // the test is over
	got := make(chan struct{}, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { _ = c.Close() }) // the test is over
			got <- struct{}{}
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port, got
}

// The process is killed (SIGKILL) while its mail relay hangs, with a
// confirmation code, a password reset code and a share code queued: none is
// lost; the next start sends each once, and each code works.
func TestOutboxSurvivesSIGKILL(t *testing.T) {
	dbURL := pgtest.NewDatabase(t)
	env := devEnv(t, dbURL)
	base := "http://" + env["MEDISHARE_ADDR"]
	holePort, connected := blackHole(t)
	env["SMTP_HOST"], env["SMTP_PORT"], env["SMTP_TLS"] = "127.0.0.1", fmt.Sprint(holePort), "none"
	var stderr bytes.Buffer
	cmd := startProgram(t, env, &stderr)
	waitStatus(t, base+"/readyz", http.StatusOK)
	patient := readDemoAccount(t, env, "patient")
	provider, patientID := signInDemoProvider(t, env, base)

	const newEmail = "new.patient@clinic.test"
	registration := map[string]string{"email": newEmail, "username": "newpatient", "password": "Tulip-Harbour-7-Quartz",
		"role": "patient", "firstname": "New", "lastname": "Patient", "gender": "Other"}
	if status, body := apiJSON(t, "POST", base+"/api/auth/register", "", registration); status != http.StatusCreated {
		t.Fatalf("register: %d %s", status, body)
	}
	if status, body := apiJSON(t, "POST", base+"/api/auth/forgot-password", "", map[string]string{"email": patient.Email}); status != http.StatusOK {
		t.Fatalf("forgot-password: %d %s", status, body)
	}
	image := benchUpload(t, base, provider, patientID, "shared.png", probePNGOf(t, 32))
	status, body := apiJSON(t, "POST", base+"/api/sharing/request", provider,
		map[string]any{"imagemetadataId": image, "createdfor": patientID, "expiresInHours": 24})
	var share struct{ Data struct{ ID string } }
	if status != http.StatusCreated || json.Unmarshal([]byte(body), &share) != nil {
		t.Fatalf("share: %d %s", status, body)
	}
	select {
	case <-connected: // a sender holds a mail, the relay never answers
	case <-time.After(15 * time.Second):
		t.Fatalf("no mail was being sent\n%s", stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	box := apptest.StartMailbox(t)
	env["SMTP_PORT"] = fmt.Sprint(box.Port())
	startProgram(t, env, io.Discard)
	waitStatus(t, base+"/readyz", http.StatusOK)
	mails := []struct{ to, subject, pattern string }{
		{newEmail, "Your MediShare confirmation code", `confirmation code is (\d{4})`},
		{patient.Email, "Your MediShare password reset code", `reset code is (\d{6})`},
		{patient.Email, "A medical image was shared with you", `Code: (\d{6})`},
	}
	codes := make([]string, len(mails))
	for i, m := range mails {
		codes[i] = box.Code(t, m.to, m.subject, m.pattern)
	}
	time.Sleep(time.Second) // a second copy of any would have come by now
	for _, m := range mails {
		if n := box.Count(m.to, m.subject); n != 1 {
			t.Errorf("%d mails %q after the restart, want 1", n, m.subject)
		}
	}
	if status, body := apiJSON(t, "POST", base+"/api/auth/confirm", "", map[string]string{"email": newEmail, "code": codes[0]}); status != http.StatusOK {
		t.Errorf("confirm with the mailed code: %d %s", status, body)
	}
	patientToken, _ := signInDemo(t, env, base, "patient")
	if status, body := apiJSON(t, "POST", base+"/api/sharing/verify", patientToken,
		map[string]string{"sharingRequestId": share.Data.ID, "verificationCode": codes[2]}); status != http.StatusOK {
		t.Errorf("verify the share with the mailed code: %d %s", status, body)
	}
	if status, body := apiJSON(t, "POST", base+"/api/auth/reset-password", "", map[string]string{
		"email": patient.Email, "otp": codes[1], "newPassword": "A new passphrase after a crash 42"}); status != http.StatusOK {
		t.Errorf("reset with the mailed code: %d %s", status, body)
	}
}
