// Package service holds MediShare's use cases. Each service says what it
// needs from the layers below as small interfaces; none of it knows HTTP,
// SQL drivers or cloud SDKs.
package service

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/medishare/medishare/internal/domain"
)

// Transactor runs a function in one database transaction.
type Transactor interface {
	InTx(ctx context.Context, fn func(ctx context.Context) error) error
}

// AuditWriter appends audit entries (in the caller's transaction when ctx carries one).
type AuditWriter interface {
	AppendAudit(ctx context.Context, e domain.AuditEntry) error
}

// Throttler counts hits per key in Postgres, so limits hold across
// instances (S3).
type Throttler interface {
	ThrottleHits(ctx context.Context, key string, period time.Duration) (int, time.Time, error)
	HitThrottle(ctx context.Context, key string, period time.Duration) (int, time.Time, error)
	ClearThrottle(ctx context.Context, key string) error
}

// Clock tells the time; tests inject their own.
type Clock func() time.Time

// Event is what an audit entry says happened, before the request's
// metadata is added.
type Event struct {
	Actor    string
	Action   domain.AuditAction
	Table    domain.AuditTable
	RecordID string
	Success  bool
	Reason   string
}

// entry is the audit entry of an event in a request.
func (e Event) entry(meta domain.RequestMeta) domain.AuditEntry {
	return domain.AuditEntry{
		ActorID: e.Actor, Action: e.Action, Table: e.Table, RecordID: e.RecordID,
		IP: meta.IP, UserAgent: meta.UserAgent, Success: e.Success, Reason: e.Reason,
	}
}

// record appends the audit entry of an event.
func record(ctx context.Context, w AuditWriter, meta domain.RequestMeta, e Event) error {
	err := w.AppendAudit(ctx, e.entry(meta))
	if err != nil {
		auditWriteFailures.Add(1)
	}
	return err
}

// auditWriteFailures counts audit entries that could not be written, in
// the whole process (an operator's alarm: S18 wants every access recorded).
var auditWriteFailures atomic.Int64

// AuditWriteFailures is how many audit entries could not be written since
// the process started.
func AuditWriteFailures() int64 { return auditWriteFailures.Load() }

// refuse records a refused access (one entry per refusal, S18) and returns
// err, the answer the caller gets. A failure to write the entry does not
// turn the refusal into a success.
func refuse(ctx context.Context, w AuditWriter, meta domain.RequestMeta, e Event, err error) error {
	e.Action, e.Success = domain.ActionAccessDenied, false
	_ = record(ctx, w, meta, e)
	return err
}

// auditID is the id a caller asked for as an audit entry records it: in
// its one canonical form, so that the entry reads the same whether or not
// it names anything, and empty when it is no id at all (whatever a caller
// typed stays out of the log).
func auditID(id string) string {
	u, err := uuid.Parse(id)
	if err != nil {
		return ""
	}
	return u.String()
}

// require refuses a caller without the permission, with err.
func require(ctx context.Context, w AuditWriter, p *domain.Principal, permission string, meta domain.RequestMeta, err error) error {
	if p.Can(permission) {
		return nil
	}
	return refuse(ctx, w, meta, Event{Actor: p.User.ID, Reason: "missing permission " + permission}, err)
}

// forbidden is an EFORBIDDEN error with a message for the person.
func forbidden(message string) error { return &domain.Error{Kind: domain.EFORBIDDEN, Message: message} }

// limit is a throttle: at most max hits of one key per window.
type limit struct {
	prefix  string // keeps this limit's keys apart from the others'
	reason  string // for the audit entry of a refusal
	max     int
	window  time.Duration
	message string
}

// hit counts one hit of key; past the limit it records the refusal and
// returns ETHROTTLED with the wait.
func (l limit) hit(ctx context.Context, t Throttler, w AuditWriter, now Clock, key string, meta domain.RequestMeta, actor string) error {
	hits, start, err := t.HitThrottle(ctx, l.prefix+key, l.window)
	if err != nil {
		return err
	}
	if hits <= l.max {
		return nil
	}
	_ = record(ctx, w, meta, Event{Actor: actor, Action: domain.ActionThrottled, Reason: l.reason})
	return throttled(start.Add(l.window).Sub(now()), l.message)
}

func throttled(wait time.Duration, message string) error {
	secs := int(wait.Round(time.Second) / time.Second)
	return &domain.Error{Kind: domain.ETHROTTLED, Message: message, RetryAfterSeconds: max(secs, 1)}
}

// notFound turns a store's ENOTFOUND into err, the product's message.
func notFound(err, with error) error {
	if domain.ErrorKind(err) == domain.ENOTFOUND {
		return with
	}
	return err
}
