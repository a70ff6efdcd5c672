package httpapi

import (
	"mime"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/service"
)

// The profile form may be larger than other JSON bodies (api.md).
const maxProfileBody = 1 << 20

// userJSON is the user object of api.md. Unknown values are null.
type userJSON struct {
	ID              string    `json:"id"`
	Firstname       string    `json:"firstname"`
	Lastname        string    `json:"lastname"`
	Email           string    `json:"email"`
	Username        string    `json:"username"`
	Role            string    `json:"role"`
	Active          bool      `json:"active"`
	Verified        bool      `json:"verified"`
	Phone           *string   `json:"phone"`
	DOB             *string   `json:"dob"`
	Gender          *string   `json:"gender"`
	Address         *string   `json:"address"`
	City            *string   `json:"city"`
	State           *string   `json:"state"`
	Country         *string   `json:"country"`
	Zipcode         *string   `json:"zipcode"`
	Bio             *string   `json:"bio"`
	TaxID           *string   `json:"taxid"`
	LicenseNumber   *string   `json:"licensenumber"`
	InsuranceNumber *string   `json:"insurancenumber"`
	BloodGroup      *string   `json:"bloodgroup"`
	PrimPhysician   *string   `json:"primphysician"`
	Specialization  *string   `json:"specialization"`
	CreatedAt       time.Time `json:"createdAt"`
}

func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func toUserJSON(u domain.User) userJSON {
	return userJSON{
		ID: u.ID, Firstname: u.Firstname, Lastname: u.Lastname, Email: u.Email, Username: u.Username,
		Role: u.Role, Active: u.Active, Verified: u.Verified, Phone: orNull(u.Phone), DOB: orNull(u.DOB),
		Gender: orNull(u.Gender), Address: orNull(u.Address), City: orNull(u.City), State: orNull(u.State),
		Country: orNull(u.Country), Zipcode: orNull(u.Zipcode), Bio: orNull(u.Bio), TaxID: orNull(u.TaxID),
		LicenseNumber: orNull(u.LicenseNumber), InsuranceNumber: orNull(u.InsuranceNumber),
		BloodGroup: orNull(u.BloodGroup), PrimPhysician: orNull(u.PrimPhysician),
		Specialization: orNull(u.Specialization), CreatedAt: u.CreatedAt.UTC(),
	}
}

// profileRequest holds the profile fields of product.md §7; a field that is
// absent stays as it was.
type profileRequest struct {
	Firstname       *string `json:"firstname"`
	Lastname        *string `json:"lastname"`
	Phone           *string `json:"phone"`
	DOB             *string `json:"dob"`
	Gender          *string `json:"gender"`
	Address         *string `json:"address"`
	City            *string `json:"city"`
	State           *string `json:"state"`
	Country         *string `json:"country"`
	Zipcode         *string `json:"zipcode"`
	Bio             *string `json:"bio"`
	TaxID           *string `json:"taxid"`
	LicenseNumber   *string `json:"licensenumber"`
	InsuranceNumber *string `json:"insurancenumber"`
	BloodGroup      *string `json:"bloodgroup"`
	PrimPhysician   *string `json:"primphysician"`
	Specialization  *string `json:"specialization"`
}

func (p profileRequest) profileInput() service.ProfileInput {
	return service.ProfileInput{
		Firstname: p.Firstname, Lastname: p.Lastname, Phone: p.Phone, DOB: p.DOB, Gender: p.Gender,
		Address: p.Address, City: p.City, State: p.State, Country: p.Country, Zipcode: p.Zipcode, Bio: p.Bio,
		TaxID: p.TaxID, LicenseNumber: p.LicenseNumber, InsuranceNumber: p.InsuranceNumber,
		BloodGroup: p.BloodGroup, PrimPhysician: p.PrimPhysician, Specialization: p.Specialization,
	}
}

// readProfile reads the profile from JSON or from a form (multipart or urlencoded).
func readProfile(w http.ResponseWriter, r *http.Request) (profileRequest, error) {
	var in profileRequest
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "multipart/form-data" && mt != "application/x-www-form-urlencoded" {
		return in, readJSON(w, r, maxProfileBody, &in)
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxProfileBody)
	if err := r.ParseMultipartForm(maxProfileBody); err != nil && err != http.ErrNotMultipart {
		if _, tooLarge := err.(*http.MaxBytesError); tooLarge {
			return in, domain.Errorf(domain.ETOOLARGE, "The request is too large.")
		}
		return in, domain.Errorf(domain.EINVALID, "The form could not be read.")
	}
	field := func(name string) *string {
		if vs, ok := r.PostForm[name]; ok && len(vs) > 0 {
			return &vs[0]
		}
		return nil
	}
	in = profileRequest{
		Firstname: field("firstname"), Lastname: field("lastname"), Phone: field("phone"), DOB: field("dob"),
		Gender: field("gender"), Address: field("address"), City: field("city"), State: field("state"),
		Country: field("country"), Zipcode: field("zipcode"), Bio: field("bio"), TaxID: field("taxid"),
		LicenseNumber: field("licensenumber"), InsuranceNumber: field("insurancenumber"),
		BloodGroup: field("bloodgroup"), PrimPhysician: field("primphysician"), Specialization: field("specialization"),
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
	r.Get("/roles", a.listRoles)
	r.Get("/roles/permissions", a.listPermissions)
	r.Get("/dashboard/stats", a.dashboardStats)
}

func (a *api) getProfile(w http.ResponseWriter, r *http.Request) {
	writeOK(w, http.StatusOK, "", toUserJSON(principal(r).User))
}

func (a *api) updateProfile(w http.ResponseWriter, r *http.Request) {
	in, err := readProfile(w, r)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	u, err := a.users.UpdateProfile(r.Context(), principal(r), in.profileInput(), meta(r))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "Profile updated successfully!", toUserJSON(u))
}

func (a *api) deleteProfile(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Password string `json:"password"`
	}
	if err := readJSON(w, r, maxJSONBody, &in); err != nil {
		a.fail(w, r, err)
		return
	}
	if err := a.users.DeleteOwnAccount(r.Context(), principal(r), in.Password, meta(r)); err != nil {
		a.fail(w, r, err)
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
		HasPrevPage: p.Page > 1, HasNextPage: p.Page < total,
	}
}

func (a *api) listUsers(w http.ResponseWriter, r *http.Request) {
	page, err := pageParams(r)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	q := r.URL.Query()
	users, pageOf, err := a.users.List(r.Context(), principal(r), q.Get("search"), q.Get("role"), page)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out := make([]userJSON, len(users))
	for i, u := range users {
		out[i] = toUserJSON(u)
	}
	writeJSON(w, http.StatusOK, envelope{Data: out, Pagination: paginationOf(pageOf)})
}

func (a *api) getUser(w http.ResponseWriter, r *http.Request) {
	u, err := a.users.Get(r.Context(), principal(r), chi.URLParam(r, "id"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "", toUserJSON(u))
}

func (a *api) changeUser(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Active *bool   `json:"active"`
		Role   *string `json:"role"`
	}
	if err := readJSON(w, r, maxJSONBody, &in); err != nil {
		a.fail(w, r, err)
		return
	}
	u, err := a.users.Change(r.Context(), principal(r), chi.URLParam(r, "id"), service.UserChange{Active: in.Active, Role: in.Role}, meta(r))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "User updated successfully.", toUserJSON(u))
}

func (a *api) deleteUser(w http.ResponseWriter, r *http.Request) {
	if err := a.users.Delete(r.Context(), principal(r), chi.URLParam(r, "id"), meta(r)); err != nil {
		a.fail(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "User deleted successfully.", nil)
}

func (a *api) listRoles(w http.ResponseWriter, r *http.Request) {
	roles, err := a.users.Roles(r.Context(), principal(r))
	if err != nil {
		a.fail(w, r, err)
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
	perms, err := a.users.Permissions(r.Context(), principal(r))
	if err != nil {
		a.fail(w, r, err)
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
	st, err := a.users.Stats(r.Context(), principal(r))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "", map[string]int{"totalImages": st.TotalImages, "sharedImages": st.SharedImages, "totalUsers": st.TotalUsers})
}
