package app

import (
	"context"
	"sync"
	"time"

	"github.com/medishare/medishare/internal/service"
)

// Start runs the stack's background loops until stop is called: the
// events listener (messages and mail from every instance), the mail
// outbox, the message streams' leases, the janitor, the scrub, the audit
// chain's checkpoints and its background check (each when its pace is
// set). stop returns once every loop has, having written a last
// checkpoint; a mail delivery under way is finished first (a delivery cut
// short after the relay took it would be sent again). A server calls stop
// after its requests have drained, since they may queue mail and audit
// entries.
func (s *Stack) Start() (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { s.DB.Listen(ctx, s.logger, s.Services.Deliver, s.Services.Resync) })
	wg.Go(func() { s.Services.Outbox.Run(ctx) })
	// Leases keep this instance's streams counted towards their people's
	// cap on every instance.
	wg.Go(func() {
		s.every(ctx, service.StreamRenewEvery, "message stream leases", s.Services.Messages.RenewStreams)
	})
	if s.janitorEvery > 0 {
		wg.Go(func() { s.every(ctx, s.janitorEvery, "janitor", s.collectOrphans) })
	}
	if s.scrubEvery > 0 {
		wg.Go(func() { s.scrubContents(ctx) })
	}
	if s.checkpointEvery > 0 {
		wg.Go(func() { s.every(ctx, s.checkpointEvery, "audit checkpoint", s.Services.AuditChain.Checkpoint) })
	}
	if s.auditCheckEvery > 0 {
		wg.Go(func() {
			s.every(ctx, s.auditCheckEvery/4, "audit check", func(ctx context.Context) error {
				_, err := s.Services.AuditChain.VerifyIfDue(ctx, s.auditCheckEvery)
				return err
			})
		})
	}
	return func() {
		cancel()
		wg.Wait()
		if s.checkpointEvery > 0 {
			ctx, cancel := context.WithTimeout(context.Background(), lastCheckpointTimeout)
			defer cancel()
			if err := s.Services.AuditChain.Checkpoint(ctx); err != nil {
				s.logger.Warn("audit checkpoint", "err", err)
			}
		}
	}
}

// lastCheckpointTimeout bounds the checkpoint written on the way out.
const lastCheckpointTimeout = 10 * time.Second

// every runs fn at once and then every pace until ctx ends; a failure is
// logged and the next run tries again. The audit chain's loops: a check
// looks at the latest check every quarter of its pace, so that one due is
// run soon by whichever instance looks first.
func (s *Stack) every(ctx context.Context, pace time.Duration, what string, fn func(context.Context) error) {
	ticker := time.NewTicker(pace)
	defer ticker.Stop()
	for {
		if err := fn(ctx); err != nil && ctx.Err() == nil {
			s.logger.Warn(what, "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// collectOrphans is one pass of the janitor, which Start runs every
// janitorEvery: contents that an interrupted upload left without a record
// are removed once older than the orphan age (S24). Several instances may
// run it at once: a key is removed only when no record names it, and
// removals are idempotent.
func (s *Stack) collectOrphans(ctx context.Context) error {
	n, err := s.Services.Integrity.CollectOrphans(ctx)
	if err != nil {
		return err
	}
	if n > 0 {
		s.logger.Info("janitor removed unreferenced contents", "count", n)
	}
	// Every pass, so that its pace can be followed (tests of several
	// instances' janitors read it).
	s.logger.Debug("janitor pass", "removed", n)
	return nil
}

// scrubContents checks one image's stored contents every scrubEvery until
// ctx ends: downloads check each chunk as it is sent, and this reads whole
// files now and then, checking their SHA-256 too (S14). Instances claim
// images through the database, so they never check the same one at once;
// a failure is audited and kept for the health panel.
func (s *Stack) scrubContents(ctx context.Context) {
	ticker := time.NewTicker(s.scrubEvery)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		if _, err := s.Services.Integrity.ScrubNext(ctx); err != nil && ctx.Err() == nil {
			s.logger.Warn("scrub", "err", err)
		}
	}
}
