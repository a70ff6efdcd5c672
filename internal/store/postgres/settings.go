package postgres

import (
	"context"
	"encoding/json"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/store/postgres/db"
)

// settingFields maps each row of the settings table to its field.
func settingFields(s *domain.Settings) map[string]any {
	return map[string]any{
		"share_lifetime_default_hours": &s.ShareLifetimeDefaultHours,
		"share_lifetime_max_hours":     &s.ShareLifetimeMaxHours,
		"registration_open":            &s.RegistrationOpen,
		"provider_approval_required":   &s.ProviderApprovalRequired,
		"analysis_provider":            &s.AnalysisProvider,
		"analysis_send_unscreened":     &s.AnalysisSendUnscreened,
		"max_instance_megabytes":       &s.MaxInstanceMegabytes,
		"max_study_megabytes":          &s.MaxStudyMegabytes,
		"mfa_required_roles":           &s.MFARequiredRoles,
	}
}

// Settings returns the application settings; a missing or unreadable row
// keeps its default (domain.DefaultSettings). Errors: EUNAVAILABLE.
func (s *Store) Settings(ctx context.Context) (domain.Settings, error) {
	rows, err := s.q(ctx).ListSettings(ctx)
	if err != nil {
		return domain.Settings{}, translate(err)
	}
	return settingsOf(rows), nil
}

// LockSettings returns the settings and locks them until the transaction
// ends (call it in one), so that concurrent changes are validated one after
// the other. Errors: EUNAVAILABLE.
func (s *Store) LockSettings(ctx context.Context) (domain.Settings, error) {
	rows, err := s.q(ctx).LockSettings(ctx)
	if err != nil {
		return domain.Settings{}, translate(err)
	}
	return settingsOf(rows), nil
}

func settingsOf(rows []db.Setting) domain.Settings {
	out := domain.DefaultSettings
	for _, row := range rows {
		trial := out // a value that does not decode leaves the default whole
		if field, ok := settingFields(&trial)[row.Key]; ok && json.Unmarshal(row.Value, field) == nil {
			out = trial
		}
	}
	return out
}

// SaveSettings stores every setting. Errors: EUNAVAILABLE.
func (s *Store) SaveSettings(ctx context.Context, v domain.Settings) error {
	for key, field := range settingFields(&v) {
		if err := s.q(ctx).PutSetting(ctx, db.PutSettingParams{Key: key, Value: mustJSON(field)}); err != nil {
			return translate(err)
		}
	}
	return nil
}

// mustJSON encodes a setting's value (an int, bool, string or list of strings, which always encode).
func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
