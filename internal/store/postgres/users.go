package postgres

import (
	"context"
	"slices"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/store/postgres/db"
)

// CreateUser stores a new account with its profile.
// Errors: ECONFLICT (email or username taken), EVALIDATION.
func (s *Store) CreateUser(ctx context.Context, n domain.User, passwordHash string) (domain.User, error) {
	var user domain.User
	err := s.InTx(ctx, func(ctx context.Context) error {
		id, err := s.q(ctx).CreateUser(ctx, db.CreateUserParams{
			Email: n.Email, Username: n.Username, PasswordHash: passwordHash, Role: n.Role, Verified: n.Verified, Approved: !n.AwaitingApproval,
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

// searchCap is how many matches of a directory search are counted, unless
// the page asked for ends further: past it, the total is "at least
// searchCap" (see SearchDirectory). It is the largest page: a search that
// matches more than a page of people is narrowed by typing more, and
// counting costs a walk over each match counted.
const searchCap = 100

// ListUsers returns one page of a directory, of the people whose first or
// last name or email contains search when it is not empty.
func (s *Store) ListUsers(ctx context.Context, dir domain.Directory, search string, page domain.Page) ([]domain.User, domain.PageOf, error) {
	var users []domain.User
	var err error
	out := domain.PageOf{Page: page.Page, Limit: page.Limit}
	if search == "" {
		users, out.TotalItems, err = s.directory(ctx, dir, page)
	} else {
		users, out, err = s.searchDirectory(ctx, dir, search, page)
	}
	if err != nil {
		return nil, domain.PageOf{}, translate(err)
	}
	return users, out, nil
}

func (s *Store) directory(ctx context.Context, dir domain.Directory, page domain.Page) ([]domain.User, int, error) {
	self := optionalID(dir.Self)
	rows, err := s.q(ctx).ListDirectory(ctx, db.ListDirectoryParams{
		Roles: dir.Roles, Actives: dir.Actives(), ReachableOnly: dir.ReachableOnly, SelfID: self,
		PageLimit: int32(page.Limit), PageOffset: int32(page.Offset()),
	})
	if err != nil {
		return nil, 0, err
	}
	users, total := make([]domain.User, len(rows)), int64(0)
	for i, r := range rows {
		users[i], total = toUser(r.User), r.Total
	}
	if len(rows) == 0 { // past the last page: no row carries the total
		total, err = s.q(ctx).CountDirectory(ctx, db.CountDirectoryParams{Roles: dir.Roles, Actives: dir.Actives(), ReachableOnly: dir.ReachableOnly, SelfID: self})
	}
	return users, int(total), err
}

// searchDirectory reads one page of the matches, and counts them up to
// searchCap and one more, or to the page's end and one more when that is
// further.
func (s *Store) searchDirectory(ctx context.Context, dir domain.Directory, search string, page domain.Page) ([]domain.User, domain.PageOf, error) {
	out := domain.PageOf{Page: page.Page, Limit: page.Limit}
	probe := max(searchCap, page.Offset()+page.Limit) + 1
	read := func(limit, offset int) ([]domain.User, int, error) {
		return s.searchPage(ctx, dir, search, probe, limit, offset)
	}
	users, total, err := read(page.Limit, page.Offset())
	if err == nil && len(users) == 0 && page.Offset() > 0 {
		_, total, err = read(1, 0) // past the last page no row carries the total: the first match does
	}
	if err != nil {
		return nil, out, err
	}
	out.TotalItems = total
	if total == probe { // the count stopped: there are more
		out.TotalItems, out.AtLeast, out.More = max(searchCap, page.Offset()+len(users)), true, true
	}
	return users, out, nil
}

// searchPage reads the page of a search through its rarest trigram, or
// through the names when it has none, and the count its rows carry.
func (s *Store) searchPage(ctx context.Context, dir domain.Directory, search string, probe, limit, offset int) ([]domain.User, int, error) {
	// Both queries give the same row, converted to one type here.
	params := db.SearchDirectoryByNameParams{
		Needle: search, Roles: dir.Roles, Actives: dir.Actives(), ReachableOnly: dir.ReachableOnly, SelfID: optionalID(dir.Self),
		ProbeLimit: int32(probe), PageLimit: int32(limit), PageOffset: int32(offset),
	}
	var rows []db.SearchDirectoryByNameRow
	var err error
	if grams := searchGrams(search); len(grams) > 0 {
		var gram string
		if gram, err = s.rarest(ctx, grams); err != nil {
			return nil, 0, err
		}
		var found []db.SearchDirectoryRow
		found, err = s.q(ctx).SearchDirectory(ctx, db.SearchDirectoryParams{
			Gram: gram, Needle: params.Needle, Roles: params.Roles, Actives: params.Actives, ReachableOnly: params.ReachableOnly, SelfID: params.SelfID,
			ProbeLimit: params.ProbeLimit, PageLimit: params.PageLimit, PageOffset: params.PageOffset,
		})
		for _, r := range found {
			rows = append(rows, db.SearchDirectoryByNameRow(r))
		}
	} else {
		rows, err = s.q(ctx).SearchDirectoryByName(ctx, params)
	}
	var users []domain.User
	var total int64
	for _, r := range rows {
		users, total = append(users, toUser(r.User)), r.Total
	}
	return users, int(total), err
}

// searchGrams are the trigrams of user_grams that everyone whose text
// contains search holds: each run of three ASCII letters or digits in it,
// in lower case. Whatever PostgreSQL's locale takes for a letter, these
// three stand in one word of pg_trgm's in any text that contains them, so
// they are among its trigrams (see migrations/00011_directory_grams.sql).
// Other letters are left to the walk's check of the whole text.
func searchGrams(search string) []string {
	var grams []string
	lower := []byte(search)
	for i, c := range lower {
		if 'A' <= c && c <= 'Z' {
			lower[i] = c + 'a' - 'A'
		}
	}
	isWord := func(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }
	for i := 0; i+3 <= len(lower); i++ {
		if isWord(lower[i]) && isWord(lower[i+1]) && isWord(lower[i+2]) {
			if g := string(lower[i : i+3]); !slices.Contains(grams, g) {
				grams = append(grams, g)
			}
		}
	}
	return grams
}

// CountUsers counts accounts that were not deleted.
func (s *Store) CountUsers(ctx context.Context) (int, error) {
	n, err := s.q(ctx).CountUsers(ctx)
	return int(n), translate(err)
}
