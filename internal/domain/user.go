package domain

import (
	"slices"
	"time"
)

// Roles.
const (
	RolePatient  = "patient"
	RoleProvider = "healthProvider"
	RoleAdmin    = "admin"
)

// Permissions (api.md); the table role_permissions says who holds which.
// Every access rule of the services is one of these or an ownership rule
// (the uploader, the sharer, the recipient, the patient); none asks for a
// role by name.
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
	// PermImagesReadAll lists every image and opens any image and its
	// contents, a share verified or not.
	PermImagesReadAll = "images:read-all"
	// PermImagesManageAll shares, revokes and deletes any image, beside
	// images:share and images:delete, which cover one's own uploads.
	PermImagesManageAll = "images:manage-all"
	// PermAuditReadAll reads, exports and verifies the whole audit log.
	PermAuditReadAll = "audit:read-all"
	// PermSystemMonitor sees the health panel, the activity, the whole
	// system's counts and the checks of stored contents.
	PermSystemMonitor = "system:monitor"
)

// Roles are every role.
var Roles = []string{RolePatient, RoleProvider, RoleAdmin}

// IsRole reports whether s names a role.
func IsRole(s string) bool { return slices.Contains(Roles, s) }

// Profile is the part of a user that its owner may change (product.md §7).
// Empty means unknown.
type Profile struct {
	Firstname       string
	Lastname        string
	Phone           string
	DOB             string // YYYY-MM-DD
	Gender          string // Male, Female or Other
	Address         string
	City            string
	State           string
	Country         string
	Zipcode         string
	Bio             string
	TaxID           string // providers only
	LicenseNumber   string // providers only
	InsuranceNumber string // providers only
	Specialization  string // providers only
	BloodGroup      string // patients only
	PrimPhysician   string // patients only
}

// Public is what anyone in the directory may see of a profile: the name,
// the bio and a provider's professional details; never contact or medical
// details (api.md "Users").
func (p Profile) Public() Profile {
	return Profile{
		Firstname: p.Firstname, Lastname: p.Lastname, Bio: p.Bio,
		LicenseNumber: p.LicenseNumber, Specialization: p.Specialization,
	}
}

// User is a person with an account.
type User struct {
	ID       string
	Email    string
	Username string
	Role     string
	Active   bool
	Verified bool
	// AwaitingApproval: a provider who registered while the setting
	// providerApprovalRequired was on, not approved yet by an admin; they
	// cannot sign in, and nobody else can reach them (Reachable). (The
	// zero value is an approved account.)
	AwaitingApproval bool
	Profile
	CreatedAt time.Time
	// MFA is the person's second factors, where they are read (their own
	// record, the admin's list); nil elsewhere.
	MFA *MFAStatus
}

// Reachable reports whether others may find u in a directory and send
// them a message or a share: an active account that waits for no
// approval. Nobody learns of a provider waiting for approval until an
// admin approves them (api.md "Settings and the admin dashboard").
func (u User) Reachable() bool { return u.Active && !u.AwaitingApproval }

// Person names someone in a listing.
type Person struct {
	ID, Firstname, Lastname string
}

// PersonOf names u.
func PersonOf(u User) Person { return Person{ID: u.ID, Firstname: u.Firstname, Lastname: u.Lastname} }

// Principal is the authenticated caller of a request: through a session
// (SessionID), or through a personal access token (AccessTokenID, and no
// session).
type Principal struct {
	User          User
	SessionID     string
	AccessTokenID string
	Permissions   []string
	// EnrolmentOnly: a session that may only set up a second factor
	// (MFAStatus.EnrolmentOnly when it began).
	EnrolmentOnly bool
}

// Can reports whether the caller holds the permission.
func (p *Principal) Can(permission string) bool {
	return p != nil && slices.Contains(p.Permissions, permission)
}

// Manages reports whether the caller may act on an image with the
// permission own gives over one's own uploads (images:share,
// images:delete): on their own uploads with it, on any image with
// images:manage-all besides.
func (p *Principal) Manages(im Image, own string) bool {
	return p.Can(own) && (im.UploadedBy.ID == p.User.ID || p.Can(PermImagesManageAll))
}

// Directory says whom a caller may find in the user directory (api.md
// "Users"): whoever manages users (users:manage: admins) everyone,
// deactivated accounts and providers waiting for approval included;
// providers reachable patients and providers; patients reachable providers
// and admins; and everyone themselves. Which
// roles one finds is a rule about the people in the directory, so it reads
// the caller's role; it is the one statement of that rule: the database
// query and the check of a single user both read it.
type Directory struct {
	// Roles are the roles the caller may find.
	Roles []string
	// ReachableOnly hides those nobody else may reach (User.Reachable):
	// deactivated accounts and providers waiting for approval.
	ReachableOnly bool
	// Self is the caller's id when the caller is listed whatever the roles
	// (empty once a role filter leaves them out).
	Self string

	callerRole string
}

// DirectoryOf is the directory of a caller.
func DirectoryOf(p *Principal) Directory {
	d := Directory{ReachableOnly: true, Self: p.User.ID, callerRole: p.User.Role}
	switch {
	case p.Can(PermUsersManage):
		d.Roles, d.ReachableOnly = Roles, false
	case p.User.Role == RoleProvider:
		d.Roles = []string{RolePatient, RoleProvider}
	default:
		d.Roles = []string{RoleProvider, RoleAdmin}
	}
	return d
}

// Includes reports whether u may be looked up in the directory.
func (d Directory) Includes(u User) bool {
	if u.ID == d.Self {
		return true
	}
	return (u.Reachable() || !d.ReachableOnly) && slices.Contains(d.Roles, u.Role)
}

// OfRole narrows the directory to one role ("" keeps every role): no one,
// when the caller may not find that role (but themselves, if theirs).
func (d Directory) OfRole(role string) Directory {
	if role == "" {
		return d
	}
	out := d
	out.Roles = []string{}
	if slices.Contains(d.Roles, role) {
		out.Roles = []string{role}
	}
	if role != d.callerRole {
		out.Self = ""
	}
	return out
}

// Actives are the values of the active flag the directory shows (beside
// which ReachableOnly also hides those waiting for approval).
func (d Directory) Actives() []bool {
	if d.ReachableOnly {
		return []bool{true}
	}
	return []bool{true, false}
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
	// AtLeast says TotalItems is a lower bound: a search that matches many
	// people stops counting them (see the store's directory search).
	AtLeast bool
	// More says whether items follow this page, when AtLeast.
	More bool
}

// TotalPages is the number of pages, at least 1, and when the total is a
// lower bound at least as many as this page and the next, if any.
func (p PageOf) TotalPages() int {
	pages := 1
	if p.TotalItems > 0 && p.Limit > 0 {
		pages = (p.TotalItems + p.Limit - 1) / p.Limit
	}
	if p.AtLeast {
		next := p.Page
		if p.More {
			next++
		}
		pages = max(pages, next)
	}
	return pages
}

// HasNext reports whether a page follows this one.
func (p PageOf) HasNext() bool {
	if p.AtLeast {
		return p.More
	}
	return p.Page < p.TotalPages()
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
