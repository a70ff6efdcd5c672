package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/medishare/medishare/internal/httpapi"
	"github.com/medishare/medishare/web"
)

// wrapHandler lets this package's tests add routes (such as a deliberately
// slow one) to the real program; it is the identity otherwise.
var wrapHandler = func(h http.Handler) http.Handler { return h }

// serve runs the server until ctx ends, then drains (S26).
func serve(ctx context.Context, getenv func(string) string, logOut io.Writer) error {
	a, err := open(ctx, getenv, logOut)
	if err != nil {
		return err
	}
	defer a.close()
	cfg, logger := a.cfg, a.logger
	slog.SetDefault(logger)
	if cfg.SetMemoryLimit {
		// Soft: the collector works harder near it; previews stay within half.
		debug.SetMemoryLimit(cfg.MemoryLimit)
	}
	logger.Info("starting medishare", "version", version, "config", cfg.Redacted(),
		"memory_limit_mib", cfg.MemoryLimit>>20, "preview_budget_mib", previewBudget(cfg.MemoryLimit)>>20)
	for _, path := range cfg.GeneratedSecrets {
		logger.Warn("generated a development secret; production refuses to start without its own", "file", path)
	}
	if !cfg.IsProduction() {
		accounts, err := ensureDemoAccounts(ctx, a.services.Registration, cfg.DataDir, logger)
		if err != nil {
			return err
		}
		if cfg.DemoImages {
			if err := ensureDemoImages(ctx, a.services, cfg.DataDir, accounts, logger); err != nil {
				return err
			}
		}
	}

	go collectOrphans(ctx, a)
	go scrubContents(ctx, a)
	// Message events from every instance, for the streams open on this one.
	go a.db.Listen(ctx, logger, a.services.Deliver, a.services.Resync)
	// Mail is sent until the requests have drained (they may queue more),
	// and a delivery under way is finished before the process exits.
	sending, stopSending := context.WithCancel(context.WithoutCancel(ctx))
	outboxDone := make(chan struct{})
	go func() { a.services.Outbox.Run(sending); close(outboxDone) }()
	defer func() { stopSending(); <-outboxDone }()

	readiness := httpapi.NewReadiness(
		httpapi.Check{Name: "database", Ping: a.db.Ping},
		httpapi.Check{Name: "storage", Ping: a.blobs.Ping},
	)
	var metrics *httpapi.Metrics
	if cfg.MetricsAddr != "" {
		metrics = httpapi.NewMetrics(append(poolMetrics(a.db), serviceMetrics(a)...)...)
		stop, err := serveMetrics(cfg.MetricsAddr, metrics, logger)
		if err != nil {
			return err
		}
		defer stop()
	}
	secure := strings.HasPrefix(cfg.PublicURL, "https://")
	handler := httpapi.NewRouter(httpapi.Deps{
		Logger:         logger,
		TrustedProxies: cfg.TrustedProxies,
		HSTS:           secure,
		SecureCookies:  secure,
		Readiness:      readiness,
		WebApp:         web.Dist(),
		PublicURL:      cfg.PublicURL,
		Services:       a.services,
		Metrics:        metrics,
	})

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	srv := httpapi.NewServer(wrapHandler(handler))
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	logger.Info("listening", "addr", ln.Addr().String(), "url", cfg.PublicURL, "env", cfg.Env)

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}

	logger.Info("shutting down: draining requests", "grace", cfg.ShutdownGrace.String())
	readiness.Drain()
	time.Sleep(cfg.DrainDelay) // let load balancers see the failing readiness first
	shutdownCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		_ = srv.Close() // cuts the requests still running; the timeout is the error to report
		return fmt.Errorf("requests still running after %s: %w", cfg.ShutdownGrace, err)
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	logger.Info("stopped")
	return nil
}

// collectOrphans runs the janitor every MEDISHARE_JANITOR_EVERY (ten minutes)
// until ctx ends: contents that an interrupted upload left without a record
// are removed after an hour (S24). Several instances may run it at once: a
// key is removed only when no record names it, and removals are idempotent.
func collectOrphans(ctx context.Context, a *app) {
	if a.cfg.JanitorEvery <= 0 {
		return
	}
	ticker := time.NewTicker(a.cfg.JanitorEvery)
	defer ticker.Stop()
	for {
		if n, err := a.services.Integrity.CollectOrphans(ctx); err != nil {
			a.logger.Warn("janitor", "err", err)
		} else if n > 0 {
			a.logger.Info("janitor removed unreferenced contents", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// scrubContents checks one image's stored contents every MEDISHARE_SCRUB_EVERY
// until ctx ends: downloads check each chunk as it is sent, and this reads
// whole files now and then, checking their SHA-256 too (S14). Instances
// claim images through the database, so they never check the same one at
// once; a failure is audited and kept for the health panel.
func scrubContents(ctx context.Context, a *app) {
	if a.cfg.ScrubEvery <= 0 {
		return
	}
	ticker := time.NewTicker(a.cfg.ScrubEvery)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		if _, err := a.services.Integrity.ScrubNext(ctx); err != nil && ctx.Err() == nil {
			a.logger.Warn("scrub", "err", err)
		}
	}
}
