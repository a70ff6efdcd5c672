package service_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/mail"
	"github.com/medishare/medishare/internal/secure"
	"github.com/medishare/medishare/internal/service"
	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/pgtest"
)

// recordingMailer keeps what it was asked to send; fail, when set, decides
// whether a delivery fails; overlap, when set, holds the first deliveries
// until that many are under way at once.
type recordingMailer struct {
	mu      sync.Mutex
	sent    map[string]int // by subject
	tries   int
	fail    func(try int) error
	overlap *barrier
}

func (m *recordingMailer) Send(ctx context.Context, msg mail.Message) error {
	if m.overlap != nil {
		m.overlap.wait()
	}
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

// barrier opens once n callers wait at once; it gives up (and says so)
// after testutil.EventuallyTimeout.
type barrier struct {
	n       int
	mu      sync.Mutex
	arrived int
	open    chan struct{}
	missed  bool
}

func newBarrier(n int) *barrier { return &barrier{n: n, open: make(chan struct{})} }

func (b *barrier) wait() {
	b.mu.Lock()
	b.arrived++
	if b.arrived == b.n {
		close(b.open)
	}
	b.mu.Unlock()
	select {
	case <-b.open:
	case <-time.After(testutil.EventuallyTimeout):
		b.mu.Lock()
		b.missed = true
		b.mu.Unlock()
	}
}

func (b *barrier) opened() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return !b.missed && b.arrived >= b.n
}

type outboxFixture struct {
	store service.OutboxStore
	db    testutil.Rows
	texts *secure.TextSealer
}

func newOutboxFixture(t *testing.T) outboxFixture {
	db, store := pgtest.NewStore(t)
	texts, err := secure.NewTextSealer(bytes.Repeat([]byte{1}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return outboxFixture{store: store, db: db.Pool, texts: texts}
}

// run starts an outbox (one instance's senders); stop ends it once the
// deliveries under way are done (the test's end stops it too).
func (f outboxFixture) run(t *testing.T, mailer mail.Mailer) (o *service.Outbox, stop func()) {
	o = service.NewOutbox(f.store, f.texts, mailer, slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { o.Run(ctx); close(done) }()
	stop = func() { cancel(); <-done }
	t.Cleanup(stop)
	return o, stop
}

func (f outboxFixture) queued(t *testing.T) int {
	var n int
	if err := f.db.QueryRow(context.Background(), "SELECT count(*) FROM mail_outbox").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Three instances' senders take the same outbox, several mails at once:
// every mail goes out once. A mail is deleted in the transaction that
// holds it while it is sent, so once the outbox is empty and the senders
// have stopped, no delivery can follow: the counts are final.
func TestOutboxSendsEveryMailOnceAcrossInstances(t *testing.T) {
	f := newOutboxFixture(t)
	mailer := &recordingMailer{overlap: newBarrier(3)}
	producer := service.NewOutbox(f.store, f.texts, mailer, slog.Default())
	const total = 60
	for i := range total {
		if err := producer.Queue(context.Background(), mail.Message{To: "p@clinic.test", Subject: fmt.Sprint("mail ", i), Text: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	var stops []func()
	for range 3 {
		_, stop := f.run(t, mailer)
		stops = append(stops, stop)
	}
	testutil.Eventually(t, "the outbox to empty", func() bool { return f.queued(t) == 0 })
	for _, stop := range stops {
		stop()
	}
	sent, tries := mailer.count()
	for subject, n := range sent {
		if n != 1 {
			t.Errorf("%q sent %d times", subject, n)
		}
	}
	if len(sent) != total || tries != total {
		t.Errorf("%d mails sent in %d deliveries, want %d once each", len(sent), tries, total)
	}
	if !mailer.overlap.opened() {
		t.Error("no three deliveries were ever under way at once")
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
	if err := f.db.QueryRow(context.Background(), "SELECT sealed FROM mail_outbox").Scan(&sealed); err != nil {
		t.Fatal(err)
	}
	for _, plain := range []string{"kept@clinic.test", "987654", "Your code"} {
		if bytes.Contains(sealed, []byte(plain)) {
			t.Errorf("the stored mail shows %q", plain)
		}
	}
}

// A relay that fails is retried after 5 s, then 10 s. The database's clock
// bounds each wait from both sides: the retry is due at least the wait
// after the attempt could first be made (the queueing, or the moment the
// test made the previous retry due), and at most the wait after the test
// reads it.
func TestOutboxRetriesWithBackoff(t *testing.T) {
	f := newOutboxFixture(t)
	mailer := &recordingMailer{fail: func(try int) error {
		if try <= 2 {
			return domain.Errorf(domain.EUNAVAILABLE, "Mail could not be sent.")
		}
		return nil
	}}
	o, _ := f.run(t, mailer)
	if err := o.Queue(context.Background(), mail.Message{To: "p@clinic.test", Subject: "retried", Text: "x"}); err != nil {
		t.Fatal(err)
	}
	o.Wake() // as the events listener does on the commit's notice
	ctx := context.Background()
	var due time.Time // since when the attempt could be made
	if err := f.db.QueryRow(ctx, "SELECT created_at FROM mail_outbox").Scan(&due); err != nil {
		t.Fatal(err)
	}
	for attempt, wait := range []time.Duration{5 * time.Second, 10 * time.Second} {
		testutil.Eventually(t, fmt.Sprint("failed attempt ", attempt+1), func() bool {
			var attempts int
			err := f.db.QueryRow(ctx, "SELECT attempts FROM mail_outbox").Scan(&attempts)
			return err == nil && attempts == attempt+1
		})
		var next, now time.Time
		if err := f.db.QueryRow(ctx, "SELECT next_attempt_at, now() FROM mail_outbox").Scan(&next, &now); err != nil {
			t.Fatal(err)
		}
		if next.Sub(due) < wait || next.Sub(now) > wait {
			t.Errorf("retry %d due %s after it could be tried and %s after it was read, want %s", attempt+1, next.Sub(due), next.Sub(now), wait)
		}
		// Bring the retry forward rather than wait for it.
		if err := f.db.QueryRow(ctx, "UPDATE mail_outbox SET next_attempt_at = now() RETURNING now()").Scan(&due); err != nil {
			t.Fatal(err)
		}
		o.Wake()
	}
	testutil.Eventually(t, "the third attempt to go out", func() bool { return f.queued(t) == 0 })
	if sent, _ := mailer.count(); sent["retried"] != 1 || o.Failed() != 2 || o.Sent() != 1 {
		t.Errorf("sent %v; %d failures, %d sent", sent, o.Failed(), o.Sent())
	}
}

// An address the relay refuses for good is given up at once.
func TestOutboxGivesUpARefusedAddress(t *testing.T) {
	f := newOutboxFixture(t)
	refused := &recordingMailer{fail: func(int) error {
		return domain.Errorf(domain.EINVALID, "The email address is not valid.")
	}}
	o, _ := f.run(t, refused)
	if err := o.Queue(context.Background(), mail.Message{To: "p@clinic.test", Subject: "refused", Text: "x"}); err != nil {
		t.Fatal(err)
	}
	o.Wake() // as the events listener does on the commit's notice
	testutil.Eventually(t, "the refused mail to be dropped", func() bool { return f.queued(t) == 0 })
	if _, tries := refused.count(); tries != 1 || o.Failed() != 1 {
		t.Errorf("%d attempts, %d failures; want one of each", tries, o.Failed())
	}
}
