// Command medishare is the MediShare server and its administration tools.
//
//	medishare [serve]               run the server (the default)
//	medishare migrate up|down|status
//	medishare admin create --email E --firstname F --lastname L [--password-file P]
//	medishare audit verify
//	medishare keys rotate --old-key-file F
//	medishare contents verify
//	medishare version
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/medishare/medishare/internal/config"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

const usage = `usage: medishare [command]

commands:
  serve                      run the server (default)
  migrate up|down|status     apply, roll back one, or list database migrations
  admin create --email E --firstname F --lastname L [--username U] [--password-file P]
                             create a confirmed admin; prints a generated password once
  audit verify               check the audit log's hash chain
  keys rotate --old-key-file F
                             re-wrap every file and preview key under the current MEDISHARE_MASTER_KEY
  contents verify            read every stored file whole and check it (exit 1 naming each damaged image)
  version                    print the version

Settings come from the environment; see README.md.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "medishare:", err)
		os.Exit(1)
	}
}

// errUsage marks a mistyped command line.
var errUsage = errors.New("see 'medishare help'")

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(ctx, getenv, stderr)
	case "migrate":
		return migrate(ctx, args, getenv, stdout)
	case "admin":
		return adminCommand(ctx, args, getenv, stdout)
	case "audit":
		return auditCommand(ctx, args, getenv, stdout)
	case "keys":
		return keysCommand(ctx, args, getenv, stdout)
	case "contents":
		return contentsCommand(ctx, args, getenv, stdout, stderr)
	case "version", "--version":
		_, err := fmt.Fprintln(stdout, "medishare", version)
		return err
	case "help", "-h", "--help":
		_, err := fmt.Fprint(stdout, usage)
		return err
	default:
		_, _ = fmt.Fprint(stderr, usage) // best effort: the usage error below is what counts
		return fmt.Errorf("unknown command %q: %w", cmd, errUsage)
	}
}

// loadConfig reads, completes and validates the configuration.
func loadConfig(getenv func(string) string) (*config.Config, error) {
	cfg, err := config.Load(getenv)
	if err != nil {
		return nil, fmt.Errorf("configuration: %w", err)
	}
	if err := cfg.EnsureDevSecrets(); err != nil {
		return nil, fmt.Errorf("development secrets: %w", err)
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("configuration:\n  %s", strings.ReplaceAll(err.Error(), "\n", "\n  "))
	}
	if cfg.DatabaseURL == "" {
		return nil, errors.New("DATABASE_URL is not set (`make run` starts a local PostgreSQL and sets it for you)")
	}
	return cfg, nil
}

func newLogger(cfg *config.Config, w io.Writer) *slog.Logger {
	var level slog.Level
	if err := level.UnmarshalText([]byte(cfg.LogLevel)); err != nil {
		level = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: level}
	if cfg.LogFormat == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}
