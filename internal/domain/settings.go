package domain

// Settings are what an admin can change at run time (api.md, Audit,
// analysis, admin). They live in the database, so every instance reads the
// same values, and each request reads them afresh: a change takes effect
// at once everywhere.
type Settings struct {
	ShareLifetimeDefaultHours int
	ShareLifetimeMaxHours     int
	RegistrationOpen          bool
	ProviderApprovalRequired  bool
	AnalysisProvider          string
	// AnalysisSendUnscreened lets images go to an external analysis model
	// that its screen cannot vouch for: photographs and modalities whose
	// pixels often carry names or faces (api.md, AI analysis). Off unless
	// an admin turns it on.
	AnalysisSendUnscreened bool
	// MaxInstanceMegabytes bounds one DICOM instance of a study;
	// MaxStudyMegabytes a whole study.
	MaxInstanceMegabytes int
	MaxStudyMegabytes    int
	// MFARequiredRoles are the roles whose people must have a second
	// factor; one without gets a session that can only set one up.
	MFARequiredRoles []string
}

// ShareLifetimeCapHours is the longest lifetime a share can ever be given:
// thirty days.
const ShareLifetimeCapHours = 720

// AnalysisBuiltin is the analyser that runs inside the server; it is
// always available.
const AnalysisBuiltin = "builtin"

// DefaultSettings are the values of migrations/00001_settings.sql (and,
// for a setting added since, its value until an admin first saves the
// settings), used for a setting the table lacks or holds in a form nobody
// wrote.
var DefaultSettings = Settings{
	ShareLifetimeDefaultHours: 24,
	ShareLifetimeMaxHours:     168,
	RegistrationOpen:          true,
	ProviderApprovalRequired:  false,
	AnalysisProvider:          AnalysisBuiltin,
	AnalysisSendUnscreened:    false,
	MaxInstanceMegabytes:      DefaultMaxInstanceMegabytes,
	MaxStudyMegabytes:         DefaultMaxStudyMegabytes,
	MFARequiredRoles:          []string{},
}
