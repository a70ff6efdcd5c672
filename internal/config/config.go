// Package config loads the server's settings from the environment into one
// typed struct. Secrets may also come from files (NAME_FILE). In development,
// missing secrets are generated once into the data folder; in production the
// server refuses to start without them.
package config

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"net"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Environments.
const (
	Development = "development"
	Production  = "production"
)

// Config is every setting of the server.
type Config struct {
	Env  string // development or production
	Addr string // listen address
	// MetricsAddr is where Prometheus metrics are served; empty turns them
	// off. Never the public address.
	MetricsAddr string
	PublicURL   string // the address people use, e.g. https://medishare.example.org
	DataDir     string // contents, generated development secrets, development mail

	DatabaseURL        string
	DBMaxConns         int32
	DBStatementTimeout time.Duration
	TrustedProxies     []netip.Prefix
	ShutdownGrace      time.Duration
	DrainDelay         time.Duration
	// ScrubEvery is the pause between two images of the background check of
	// stored contents (S14); 0 turns it off in this instance.
	ScrubEvery time.Duration
	// JanitorEvery is the pause between two runs of the janitor, which
	// removes contents that interrupted uploads left without a record (S24);
	// 0 turns it off in this instance.
	JanitorEvery time.Duration
	// AuditCheckpointEvery paces the signed checkpoints of the audit
	// chain's head in the content store (S20); AuditCheckEvery is how old
	// the latest check of the whole chain may grow before this instance
	// checks it again. 0 turns each off in this instance.
	AuditCheckpointEvery, AuditCheckEvery time.Duration
	LogLevel                              string
	LogFormat                             string // json or text
	// DemoImages: development only, the demo provider uploads and opens
	// demo images on a fresh database (make run sets it; tests do not).
	DemoImages bool

	// MemoryLimit is the Go runtime's soft memory limit in bytes, 0 for none
	// (GOMEMLIMIT=off). SetMemoryLimit: the server sets it at start; it is
	// false when it came from GOMEMLIMIT, which the runtime has applied.
	MemoryLimit    int64
	SetMemoryLimit bool

	MasterKey []byte // 32 bytes; wraps the per-file content keys
	JWTSecret []byte // at least 32 bytes; signs access tokens

	Storage string // fs or s3
	S3      S3Config
	SMTP    SMTPConfig
	AI      AIConfig

	// GeneratedSecrets names the secrets generated into the data folder on this start.
	GeneratedSecrets []string
}

// S3Config is the S3-compatible bucket used when Storage is "s3".
type S3Config struct {
	Endpoint        string
	Region          string
	Bucket          string
	AccessKeyID     string
	SecretAccessKey string
	PathStyle       bool
}

// AIConfig is an OpenAI-compatible vision model for AI analysis; the
// provider is offered to admins only when BaseURL is set.
type AIConfig struct {
	BaseURL string // e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1
	APIKey  string
	Model   string
	Timeout time.Duration
}

// SMTPConfig is the mail relay; mail goes to the log when Host is empty.
type SMTPConfig struct {
	Host     string
	Port     int
	Username string
	Password string
	From     string
	TLS      string // none, starttls or tls
}

// Load reads the configuration from getenv (os.Getenv in production code).
// It reports malformed values; Validate checks that the whole is safe to run.
func Load(getenv func(string) string) (*Config, error) {
	l := loader{getenv: getenv}
	c := &Config{
		Env:                  l.str("MEDISHARE_ENV", Development),
		Addr:                 l.str("MEDISHARE_ADDR", "127.0.0.1:8080"),
		PublicURL:            l.str("MEDISHARE_PUBLIC_URL", ""),
		DataDir:              l.str("MEDISHARE_DATA_DIR", "data"),
		DatabaseURL:          l.secret("DATABASE_URL"),
		DBMaxConns:           int32(l.integer("MEDISHARE_DB_MAX_CONNS", 10)),
		DBStatementTimeout:   l.duration("MEDISHARE_DB_STATEMENT_TIMEOUT", 15*time.Second),
		TrustedProxies:       l.prefixes("MEDISHARE_TRUSTED_PROXIES"),
		ShutdownGrace:        l.duration("MEDISHARE_SHUTDOWN_GRACE", 30*time.Second),
		DrainDelay:           l.duration("MEDISHARE_DRAIN_DELAY", 0),
		ScrubEvery:           l.duration("MEDISHARE_SCRUB_EVERY", 10*time.Second),
		JanitorEvery:         l.duration("MEDISHARE_JANITOR_EVERY", 10*time.Minute),
		AuditCheckpointEvery: l.duration("MEDISHARE_AUDIT_CHECKPOINT_EVERY", 5*time.Minute),
		AuditCheckEvery:      l.duration("MEDISHARE_AUDIT_CHECK_EVERY", time.Hour),
		LogLevel:             l.str("MEDISHARE_LOG_LEVEL", "info"),
		LogFormat:            l.str("MEDISHARE_LOG_FORMAT", "json"),
		DemoImages:           l.boolean("MEDISHARE_DEMO_IMAGES", false),
		MetricsAddr:          l.str("MEDISHARE_METRICS_ADDR", ""),
		MemoryLimit:          DefaultMemoryLimit,
		SetMemoryLimit:       true,
		MasterKey:            l.key("MEDISHARE_MASTER_KEY"),
		JWTSecret:            l.key("MEDISHARE_JWT_SECRET"),
		Storage:              l.str("MEDISHARE_STORAGE", "fs"),
		S3: S3Config{
			Endpoint:        l.str("S3_ENDPOINT", ""),
			Region:          l.str("S3_REGION", "us-east-1"),
			Bucket:          l.str("S3_BUCKET", ""),
			AccessKeyID:     l.secret("S3_ACCESS_KEY_ID"),
			SecretAccessKey: l.secret("S3_SECRET_ACCESS_KEY"),
			PathStyle:       l.boolean("S3_PATH_STYLE", false),
		},
		AI: AIConfig{
			BaseURL: l.str("MEDISHARE_AI_BASE_URL", ""),
			APIKey:  l.secret("MEDISHARE_AI_API_KEY"),
			Model:   l.str("MEDISHARE_AI_MODEL", ""),
			Timeout: l.duration("MEDISHARE_AI_TIMEOUT", time.Minute),
		},
		SMTP: SMTPConfig{
			Host:     l.str("SMTP_HOST", ""),
			Port:     l.integer("SMTP_PORT", 587),
			Username: l.secret("SMTP_USERNAME"),
			Password: l.secret("SMTP_PASSWORD"),
			From:     l.str("SMTP_FROM", "MediShare <no-reply@localhost>"),
			TLS:      l.str("SMTP_TLS", "starttls"),
		},
	}
	if c.PublicURL == "" {
		c.PublicURL = "http://" + localAddress(c.Addr)
	}
	// MEDISHARE_MEMORY_LIMIT, else an operator's GOMEMLIMIT, else the default.
	if v := strings.TrimSpace(getenv("MEDISHARE_MEMORY_LIMIT")); v != "" {
		n, err := parseByteCount(v)
		if err != nil || n <= 0 {
			l.errs = append(l.errs, fmt.Errorf("MEDISHARE_MEMORY_LIMIT must be a size such as 768MiB or 2GiB, not %q", v))
		}
		c.MemoryLimit = n
	} else if v := strings.TrimSpace(getenv("GOMEMLIMIT")); v != "" {
		c.MemoryLimit, c.SetMemoryLimit = 0, false
		if v != "off" {
			n, err := parseByteCount(v)
			if err != nil {
				l.errs = append(l.errs, fmt.Errorf("GOMEMLIMIT must be a size such as 768MiB or off, not %q", v))
			}
			c.MemoryLimit = n
		}
	}
	c.PublicURL = strings.TrimRight(c.PublicURL, "/")
	if len(l.errs) > 0 {
		return nil, errors.Join(l.errs...)
	}
	return c, nil
}

// IsProduction reports whether the server runs in production mode.
func (c *Config) IsProduction() bool { return c.Env == Production }

// Validate refuses settings that are malformed or unsafe for the environment.
// Every problem is named, so an operator can fix them all at once.
func (c *Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	if c.Env != Development && c.Env != Production {
		bad("MEDISHARE_ENV must be %q or %q, not %q", Development, Production, c.Env)
	}
	if u, err := url.Parse(c.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		bad("MEDISHARE_PUBLIC_URL must be an absolute http(s) address, not %q", c.PublicURL)
	}
	if c.DBMaxConns < 2 || c.DBMaxConns > 200 {
		bad("MEDISHARE_DB_MAX_CONNS must be between 2 and 200")
	}
	if c.Storage != "fs" && c.Storage != "s3" {
		bad("MEDISHARE_STORAGE must be \"fs\" or \"s3\", not %q", c.Storage)
	}
	if c.Storage == "s3" && c.S3.Bucket == "" {
		bad("S3_BUCKET is required when MEDISHARE_STORAGE is s3")
	}
	switch c.SMTP.TLS {
	case "none", "starttls", "tls":
	default:
		bad("SMTP_TLS must be none, starttls or tls, not %q", c.SMTP.TLS)
	}
	if c.MemoryLimit != 0 && c.MemoryLimit < MinMemoryLimit {
		bad("the memory limit (MEDISHARE_MEMORY_LIMIT or GOMEMLIMIT) must be at least %dMiB", MinMemoryLimit>>20)
	}
	if c.LogFormat != "json" && c.LogFormat != "text" {
		bad("MEDISHARE_LOG_FORMAT must be json or text, not %q", c.LogFormat)
	}
	if c.MasterKey != nil && len(c.MasterKey) != 32 {
		bad("MEDISHARE_MASTER_KEY must be 32 bytes, base64-encoded (openssl rand -base64 32)")
	}
	if c.JWTSecret != nil && len(c.JWTSecret) < 32 {
		bad("MEDISHARE_JWT_SECRET must be at least 32 bytes, base64-encoded (openssl rand -base64 32)")
	}
	if c.MetricsAddr != "" && c.MetricsAddr == c.Addr {
		bad("MEDISHARE_METRICS_ADDR must not be the public address MEDISHARE_ADDR")
	}
	if c.AI.BaseURL != "" {
		if u, err := url.Parse(c.AI.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("MEDISHARE_AI_BASE_URL must be an absolute http(s) address, not %q", c.AI.BaseURL)
		}
		if c.AI.Model == "" {
			bad("MEDISHARE_AI_MODEL is required with MEDISHARE_AI_BASE_URL")
		}
		if c.AI.Timeout <= 0 {
			bad("MEDISHARE_AI_TIMEOUT must be positive")
		}
	}
	if c.IsProduction() {
		if c.DatabaseURL == "" {
			bad("DATABASE_URL is required in production")
		}
		if c.MasterKey == nil {
			bad("MEDISHARE_MASTER_KEY (or MEDISHARE_MASTER_KEY_FILE) is required in production")
		}
		if c.JWTSecret == nil {
			bad("MEDISHARE_JWT_SECRET (or MEDISHARE_JWT_SECRET_FILE) is required in production")
		}
		if strings.HasPrefix(c.PublicURL, "http://") {
			bad("MEDISHARE_PUBLIC_URL must be https in production")
		}
		if c.SMTP.Host == "" {
			bad("SMTP_HOST is required in production: codes must reach people by mail")
		}
		if c.DemoImages {
			bad("MEDISHARE_DEMO_IMAGES is for development only")
		}
	}
	return errors.Join(errs...)
}

// EnsureDevSecrets generates, once, the secrets that development is allowed to
// make up, and keeps them in DataDir/secrets so restarts keep working.
// It does nothing in production.
func (c *Config) EnsureDevSecrets() error {
	if c.IsProduction() {
		return nil
	}
	dir := filepath.Join(c.DataDir, "secrets")
	for _, s := range []struct {
		name string
		dst  *[]byte
	}{
		{"master.key", &c.MasterKey},
		{"jwt.secret", &c.JWTSecret},
	} {
		if *s.dst != nil {
			continue
		}
		key, generated, err := loadOrCreateKey(filepath.Join(dir, s.name))
		if err != nil {
			return err
		}
		*s.dst = key
		if generated {
			c.GeneratedSecrets = append(c.GeneratedSecrets, filepath.Join(dir, s.name))
		}
	}
	return nil
}

func loadOrCreateKey(path string) (key []byte, generated bool, err error) {
	if b, err := os.ReadFile(path); err == nil {
		key, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(b)))
		if err != nil || len(key) != 32 {
			return nil, false, fmt.Errorf("%s is not a base64-encoded 32-byte key; delete it to generate a new one", path)
		}
		return key, false, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, false, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, false, err
	}
	key = make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, false, err
	}
	// O_EXCL: when two processes start at once, one wins and the other reads its key.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return loadOrCreateKey(path)
	}
	if err != nil {
		return nil, false, err
	}
	if _, err := f.WriteString(base64.StdEncoding.EncodeToString(key) + "\n"); err != nil {
		_ = f.Close() // the write error is the one to report
		return nil, false, err
	}
	return key, true, f.Close()
}

// Redacted returns the settings as key/value pairs for the start-up log,
// with every secret masked.
func (c *Config) Redacted() map[string]any {
	mask := func(set bool) string {
		if set {
			return "********"
		}
		return ""
	}
	proxies := make([]string, len(c.TrustedProxies))
	for i, p := range c.TrustedProxies {
		proxies[i] = p.String()
	}
	return map[string]any{
		"env":             c.Env,
		"addr":            c.Addr,
		"public_url":      c.PublicURL,
		"data_dir":        c.DataDir,
		"database_url":    redactURL(c.DatabaseURL),
		"db_max_conns":    c.DBMaxConns,
		"trusted_proxies": strings.Join(proxies, ","),
		"storage":         c.Storage,
		"s3_endpoint":     c.S3.Endpoint,
		"s3_bucket":       c.S3.Bucket,
		"smtp_host":       c.SMTP.Host,
		"ai_base_url":     c.AI.BaseURL,
		"ai_model":        c.AI.Model,
		"memory_limit":    c.MemoryLimit,
		"master_key":      mask(c.MasterKey != nil),
		"jwt_secret":      mask(c.JWTSecret != nil),
	}
}

func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || raw == "" {
		return mask(raw)
	}
	if u.User != nil {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

func mask(s string) string {
	if s == "" {
		return ""
	}
	return "********"
}

// Memory limits. The default suits a container of 1 GiB; the minimum leaves
// previews a useful budget (half the limit).
const (
	DefaultMemoryLimit = 768 << 20
	MinMemoryLimit     = 128 << 20
)

// parseByteCount reads a size as GOMEMLIMIT does: a whole number of bytes
// with an optional unit, B, KiB, MiB, GiB or TiB.
func parseByteCount(s string) (int64, error) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		return 0, err
	}
	shift, ok := map[string]uint{"": 0, "B": 0, "KiB": 10, "MiB": 20, "GiB": 30, "TiB": 40}[s[i:]]
	if !ok || n > math.MaxInt64>>shift {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return n << shift, nil
}

// loader reads typed values and collects every malformed one.
type loader struct {
	getenv func(string) string
	errs   []error
}

func (l *loader) str(name, def string) string {
	if v := strings.TrimSpace(l.getenv(name)); v != "" {
		return v
	}
	return def
}

// secret reads NAME, or the contents of the file named by NAME_FILE.
func (l *loader) secret(name string) string {
	v := l.getenv(name)
	file := l.getenv(name + "_FILE")
	if v != "" && file != "" {
		l.errs = append(l.errs, fmt.Errorf("set %s or %s_FILE, not both", name, name))
		return ""
	}
	if file == "" {
		return v
	}
	b, err := os.ReadFile(file)
	if err != nil {
		l.errs = append(l.errs, fmt.Errorf("%s_FILE: %w", name, err))
		return ""
	}
	return strings.TrimSpace(string(b))
}

// key reads a base64-encoded secret; nil when it is not set.
func (l *loader) key(name string) []byte {
	v := l.secret(name)
	if v == "" {
		return nil
	}
	b, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		l.errs = append(l.errs, fmt.Errorf("%s must be base64-encoded (openssl rand -base64 32)", name))
		return nil
	}
	return b
}

func (l *loader) integer(name string, def int) int {
	v := l.getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		l.errs = append(l.errs, fmt.Errorf("%s must be a whole number, not %q", name, v))
		return def
	}
	return n
}

func (l *loader) boolean(name string, def bool) bool {
	v := l.getenv(name)
	if v == "" {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		l.errs = append(l.errs, fmt.Errorf("%s must be true or false, not %q", name, v))
		return def
	}
	return b
}

func (l *loader) duration(name string, def time.Duration) time.Duration {
	v := l.getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		l.errs = append(l.errs, fmt.Errorf("%s must be a duration such as 30s, not %q", name, v))
		return def
	}
	return d
}

// prefixes reads a comma-separated list of IP addresses and CIDR ranges.
func (l *loader) prefixes(name string) []netip.Prefix {
	var out []netip.Prefix
	for _, part := range strings.Split(l.getenv(name), ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if p, err := netip.ParsePrefix(part); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(part)
		if err != nil {
			l.errs = append(l.errs, fmt.Errorf("%s: %q is not an IP address or CIDR range", name, part))
			continue
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out
}

// localAddress is addr as a browser on this machine reaches it: a loopback
// or unspecified host becomes localhost, a name passkeys can belong to
// (WebAuthn has no relying party for an IP address).
func localAddress(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && (ip.IsLoopback() || ip.IsUnspecified())) {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}
