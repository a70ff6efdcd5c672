package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/service"
)

func (a *api) mountAdmin(r chi.Router) {
	r.Get("/settings", a.getSettings)
	r.Put("/settings", a.putSettings)
	r.Get("/admin/health", a.health)
	r.Get("/admin/activity", a.activity)
}

// settingsJSON is the settings as api.md spells them, with the providers
// an admin can choose from (read only).
type settingsJSON struct {
	ShareLifetimeDefaultHours int      `json:"shareLifetimeDefaultHours"`
	ShareLifetimeMaxHours     int      `json:"shareLifetimeMaxHours"`
	RegistrationOpen          bool     `json:"registrationOpen"`
	ProviderApprovalRequired  bool     `json:"providerApprovalRequired"`
	AnalysisProvider          string   `json:"analysisProvider"`
	AnalysisSendUnscreened    bool     `json:"analysisSendUnscreened"`
	MaxInstanceMegabytes      int      `json:"maxInstanceMegabytes"`
	MaxStudyMegabytes         int      `json:"maxStudyMegabytes"`
	MFARequiredRoles          []string `json:"mfaRequiredRoles"`
	AnalysisProviders         []string `json:"analysisProviders"`
	// AnalysisSendsTo: for each provider that sends images out, the host.
	AnalysisSendsTo map[string]string `json:"analysisSendsTo"`
}

func (a *api) toSettingsJSON(s domain.Settings) settingsJSON {
	return settingsJSON{ShareLifetimeDefaultHours: s.ShareLifetimeDefaultHours, ShareLifetimeMaxHours: s.ShareLifetimeMaxHours,
		RegistrationOpen: s.RegistrationOpen, ProviderApprovalRequired: s.ProviderApprovalRequired,
		AnalysisProvider: s.AnalysisProvider, AnalysisSendUnscreened: s.AnalysisSendUnscreened,
		MaxInstanceMegabytes: s.MaxInstanceMegabytes, MaxStudyMegabytes: s.MaxStudyMegabytes,
		MFARequiredRoles: nonNil(s.MFARequiredRoles), AnalysisProviders: a.Settings.AnalysisProviders(), AnalysisSendsTo: a.Settings.AnalysisSendsTo()}
}

func (a *api) getSettings(w http.ResponseWriter, r *http.Request) {
	s, err := a.Settings.Get(r.Context(), principal(r), meta(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "", a.toSettingsJSON(s))
}

func (a *api) putSettings(w http.ResponseWriter, r *http.Request) {
	var in struct {
		ShareLifetimeDefaultHours *int      `json:"shareLifetimeDefaultHours"`
		ShareLifetimeMaxHours     *int      `json:"shareLifetimeMaxHours"`
		RegistrationOpen          *bool     `json:"registrationOpen"`
		ProviderApprovalRequired  *bool     `json:"providerApprovalRequired"`
		AnalysisProvider          *string   `json:"analysisProvider"`
		AnalysisSendUnscreened    *bool     `json:"analysisSendUnscreened"`
		MaxInstanceMegabytes      *int      `json:"maxInstanceMegabytes"`
		MaxStudyMegabytes         *int      `json:"maxStudyMegabytes"`
		MFARequiredRoles          *[]string `json:"mfaRequiredRoles"`
	}
	if err := readJSON(w, r, maxJSONBody, &in); err != nil {
		writeError(w, r, err)
		return
	}
	s, err := a.Settings.Update(r.Context(), principal(r), service.SettingsChange(in), meta(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "Settings saved.", a.toSettingsJSON(s))
}

func (a *api) health(w http.ResponseWriter, r *http.Request) {
	h, err := a.Admin.Health(r.Context(), principal(r), meta(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "", map[string]any{
		"version":    h.Version,
		"startedAt":  h.StartedAt.UTC(),
		"database":   map[string]any{"ok": h.Database.OK, "latencyMs": h.Database.LatencyMs},
		"storage":    map[string]any{"ok": h.Storage.OK, "kind": h.Storage.Kind},
		"mail":       map[string]any{"ok": h.Mail.OK, "kind": h.Mail.Kind, "queued": h.Mail.Queued},
		"auditChain": auditCheckJSON(h.AuditChain),
	})
}

// dayActivityJSON is one day of GET /api/admin/activity.
type dayActivityJSON struct {
	Day           string `json:"day"`
	SignIns       int64  `json:"signIns"`
	FailedSignIns int64  `json:"failedSignIns"`
	Uploads       int64  `json:"uploads"`
	Shares        int64  `json:"shares"`
	Verifications int64  `json:"verifications"`
	Views         int64  `json:"views"`
	Messages      int64  `json:"messages"`
}

func (a *api) activity(w http.ResponseWriter, r *http.Request) {
	days := service.ActivityDaysDefault
	if v := r.URL.Query().Get("days"); v != "" {
		days, _ = strconv.Atoi(v) // not a number: 0, which the service refuses
	}
	counted, err := a.Admin.Activity(r.Context(), principal(r), days, meta(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	out := make([]dayActivityJSON, len(counted))
	for i, d := range counted {
		out[i] = dayActivityJSON{Day: d.Day.Format(time.DateOnly), SignIns: d.SignIns, FailedSignIns: d.FailedSignIns, Uploads: d.Uploads,
			Shares: d.Shares, Verifications: d.Verifications, Views: d.Views, Messages: d.Messages}
	}
	writeOK(w, http.StatusOK, "", out)
}
