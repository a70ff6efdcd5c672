package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/medishare/medishare/internal/blob"
	"github.com/medishare/medishare/internal/httpapi"
	"github.com/medishare/medishare/internal/store/postgres"
	"github.com/medishare/medishare/web"
)

// wrapHandler lets this package's tests add routes (such as a deliberately
// slow one) to the real program; it is the identity otherwise.
var wrapHandler = func(h http.Handler) http.Handler { return h }

// serve wires config -> pool -> migrations -> stores -> router and runs the
// server until ctx ends, then drains (S26).
func serve(ctx context.Context, getenv func(string) string, logOut io.Writer) error {
	cfg, err := loadConfig(getenv)
	if err != nil {
		return err
	}
	logger := newLogger(cfg, logOut)
	slog.SetDefault(logger)
	logger.Info("starting medishare", "version", version, "config", cfg.Redacted())
	for _, path := range cfg.GeneratedSecrets {
		logger.Warn("generated a development secret; production refuses to start without its own", "file", path)
	}

	migrator, err := postgres.NewMigrator(cfg.DatabaseURL, logger)
	if err != nil {
		return err
	}
	err = migrator.Up(ctx)
	migrator.Close()
	if err != nil {
		return fmt.Errorf("apply migrations: %w", err)
	}

	db, err := postgres.Open(ctx, cfg.DatabaseURL, postgres.PoolOptions{
		MaxConns:         cfg.DBMaxConns,
		StatementTimeout: cfg.DBStatementTimeout,
	})
	if err != nil {
		return err
	}
	defer db.Close()

	if cfg.Storage != "fs" {
		return errors.New("MEDISHARE_STORAGE=s3 is not available in this version yet; use fs")
	}
	blobs, err := blob.NewFS(filepath.Join(cfg.DataDir, "blobs"))
	if err != nil {
		return err
	}

	readiness := httpapi.NewReadiness(
		httpapi.Check{Name: "database", Ping: db.Ping},
		httpapi.Check{Name: "storage", Ping: blobs.Ping},
	)
	handler := httpapi.NewRouter(httpapi.Deps{
		Logger:         logger,
		TrustedProxies: cfg.TrustedProxies,
		HSTS:           strings.HasPrefix(cfg.PublicURL, "https://"),
		Readiness:      readiness,
		WebApp:         web.Dist(),
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
		srv.Close()
		return fmt.Errorf("requests still running after %s: %w", cfg.ShutdownGrace, err)
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	logger.Info("stopped")
	return nil
}
