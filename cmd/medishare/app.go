package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/medishare/medishare/internal/analysis"
	"github.com/medishare/medishare/internal/app"
	"github.com/medishare/medishare/internal/blob"
	"github.com/medishare/medishare/internal/config"
	"github.com/medishare/medishare/internal/mail"
	"github.com/medishare/medishare/internal/store/postgres"
	"github.com/medishare/medishare/web"
)

// program is the configured application: its configuration, its logger
// and the stack built from them.
type program struct {
	cfg    *config.Config
	logger *slog.Logger
	*app.Stack
}

// open loads the configuration, applies migrations and builds the stack
// from the parts the configuration names.
func open(ctx context.Context, getenv func(string) string, logOut io.Writer) (*program, error) {
	return openRotating(ctx, getenv, logOut, nil)
}

// openRotating is open during a rotation of the master key: previousKey is
// the one being rotated away from (see app.Parts).
func openRotating(ctx context.Context, getenv func(string) string, logOut io.Writer, previousKey []byte) (*program, error) {
	cfg, err := loadConfig(getenv)
	if err != nil {
		return nil, err
	}
	logger := newLogger(cfg, logOut)

	migrator, err := postgres.NewMigrator(cfg.DatabaseURL, logger)
	if err != nil {
		return nil, err
	}
	err = migrator.Up(ctx)
	migrator.Close()
	if err != nil {
		return nil, fmt.Errorf("apply migrations: %w", err)
	}
	mailer, err := newMailer(cfg, logger)
	if err != nil {
		return nil, err
	}
	blobs, err := newBlobStore(ctx, cfg)
	if err != nil {
		return nil, err
	}
	var analyzers []analysis.Analyzer
	if cfg.AI.BaseURL != "" {
		external, err := analysis.NewOpenAI(analysis.OpenAIConfig{BaseURL: cfg.AI.BaseURL, APIKey: cfg.AI.APIKey, Model: cfg.AI.Model, Timeout: cfg.AI.Timeout})
		if err != nil {
			return nil, err
		}
		analyzers = append(analyzers, external)
	}
	stack, err := app.New(ctx, app.Parts{
		DatabaseURL: cfg.DatabaseURL,
		Pool:        postgres.PoolOptions{MaxConns: cfg.DBMaxConns, StatementTimeout: cfg.DBStatementTimeout},
		Blobs:       blobs, Mailer: mailer,
		MasterKey: cfg.MasterKey, JWTSecret: cfg.JWTSecret, PreviousMasterKey: previousKey,
		PublicURL: cfg.PublicURL, TrustedProxies: cfg.TrustedProxies, WebApp: web.Dist(),
		Now:    func() time.Time { return time.Now().UTC() },
		Logger: logger, Analyzers: analyzers,
		PreviewBudget: previewBudget(cfg.MemoryLimit),
		OrphanAge:     orphanAge,
		JanitorEvery:  cfg.JanitorEvery, ScrubEvery: cfg.ScrubEvery,
		CheckpointEvery: cfg.AuditCheckpointEvery, AuditCheckEvery: cfg.AuditCheckEvery,
		Version: version, StorageKind: storageKind(cfg), MailKind: mailKind(cfg),
		Metrics: cfg.MetricsAddr != "",
	})
	if err != nil {
		return nil, err
	}
	return &program{cfg: cfg, logger: logger, Stack: stack}, nil
}

// orphanAge is how old contents no record names must be before the janitor
// removes them: the services' default (an hour), unless this package's
// tests shorten it (MEDISHARE_TEST_ORPHAN_AGE, read by TestMain only).
var orphanAge time.Duration

// previewBudget is the memory that preview renders share: half the Go memory
// limit, leaving the other half to the rest of the server (transfers, upload
// parsing, the runtime) and to the collector's headroom. Without a limit
// (GOMEMLIMIT=off), half the default limit.
func previewBudget(limit int64) int64 {
	if limit <= 0 {
		limit = config.DefaultMemoryLimit
	}
	return limit / 2
}

// newBlobStore keeps contents in the data folder, or in the S3 bucket.
func newBlobStore(ctx context.Context, cfg *config.Config) (app.Blobs, error) {
	if cfg.Storage == "s3" {
		return blob.NewS3(blob.S3Config{
			Endpoint: cfg.S3.Endpoint, Region: cfg.S3.Region, Bucket: cfg.S3.Bucket,
			AccessKeyID: cfg.S3.AccessKeyID, SecretAccessKey: cfg.S3.SecretAccessKey, PathStyle: cfg.S3.PathStyle,
		})
	}
	return blob.NewFS(filepath.Join(cfg.DataDir, "blobs"))
}

// storageKind names where contents are kept, for the health panel.
func storageKind(cfg *config.Config) string {
	if cfg.Storage == "s3" {
		return "s3"
	}
	return "filesystem"
}

// mailKind names how mail leaves, for the health panel (as newMailer decides).
func mailKind(cfg *config.Config) string {
	if cfg.SMTP.Host != "" {
		return "smtp"
	}
	return "log"
}

// newMailer sends through SMTP when a relay is configured, in any
// environment; otherwise (development only) mail goes to the log and to
// .eml files under the data folder.
func newMailer(cfg *config.Config, logger *slog.Logger) (mail.Mailer, error) {
	if cfg.SMTP.Host != "" {
		return mail.NewSMTP(mail.SMTPConfig{
			Host: cfg.SMTP.Host, Port: cfg.SMTP.Port, Username: cfg.SMTP.Username,
			Password: cfg.SMTP.Password, From: cfg.SMTP.From, TLS: cfg.SMTP.TLS,
		})
	}
	return mail.NewDevMailer(filepath.Join(cfg.DataDir, "mail"), logger), nil
}
