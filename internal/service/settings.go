package service

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/medishare/medishare/internal/analysis"
	"github.com/medishare/medishare/internal/domain"
)

// SettingsReader reads the settings; every use reads them afresh, so that a
// change made on one instance takes effect on all of them at once.
type SettingsReader interface {
	Settings(ctx context.Context) (domain.Settings, error)
}

// SettingsStore is what changing the settings needs from the database.
type SettingsStore interface {
	Transactor
	AuditWriter
	SettingsReader
	LockSettings(ctx context.Context) (domain.Settings, error)
	SaveSettings(ctx context.Context, s domain.Settings) error
	ApplyMFARequiredRoles(ctx context.Context, roles []string) error
}

// SettingsService lets admins read and change the settings.
type SettingsService struct {
	store SettingsStore
	// providers are the analysis providers this server is configured with,
	// the built-in one first; sendsTo, for those that send images out, where.
	providers []string
	sendsTo   map[string]string
}

// NewSettingsService returns the settings' use cases; providers are the
// configured analysis providers besides the built-in one.
func NewSettingsService(store SettingsStore, analyzers []analysis.Analyzer) *SettingsService {
	s := &SettingsService{store: store, providers: []string{domain.AnalysisBuiltin}, sendsTo: map[string]string{}}
	for _, a := range analyzers {
		s.providers = append(s.providers, a.Name())
		if out, ok := a.(interface{ SendsTo() string }); ok {
			s.sendsTo[a.Name()] = out.SendsTo()
		}
	}
	return s
}

// AnalysisSendsTo names, for each configured provider that sends images out
// of the server, the host they go to.
// An empty map when none does (the API answers an object).
func (s *SettingsService) AnalysisSendsTo() map[string]string { return maps.Clone(s.sendsTo) }

// SettingsChange is a PUT /api/settings: the settings sent, nil for the others.
type SettingsChange struct {
	ShareLifetimeDefaultHours *int
	ShareLifetimeMaxHours     *int
	RegistrationOpen          *bool
	ProviderApprovalRequired  *bool
	AnalysisProvider          *string
	AnalysisSendUnscreened    *bool
	MaxInstanceMegabytes      *int
	MaxStudyMegabytes         *int
	MFARequiredRoles          *[]string
}

var errNotSettingsManager = forbidden("Only admins can change settings.")

// AnalysisProviders are the analysis providers an admin can choose from.
func (s *SettingsService) AnalysisProviders() []string { return slices.Clone(s.providers) }

// Get returns the settings. Errors: EFORBIDDEN.
func (s *SettingsService) Get(ctx context.Context, p *domain.Principal, meta domain.RequestMeta) (domain.Settings, error) {
	if err := require(ctx, s.store, p, domain.PermSettingsManage, meta, errNotSettingsManager); err != nil {
		return domain.Settings{}, err
	}
	return s.store.Settings(ctx)
}

// Update applies a change after checking the settings it would leave, all
// together (a default lifetime is checked against the maximum that will
// be in force): either every field is valid and saved, or nothing changes.
// The change is recorded with the old and new values.
// Errors: EFORBIDDEN, EVALIDATION.
func (s *SettingsService) Update(ctx context.Context, p *domain.Principal, in SettingsChange, meta domain.RequestMeta) (domain.Settings, error) {
	if err := require(ctx, s.store, p, domain.PermSettingsManage, meta, errNotSettingsManager); err != nil {
		return domain.Settings{}, err
	}
	var saved domain.Settings
	err := s.store.InTx(ctx, func(ctx context.Context) error {
		old, err := s.store.LockSettings(ctx)
		if err != nil {
			return err
		}
		next := in.over(old)
		if err := s.check(next); err != nil {
			return err
		}
		saved = next
		if settingsDiff(old, next) == "" {
			return nil
		}
		if err := s.store.SaveSettings(ctx, next); err != nil {
			return err
		}
		// A requirement holds from now, not from each person's next sign-in.
		if !slices.Equal(old.MFARequiredRoles, next.MFARequiredRoles) {
			if err := s.store.ApplyMFARequiredRoles(ctx, next.MFARequiredRoles); err != nil {
				return err
			}
		}
		return record(ctx, s.store, meta, Event{Actor: p.User.ID, Action: domain.ActionSettingsUpdate, Success: true,
			Reason: truncate(settingsDiff(old, next), 500)})
	})
	return saved, err
}

// over is the settings old with the change applied.
func (in SettingsChange) over(old domain.Settings) domain.Settings {
	next := old
	if in.ShareLifetimeDefaultHours != nil {
		next.ShareLifetimeDefaultHours = *in.ShareLifetimeDefaultHours
	}
	if in.ShareLifetimeMaxHours != nil {
		next.ShareLifetimeMaxHours = *in.ShareLifetimeMaxHours
	}
	if in.RegistrationOpen != nil {
		next.RegistrationOpen = *in.RegistrationOpen
	}
	if in.ProviderApprovalRequired != nil {
		next.ProviderApprovalRequired = *in.ProviderApprovalRequired
	}
	if in.AnalysisProvider != nil {
		next.AnalysisProvider = *in.AnalysisProvider
	}
	if in.AnalysisSendUnscreened != nil {
		next.AnalysisSendUnscreened = *in.AnalysisSendUnscreened
	}
	if in.MaxInstanceMegabytes != nil {
		next.MaxInstanceMegabytes = *in.MaxInstanceMegabytes
	}
	if in.MaxStudyMegabytes != nil {
		next.MaxStudyMegabytes = *in.MaxStudyMegabytes
	}
	if in.MFARequiredRoles != nil {
		roles := []string{}
		for _, r := range *in.MFARequiredRoles {
			if !slices.Contains(roles, r) {
				roles = append(roles, r)
			}
		}
		slices.Sort(roles)
		next.MFARequiredRoles = roles
	}
	return next
}

// check validates settings as a whole: 1 <= default <= max <= 720, and a
// provider this server is configured with.
func (s *SettingsService) check(v domain.Settings) error {
	var errs fieldErrors
	const between = "must be between 1 and %d"
	maxOK := v.ShareLifetimeMaxHours >= 1 && v.ShareLifetimeMaxHours <= domain.ShareLifetimeCapHours
	if !maxOK {
		errs.add("shareLifetimeMaxHours", between, domain.ShareLifetimeCapHours)
	}
	switch {
	case v.ShareLifetimeDefaultHours < 1 || v.ShareLifetimeDefaultHours > domain.ShareLifetimeCapHours:
		errs.add("shareLifetimeDefaultHours", between, domain.ShareLifetimeCapHours)
	case maxOK && v.ShareLifetimeDefaultHours > v.ShareLifetimeMaxHours:
		errs.add("shareLifetimeDefaultHours", "must not exceed the maximum lifetime")
	}
	if v.MaxInstanceMegabytes < 10 || v.MaxInstanceMegabytes > domain.MaxInstanceMegabytesCap {
		errs.add("maxInstanceMegabytes", "must be between 10 and %d", domain.MaxInstanceMegabytesCap)
	}
	if v.MaxStudyMegabytes < v.MaxInstanceMegabytes || v.MaxStudyMegabytes > domain.MaxStudyMegabytesCap {
		errs.add("maxStudyMegabytes", "must be between the instance limit and %d", domain.MaxStudyMegabytesCap)
	}
	for _, r := range v.MFARequiredRoles {
		if !domain.IsRole(r) {
			errs.add("mfaRequiredRoles", "must be role names (%s)", strings.Join(domain.Roles, ", "))
			break
		}
	}
	if !slices.Contains(s.providers, v.AnalysisProvider) {
		errs.add("analysisProvider", "must be one of the configured providers")
	}
	if len(errs) > 0 {
		return domain.ValidationError("Please check the settings.", errs...)
	}
	return nil
}

// settingsDiff describes what changed, old to new, for the audit entry.
func settingsDiff(old, next domain.Settings) string {
	var changes []string
	add := func(name string, a, b any) {
		if fmt.Sprint(a) != fmt.Sprint(b) {
			changes = append(changes, fmt.Sprintf("%s %v to %v", name, a, b))
		}
	}
	add("shareLifetimeDefaultHours", old.ShareLifetimeDefaultHours, next.ShareLifetimeDefaultHours)
	add("shareLifetimeMaxHours", old.ShareLifetimeMaxHours, next.ShareLifetimeMaxHours)
	add("registrationOpen", old.RegistrationOpen, next.RegistrationOpen)
	add("providerApprovalRequired", old.ProviderApprovalRequired, next.ProviderApprovalRequired)
	add("analysisProvider", old.AnalysisProvider, next.AnalysisProvider)
	add("analysisSendUnscreened", old.AnalysisSendUnscreened, next.AnalysisSendUnscreened)
	add("maxInstanceMegabytes", old.MaxInstanceMegabytes, next.MaxInstanceMegabytes)
	add("maxStudyMegabytes", old.MaxStudyMegabytes, next.MaxStudyMegabytes)
	add("mfaRequiredRoles", old.MFARequiredRoles, next.MFARequiredRoles)
	return strings.Join(changes, "; ")
}
