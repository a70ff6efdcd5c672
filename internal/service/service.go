// Package service holds MediShare's use cases. Each service says what it
// needs from the layers below as small interfaces; none of it knows HTTP,
// SQL drivers or cloud SDKs.
package service

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/mail"
)

// Transactor runs a function in one database transaction.
type Transactor interface {
	InTx(ctx context.Context, fn func(ctx context.Context) error) error
}

// AuditWriter appends audit entries (in the caller's transaction when ctx carries one).
type AuditWriter interface {
	AppendAudit(ctx context.Context, e domain.AuditEntry) error
}

// Clock tells the time; tests inject their own.
type Clock func() time.Time

// Outbox sends mail after the request that caused it, so a slow or failing
// relay neither delays answers nor reveals, by timing, whether an account
// exists (S2). Failures are logged; the person can ask again.
type Outbox struct {
	mailer mail.Mailer
	logger *slog.Logger
	wg     sync.WaitGroup
}

// NewOutbox returns an outbox over mailer.
func NewOutbox(mailer mail.Mailer, logger *slog.Logger) *Outbox {
	return &Outbox{mailer: mailer, logger: logger}
}

// Send queues one message.
func (o *Outbox) Send(m mail.Message) {
	o.wg.Add(1)
	go func() {
		defer o.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := o.mailer.Send(ctx, m); err != nil {
			o.logger.Error("mail not sent", "subject", m.Subject, "err", err)
		}
	}()
}

// Wait blocks until every queued message was handed to the mailer.
func (o *Outbox) Wait() { o.wg.Wait() }

func audit(meta domain.RequestMeta, actorID, action, table, recordID string, success bool, reason string) domain.AuditEntry {
	return domain.AuditEntry{
		ActorID: actorID, Action: action, Table: table, RecordID: recordID,
		IP: meta.IP, UserAgent: meta.UserAgent, Success: success, Reason: reason,
	}
}
