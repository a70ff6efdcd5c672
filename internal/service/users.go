package service

import (
	"context"
	"strings"
	"time"

	"github.com/medishare/medishare/internal/domain"
)

// UserStore is what the user services need from the database.
type UserStore interface {
	Transactor
	AuditWriter
	UserByID(ctx context.Context, id string) (domain.User, error)
	PasswordHash(ctx context.Context, id string) (string, error)
	UpdateProfile(ctx context.Context, id string, p domain.Profile) (domain.User, error)
	SetActive(ctx context.Context, id string, active bool) (domain.User, error)
	SetRole(ctx context.Context, id, role string) (domain.User, error)
	ApproveUser(ctx context.Context, id string) (domain.User, error)
	EraseUser(ctx context.Context, id string) error
	ActiveAdminsLocked(ctx context.Context) (int, error)
	RevokeUserSessions(ctx context.Context, userID, exceptSessionID, reason string) error
	RevokeUserAccessTokens(ctx context.Context, userID, reason string, now time.Time) error
	ListUsers(ctx context.Context, dir domain.Directory, search string, page domain.Page) ([]domain.User, domain.PageOf, error)
	ProviderCaresFor(ctx context.Context, providerID, patientID string) (bool, error)
	Roles(ctx context.Context) ([]domain.RoleInfo, error)
	Permissions(ctx context.Context) ([]domain.PermissionInfo, error)
}

// UserService reads and changes profiles and runs the user directory.
type UserService struct {
	store     UserStore
	passwords PasswordHasher
	now       Clock
}

// NewUserService wires the user use cases.
func NewUserService(store UserStore, passwords PasswordHasher, now Clock) *UserService {
	return &UserService{store: store, passwords: passwords, now: now}
}

var (
	errUserNotFound = domain.Errorf(domain.ENOTFOUND, "User not found.")
	errNotManager   = forbidden("You are not allowed to manage users.")
)

// ProfileChange is what a profile update sends: a value for each profile
// field it names, by the names of domain.ProfileFields; the fields it does
// not name keep their values.
type ProfileChange map[string]string

// UpdateProfile changes the caller's own profile; email, username and role
// never change here (S7). A field of another role that carries a value is
// refused with a field error rather than dropped unseen (registration, by
// contrast, ignores such fields: api.md). Errors: EVALIDATION.
func (s *UserService) UpdateProfile(ctx context.Context, p *domain.Principal, change ProfileChange, meta domain.RequestMeta) (domain.User, error) {
	var errs fieldErrors
	profile := applyProfileChange(&errs, p.User.Profile, change, p.User.Role)
	profile = normalizeProfile(&errs, profile, p.User.Role, s.now())
	if err := errs.err(); err != nil {
		return domain.User{}, err
	}
	var user domain.User
	err := s.store.InTx(ctx, func(ctx context.Context) error {
		var err error
		if user, err = s.store.UpdateProfile(ctx, p.User.ID, profile); err != nil {
			return err
		}
		return record(ctx, s.store, meta, Event{Actor: p.User.ID, Action: domain.ActionProfileUpdate, Table: domain.TableUsers, RecordID: p.User.ID, Success: true})
	})
	return user, err
}

// DeleteOwnAccount deactivates the caller's account after a password check,
// erases its profile and ends its sessions; records and audit entries stay.
// Errors: EVALIDATION (wrong password), ECONFLICT (the last admin).
func (s *UserService) DeleteOwnAccount(ctx context.Context, p *domain.Principal, password string, meta domain.RequestMeta) error {
	event := Event{Actor: p.User.ID, Action: domain.ActionAccountDelete, Table: domain.TableUsers, RecordID: p.User.ID}
	if err := checkOwnPassword(ctx, s.store, s.passwords, p, password, meta, event, "password", "Your password is not correct."); err != nil {
		return err
	}
	return s.erase(ctx, p.User, p.User.ID, meta)
}

// erase removes an account, refusing to remove the last active admin.
func (s *UserService) erase(ctx context.Context, target domain.User, actorID string, meta domain.RequestMeta) error {
	return s.store.InTx(ctx, func(ctx context.Context) error {
		if err := s.keepAnAdmin(ctx, target); err != nil {
			return err
		}
		if err := s.store.EraseUser(ctx, target.ID); err != nil {
			return err
		}
		if err := s.store.RevokeUserSessions(ctx, target.ID, "", "account deleted"); err != nil {
			return err
		}
		if err := s.store.RevokeUserAccessTokens(ctx, target.ID, "account deleted", s.now()); err != nil {
			return err
		}
		return record(ctx, s.store, meta, Event{Actor: actorID, Action: domain.ActionAccountDelete, Table: domain.TableUsers, RecordID: target.ID, Success: true})
	})
}

// keepAnAdmin refuses a change that would leave no active admin. It must run
// inside the transaction that makes the change.
func (s *UserService) keepAnAdmin(ctx context.Context, target domain.User) error {
	if target.Role != domain.RoleAdmin || !target.Active {
		return nil
	}
	n, err := s.store.ActiveAdminsLocked(ctx)
	if err != nil {
		return err
	}
	if n <= 1 {
		return domain.Errorf(domain.ECONFLICT, "The last active admin cannot be removed, deactivated or demoted.")
	}
	return nil
}

// List returns one page of the caller's directory. Errors: EFORBIDDEN, EVALIDATION.
func (s *UserService) List(ctx context.Context, p *domain.Principal, search, role string, page domain.Page, meta domain.RequestMeta) ([]domain.User, domain.PageOf, error) {
	if err := require(ctx, s.store, p, domain.PermUsersList, meta, forbidden("You are not allowed to see the user directory.")); err != nil {
		return nil, domain.PageOf{}, err
	}
	if role != "" && !domain.IsRole(role) {
		return nil, domain.PageOf{}, domain.ValidationError("Please check the filters.", domain.FieldError{Field: "role", Message: "must be patient, healthProvider or admin"})
	}
	search = truncate(strings.TrimSpace(search), 100)
	users, pageOf, err := s.store.ListUsers(ctx, domain.DirectoryOf(p).OfRole(role), search, page)
	if err != nil {
		return nil, domain.PageOf{}, err
	}
	for i := range users {
		users[i] = visibleTo(p, users[i])
	}
	return users, pageOf, nil
}

// Get returns one user as the caller may see it: the whole profile to the
// user, to those who manage users (users:manage), and to whoever uploaded
// an image for the patient or shared one with them (api.md "Users"); the
// public part to others. Errors: ENOTFOUND (missing or outside the
// caller's directory).
func (s *UserService) Get(ctx context.Context, p *domain.Principal, id string) (domain.User, error) {
	u, err := s.store.UserByID(ctx, id)
	if err != nil {
		return domain.User{}, notFound(err, errUserNotFound)
	}
	if !domain.DirectoryOf(p).Includes(u) {
		return domain.User{}, errUserNotFound
	}
	if seesWhole(p, u) {
		return u, nil
	}
	// Only a patient has images about them (a data rule, not an access one).
	if u.Role == domain.RolePatient {
		cares, err := s.store.ProviderCaresFor(ctx, p.User.ID, u.ID)
		if err != nil {
			return domain.User{}, err
		}
		if cares {
			return u, nil
		}
	}
	return visibleTo(p, u), nil
}

// visibleTo hides contact and medical details from everyone but the user
// and those who manage users.
func visibleTo(p *domain.Principal, u domain.User) domain.User {
	if !seesWhole(p, u) {
		u.Profile = u.Public()
	}
	return u
}

// seesWhole reports whether the caller sees every field of u's profile
// whoever u cares for: their own, or anyone's with users:manage.
func seesWhole(p *domain.Principal, u domain.User) bool {
	return u.ID == p.User.ID || p.Can(domain.PermUsersManage)
}

// UserChange is an admin's change of one user (PATCH /api/users/{id}).
type UserChange struct {
	Active *bool
	Role   *string
	// Approved can only be true: approving a provider who waits for it.
	// (Stopping someone from signing in is deactivating them.)
	Approved *bool
}

// Change applies an admin's change: activation or role. Either ends the
// user's sessions, so the change takes effect at once (S5).
// Errors: EFORBIDDEN, ENOTFOUND, EVALIDATION, ECONFLICT (last admin).
func (s *UserService) Change(ctx context.Context, p *domain.Principal, id string, in UserChange, meta domain.RequestMeta) (domain.User, error) {
	if err := require(ctx, s.store, p, domain.PermUsersManage, meta, errNotManager); err != nil {
		return domain.User{}, err
	}
	if in.Active == nil && in.Role == nil && in.Approved == nil {
		return domain.User{}, domain.ValidationError("Nothing to change: send active, role or approved.")
	}
	if in.Approved != nil && !*in.Approved {
		return domain.User{}, domain.ValidationError("Please check the highlighted fields.", domain.FieldError{Field: "approved", Message: "can only be true; to stop someone signing in, deactivate the account"})
	}
	if in.Role != nil && !domain.IsRole(*in.Role) {
		return domain.User{}, domain.ValidationError("Please check the highlighted fields.", domain.FieldError{Field: "role", Message: "must be patient, healthProvider or admin"})
	}
	target, err := s.store.UserByID(ctx, id)
	if err != nil {
		return domain.User{}, notFound(err, errUserNotFound)
	}
	var user domain.User
	err = s.store.InTx(ctx, func(ctx context.Context) error {
		demotes := (in.Active != nil && !*in.Active) || (in.Role != nil && *in.Role != domain.RoleAdmin)
		if demotes {
			if err := s.keepAnAdmin(ctx, target); err != nil {
				return err
			}
		}
		user = target
		var reasons []string
		if in.Active != nil && *in.Active != target.Active {
			if user, err = s.store.SetActive(ctx, id, *in.Active); err != nil {
				return err
			}
			reasons = append(reasons, "active "+boolWord(*in.Active))
			// A deactivated account's machines stop for good: reactivating
			// it does not bring its tokens back.
			if !*in.Active {
				if err := s.store.RevokeUserAccessTokens(ctx, id, "account deactivated", s.now()); err != nil {
					return err
				}
			}
		}
		if in.Role != nil && *in.Role != target.Role {
			if user, err = s.store.SetRole(ctx, id, *in.Role); err != nil {
				return err
			}
			reasons = append(reasons, "role "+target.Role+" to "+*in.Role)
		}
		if in.Approved != nil && user.AwaitingApproval {
			if user, err = s.store.ApproveUser(ctx, id); err != nil {
				return err
			}
			if err := record(ctx, s.store, meta, Event{Actor: p.User.ID, Action: domain.ActionUserApprove, Table: domain.TableUsers, RecordID: id, Success: true}); err != nil {
				return err
			}
		}
		if len(reasons) == 0 {
			return nil
		}
		if err := s.store.RevokeUserSessions(ctx, id, "", "changed by an admin"); err != nil {
			return err
		}
		return record(ctx, s.store, meta, Event{Actor: p.User.ID, Action: domain.ActionUserUpdate, Table: domain.TableUsers, RecordID: id,
			Success: true, Reason: strings.Join(reasons, "; ")})
	})
	return user, err
}

func boolWord(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// Delete removes another user's account (admin). Errors: EFORBIDDEN,
// ENOTFOUND, ECONFLICT (last admin).
func (s *UserService) Delete(ctx context.Context, p *domain.Principal, id string, meta domain.RequestMeta) error {
	if err := require(ctx, s.store, p, domain.PermUsersManage, meta, errNotManager); err != nil {
		return err
	}
	target, err := s.store.UserByID(ctx, id)
	if err != nil {
		return notFound(err, errUserNotFound)
	}
	return s.erase(ctx, target, p.User.ID, meta)
}

// Roles lists roles with their permissions. Errors: EFORBIDDEN.
func (s *UserService) Roles(ctx context.Context, p *domain.Principal, meta domain.RequestMeta) ([]domain.RoleInfo, error) {
	if err := require(ctx, s.store, p, domain.PermRolesRead, meta, forbidden("You are not allowed to see roles.")); err != nil {
		return nil, err
	}
	return s.store.Roles(ctx)
}

// Permissions lists every permission. Errors: EFORBIDDEN.
func (s *UserService) Permissions(ctx context.Context, p *domain.Principal, meta domain.RequestMeta) ([]domain.PermissionInfo, error) {
	if err := require(ctx, s.store, p, domain.PermRolesRead, meta, forbidden("You are not allowed to see permissions.")); err != nil {
		return nil, err
	}
	return s.store.Permissions(ctx)
}
