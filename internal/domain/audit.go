package domain

import (
	"slices"
	"time"
)

// AuditAction names what an audit entry records (S18). The values are what
// the audit log stores and shows; they never change once written.
type AuditAction string

// Every action the server records.
const (
	ActionRegister       AuditAction = "register"
	ActionAccountConfirm AuditAction = "account_confirm"
	ActionCodeRequest    AuditAction = "code_request"
	ActionLogin          AuditAction = "login"
	ActionLogout         AuditAction = "logout"
	ActionRefreshReuse   AuditAction = "refresh_reuse"
	ActionPasswordReset  AuditAction = "password_reset"
	ActionPasswordChange AuditAction = "password_change"
	ActionProfileUpdate  AuditAction = "profile_update"
	ActionAccountDelete  AuditAction = "account_delete"
	ActionUserCreate     AuditAction = "user_create"
	ActionUserUpdate     AuditAction = "user_update"
	ActionUpload         AuditAction = "upload"
	ActionView           AuditAction = "view"
	ActionPreview        AuditAction = "preview"
	ActionDelete         AuditAction = "delete"
	ActionShare          AuditAction = "share"
	ActionShareVerify    AuditAction = "share_verify"
	ActionShareVoid      AuditAction = "share_void"
	ActionShareRevoke    AuditAction = "share_revoke"
	ActionShareExtend    AuditAction = "share_extend"
	ActionShareExpired   AuditAction = "share_expired"
	ActionAccessDenied   AuditAction = "access_denied"
	ActionThrottled      AuditAction = "throttled"
	// ActionIntegrityFailure: the scrub found an image's stored contents
	// damaged (S14); recorded once, when its check starts failing.
	ActionIntegrityFailure AuditAction = "integrity_failure"
	// ActionMessageSend: a message was sent (its ids, never its text).
	ActionMessageSend AuditAction = "message_send"
	// ActionAuditExport: an admin exported the audit log (its filters).
	ActionAuditExport AuditAction = "audit_export"
	// ActionSettingsUpdate: an admin changed settings (old and new values).
	ActionSettingsUpdate AuditAction = "settings_update"
	// ActionUserApprove: an admin approved a provider's account.
	ActionUserApprove AuditAction = "user_approve"
	// ActionAnalyze: an AI analysis of an image ran (its provider and model), or failed.
	ActionAnalyze AuditAction = "analyze"
	// ActionDisclose: de-identified pixels of an image were sent out of the
	// server (to an external analysis model); the patient sees it.
	ActionDisclose AuditAction = "disclose"
	// ActionImageUpdate: an image's caption changed, or a study got its patient.
	ActionImageUpdate AuditAction = "image_update"
	// ActionTokenCreate and ActionTokenRevoke: a person made or revoked a
	// personal access token (its id and name, never its secret).
	ActionTokenCreate AuditAction = "token_create"
	ActionTokenRevoke AuditAction = "token_revoke"
	// ActionTokenUse: a personal access token was used, recorded at most
	// once a minute per token (api.md "Personal access tokens").
	ActionTokenUse AuditAction = "token_use"
	// Second factors (api.md "Multi-factor sign-in"): enrolments, removals,
	// the second step of a sign-in and an admin's reset. They are in the
	// person's own audit view, like their sign-ins.
	ActionMFATOTPEnabled         AuditAction = "mfa_totp_enabled"
	ActionMFATOTPDisabled        AuditAction = "mfa_totp_disabled"
	ActionMFARecoveryRegenerated AuditAction = "mfa_recovery_codes_regenerated"
	ActionMFAPasskeyAdded        AuditAction = "mfa_passkey_added"
	ActionMFAPasskeyRemoved      AuditAction = "mfa_passkey_removed"
	ActionMFAPasskeyRenamed      AuditAction = "mfa_passkey_renamed"
	ActionMFAChallengeFailed     AuditAction = "mfa_challenge_failed"
	ActionMFAChallengeSucceeded  AuditAction = "mfa_challenge_succeeded"
	ActionMFARecoveryCodeUsed    AuditAction = "mfa_recovery_code_used"
	ActionMFAResetByAdmin        AuditAction = "mfa_reset_by_admin"
)

// AuditTable names the kind of record an entry is about.
type AuditTable string

// The tables entries refer to; TableNone for events about no record.
const (
	TableNone     AuditTable = ""
	TableUsers    AuditTable = "users"
	TableSessions AuditTable = "sessions"
	TableImages   AuditTable = "images"
	TableShares   AuditTable = "shares"
	TableMessages AuditTable = "messages"
	// TableAccessTokens: personal access tokens.
	TableAccessTokens AuditTable = "access_tokens"
)

// AuditEntry is one security-relevant event (S18).
type AuditEntry struct {
	ActorID   string // empty for anonymous
	Action    AuditAction
	Table     AuditTable
	RecordID  string
	IP        string
	UserAgent string
	Success   bool
	Reason    string
}

// RequestMeta is what the audit log records about where a request came from.
type RequestMeta struct {
	IP        string
	UserAgent string
}

// IsAuditAction reports whether s names an action the server records.
func IsAuditAction(s string) bool { return slices.Contains(auditActions, AuditAction(s)) }

var auditActions = []AuditAction{
	ActionRegister, ActionAccountConfirm, ActionCodeRequest, ActionLogin, ActionLogout, ActionRefreshReuse,
	ActionPasswordReset, ActionPasswordChange, ActionProfileUpdate, ActionAccountDelete, ActionUserCreate,
	ActionUserUpdate, ActionUpload, ActionView, ActionPreview, ActionDelete, ActionShare, ActionShareVerify,
	ActionShareVoid, ActionShareRevoke, ActionShareExtend, ActionShareExpired, ActionAccessDenied, ActionThrottled,
	ActionIntegrityFailure, ActionMessageSend, ActionAuditExport, ActionSettingsUpdate, ActionUserApprove, ActionAnalyze, ActionDisclose, ActionImageUpdate,
	ActionTokenCreate, ActionTokenRevoke, ActionTokenUse,
	ActionMFATOTPEnabled, ActionMFATOTPDisabled, ActionMFARecoveryRegenerated, ActionMFAPasskeyAdded,
	ActionMFAPasskeyRemoved, ActionMFAPasskeyRenamed, ActionMFAChallengeFailed, ActionMFAChallengeSucceeded,
	ActionMFARecoveryCodeUsed, ActionMFAResetByAdmin,
}

// AuditRecord is an audit entry as it is read back, with the names of the
// person who acted (blank for anonymous events and erased accounts).
type AuditRecord struct {
	ID        int64
	CreatedAt time.Time
	Actor     struct{ ID, Firstname, Lastname, Username string }
	Action    AuditAction
	Table     AuditTable
	RecordID  string
	IP        string
	UserAgent string
	Success   bool
	Reason    string
}

// AuditFilter narrows the audit log; zero fields do not filter.
type AuditFilter struct {
	Search   string // already escaped for LIKE: part of the acting person's name, email or username
	Action   AuditAction
	Status   string    // "success" or "failure"
	From, To time.Time // From included, To excluded
	// AboutImages keeps the entries about an image or a share of one;
	// ImageID those about that one image or a share of it.
	AboutImages bool
	ImageID     string
}

// IsZero reports whether the filter keeps every entry.
func (f AuditFilter) IsZero() bool {
	return f.Search == "" && f.Action == "" && f.Status == "" && f.From.IsZero() && f.To.IsZero() && !f.AboutImages && f.ImageID == ""
}

// AuditScope says which entries a reader sees (api.md, Audit): with
// audit:read-all (admins) all of them; with images:upload (providers) the
// events on images they uploaded and their own actions; otherwise
// (patients) the access history of every image about them. Everyone sees
// their own sign-ins. The store reads it through the audit_audience table,
// whose kinds these are.
type AuditScope struct {
	All    bool
	UserID string
	Kinds  []string
}

// AuditScopeOf is the scope of a reader.
func AuditScopeOf(p *Principal) AuditScope {
	switch {
	case p.Can(PermAuditReadAll):
		return AuditScope{All: true}
	case p.Can(PermImagesUpload):
		return AuditScope{UserID: p.User.ID, Kinds: []string{"owner", "signin", "actor"}}
	default:
		return AuditScope{UserID: p.User.ID, Kinds: []string{"subject", "signin"}}
	}
}

// Reveals reports whether a reader in this scope sees where an entry came
// from (IP address and browser): readers of the whole log always, others
// for their own actions only. Staff's and colleagues' addresses are theirs, not the
// patient's.
func (s AuditScope) Reveals(r AuditRecord) bool { return s.All || r.Actor.ID == s.UserID }

// AuditChainReport is the result of checking the audit log's hash chain:
// whether it is intact, how many entries were checked, when, and where and
// how it broke.
type AuditChainReport struct {
	OK      bool
	Checked int
	// CheckedAt is when the check ended; zero before any check.
	CheckedAt time.Time
	// FirstBrokenID is the first entry that was changed or follows a
	// removed one, or the checkpoint's entry when the newest entries were
	// removed; 0 when OK.
	FirstBrokenID int64
	// Problem says, in a sentence, what was found; empty when OK.
	Problem string
}

// The chain an audit entry's hash belongs to.
const (
	// ChainLegacy: SHA-256 over the previous hash and the entry, as the
	// database computed it before the chain was keyed.
	ChainLegacy = 1
	// ChainKeyed: HMAC-SHA256 over the same, under the chain's key.
	ChainKeyed = 2
)

// AuditLink is an audit entry as its hash covers it, with the hash it
// follows and its own.
type AuditLink struct {
	ID        int64
	CreatedAt time.Time
	ActorID   string // a UUID's canonical text, or empty
	Action    string
	Table     string
	RecordID  string
	IP        string
	UserAgent string
	Status    string // "success" or "failure"
	Reason    string
	Chain     int
	PrevHash  []byte
	Hash      []byte
}

// AuditHasher computes what an entry's hash must be, given its PrevHash.
type AuditHasher interface {
	Hash(l AuditLink) ([]byte, error)
}

// AuditCheckpoint is the chain's head as the server last anchored it
// outside the database: the newest entry then, its hash, and the last
// entry of the legacy chain.
type AuditCheckpoint struct {
	ID            int64
	Hash          []byte
	LegacyThrough int64
	At            time.Time
}

// DayActivity is what happened on one day (in Zone), counted from the
// audit log as it is appended: successful and failed sign-ins, uploads,
// shares, share verifications, views of an image's contents and messages.
type DayActivity struct {
	Day                                                                     time.Time
	SignIns, FailedSignIns, Uploads, Shares, Verifications, Views, Messages int64
}
