package domain

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
	ActionShareExpired   AuditAction = "share_expired"
	ActionAccessDenied   AuditAction = "access_denied"
	ActionThrottled      AuditAction = "throttled"
	// ActionIntegrityFailure: the scrub found an image's stored contents
	// damaged (S14); recorded once, when its check starts failing.
	ActionIntegrityFailure AuditAction = "integrity_failure"
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
