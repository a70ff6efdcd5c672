// Package pgtest gives tests real PostgreSQL databases. It uses the server at
// TEST_DATABASE_URL, or starts the repository's private test cluster with
// scripts/pg.sh. A template database is migrated once per migration set; each
// test gets a fresh database cloned from it and dropped afterwards.
package pgtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/medishare/medishare/internal/secure"
	"github.com/medishare/medishare/internal/store/postgres"
	"github.com/medishare/medishare/migrations"
)

// TestClusterPort is where the shared test cluster listens, unless
// MEDISHARE_TEST_PG_PORT names another port (two checkouts testing at once).
var TestClusterPort = portFromEnv("MEDISHARE_TEST_PG_PORT", 54330)

func portFromEnv(name string, fallback int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return fallback
}

var (
	adminOnce sync.Once
	adminURL  string
	adminErr  error

	templateOnce sync.Once
	templateName string
	templateErr  error
)

// RepoRoot is the folder holding go.mod.
func RepoRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			panic("go.mod not found above " + dir)
		}
		dir = parent
	}
}

// serverURL returns a URL to the server's maintenance database.
func serverURL() (string, error) {
	adminOnce.Do(func() {
		if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
			adminURL = u
			return
		}
		dir := filepath.Join(RepoRoot(), "data", "postgres-test")
		adminURL, adminErr = startCluster(dir, TestClusterPort)
	})
	if adminErr != nil {
		return "", adminErr
	}
	return withDatabase(adminURL, "postgres"), nil
}

func startCluster(dir string, port int) (string, error) {
	cmd := exec.Command("bash", filepath.Join(RepoRoot(), "scripts", "pg.sh"), "start", dir, strconv.Itoa(port))
	cmd.Env = append(os.Environ(), "PG_FAST=1")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("start PostgreSQL with scripts/pg.sh: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

func withDatabase(raw, name string) string {
	u, err := url.Parse(raw)
	if err != nil {
		panic(err)
	}
	u.Path = "/" + name
	return u.String()
}

// migrationsHash names the template after the migrations it holds, so a
// changed migration never reuses a stale template.
func migrationsHash() string {
	h := sha256.New()
	_ = fs.WalkDir(migrations.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := fs.ReadFile(migrations.FS, path)
		h.Write([]byte(path))
		h.Write(b)
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// template returns the name of the migrated template database, making it once.
// An advisory lock keeps parallel test binaries from making it twice.
func template(ctx context.Context, admin string) (string, error) {
	templateOnce.Do(func() {
		name := "medishare_tmpl_" + migrationsHash()
		conn, err := pgx.Connect(ctx, admin)
		if err != nil {
			templateErr = err
			return
		}
		defer func() { _ = conn.Close(ctx) }() // also ends the advisory lock's session
		if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock(727001)"); err != nil {
			templateErr = err
			return
		}
		defer conn.Exec(ctx, "SELECT pg_advisory_unlock(727001)") //nolint:errcheck
		var exists bool
		if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
			templateErr = err
			return
		}
		if !exists {
			templateErr = buildTemplate(ctx, conn, admin, name)
		}
		templateName = name
	})
	return templateName, templateErr
}

func buildTemplate(ctx context.Context, conn *pgx.Conn, admin, name string) error {
	building := name + "_building"
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{building}.Sanitize()+" WITH (FORCE)"); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{building}.Sanitize()); err != nil {
		return err
	}
	m, err := postgres.NewMigrator(withDatabase(admin, building), nil)
	if err != nil {
		return err
	}
	err = m.Up(ctx)
	m.Close()
	if err != nil {
		return fmt.Errorf("migrate template: %w", err)
	}
	// Renamed only once complete, so an interrupted run never leaves a half-made template.
	_, err = conn.Exec(ctx, "ALTER DATABASE "+pgx.Identifier{building}.Sanitize()+" RENAME TO "+pgx.Identifier{name}.Sanitize())
	return err
}

// NewDatabase creates a fresh, migrated database for the test and returns its
// URL. The database is dropped when the test ends.
func NewDatabase(t testing.TB) string {
	t.Helper()
	return createDatabase(t, true)
}

// NewStore opens the repository's store on a fresh, migrated database: for
// tests beside the services, which may not name the store's package. The
// pool is closed when the test ends.
func NewStore(t testing.TB) (*postgres.DB, *postgres.Store) {
	t.Helper()
	db, err := postgres.Open(context.Background(), NewDatabase(t), postgres.PoolOptions{MaxConns: 10})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	store := postgres.NewStore(db)
	AuditChain(t, store)
	return db, store
}

// AuditChain gives store a fresh key for the audit chain, as app.New gives
// the server's store the key its database keeps, and returns the chain.
func AuditChain(t testing.TB, store *postgres.Store) *secure.AuditChain {
	t.Helper()
	chain, err := secure.NewAuditChain(secure.NewAuditChainKey())
	if err != nil {
		t.Fatal(err)
	}
	store.UseAuditChain(chain)
	return chain
}

// NewEmptyDatabase creates a database with no migrations applied.
func NewEmptyDatabase(t testing.TB) string {
	t.Helper()
	return createDatabase(t, false)
}

func createDatabase(t testing.TB, migrated bool) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin, err := serverURL()
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	name := "test_" + randomHex(8)
	stmt := "CREATE DATABASE " + pgx.Identifier{name}.Sanitize()
	if migrated {
		tmpl, err := template(ctx, admin)
		if err != nil {
			t.Fatalf("pgtest: template database: %v", err)
		}
		stmt += " TEMPLATE " + pgx.Identifier{tmpl}.Sanitize()
	}
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	defer func() { _ = conn.Close(ctx) }() // the statement has finished: nothing to lose
	if _, err := conn.Exec(ctx, stmt); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	t.Cleanup(func() { dropDatabase(admin, name) })
	return withDatabase(admin, name)
}

func dropDatabase(admin, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return
	}
	defer func() { _ = conn.Close(ctx) }() // best effort, like the drop
	_, _ = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Cluster is a private PostgreSQL server that a test may stop and start, to
// see how the program behaves when its database goes away and comes back.
type Cluster struct {
	dir  string
	port int
	URL  string // the cluster's "medishare" database
}

// StartCluster starts a private cluster in a folder of its own and stops it
// when the test ends.
func StartCluster(t testing.TB) *Cluster {
	t.Helper()
	dir, err := os.MkdirTemp("", "medishare-pgcluster-")
	if err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(dir, 0o755) // the server may run as another user
	c := &Cluster{dir: dir, port: FreePort(t)}
	c.Start(t)
	t.Cleanup(func() {
		c.Stop(t)
		_ = os.RemoveAll(dir)
	})
	return c
}

// Start starts the cluster (again).
func (c *Cluster) Start(t testing.TB) {
	t.Helper()
	u, err := startCluster(c.dir, c.port)
	if err != nil {
		t.Fatal(err)
	}
	c.URL = u
}

// Stop stops the cluster.
func (c *Cluster) Stop(t testing.TB) {
	t.Helper()
	cmd := exec.Command("bash", filepath.Join(RepoRoot(), "scripts", "pg.sh"), "stop", c.dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("stop cluster: %v\n%s", err, out)
	}
}

// FreePort returns a TCP port on 127.0.0.1 that nothing listens on now.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	if err := ln.Close(); err != nil { // the port must be free for the caller
		t.Fatal(err)
	}
	return port
}
