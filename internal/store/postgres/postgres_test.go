package postgres_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/store/postgres"
	"github.com/medishare/medishare/internal/testutil/pgtest"
)

func tableExists(t *testing.T, url, table string) bool {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close(ctx) }() // read only: nothing to lose
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", "public."+table).Scan(&exists); err != nil {
		t.Fatal(err)
	}
	return exists
}

func TestMigrationsUpDownUp(t *testing.T) {
	ctx := context.Background()
	url := pgtest.NewEmptyDatabase(t)
	m, err := postgres.NewMigrator(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()

	if err := m.Up(ctx); err != nil {
		t.Fatalf("up: %v", err)
	}
	status, err := m.Status(ctx)
	if err != nil || len(status) == 0 {
		t.Fatalf("status: %v %v", status, err)
	}
	for _, s := range status {
		if !s.Applied {
			t.Errorf("migration %d not applied after up", s.Version)
		}
	}
	if !tableExists(t, url, "settings") {
		t.Fatal("settings table missing after up")
	}
	if err := m.Up(ctx); err != nil {
		t.Fatalf("second up must be a no-op: %v", err)
	}

	if err := m.DownTo(ctx, 0); err != nil {
		t.Fatalf("down to 0: %v", err)
	}
	if v, _ := m.Version(ctx); v != 0 {
		t.Fatalf("version after down = %d", v)
	}
	if tableExists(t, url, "settings") {
		t.Fatal("settings table still there after down")
	}

	if err := m.Up(ctx); err != nil {
		t.Fatalf("up again: %v", err)
	}
	if !tableExists(t, url, "settings") {
		t.Fatal("settings table missing after up again")
	}
}

func TestConcurrentMigrationsTakeTurns(t *testing.T) {
	ctx := context.Background()
	url := pgtest.NewEmptyDatabase(t)
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			m, err := postgres.NewMigrator(url, nil)
			if err != nil {
				errs <- err
				return
			}
			defer m.Close()
			errs <- m.Up(ctx)
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Errorf("concurrent up: %v", err)
		}
	}
}

func TestSettings(t *testing.T) {
	ctx := context.Background()
	db, err := postgres.Open(ctx, pgtest.NewDatabase(t), postgres.PoolOptions{MaxConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	store := postgres.NewStore(db)
	pgtest.AuditChain(t, store)

	got, err := store.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, domain.DefaultSettings) {
		t.Errorf("settings after the migrations = %+v, want the defaults %+v", got, domain.DefaultSettings)
	}

	changed := domain.Settings{ShareLifetimeDefaultHours: 2, ShareLifetimeMaxHours: 3, RegistrationOpen: false, ProviderApprovalRequired: true, AnalysisProvider: "openai",
		AnalysisSendUnscreened: true, MFARequiredRoles: []string{domain.RoleAdmin}}
	if err := store.SaveSettings(ctx, changed); err != nil {
		t.Fatal(err)
	}
	if got, err := store.Settings(ctx); err != nil || !reflect.DeepEqual(got, changed) {
		t.Errorf("settings after saving = %+v, %v; want %+v", got, err, changed)
	}

	// A value nobody could have written through the service keeps its default.
	if _, err := db.Pool.Exec(ctx, `UPDATE settings SET value = '"many"' WHERE key = 'share_lifetime_max_hours'`); err != nil {
		t.Fatal(err)
	}
	want := changed
	want.ShareLifetimeMaxHours = domain.DefaultSettings.ShareLifetimeMaxHours
	if got, err := store.Settings(ctx); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("settings with an unreadable value = %+v, %v; want %+v", got, err, want)
	}
}

func TestStatementTimeout(t *testing.T) {
	ctx := context.Background()
	db, err := postgres.Open(ctx, pgtest.NewDatabase(t), postgres.PoolOptions{MaxConns: 2, StatementTimeout: 100_000_000})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var got string
	if err := db.Pool.QueryRow(ctx, "SHOW statement_timeout").Scan(&got); err != nil || got != "100ms" {
		t.Fatalf("statement_timeout = %q, %v", got, err)
	}
	if _, err := db.Pool.Exec(ctx, "SELECT pg_sleep(1)"); err == nil {
		t.Fatal("a statement longer than the timeout succeeded")
	}
}
