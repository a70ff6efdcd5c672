package postgres

import (
	"context"
	"encoding/json"

	"github.com/medishare/medishare/internal/store/postgres/db"
)

// SettingsRepo reads the application settings.
type SettingsRepo struct{ q *db.Queries }

// NewSettingsRepo returns the settings repository of d.
func NewSettingsRepo(d *DB) *SettingsRepo { return &SettingsRepo{q: db.New(d.Pool)} }

// All returns every setting by key. Errors: EUNAVAILABLE.
func (r *SettingsRepo) All(ctx context.Context) (map[string]json.RawMessage, error) {
	rows, err := r.q.ListSettings(ctx)
	if err != nil {
		return nil, translate(err)
	}
	out := make(map[string]json.RawMessage, len(rows))
	for _, row := range rows {
		out[row.Key] = json.RawMessage(row.Value)
	}
	return out, nil
}

// Get returns one setting. Errors: ENOTFOUND, EUNAVAILABLE.
func (r *SettingsRepo) Get(ctx context.Context, key string) (json.RawMessage, error) {
	row, err := r.q.GetSetting(ctx, key)
	if err != nil {
		return nil, translate(err)
	}
	return json.RawMessage(row.Value), nil
}
