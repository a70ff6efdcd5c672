// Package app builds the running server from parts that are already made:
// it is the one wiring of the program (cmd/medishare) and of the tests'
// stack (internal/testutil/apptest), so tests run exactly what production
// runs. It reads no configuration: cmd/medishare turns the configuration
// into Parts, and apptest passes its test parts.
package app

import (
	"context"
	"io/fs"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/medishare/medishare/internal/analysis"
	"github.com/medishare/medishare/internal/httpapi"
	"github.com/medishare/medishare/internal/mail"
	"github.com/medishare/medishare/internal/medimg"
	"github.com/medishare/medishare/internal/secure"
	"github.com/medishare/medishare/internal/service"
	"github.com/medishare/medishare/internal/store/postgres"
)

// Blobs is the content store with its health check.
type Blobs interface {
	service.ContentStore
	Ping(ctx context.Context) error
}

// Parts are what a stack is made of.
type Parts struct {
	// DatabaseURL names a migrated database; Pool sizes the stack's own pool.
	DatabaseURL string
	Pool        postgres.PoolOptions
	Blobs       Blobs
	Mailer      mail.Mailer
	// MasterKey wraps the contents' keys, seals texts and keys the hashes
	// of codes and tokens; JWTSecret signs access tokens.
	MasterKey []byte
	JWTSecret []byte
	// PreviousMasterKey, when set, is a master key being rotated away
	// from (`medishare keys rotate`): the audit chain's key may still be
	// sealed under it.
	PreviousMasterKey []byte
	// PublicURL is where people reach the app: the tokens' issuer, the
	// links in mail; https turns on HSTS and secure cookies.
	PublicURL      string
	TrustedProxies []netip.Prefix
	WebApp         fs.FS // the built SPA
	Now            service.Clock
	Logger         *slog.Logger
	// Analyzers are the analysis providers besides the built-in one.
	Analyzers []analysis.Analyzer
	// PreviewBudget is the memory that preview renders share, in bytes.
	PreviewBudget int64
	// OrphanAge is how old contents no record names must be before the
	// janitor removes them (the services' default, an hour, when zero).
	OrphanAge time.Duration
	// JanitorEvery and ScrubEvery pace the janitor and the scrub; zero
	// turns them off.
	JanitorEvery, ScrubEvery time.Duration
	// CheckpointEvery paces the audit chain's checkpoints (one is also
	// written when the loops stop); AuditCheckEvery is how often the whole
	// chain is checked in the background, by whichever instance finds the
	// latest check older. Zero turns each off.
	CheckpointEvery, AuditCheckEvery time.Duration
	// Version, StorageKind and MailKind describe the server on the health panel.
	Version, StorageKind, MailKind string
	// Metrics counts and times requests, with the pool's and the services'
	// figures (cmd/medishare serves them on a listener of their own).
	Metrics bool
}

// Stack is a built server: its pool, store, services and router. Start
// runs its background loops; Close releases it.
type Stack struct {
	DB       *postgres.DB
	Store    *postgres.Store
	Services *service.Services
	// KeyRotation moves what a previous master key protects to this one.
	KeyRotation *service.KeyRotationService
	Readiness   *httpapi.Readiness
	Metrics     *httpapi.Metrics // nil unless Parts.Metrics
	Handler     http.Handler     // the router: API, health checks, the app

	logger                                                     *slog.Logger
	janitorEvery, scrubEvery, checkpointEvery, auditCheckEvery time.Duration
}

// New opens a pool on the database and builds the services and the router
// from p. Errors: a key of the wrong length, a database that cannot be reached.
func New(ctx context.Context, p Parts) (*Stack, error) {
	secrets, err := secure.NewKeys(p.MasterKey)
	if err != nil {
		return nil, err
	}
	envelope, err := secure.NewEnvelope(p.MasterKey)
	if err != nil {
		return nil, err
	}
	texts, err := secure.NewTextSealer(p.MasterKey)
	if err != nil {
		return nil, err
	}
	// Passkeys belong to the public address's host, and are only used at
	// its origin. WebAuthn has no relying party for an IP address: served
	// at one, the app offers no passkeys (authenticator codes still work).
	var passkeys service.Passkeys
	if !secure.HostIsIP(p.PublicURL) {
		rp, err := secure.NewRelyingParty(p.PublicURL, "MediShare")
		if err != nil {
			return nil, err
		}
		passkeys = rp
	}
	db, err := postgres.Open(ctx, p.DatabaseURL, p.Pool)
	if err != nil {
		return nil, err
	}
	store := postgres.NewStore(db)
	var previous service.TextSealer
	if p.PreviousMasterKey != nil {
		if previous, err = secure.NewTextSealer(p.PreviousMasterKey); err != nil {
			db.Close()
			return nil, err
		}
	}
	chain, err := service.OpenAuditChain(ctx, store, texts, previous)
	if err != nil {
		db.Close()
		return nil, err
	}
	store.UseAuditChain(chain)
	previews := medimg.NewPreviewer(p.PreviewBudget)
	// The sandboxed image decoders compile in the background (a few hundred
	// milliseconds of CPU), not on the first preview that needs one.
	go func(logger *slog.Logger) {
		took, err := medimg.WarmDecoders(context.WithoutCancel(ctx))
		if logger == nil {
			return
		}
		if err != nil {
			logger.Warn("image decoders not compiled; JPEG 2000, JPEG-LS and lossless JPEG frames get no preview", "err", err)
			return
		}
		logger.Info("image decoders compiled", "took", took.Round(time.Millisecond))
	}(p.Logger)
	services := service.New(service.Config{
		Store: store, Blobs: p.Blobs, Keys: envelope, Texts: texts, Secrets: secrets, Passwords: secure.NewPasswords(4),
		AuditChain: chain,
		Mailer:     p.Mailer, Templates: mail.Templates{PublicURL: p.PublicURL, Now: p.Now},
		TokenSecret: p.JWTSecret, Issuer: p.PublicURL, LinkKey: secrets.Subkey("signed-urls"),
		Previews:  previews,
		OrphanAge: p.OrphanAge,
		System: service.System{Version: p.Version, StorageKind: p.StorageKind, MailKind: p.MailKind,
			PingDatabase: db.Ping, PingStorage: p.Blobs.Ping},
		Analyzers: p.Analyzers,
		Passkeys:  passkeys,
		Logger:    p.Logger, Now: p.Now,
	})
	s := &Stack{DB: db, Store: store, Services: services,
		KeyRotation: service.NewKeyRotationService(store, envelope, texts),
		logger:      p.Logger, janitorEvery: p.JanitorEvery, scrubEvery: p.ScrubEvery,
		checkpointEvery: p.CheckpointEvery, auditCheckEvery: p.AuditCheckEvery}
	s.Readiness = httpapi.NewReadiness(
		httpapi.Check{Name: "database", Ping: db.Ping},
		httpapi.Check{Name: "storage", Ping: p.Blobs.Ping},
	)
	if p.Metrics {
		s.Metrics = httpapi.NewMetrics(append(poolMetrics(db), serviceMetrics(services, previews)...)...)
	}
	https := strings.HasPrefix(p.PublicURL, "https://")
	s.Handler = httpapi.NewRouter(httpapi.Deps{
		Logger:         p.Logger,
		TrustedProxies: p.TrustedProxies,
		HSTS:           https,
		SecureCookies:  https,
		Readiness:      s.Readiness,
		WebApp:         p.WebApp,
		PublicURL:      p.PublicURL,
		Services:       services,
		Metrics:        s.Metrics,
	})
	return s, nil
}

// Close waits for the work started after answers (mail lookups) and
// closes the pool. Stop the background loops first.
func (s *Stack) Close() {
	s.Services.Background.Wait()
	s.DB.Close()
}
