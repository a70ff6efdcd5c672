package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/medishare/medishare/migrations"
)

// Migrator applies the embedded migrations. A Postgres advisory lock makes
// concurrent start-ups of several instances take turns: the first applies
// what is pending, the others wait for the lock and then find nothing to do.
type Migrator struct {
	db       *sql.DB
	provider *goose.Provider
	logger   *slog.Logger
}

// migrationLockPoll is how often an instance that waits for another's
// migrations tries the lock again (goose's default is every 5 s), and
// migrationLockTries how many times, so it waits up to five minutes.
const (
	migrationLockPoll  = 1 // second
	migrationLockTries = 300
)

// NewMigrator opens its own connection (without the statement timeout, since a
// migration may legitimately take long) for the database at url.
func NewMigrator(url string, logger *slog.Logger) (*Migrator, error) {
	connCfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("DATABASE_URL: %w", err)
	}
	if connCfg.ConnectTimeout == 0 {
		connCfg.ConnectTimeout = 5 * time.Second
	}
	db := stdlib.OpenDB(*connCfg)
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockTimeout(migrationLockPoll, migrationLockTries))
	if err != nil {
		_ = db.Close() // unused yet; err is what to report
		return nil, err
	}
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS,
		goose.WithSessionLocker(locker),
		goose.WithDisableGlobalRegistry(true),
		goose.WithSlog(logger),
	)
	if err != nil {
		_ = db.Close() // unused yet; err is what to report
		return nil, fmt.Errorf("load migrations: %w", err)
	}
	return &Migrator{db: db, provider: p, logger: logger}, nil
}

// Up applies every pending migration, and logs how many it applied when
// it applied any.
func (m *Migrator) Up(ctx context.Context) error {
	results, err := m.provider.Up(ctx)
	if err != nil {
		return err
	}
	if len(results) > 0 {
		m.logger.Info("applied database migrations", "count", len(results), "version", results[len(results)-1].Source.Version)
	}
	return nil
}

// Down rolls back the most recent migration.
func (m *Migrator) Down(ctx context.Context) error {
	_, err := m.provider.Down(ctx)
	return err
}

// DownTo rolls back every migration above version (0 empties the schema).
func (m *Migrator) DownTo(ctx context.Context, version int64) error {
	_, err := m.provider.DownTo(ctx, version)
	return err
}

// MigrationStatus is one migration and whether it is applied.
type MigrationStatus struct {
	Version int64
	Name    string
	Applied bool
}

// Status lists every known migration.
func (m *Migrator) Status(ctx context.Context) ([]MigrationStatus, error) {
	list, err := m.provider.Status(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]MigrationStatus, len(list))
	for i, s := range list {
		out[i] = MigrationStatus{Version: s.Source.Version, Name: s.Source.Path, Applied: s.State == goose.StateApplied}
	}
	return out, nil
}

// Version is the highest applied migration.
func (m *Migrator) Version(ctx context.Context) (int64, error) {
	return m.provider.GetDBVersion(ctx)
}

// Close releases the migrator's connection. It returns no error: by then
// every migration has committed or rolled back, so a failure to close the
// connection loses nothing and leaves the caller nothing to do.
func (m *Migrator) Close() { _ = m.db.Close() }
