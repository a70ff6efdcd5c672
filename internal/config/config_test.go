package config

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

var key32 = base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))

func TestDefaults(t *testing.T) {
	c, err := Load(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:8080" || c.Env != Development || c.Storage != "fs" || c.PublicURL != "http://localhost:8080" {
		t.Errorf("defaults: %+v", c)
	}
}

func TestSecretFromFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "master.key")
	if err := os.WriteFile(path, []byte(key32+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(env(map[string]string{"MEDISHARE_MASTER_KEY_FILE": path}))
	if err != nil {
		t.Fatal(err)
	}
	if string(c.MasterKey) != "0123456789abcdef0123456789abcdef" {
		t.Errorf("master key from file = %q", c.MasterKey)
	}
	if _, err := Load(env(map[string]string{"MEDISHARE_MASTER_KEY_FILE": path, "MEDISHARE_MASTER_KEY": key32})); err == nil {
		t.Error("both NAME and NAME_FILE accepted")
	}
	if _, err := Load(env(map[string]string{"MEDISHARE_MASTER_KEY_FILE": filepath.Join(dir, "missing")})); err == nil {
		t.Error("missing secret file accepted")
	}
}

func TestMalformedValues(t *testing.T) {
	for name, value := range map[string]string{
		"MEDISHARE_DB_MAX_CONNS":         "many",
		"MEDISHARE_TRUSTED_PROXIES":      "10.0.0.0/8, not-an-ip",
		"MEDISHARE_SHUTDOWN_GRACE":       "soon",
		"S3_PATH_STYLE":                  "perhaps",
		"MEDISHARE_MASTER_KEY":           "not base64!",
		"MEDISHARE_DB_STATEMENT_TIMEOUT": "-5s",
	} {
		_, err := Load(env(map[string]string{name: value}))
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%q: err = %v, want one naming the setting", name, value, err)
		}
	}
}

func TestTrustedProxies(t *testing.T) {
	c, err := Load(env(map[string]string{"MEDISHARE_TRUSTED_PROXIES": "10.0.0.0/8, 192.168.1.7 ,::1"}))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range c.TrustedProxies {
		got = append(got, p.String())
	}
	if strings.Join(got, " ") != "10.0.0.0/8 192.168.1.7/32 ::1/128" {
		t.Errorf("trusted proxies = %v", got)
	}
}

func TestProductionRefusesMissingSettings(t *testing.T) {
	c, err := Load(env(map[string]string{"MEDISHARE_ENV": "production"}))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.EnsureDevSecrets(); err != nil || c.MasterKey != nil {
		t.Fatalf("production generated secrets: %v", err)
	}
	err = c.Validate()
	if err == nil {
		t.Fatal("production started without keys")
	}
	for _, name := range []string{"MEDISHARE_MASTER_KEY", "MEDISHARE_JWT_SECRET", "DATABASE_URL", "MEDISHARE_PUBLIC_URL", "SMTP_HOST"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error does not name %s: %v", name, err)
		}
	}

	ok, err := Load(env(map[string]string{
		"MEDISHARE_ENV": "production", "MEDISHARE_MASTER_KEY": key32, "MEDISHARE_JWT_SECRET": key32,
		"DATABASE_URL": "postgres://x@db/medishare", "MEDISHARE_PUBLIC_URL": "https://medishare.example.org",
		"SMTP_HOST": "smtp.example.org",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if err := ok.Validate(); err != nil {
		t.Errorf("complete production settings refused: %v", err)
	}
	ok.DemoImages = true
	if err := ok.Validate(); err == nil || !strings.Contains(err.Error(), "MEDISHARE_DEMO_IMAGES") {
		t.Errorf("demo images in production: %v", err)
	}
}

func TestKeyLengths(t *testing.T) {
	short := base64.StdEncoding.EncodeToString([]byte("short"))
	c, err := Load(env(map[string]string{"MEDISHARE_MASTER_KEY": short, "MEDISHARE_JWT_SECRET": short}))
	if err != nil {
		t.Fatal(err)
	}
	err = c.Validate()
	if err == nil || !strings.Contains(err.Error(), "MEDISHARE_MASTER_KEY must be 32 bytes") || !strings.Contains(err.Error(), "MEDISHARE_JWT_SECRET must be at least 32 bytes") {
		t.Errorf("short keys: %v", err)
	}
}

func TestDevSecretsGeneratedOnceAndKept(t *testing.T) {
	dir := t.TempDir()
	load := func() *Config {
		c, err := Load(env(map[string]string{"MEDISHARE_DATA_DIR": dir}))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.EnsureDevSecrets(); err != nil {
			t.Fatal(err)
		}
		if err := c.Validate(); err != nil {
			t.Fatal(err)
		}
		return c
	}
	first := load()
	if len(first.MasterKey) != 32 || len(first.JWTSecret) != 32 || len(first.GeneratedSecrets) != 2 {
		t.Fatalf("first start: key %d bytes, secret %d bytes, generated %v", len(first.MasterKey), len(first.JWTSecret), first.GeneratedSecrets)
	}
	info, err := os.Stat(filepath.Join(dir, "secrets", "master.key"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("master key file: %v %v", info, err)
	}
	second := load()
	if string(second.MasterKey) != string(first.MasterKey) || string(second.JWTSecret) != string(first.JWTSecret) || len(second.GeneratedSecrets) != 0 {
		t.Error("second start did not reuse the generated secrets")
	}
	if string(first.MasterKey) == string(first.JWTSecret) {
		t.Error("master key and JWT secret are the same")
	}
}

func TestRedactedHidesSecrets(t *testing.T) {
	c, err := Load(env(map[string]string{
		"DATABASE_URL": "postgres://app:hunter2@db:5432/medishare", "MEDISHARE_MASTER_KEY": key32,
		"SMTP_PASSWORD": "mailpass", "S3_SECRET_ACCESS_KEY": "s3secret",
	}))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Join(func() []string {
		var out []string
		for k, v := range c.Redacted() {
			out = append(out, k+"="+toString(v))
		}
		return out
	}(), " ")
	for _, secret := range []string{"hunter2", key32, "mailpass", "s3secret"} {
		if strings.Contains(s, secret) {
			t.Errorf("redacted config shows %q: %s", secret, s)
		}
	}
}

func toString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}

func TestMemoryLimit(t *testing.T) {
	tests := []struct {
		name  string
		env   map[string]string
		limit int64
		set   bool
	}{
		{name: "default", limit: 768 << 20, set: true},
		{name: "ours", env: map[string]string{"MEDISHARE_MEMORY_LIMIT": "2GiB"}, limit: 2 << 30, set: true},
		{name: "plain bytes", env: map[string]string{"MEDISHARE_MEMORY_LIMIT": "536870912"}, limit: 512 << 20, set: true},
		{name: "the operator's GOMEMLIMIT, already applied", env: map[string]string{"GOMEMLIMIT": "1536MiB"}, limit: 1536 << 20},
		{name: "GOMEMLIMIT off", env: map[string]string{"GOMEMLIMIT": "off"}, limit: 0},
		{name: "ours wins", env: map[string]string{"MEDISHARE_MEMORY_LIMIT": "1GiB", "GOMEMLIMIT": "4GiB"}, limit: 1 << 30, set: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load(env(tc.env))
			if err != nil {
				t.Fatal(err)
			}
			if c.MemoryLimit != tc.limit || c.SetMemoryLimit != tc.set {
				t.Errorf("limit %d (set %v), want %d (set %v)", c.MemoryLimit, c.SetMemoryLimit, tc.limit, tc.set)
			}
		})
	}
	for _, v := range []string{"lots", "1.5GiB", "768MB", "-1", "0"} {
		if _, err := Load(env(map[string]string{"MEDISHARE_MEMORY_LIMIT": v})); err == nil || !strings.Contains(err.Error(), "MEDISHARE_MEMORY_LIMIT") {
			t.Errorf("MEDISHARE_MEMORY_LIMIT=%q: err = %v", v, err)
		}
	}
	c, err := Load(env(map[string]string{"MEDISHARE_MEMORY_LIMIT": "64MiB"}))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "memory limit") {
		t.Errorf("64MiB: Validate = %v", err)
	}
}

func TestMetricsNeverOnThePublicAddress(t *testing.T) {
	c, err := Load(env(map[string]string{"MEDISHARE_ADDR": "127.0.0.1:8080", "MEDISHARE_METRICS_ADDR": "127.0.0.1:8080"}))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "MEDISHARE_METRICS_ADDR") {
		t.Errorf("metrics on the public address: %v", err)
	}
}
