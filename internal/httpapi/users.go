package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"reflect"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/service"
)

// The profile form may be larger than other JSON bodies (api.md).
const maxProfileBody = 1 << 20

// profileJSON is the profile members of a request (product.md §7), by the
// names of domain.ProfileFields: a member that is absent or null is not in
// it; members of other names are not profile fields and are ignored.
type profileJSON map[string]string

// UnmarshalJSON reads the profile members of a JSON object.
func (j *profileJSON) UnmarshalJSON(b []byte) error {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		return err
	}
	out := profileJSON{}
	for _, f := range domain.ProfileFields {
		raw, ok := members[f.Name]
		if !ok || string(raw) == "null" {
			continue
		}
		var value string
		if err := json.Unmarshal(raw, &value); err != nil {
			return &json.UnmarshalTypeError{Value: "non-string", Type: reflect.TypeFor[string](), Field: f.Name}
		}
		out[f.Name] = value
	}
	*j = out
	return nil
}

// profile is a new profile with the members sent.
func (j profileJSON) profile() domain.Profile {
	var p domain.Profile
	for _, f := range domain.ProfileFields {
		if value, ok := j[f.Name]; ok {
			*f.Of(&p) = value
		}
	}
	return p
}

// userJSON is the user object of api.md: the account's members, each
// field of domain.ProfileFields (an empty one as null, a required one
// always as text), then createdAt.
type userJSON struct {
	ID        string         `json:"id"`
	Email     string         `json:"email"`
	Username  string         `json:"username"`
	Role      string         `json:"role"`
	Active    bool           `json:"active"`
	Verified  bool           `json:"verified"`
	Approved  bool           `json:"approved"`
	Profile   domain.Profile `json:"-"`
	CreatedAt time.Time      `json:"-"`
	MFA       *mfaJSON       `json:"-"`
}

// mfaJSON is a person's second factors, on their own record and in the
// admin's list.
type mfaJSON struct {
	TOTP     bool `json:"totp"`
	Passkeys int  `json:"passkeys"`
	Required bool `json:"required"`
}

func toUserJSON(u domain.User) userJSON {
	out := userJSON{ID: u.ID, Email: u.Email, Username: u.Username, Role: u.Role, Active: u.Active, Verified: u.Verified,
		Approved: !u.AwaitingApproval, Profile: u.Profile, CreatedAt: u.CreatedAt.UTC()}
	if u.MFA != nil {
		out.MFA = &mfaJSON{TOTP: u.MFA.TOTP, Passkeys: u.MFA.Passkeys, Required: u.MFA.Required}
	}
	return out
}

// MarshalJSON writes the members in the order api.md lists them.
func (u userJSON) MarshalJSON() ([]byte, error) {
	type account userJSON // the struct's own members, without this method
	b, err := json.Marshal(account(u))
	if err != nil {
		return nil, err
	}
	out := bytes.NewBuffer(b[:len(b)-1]) // without the closing brace
	for _, f := range domain.ProfileFields {
		var value *string
		if v := *f.Of(&u.Profile); v != "" || f.Required {
			value = &v
		}
		if err := writeMember(out, f.Name, value); err != nil {
			return nil, err
		}
	}
	if err := writeMember(out, "createdAt", u.CreatedAt); err != nil {
		return nil, err
	}
	if u.MFA != nil {
		if err := writeMember(out, "mfa", u.MFA); err != nil {
			return nil, err
		}
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}

// writeMember appends `,"name":value` to an object being written.
func writeMember(out *bytes.Buffer, name string, value any) error {
	v, err := json.Marshal(value)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, ",%q:%s", name, v)
	return nil
}

// selfJSON is the caller's own user object: the user and the permissions
// they hold, which the app's menu, guards and actions mirror. Other
// people's records never carry permissions.
type selfJSON struct {
	user        userJSON
	permissions []string
}

// MarshalJSON writes the user object, then the permissions.
func (s selfJSON) MarshalJSON() ([]byte, error) {
	b, err := s.user.MarshalJSON()
	if err != nil {
		return nil, err
	}
	out := bytes.NewBuffer(b[:len(b)-1]) // without the closing brace
	if err := writeMember(out, "permissions", s.permissions); err != nil {
		return nil, err
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}

func toSelfJSON(u domain.User, permissions []string) selfJSON {
	if permissions == nil {
		permissions = []string{}
	}
	return selfJSON{user: toUserJSON(u), permissions: permissions}
}

// readProfile reads the profile from JSON or from a form (multipart or
// urlencoded, whose fields carry the same names).
func readProfile(w http.ResponseWriter, r *http.Request) (profileJSON, error) {
	var in profileJSON
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "multipart/form-data" && mt != "application/x-www-form-urlencoded" {
		return in, readJSON(w, r, maxProfileBody, &in)
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxProfileBody)
	if err := r.ParseMultipartForm(maxProfileBody); err != nil && !errors.Is(err, http.ErrNotMultipart) {
		if errors.As(err, new(*http.MaxBytesError)) {
			return in, errBodyTooLarge
		}
		return in, domain.Errorf(domain.EINVALID, "The form could not be read.")
	}
	for name, values := range r.PostForm {
		if len(values) > 0 {
			if err := checkText(name, values[0]); err != nil {
				return in, err
			}
		}
	}
	in = profileJSON{}
	for _, f := range domain.ProfileFields {
		if values := r.PostForm[f.Name]; len(values) > 0 {
			in[f.Name] = values[0]
		}
	}
	return in, nil
}

func (a *api) mountUsers(r chi.Router) {
	r.Get("/users/profile", a.getProfile)
	r.Put("/users/profile", a.updateProfile)
	r.Delete("/users/profile", a.deleteProfile)
	r.Get("/users", a.listUsers)
	r.Get("/users/{id}", a.getUser)
	r.Patch("/users/{id}", a.changeUser)
	r.Delete("/users/{id}", a.deleteUser)
	r.Delete("/users/{id}/mfa", a.resetMFA)
	r.Get("/roles", a.listRoles)
	r.Get("/roles/permissions", a.listPermissions)
	r.Get("/dashboard/stats", a.dashboardStats)
}

func (a *api) getProfile(w http.ResponseWriter, r *http.Request) {
	p := principal(r)
	u, err := a.MFA.WithStatus(r.Context(), p.User)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "", toSelfJSON(u, p.Permissions))
}

func (a *api) updateProfile(w http.ResponseWriter, r *http.Request) {
	in, err := readProfile(w, r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	p := principal(r)
	u, err := a.Users.UpdateProfile(r.Context(), p, service.ProfileChange(in), meta(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "Profile updated successfully!", toSelfJSON(u, p.Permissions))
}

func (a *api) deleteProfile(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Password string `json:"password"`
	}
	if err := readJSON(w, r, maxJSONBody, &in); err != nil {
		writeError(w, r, err)
		return
	}
	if err := a.Users.DeleteOwnAccount(r.Context(), principal(r), in.Password, meta(r)); err != nil {
		writeError(w, r, err)
		return
	}
	a.clearRefreshCookie(w)
	writeOK(w, http.StatusOK, "Your account has been deleted.", nil)
}

// pageParams reads page (from 1) and limit (default 10, at most 100).
func pageParams(r *http.Request) (domain.Page, error) {
	page := domain.Page{Page: 1, Limit: 10}
	q := r.URL.Query()
	var errs []domain.FieldError
	if v := q.Get("page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1_000_000 {
			errs = append(errs, domain.FieldError{Field: "page", Message: "must be a whole number from 1"})
		}
		page.Page = n
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			errs = append(errs, domain.FieldError{Field: "limit", Message: "must be a whole number from 1 to 100"})
		}
		page.Limit = n
	}
	if len(errs) > 0 {
		return page, domain.ValidationError("Please check the paging parameters.", errs...)
	}
	return page, nil
}

func paginationOf(p domain.PageOf) *Pagination {
	total := p.TotalPages()
	return &Pagination{
		CurrentPage: p.Page, PageSize: p.Limit, TotalPages: total, TotalItems: p.TotalItems,
		HasPrevPage: p.Page > 1, HasNextPage: p.HasNext(), TotalAtLeast: p.AtLeast,
	}
}

// writePage reads the paging parameters, asks list for that page and
// writes it, each item converted by convert.
func writePage[T, J any](w http.ResponseWriter, r *http.Request, list func(domain.Page) ([]T, domain.PageOf, error), convert func(T) J) {
	page, err := pageParams(r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	items, pageOf, err := list(page)
	if err != nil {
		writeError(w, r, err)
		return
	}
	out := make([]J, len(items))
	for i, item := range items {
		out[i] = convert(item)
	}
	writeJSON(w, http.StatusOK, envelope{Data: out, Pagination: paginationOf(pageOf)})
}

func (a *api) listUsers(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p := principal(r)
	writePage(w, r, func(page domain.Page) ([]domain.User, domain.PageOf, error) {
		users, of, err := a.Users.List(r.Context(), p, q.Get("search"), q.Get("role"), page, meta(r))
		if err == nil && p.Can(domain.PermUsersManage) {
			// Whoever manages users sees who has a second factor.
			err = a.MFA.WithStatuses(r.Context(), users)
		}
		return users, of, err
	}, toUserJSON)
}

func (a *api) getUser(w http.ResponseWriter, r *http.Request) {
	u, err := a.Users.Get(r.Context(), principal(r), chi.URLParam(r, "id"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "", toUserJSON(u))
}

func (a *api) changeUser(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Active   *bool   `json:"active"`
		Role     *string `json:"role"`
		Approved *bool   `json:"approved"`
	}
	if err := readJSON(w, r, maxJSONBody, &in); err != nil {
		writeError(w, r, err)
		return
	}
	u, err := a.Users.Change(r.Context(), principal(r), chi.URLParam(r, "id"), service.UserChange{Active: in.Active, Role: in.Role, Approved: in.Approved}, meta(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "User updated successfully.", toUserJSON(u))
}

func (a *api) deleteUser(w http.ResponseWriter, r *http.Request) {
	if err := a.Users.Delete(r.Context(), principal(r), chi.URLParam(r, "id"), meta(r)); err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "User deleted successfully.", nil)
}

func (a *api) listRoles(w http.ResponseWriter, r *http.Request) {
	roles, err := a.Users.Roles(r.Context(), principal(r), meta(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	type roleJSON struct {
		Name        string   `json:"name"`
		Permissions []string `json:"permissions"`
	}
	out := make([]roleJSON, len(roles))
	for i, ro := range roles {
		out[i] = roleJSON{Name: ro.Name, Permissions: ro.Permissions}
	}
	writeOK(w, http.StatusOK, "", out)
}

func (a *api) listPermissions(w http.ResponseWriter, r *http.Request) {
	perms, err := a.Users.Permissions(r.Context(), principal(r), meta(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	type permJSON struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	}
	out := make([]permJSON, len(perms))
	for i, p := range perms {
		out[i] = permJSON{Name: p.Name, Description: p.Description}
	}
	writeOK(w, http.StatusOK, "", out)
}

func (a *api) dashboardStats(w http.ResponseWriter, r *http.Request) {
	st, err := a.Admin.Stats(r.Context(), principal(r), meta(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "", map[string]int{"totalImages": st.TotalImages, "sharedImages": st.SharedImages, "totalUsers": st.TotalUsers})
}
