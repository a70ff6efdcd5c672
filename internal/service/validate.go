package service

import (
	"fmt"
	"net/mail"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/medishare/medishare/internal/domain"
)

// fieldErrors collects field messages and turns them into one EVALIDATION error.
type fieldErrors []domain.FieldError

func (f *fieldErrors) add(field, format string, args ...any) {
	*f = append(*f, domain.FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
}

func (f fieldErrors) err() error {
	if len(f) == 0 {
		return nil
	}
	return domain.ValidationError("Please check the highlighted fields.", f...)
}

var usernamePattern = regexp.MustCompile(`^[A-Za-z0-9._-]{3,30}$`)

// normalizeEmail lowercases and checks an address; ok is false when it is not
// a plain address.
func normalizeEmail(s string) (string, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" || len(s) > 254 {
		return s, false
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" || !strings.Contains(s[strings.LastIndexByte(s, '@')+1:], ".") {
		return s, false
	}
	return s, true
}

// cleanText trims a free-text field and refuses control characters and
// over-long values.
func cleanText(errs *fieldErrors, field, value string, max int) string {
	value = strings.TrimSpace(value)
	if utf8.RuneCountInString(value) > max {
		errs.add(field, "must be at most %d characters", max)
		return value
	}
	for _, r := range value {
		if unicode.IsControl(r) && r != '\n' && r != '\t' && r != '\r' {
			errs.add(field, "contains characters that are not allowed")
			break
		}
	}
	return value
}

// normalizeGender accepts any case and stores Male, Female or Other.
func normalizeGender(errs *fieldErrors, value string) string {
	switch strings.ToLower(strings.TrimSpace(value)) {
	case "":
		return ""
	case "male":
		return "Male"
	case "female":
		return "Female"
	case "other":
		return "Other"
	}
	errs.add("gender", "must be Male, Female or Other")
	return ""
}

func validateDOB(errs *fieldErrors, value string, now time.Time) string {
	value = strings.TrimSpace(value)
	if value == "" {
		return ""
	}
	if len(value) > 10 { // accept full timestamps from date pickers: keep the date
		if t, err := time.Parse(time.RFC3339, value); err == nil {
			value = t.Format("2006-01-02")
		}
	}
	t, err := time.Parse("2006-01-02", value)
	if err != nil {
		errs.add("dob", "must be a date (YYYY-MM-DD)")
		return ""
	}
	if t.After(now) || t.Year() < 1900 {
		errs.add("dob", "must be a date between 1900 and today")
		return ""
	}
	return value
}

// ProfileInput holds the profile fields a request sent; nil means "not sent".
type ProfileInput struct {
	Firstname, Lastname, Phone, DOB, Gender, Address, City, State, Country, Zipcode,
	Bio, TaxID, LicenseNumber, InsuranceNumber, BloodGroup, PrimPhysician, Specialization *string
}

// applyProfile validates in and merges it into p, keeping only the fields of
// role (product.md §5): provider details for providers, patient details for
// patients. Admins keep neither.
func applyProfile(errs *fieldErrors, p *domain.Profile, in ProfileInput, role string, now time.Time) {
	set := func(dst *string, src *string, field string, max int) {
		if src != nil {
			*dst = cleanText(errs, field, *src, max)
		}
	}
	set(&p.Firstname, in.Firstname, "firstname", 100)
	set(&p.Lastname, in.Lastname, "lastname", 100)
	set(&p.Phone, in.Phone, "phone", 30)
	set(&p.Address, in.Address, "address", 200)
	set(&p.City, in.City, "city", 100)
	set(&p.State, in.State, "state", 100)
	set(&p.Country, in.Country, "country", 100)
	set(&p.Zipcode, in.Zipcode, "zipcode", 20)
	set(&p.Bio, in.Bio, "bio", 2000)
	if in.DOB != nil {
		p.DOB = validateDOB(errs, *in.DOB, now)
	}
	if in.Gender != nil {
		p.Gender = normalizeGender(errs, *in.Gender)
	}
	switch role {
	case domain.RoleProvider:
		set(&p.TaxID, in.TaxID, "taxid", 50)
		set(&p.LicenseNumber, in.LicenseNumber, "licensenumber", 50)
		set(&p.InsuranceNumber, in.InsuranceNumber, "insurancenumber", 50)
		set(&p.Specialization, in.Specialization, "specialization", 100)
		p.BloodGroup, p.PrimPhysician = "", ""
	case domain.RolePatient:
		set(&p.BloodGroup, in.BloodGroup, "bloodgroup", 10)
		set(&p.PrimPhysician, in.PrimPhysician, "primphysician", 100)
		p.TaxID, p.LicenseNumber, p.InsuranceNumber, p.Specialization = "", "", "", ""
	default:
		p.TaxID, p.LicenseNumber, p.InsuranceNumber, p.Specialization, p.BloodGroup, p.PrimPhysician = "", "", "", "", "", ""
	}
	if p.Firstname == "" {
		errs.add("firstname", "is required")
	}
	if p.Lastname == "" {
		errs.add("lastname", "is required")
	}
}

func profileOf(u domain.User) domain.Profile {
	return domain.Profile{
		Firstname: u.Firstname, Lastname: u.Lastname, Phone: u.Phone, DOB: u.DOB, Gender: u.Gender,
		Address: u.Address, City: u.City, State: u.State, Country: u.Country, Zipcode: u.Zipcode, Bio: u.Bio,
		TaxID: u.TaxID, LicenseNumber: u.LicenseNumber, InsuranceNumber: u.InsuranceNumber,
		BloodGroup: u.BloodGroup, PrimPhysician: u.PrimPhysician, Specialization: u.Specialization,
	}
}

func withProfile(u domain.User, p domain.Profile) domain.User {
	u.Firstname, u.Lastname, u.Phone, u.DOB, u.Gender = p.Firstname, p.Lastname, p.Phone, p.DOB, p.Gender
	u.Address, u.City, u.State, u.Country, u.Zipcode, u.Bio = p.Address, p.City, p.State, p.Country, p.Zipcode, p.Bio
	u.TaxID, u.LicenseNumber, u.InsuranceNumber = p.TaxID, p.LicenseNumber, p.InsuranceNumber
	u.BloodGroup, u.PrimPhysician, u.Specialization = p.BloodGroup, p.PrimPhysician, p.Specialization
	return u
}

// escapeLike makes user text safe inside a LIKE pattern (S23).
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

func isDigits(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
