package postgres

import (
	"context"
	"encoding/json"
)

// Settings returns every application setting by key. Errors: EUNAVAILABLE.
func (s *Store) Settings(ctx context.Context) (map[string]json.RawMessage, error) {
	rows, err := s.q(ctx).ListSettings(ctx)
	if err != nil {
		return nil, translate(err)
	}
	out := make(map[string]json.RawMessage, len(rows))
	for _, row := range rows {
		out[row.Key] = json.RawMessage(row.Value)
	}
	return out, nil
}

// Setting returns one setting. Errors: ENOTFOUND, EUNAVAILABLE.
func (s *Store) Setting(ctx context.Context, key string) (json.RawMessage, error) {
	row, err := s.q(ctx).GetSetting(ctx, key)
	if err != nil {
		return nil, translate(err)
	}
	return json.RawMessage(row.Value), nil
}
