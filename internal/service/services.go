package service

import (
	"log/slog"
	"time"

	"github.com/medishare/medishare/internal/analysis"

	"github.com/medishare/medishare/internal/mail"
	"github.com/medishare/medishare/internal/medimg"
)

// Store is everything the services need from the database; the PostgreSQL
// store implements it.
type Store interface {
	RegistrationStore
	SessionStore
	PasswordStore
	UserStore
	ImageStore
	PreviewStore
	IntegrityStore
	SharingStore
	AuditStore
	AuditChainStore
	MessageStore
	SettingsStore
	AdminStore
	AnalysisStore
	OutboxStore
	AccessTokenStore
	MFAStore
}

// Config is what the services are built from.
type Config struct {
	Store     Store
	Blobs     ContentStore
	Keys      KeyWrapper   // wraps per-file content keys
	Texts     TextSealer   // seals message texts
	Secrets   SecretHasher // keyed hashes of codes and tokens
	Passwords PasswordHasher
	// AuditChain computes the audit chain's hashes and signs its
	// checkpoints (OpenAuditChain).
	AuditChain AuditChainKey
	Mailer     mail.Mailer
	Templates  mail.Templates
	// TokenSecret signs access tokens, naming Issuer (the public URL).
	TokenSecret []byte
	Issuer      string
	// LinkKey signs content links; a key of its own.
	LinkKey []byte
	// OrphanAge is how long contents no record names are kept before the
	// janitor removes them (an hour when zero). It must exceed the longest
	// upload: an upload's contents are stored before its record commits.
	OrphanAge time.Duration
	// Previews renders previews within the process's memory budget for them.
	Previews *medimg.Previewer
	// System describes the server and checks its dependencies (the health panel).
	System System
	// Analyzers are the analysis providers configured besides the built-in one.
	Analyzers []analysis.Analyzer
	// Passkeys runs WebAuthn ceremonies; nil offers no passkeys.
	Passkeys Passkeys
	Logger   *slog.Logger
	Now      Clock
}

// Services are the use cases, wired once for the server and its tests.
type Services struct {
	Registration *RegistrationService
	Sessions     *SessionService
	Passwords    *PasswordService
	Users        *UserService
	Images       *ImageService
	Previews     *PreviewService
	Integrity    *IntegrityService
	Sharing      *SharingService
	Audit        *AuditService
	AuditChain   *AuditChainService
	Messages     *MessageService
	Settings     *SettingsService
	Admin        *AdminService
	Analysis     *AnalysisService
	AccessTokens *AccessTokenService
	MFA          *MFAService
	Links        *Links
	Tokens       *Tokens
	// Background runs work after responses; Wait for it before exiting.
	Background *Background
	// Outbox sends queued mail; Run it for as long as the server runs.
	Outbox *Outbox
	Now    Clock
}

// New wires the services.
func New(c Config) *Services {
	background := NewBackground(c.Logger)
	outbox := NewOutbox(c.Store, c.Texts, c.Mailer, c.Logger)
	tokens := NewTokens(c.TokenSecret, c.Issuer, c.Now)
	links := NewLinks(c.LinkKey, c.Now)
	images := NewImageService(c.Store, c.Blobs, c.Keys, c.Texts, c.Logger, c.Now)
	previews := NewPreviewService(c.Store, images, c.Blobs, c.Keys, c.Logger, c.Previews)
	chain := NewAuditChainService(c.Store, c.Blobs, c.AuditChain, c.Logger, c.Now)
	mfa := NewMFAService(c.Store, c.Texts, c.Secrets, c.Passwords, outbox, c.Templates, c.Passkeys, c.Now)
	sessions := NewSessionService(c.Store, c.Passwords, c.Secrets, tokens, links, c.Now)
	sessions.mfa = mfa
	passwords := NewPasswordService(c.Store, c.Passwords, c.Secrets, background, outbox, c.Templates, c.Now)
	passwords.mfa = mfa
	return &Services{
		Registration: NewRegistrationService(c.Store, c.Passwords, c.Secrets, background, outbox, c.Templates, c.Now),
		Sessions:     sessions,
		Passwords:    passwords,
		MFA:          mfa,
		Users:        NewUserService(c.Store, c.Passwords, c.Now),
		Images:       images,
		Previews:     previews,
		Integrity:    NewIntegrityService(c.Store, c.Blobs, c.Keys, c.Logger, c.Now, c.OrphanAge),
		Sharing:      NewSharingService(c.Store, c.Secrets, outbox, c.Templates, c.Now),
		Audit:        NewAuditService(c.Store, chain),
		AuditChain:   chain,
		Messages:     NewMessageService(c.Store, c.Texts, c.Now),
		Settings:     NewSettingsService(c.Store, c.Analyzers),
		Admin:        NewAdminService(c.Store, c.System, outbox, chain, c.Now),
		Analysis:     NewAnalysisService(c.Store, images, previews, c.Texts, c.Now, c.Logger, c.Analyzers...),
		AccessTokens: NewAccessTokenService(c.Store, c.Secrets, c.Now),
		Links:        links,
		Tokens:       tokens,
		Background:   background,
		Outbox:       outbox,
		Now:          c.Now,
	}
}

// Deliver hands a notification from the events channel (from any instance)
// to what it concerns on this one: queued mail or message streams.
func (s *Services) Deliver(payload string) {
	if payload == mailNotice {
		s.Outbox.Wake()
		return
	}
	s.Messages.Deliver(payload)
}

// Resync tells this instance's listeners that notifications may have been
// missed while the events connection was down.
func (s *Services) Resync() {
	s.Outbox.Wake()
	s.Messages.Resync()
}
