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
	"time"

	"github.com/medishare/medishare/internal/httpapi"
)

// Test hooks of this package's TestMain, which runs this very program in
// a child process: wrapHandler adds routes (such as a deliberately slow
// one), and shutdownBegins is called as the listener closes. Both do
// nothing otherwise.
var (
	wrapHandler    = func(h http.Handler) http.Handler { return h }
	shutdownBegins = func() {}
)

// serve runs the server until ctx ends, then drains (S26).
func serve(ctx context.Context, getenv func(string) string, logOut io.Writer) error {
	p, err := open(ctx, getenv, logOut)
	if err != nil {
		return err
	}
	defer p.Close()
	cfg, logger := p.cfg, p.logger
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
		accounts, err := ensureDemoAccounts(ctx, p.Services.Registration, cfg.DataDir, logger)
		if err != nil {
			return err
		}
		if cfg.DemoImages {
			if err := ensureDemoImages(ctx, p.Services, cfg.DataDir, accounts, logger); err != nil {
				return err
			}
			if err := ensureDemoStudy(ctx, p.Services, cfg.DataDir, accounts, logger); err != nil {
				return err
			}
		}
	}

	// The events listener, the mail outbox, the janitor and the scrub run
	// until the requests have drained (they may queue mail), and a mail
	// delivery under way is finished before the process exits.
	defer p.Start()()

	if p.Metrics != nil {
		stop, err := serveMetrics(cfg.MetricsAddr, p.Metrics, logger)
		if err != nil {
			return err
		}
		defer stop()
	}

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	srv := httpapi.NewServer(wrapHandler(p.Handler))
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	logger.Info("listening", "addr", ln.Addr().String(), "url", cfg.PublicURL, "env", cfg.Env)

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}

	logger.Info("shutting down: draining requests", "grace", cfg.ShutdownGrace.String())
	p.Readiness.Drain()
	time.Sleep(cfg.DrainDelay) // let load balancers see the failing readiness first
	shutdownBegins()
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
