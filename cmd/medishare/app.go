package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/medishare/medishare/internal/analysis"
	"github.com/medishare/medishare/internal/blob"
	"github.com/medishare/medishare/internal/config"
	"github.com/medishare/medishare/internal/mail"
	"github.com/medishare/medishare/internal/medimg"
	"github.com/medishare/medishare/internal/secure"
	"github.com/medishare/medishare/internal/service"
	"github.com/medishare/medishare/internal/store/postgres"
)

// app is the wired program: configuration, database, services.
type app struct {
	cfg      *config.Config
	logger   *slog.Logger
	db       *postgres.DB
	store    *postgres.Store
	services *service.Services
	blobs    blobStore
	keys     *secure.Envelope
	texts    *secure.TextSealer
	previews *medimg.Previewer
}

// blobStore is the content store with its health check.
type blobStore interface {
	service.ContentStore
	Ping(ctx context.Context) error
}

// open loads the configuration, applies migrations and builds the services.
func open(ctx context.Context, getenv func(string) string, logOut io.Writer) (*app, error) {
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
	db, err := postgres.Open(ctx, cfg.DatabaseURL, postgres.PoolOptions{MaxConns: cfg.DBMaxConns, StatementTimeout: cfg.DBStatementTimeout})
	if err != nil {
		return nil, err
	}
	keys, err := secure.NewKeys(cfg.MasterKey)
	if err != nil {
		db.Close()
		return nil, err
	}
	mailer, err := newMailer(cfg, logger)
	if err != nil {
		db.Close()
		return nil, err
	}
	envelope, err := secure.NewEnvelope(cfg.MasterKey)
	if err != nil {
		db.Close()
		return nil, err
	}
	texts, err := secure.NewTextSealer(cfg.MasterKey)
	if err != nil {
		db.Close()
		return nil, err
	}
	blobs, err := newBlobStore(ctx, cfg)
	if err != nil {
		db.Close()
		return nil, err
	}

	var analyzers []analysis.Analyzer
	if cfg.AI.BaseURL != "" {
		external, err := analysis.NewOpenAI(analysis.OpenAIConfig{BaseURL: cfg.AI.BaseURL, APIKey: cfg.AI.APIKey, Model: cfg.AI.Model, Timeout: cfg.AI.Timeout})
		if err != nil {
			db.Close()
			return nil, err
		}
		analyzers = append(analyzers, external)
	}

	store := postgres.NewStore(db)
	previews := medimg.NewPreviewer(previewBudget(cfg.MemoryLimit))
	services := service.New(service.Config{
		Store: store, Blobs: blobs, Keys: envelope, Texts: texts, Secrets: keys, Passwords: secure.NewPasswords(4),
		Mailer: mailer, Templates: mail.Templates{PublicURL: cfg.PublicURL},
		TokenSecret: cfg.JWTSecret, Issuer: cfg.PublicURL, LinkKey: keys.Subkey("signed-urls"),
		Previews:  previews,
		OrphanAge: orphanAge,
		System: service.System{Version: version, StorageKind: storageKind(cfg), MailKind: mailKind(cfg),
			PingDatabase: db.Ping, PingStorage: blobs.Ping},
		Analyzers: analyzers,
		Logger:    logger, Now: func() time.Time { return time.Now().UTC() },
	})
	return &app{cfg: cfg, logger: logger, db: db, store: store, services: services, blobs: blobs, keys: envelope, texts: texts, previews: previews}, nil
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
func newBlobStore(ctx context.Context, cfg *config.Config) (blobStore, error) {
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

// close waits for background work (mail) and releases the database.
func (a *app) close() {
	a.services.Background.Wait()
	a.db.Close()
}
