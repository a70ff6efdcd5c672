package mail

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	netmail "net/mail"
	"time"

	gomail "github.com/wneessen/go-mail"

	"github.com/medishare/medishare/internal/domain"
)

// sendTimeout bounds one delivery, from dial to QUIT, so a stuck relay cannot
// hold a request (or a retry loop) for ever.
const sendTimeout = 15 * time.Second

// TLS modes of SMTPConfig.TLS.
const (
	TLSNone     = "none"     // plain text, for a local mail catcher
	TLSStartTLS = "starttls" // STARTTLS is mandatory: no silent downgrade
	TLSImplicit = "tls"      // TLS from the first byte (port 465)
)

// SMTPConfig says how to reach the mail relay.
type SMTPConfig struct {
	Host     string
	Port     int
	Username string // empty: no AUTH
	Password string
	From     string // "MediShare <no-reply@example.org>"
	TLS      string // TLSNone, TLSStartTLS or TLSImplicit
}

// SMTP sends mail through a relay.
type SMTP struct {
	cfg SMTPConfig
	// rootCAs replaces the system roots; tests use it to trust their server.
	rootCAs *x509.CertPool
}

// NewSMTP checks cfg and returns a sender. It does not connect.
// Errors: EINVALID when a setting is missing or malformed.
func NewSMTP(cfg SMTPConfig) (*SMTP, error) {
	switch {
	case cfg.Host == "":
		return nil, domain.Errorf(domain.EINVALID, "SMTP host is required")
	case cfg.Port < 1 || cfg.Port > 65535:
		return nil, domain.Errorf(domain.EINVALID, "SMTP port %d is out of range", cfg.Port)
	case cfg.TLS != TLSNone && cfg.TLS != TLSStartTLS && cfg.TLS != TLSImplicit:
		return nil, domain.Errorf(domain.EINVALID, "SMTP TLS mode must be none, starttls or tls, not %q", cfg.TLS)
	}
	if _, err := netmail.ParseAddress(headerValue(cfg.From)); err != nil {
		return nil, domain.Wrap(domain.EINVALID, err, "SMTP sender address is not valid")
	}
	s := &SMTP{cfg: cfg}
	if _, err := s.client(context.Background()); err != nil {
		return nil, domain.Wrap(domain.EINVALID, err, "SMTP settings are not valid")
	}
	return s, nil
}

// Send delivers m through the relay, waiting at most 15 seconds.
// Errors: EINVALID when the recipient address does not parse, EUNAVAILABLE
// when the relay cannot be reached, refuses the login or refuses the mail
// (the cause is kept for the log).
func (s *SMTP) Send(ctx context.Context, m Message) error {
	// Quoted-printable: every relay accepts it, 8BITMIME or not.
	msg, err := newMsg(s.cfg.From, m, gomail.EncodingQP)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, sendTimeout)
	defer cancel()
	// A client per message: go-mail's Client keeps per-connection state,
	// and its dialer is bound to this ctx.
	c, err := s.client(ctx)
	if err != nil {
		return domain.Wrap(domain.EUNAVAILABLE, err, sendFailed)
	}
	if err := c.DialAndSendWithContext(ctx, msg); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w: %w", ctx.Err(), err)
		}
		return domain.Wrap(domain.EUNAVAILABLE, err, sendFailed)
	}
	return nil
}

func (s *SMTP) client(ctx context.Context) (*gomail.Client, error) {
	opts := []gomail.Option{
		gomail.WithPort(s.cfg.Port),
		gomail.WithTimeout(sendTimeout),
		gomail.WithTLSConfig(s.tlsConfig()),
		gomail.WithDialContextFunc(s.dialer(ctx)),
	}
	switch s.cfg.TLS {
	case TLSNone:
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	case TLSStartTLS:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	case TLSImplicit:
		opts = append(opts, gomail.WithSSL())
	}
	if s.cfg.Username != "" {
		opts = append(opts, gomail.WithUsername(s.cfg.Username), gomail.WithPassword(s.cfg.Password))
		// PLAIN or LOGIN when offered (what relays expect); go-mail's versions
		// send credentials in clear only over TLS or to localhost. Otherwise
		// go-mail picks the strongest mechanism the server offers.
		opts = append(opts, gomail.WithOpportunisticSMTPAuth(gomail.SMTPAuthPlain, gomail.SMTPAuthLogin))
	}
	return gomail.NewClient(s.cfg.Host, opts...)
}

func (s *SMTP) tlsConfig() *tls.Config {
	return &tls.Config{ServerName: s.cfg.Host, MinVersion: tls.VersionTLS12, RootCAs: s.rootCAs}
}

// dialer connects (with TLS from the first byte in implicit mode) and closes
// the connection when ctx ends: go-mail uses its context only to dial, so a
// relay that stalls after connecting would otherwise hold Send for the full
// timeout whatever the caller's context says.
func (s *SMTP) dialer(ctx context.Context) gomail.DialContextFunc {
	return func(dialCtx context.Context, network, addr string) (net.Conn, error) {
		d := &net.Dialer{}
		var conn net.Conn
		var err error
		if s.cfg.TLS == TLSImplicit {
			// A *tls.Conn, so go-mail knows the session is encrypted.
			conn, err = (&tls.Dialer{NetDialer: d, Config: s.tlsConfig()}).DialContext(dialCtx, network, addr)
		} else {
			conn, err = d.DialContext(dialCtx, network, addr)
		}
		if err != nil {
			return nil, err
		}
		context.AfterFunc(ctx, func() { _ = conn.Close() }) // aborts the session: ctx's end is what the caller sees
		return conn, nil
	}
}
