package service

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/mail"
)

// OutboxStore keeps the mail outbox in the database.
type OutboxStore interface {
	Transactor
	QueueMail(ctx context.Context, id string, sealed []byte) error
	NextDueMail(ctx context.Context) (domain.QueuedMail, error)
	DeleteMail(ctx context.Context, id string) error
	PostponeMail(ctx context.Context, id string, seconds float64) error
	MailQueued(ctx context.Context, limit int) (int, error)
	Notify(ctx context.Context, payload string) error
}

const (
	// mailNotice, on the events channel, wakes every instance's senders
	// when a transaction that queued mail commits.
	mailNotice = "mail"
	// outboxPoll is how often senders look for due mail without being
	// woken: retries fall due, and a notice can be lost while the
	// listening connection reconnects.
	outboxPoll = 5 * time.Second
	// outboxSenders send at once on each instance.
	outboxSenders = 2
	// mailSendTimeout bounds one delivery to the relay.
	mailSendTimeout = 20 * time.Second
	// mailGiveUp: a mail still failing this long after it was queued is
	// dropped (every code in it expired long before).
	mailGiveUp = 24 * time.Hour
	// mailQueuedCap bounds the count of waiting mail.
	mailQueuedCap = 10000
)

// Outbox keeps mail in the database until it is sent (docs/operations.md,
// "Mail"): Queue writes it in the caller's transaction, so a code is never
// given out without its mail, and a crash after the answer loses none. Any
// instance's senders take a due mail with FOR UPDATE SKIP LOCKED, send it
// while holding the row and delete it in the same transaction, so one row
// is sent once; failures are retried with backoff. Sending happens after
// the answer, so a slow or failing relay neither delays answers nor
// reveals, by timing, whether an account exists (S2).
type Outbox struct {
	store  OutboxStore
	texts  TextSealer
	mailer mail.Mailer
	logger *slog.Logger
	wake   chan struct{}

	sent, failed atomic.Int64
	lastFailed   atomic.Bool // whether the last delivery failed
}

// NewOutbox returns an outbox that seals mail with texts and sends it with mailer.
func NewOutbox(store OutboxStore, texts TextSealer, mailer mail.Mailer, logger *slog.Logger) *Outbox {
	return &Outbox{store: store, texts: texts, mailer: mailer, logger: logger, wake: make(chan struct{}, 1)}
}

// Queue adds m to the outbox, in ctx's transaction when there is one: the
// mail exists if and only if what it tells of was committed.
func (o *Outbox) Queue(ctx context.Context, m mail.Message) error {
	id := uuid.NewString()
	plain, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if err := o.store.QueueMail(ctx, id, o.texts.Seal(id, string(plain))); err != nil {
		return err
	}
	return o.store.Notify(ctx, mailNotice)
}

// Wake makes a sender look for due mail now.
func (o *Outbox) Wake() {
	select {
	case o.wake <- struct{}{}:
	default: // already woken
	}
}

// Run sends due mail until ctx ends, then lets the deliveries under way
// finish (a delivery cut short after the relay took it would be sent again).
func (o *Outbox) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for range outboxSenders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o.sendLoop(ctx)
		}()
	}
	wg.Wait()
}

func (o *Outbox) sendLoop(ctx context.Context) {
	for {
		for ctx.Err() == nil {
			sent, err := o.sendNext(ctx)
			if err != nil {
				o.logger.Warn("mail outbox: the database did not answer; will retry", "err", err)
				break
			}
			if !sent {
				break
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-o.wake:
		case <-time.After(outboxPoll):
		}
	}
}

// sendNext delivers the mail due longest, if any; it reports whether there was one.
func (o *Outbox) sendNext(ctx context.Context) (found bool, err error) {
	// Not cancelled by shutdown: a delivery under way ends with its row deleted.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), mailSendTimeout+5*time.Second)
	defer cancel()
	err = o.store.InTx(ctx, func(ctx context.Context) error {
		q, err := o.store.NextDueMail(ctx)
		if domain.ErrorKind(err) == domain.ENOTFOUND {
			return nil
		}
		if err != nil {
			return err
		}
		found = true
		return o.deliver(ctx, q)
	})
	return found, err
}

// deliver sends one locked mail and deletes it, or schedules its next try.
// Logs name the row, never the recipient or the text.
func (o *Outbox) deliver(ctx context.Context, q domain.QueuedMail) error {
	var m mail.Message
	plain, err := o.texts.Open(q.ID, q.Sealed)
	if err == nil {
		err = json.Unmarshal([]byte(plain), &m)
	}
	if err != nil {
		o.failed.Add(1)
		o.logger.Error("mail outbox: a mail cannot be opened (sealed under another master key?); dropped", "mail", q.ID)
		return o.store.DeleteMail(ctx, q.ID)
	}
	sendCtx, cancel := context.WithTimeout(ctx, mailSendTimeout)
	err = o.mailer.Send(sendCtx, m)
	cancel()
	o.lastFailed.Store(err != nil)
	if err == nil {
		o.sent.Add(1)
		return o.store.DeleteMail(ctx, q.ID)
	}
	o.failed.Add(1)
	attempts := q.Attempts + 1
	if domain.ErrorKind(err) == domain.EINVALID || time.Since(q.CreatedAt) > mailGiveUp {
		o.logger.Error("mail outbox: mail given up", "mail", q.ID, "attempts", attempts, "err", domain.ErrorKind(err))
		return o.store.DeleteMail(ctx, q.ID)
	}
	wait := mailBackoff(attempts)
	// A relay's answer may quote the recipient: the log gets it without.
	reason := strings.ReplaceAll(err.Error(), m.To, "<recipient>")
	o.logger.Warn("mail outbox: sending failed; will retry", "mail", q.ID, "attempts", attempts, "retry_in", wait.String(), "err", reason)
	return o.store.PostponeMail(ctx, q.ID, wait.Seconds())
}

// mailBackoff is the wait after the given number of failed attempts: 5 s,
// doubling, at most 10 minutes.
func mailBackoff(attempts int) time.Duration {
	wait := 5 * time.Second
	for i := 1; i < attempts && wait < 10*time.Minute; i++ {
		wait *= 2
	}
	return min(wait, 10*time.Minute)
}

// State says how many mails wait to be sent, and whether the last delivery
// of this instance went out (true before any). Errors: EUNAVAILABLE.
func (o *Outbox) State(ctx context.Context) (queued int, ok bool, err error) {
	queued, err = o.store.MailQueued(ctx, mailQueuedCap)
	return queued, !o.lastFailed.Load(), err
}

// Sent and Failed count this instance's deliveries (metrics).
func (o *Outbox) Sent() int64   { return o.sent.Load() }
func (o *Outbox) Failed() int64 { return o.failed.Load() }
