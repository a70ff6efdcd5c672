package main

import (
	"context"
	"fmt"
	"io"

	"github.com/medishare/medishare/internal/store/postgres"
)

func migrate(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	if len(args) != 1 {
		return fmt.Errorf("migrate needs one of up, down, status: %w", errUsage)
	}
	cfg, err := loadConfig(getenv)
	if err != nil {
		return err
	}
	m, err := postgres.NewMigrator(cfg.DatabaseURL, newLogger(cfg, stdout))
	if err != nil {
		return err
	}
	defer m.Close()
	switch args[0] {
	case "up":
		if err := m.Up(ctx); err != nil {
			return err
		}
	case "down":
		if err := m.Down(ctx); err != nil {
			return err
		}
	case "status":
	default:
		return fmt.Errorf("unknown migrate command %q: %w", args[0], errUsage)
	}
	list, err := m.Status(ctx)
	if err != nil {
		return err
	}
	for _, s := range list {
		state := "pending"
		if s.Applied {
			state = "applied"
		}
		if _, err := fmt.Fprintf(stdout, "%05d  %-8s %s\n", s.Version, state, s.Name); err != nil {
			return err
		}
	}
	return nil
}
