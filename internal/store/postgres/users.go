package postgres

import (
	"context"
	"strings"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/store/postgres/db"
)

// CreateUser stores a new account with its profile.
// Errors: ECONFLICT (email or username taken), EVALIDATION.
func (s *Store) CreateUser(ctx context.Context, n domain.User, passwordHash string) (domain.User, error) {
	var user domain.User
	err := s.InTx(ctx, func(ctx context.Context) error {
		id, err := s.q(ctx).CreateUser(ctx, db.CreateUserParams{
			Email: n.Email, Username: n.Username, PasswordHash: passwordHash, Role: n.Role, Verified: n.Verified,
		})
		if err != nil {
			return translate(err)
		}
		user, err = s.UpdateProfile(ctx, id.String(), n.Profile)
		return err
	})
	return user, err
}

// UserByID returns a user that was not deleted. Errors: ENOTFOUND.
func (s *Store) UserByID(ctx context.Context, id string) (domain.User, error) {
	uid, err := parseID(id)
	if err != nil {
		return domain.User{}, err
	}
	u, err := s.q(ctx).GetUserByID(ctx, uid)
	if err != nil {
		return domain.User{}, translate(err)
	}
	return toUser(u), nil
}

// UserByEmail returns a user and its password hash. Errors: ENOTFOUND.
func (s *Store) UserByEmail(ctx context.Context, email string) (domain.User, string, error) {
	u, err := s.q(ctx).GetUserByEmail(ctx, email)
	if err != nil {
		return domain.User{}, "", translate(err)
	}
	return toUser(u), u.PasswordHash, nil
}

// PasswordHash returns the stored hash of a user. Errors: ENOTFOUND.
func (s *Store) PasswordHash(ctx context.Context, id string) (string, error) {
	uid, err := parseID(id)
	if err != nil {
		return "", err
	}
	u, err := s.q(ctx).GetUserByID(ctx, uid)
	if err != nil {
		return "", translate(err)
	}
	return u.PasswordHash, nil
}

// UsernameTaken reports whether the username is in use, ignoring case.
func (s *Store) UsernameTaken(ctx context.Context, username string) (bool, error) {
	taken, err := s.q(ctx).UsernameTaken(ctx, username)
	return taken, translate(err)
}

// SetVerified marks the account confirmed.
func (s *Store) SetVerified(ctx context.Context, id string) error {
	uid, err := parseID(id)
	if err != nil {
		return err
	}
	return translate(s.q(ctx).SetUserVerified(ctx, uid))
}

// SetPassword stores a new password hash.
func (s *Store) SetPassword(ctx context.Context, id, hash string) error {
	uid, err := parseID(id)
	if err != nil {
		return err
	}
	return translate(s.q(ctx).SetUserPassword(ctx, db.SetUserPasswordParams{ID: uid, PasswordHash: hash}))
}

// UpdateProfile replaces the profile fields of a user. Errors: ENOTFOUND, EVALIDATION.
func (s *Store) UpdateProfile(ctx context.Context, id string, p domain.Profile) (domain.User, error) {
	uid, err := parseID(id)
	if err != nil {
		return domain.User{}, err
	}
	dob, err := dateOf(p.DOB)
	if err != nil {
		return domain.User{}, err
	}
	u, err := s.q(ctx).UpdateUserProfile(ctx, db.UpdateUserProfileParams{
		ID: uid, Firstname: p.Firstname, Lastname: p.Lastname, Phone: p.Phone, Dob: dob, Gender: textOf(p.Gender),
		Address: p.Address, City: p.City, State: p.State, Country: p.Country, Zipcode: p.Zipcode, Bio: p.Bio,
		Taxid: p.TaxID, Licensenumber: p.LicenseNumber, Insurancenumber: p.InsuranceNumber,
		Bloodgroup: p.BloodGroup, Primphysician: p.PrimPhysician, Specialization: p.Specialization,
	})
	if err != nil {
		return domain.User{}, translate(err)
	}
	return toUser(u), nil
}

// SetActive turns an account on or off. Errors: ENOTFOUND.
func (s *Store) SetActive(ctx context.Context, id string, active bool) (domain.User, error) {
	uid, err := parseID(id)
	if err != nil {
		return domain.User{}, err
	}
	u, err := s.q(ctx).SetUserActive(ctx, db.SetUserActiveParams{ID: uid, Active: active})
	if err != nil {
		return domain.User{}, translate(err)
	}
	return toUser(u), nil
}

// SetRole changes a user's role. Errors: ENOTFOUND, EINVALID (unknown role).
func (s *Store) SetRole(ctx context.Context, id, role string) (domain.User, error) {
	uid, err := parseID(id)
	if err != nil {
		return domain.User{}, err
	}
	u, err := s.q(ctx).SetUserRole(ctx, db.SetUserRoleParams{ID: uid, Role: role})
	if err != nil {
		return domain.User{}, translate(err)
	}
	return toUser(u), nil
}

// EraseUser deactivates an account and erases its profile.
func (s *Store) EraseUser(ctx context.Context, id string) error {
	uid, err := parseID(id)
	if err != nil {
		return err
	}
	return translate(s.q(ctx).EraseUser(ctx, uid))
}

// ActiveAdminsLocked counts active admins while holding a lock that keeps
// concurrent demotions from removing the last one. Call it inside InTx.
func (s *Store) ActiveAdminsLocked(ctx context.Context) (int, error) {
	if err := s.q(ctx).LockAdmins(ctx); err != nil {
		return 0, translate(err)
	}
	n, err := s.q(ctx).CountActiveAdmins(ctx)
	return int(n), translate(err)
}

// searchCap is how many matches of a directory search are counted: past
// it, the total is "more than searchCap" (see SearchDirectory).
const searchCap = 200

// ListUsers returns one page of a directory, its search (when not empty)
// already escaped for LIKE.
func (s *Store) ListUsers(ctx context.Context, dir domain.Directory, search string, page domain.Page) ([]domain.User, domain.PageOf, error) {
	var users []domain.User
	var err error
	out := domain.PageOf{Page: page.Page, Limit: page.Limit}
	if search == "" {
		users, out.TotalItems, err = s.directory(ctx, dir, page)
	} else {
		users, out, err = s.searchDirectory(ctx, dir, containsPattern(search), page)
	}
	if err != nil {
		return nil, domain.PageOf{}, translate(err)
	}
	return users, out, nil
}

func (s *Store) directory(ctx context.Context, dir domain.Directory, page domain.Page) ([]domain.User, int, error) {
	self := optionalID(dir.Self)
	rows, err := s.q(ctx).ListDirectory(ctx, db.ListDirectoryParams{
		Roles: dir.Roles, Actives: dir.Actives(), SelfID: self, PageLimit: int32(page.Limit), PageOffset: int32(page.Offset()),
	})
	if err != nil {
		return nil, 0, err
	}
	users, total := make([]domain.User, len(rows)), int64(0)
	for i, r := range rows {
		users[i], total = toUser(r.User), r.Total
	}
	if len(rows) == 0 { // past the last page: no row carries the total
		total, err = s.q(ctx).CountDirectory(ctx, db.CountDirectoryParams{Roles: dir.Roles, Actives: dir.Actives(), SelfID: self})
	}
	return users, int(total), err
}

func (s *Store) searchDirectory(ctx context.Context, dir domain.Directory, pattern string, page domain.Page) ([]domain.User, domain.PageOf, error) {
	self, out := optionalID(dir.Self), domain.PageOf{Page: page.Page, Limit: page.Limit}
	rows, err := s.q(ctx).SearchDirectory(ctx, db.SearchDirectoryParams{
		Roles: dir.Roles, Actives: dir.Actives(), SelfID: self, Pattern: pattern, ProbeLimit: searchCap + 1,
		PageLimit: int32(page.Limit), PageOffset: int32(page.Offset()),
	})
	if err != nil {
		return nil, out, err
	}
	users, total := make([]domain.User, len(rows)), int64(0)
	for i, r := range rows {
		users[i], total = toUser(r.User), r.Total
	}
	if len(rows) == 0 {
		total, err = s.q(ctx).CountDirectorySearch(ctx, db.CountDirectorySearchParams{
			Roles: dir.Roles, Actives: dir.Actives(), SelfID: self, Pattern: pattern, ProbeLimit: searchCap + 1,
		})
		if err != nil {
			return nil, out, err
		}
	}
	if total <= searchCap {
		out.TotalItems = int(total)
		return users, out, nil
	}
	// Many match: the page in name order, and one more to tell whether another page follows.
	named, err := s.q(ctx).SearchDirectoryByName(ctx, db.SearchDirectoryByNameParams{
		Roles: dir.Roles, Actives: dir.Actives(), SelfID: self, Needle: unescapeLike(strings.TrimSuffix(strings.TrimPrefix(pattern, "%"), "%")),
		PageLimit: int32(page.Limit) + 1, PageOffset: int32(page.Offset()),
	})
	if err != nil {
		return nil, out, err
	}
	out.More = len(named) > page.Limit
	users = make([]domain.User, 0, min(len(named), page.Limit))
	for _, r := range named[:min(len(named), page.Limit)] {
		users = append(users, toUser(r.User))
	}
	out.TotalItems, out.AtLeast = max(searchCap, page.Offset()+len(users)), true
	return users, out, nil
}

// containsPattern is the LIKE pattern of text containing search (already
// escaped for LIKE), in the lower case of the searched columns.
func containsPattern(search string) string { return "%" + strings.ToLower(search) + "%" }

// unescapeLike is the text a LIKE pattern's body was escaped from (the
// service escapes \, % and _ with a backslash).
func unescapeLike(s string) string {
	return strings.NewReplacer(`\\`, `\`, `\%`, `%`, `\_`, `_`).Replace(s)
}

// CountUsers counts accounts that were not deleted.
func (s *Store) CountUsers(ctx context.Context) (int, error) {
	n, err := s.q(ctx).CountUsers(ctx)
	return int(n), translate(err)
}
