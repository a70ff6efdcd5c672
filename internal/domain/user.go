package domain

import "time"

// Roles.
const (
	RolePatient  = "patient"
	RoleProvider = "healthProvider"
	RoleAdmin    = "admin"
)

// Permissions (api.md); the table role_permissions says who holds which.
const (
	PermImagesUpload     = "images:upload"
	PermImagesShare      = "images:share"
	PermImagesDelete     = "images:delete"
	PermImagesViewShared = "images:view-shared"
	PermAnalysisRun      = "analysis:run"
	PermUsersList        = "users:list"
	PermUsersManage      = "users:manage"
	PermAuditRead        = "audit:read"
	PermRolesRead        = "roles:read"
	PermSettingsManage   = "settings:manage"
	PermMessagesSend     = "messages:send"
)

// User is a person with an account. Profile fields are empty when unknown.
type User struct {
	ID              string
	Email           string
	Username        string
	Role            string
	Active          bool
	Verified        bool
	Firstname       string
	Lastname        string
	Phone           string
	DOB             string // YYYY-MM-DD or empty
	Gender          string // Male, Female, Other or empty
	Address         string
	City            string
	State           string
	Country         string
	Zipcode         string
	Bio             string
	TaxID           string
	LicenseNumber   string
	InsuranceNumber string
	BloodGroup      string
	PrimPhysician   string
	Specialization  string
	CreatedAt       time.Time
}

// Profile is the part of a user that its owner may change.
type Profile struct {
	Firstname       string
	Lastname        string
	Phone           string
	DOB             string
	Gender          string
	Address         string
	City            string
	State           string
	Country         string
	Zipcode         string
	Bio             string
	TaxID           string
	LicenseNumber   string
	InsuranceNumber string
	BloodGroup      string
	PrimPhysician   string
	Specialization  string
}

// Principal is the authenticated caller of a request.
type Principal struct {
	User        User
	SessionID   string
	Permissions []string
}

// Can reports whether the caller holds the permission.
func (p *Principal) Can(permission string) bool {
	if p == nil {
		return false
	}
	for _, have := range p.Permissions {
		if have == permission {
			return true
		}
	}
	return false
}

// RequestMeta is what the audit log records about where a request came from.
type RequestMeta struct {
	IP        string
	UserAgent string
}

// Page asks for one page of a list; Page counts from 1.
type Page struct {
	Page  int
	Limit int
}

// Offset is the number of items before the page.
func (p Page) Offset() int { return (p.Page - 1) * p.Limit }

// PageOf describes a returned page.
type PageOf struct {
	Page       int
	Limit      int
	TotalItems int
}

// TotalPages is the number of pages, at least 1.
func (p PageOf) TotalPages() int {
	if p.TotalItems == 0 || p.Limit == 0 {
		return 1
	}
	return (p.TotalItems + p.Limit - 1) / p.Limit
}

// AuditEntry is one security-relevant event (S18).
type AuditEntry struct {
	ActorID   string // empty for anonymous
	Action    string
	Table     string
	RecordID  string
	IP        string
	UserAgent string
	Success   bool
	Reason    string
}

// RoleInfo is a role and the permissions it holds.
type RoleInfo struct {
	Name        string
	Permissions []string
}

// PermissionInfo is a permission and what it allows.
type PermissionInfo struct {
	Name        string
	Description string
}
