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

// profileRule is how one profile field is checked: its name in requests
// (for field errors), its longest value, and which role keeps it ("" for
// every role).
type profileRule struct {
	name  string
	max   int
	role  string
	field func(*domain.Profile) *string
}

// profileRules are the free-text fields of product.md §7. The date of
// birth and gender have rules of their own.
var profileRules = []profileRule{
	{"firstname", 100, "", func(p *domain.Profile) *string { return &p.Firstname }},
	{"lastname", 100, "", func(p *domain.Profile) *string { return &p.Lastname }},
	{"phone", 30, "", func(p *domain.Profile) *string { return &p.Phone }},
	{"address", 200, "", func(p *domain.Profile) *string { return &p.Address }},
	{"city", 100, "", func(p *domain.Profile) *string { return &p.City }},
	{"state", 100, "", func(p *domain.Profile) *string { return &p.State }},
	{"country", 100, "", func(p *domain.Profile) *string { return &p.Country }},
	{"zipcode", 20, "", func(p *domain.Profile) *string { return &p.Zipcode }},
	{"bio", 2000, "", func(p *domain.Profile) *string { return &p.Bio }},
	{"taxid", 50, domain.RoleProvider, func(p *domain.Profile) *string { return &p.TaxID }},
	{"licensenumber", 50, domain.RoleProvider, func(p *domain.Profile) *string { return &p.LicenseNumber }},
	{"insurancenumber", 50, domain.RoleProvider, func(p *domain.Profile) *string { return &p.InsuranceNumber }},
	{"specialization", 100, domain.RoleProvider, func(p *domain.Profile) *string { return &p.Specialization }},
	{"bloodgroup", 10, domain.RolePatient, func(p *domain.Profile) *string { return &p.BloodGroup }},
	{"primphysician", 100, domain.RolePatient, func(p *domain.Profile) *string { return &p.PrimPhysician }},
}

// normalizeProfile validates a whole profile for a role and returns it
// cleaned: text trimmed, the gender spelled one way, and the fields of other
// roles emptied (product.md §5): provider details for providers, patient
// details for patients, neither for admins.
func normalizeProfile(errs *fieldErrors, in domain.Profile, role string, now time.Time) domain.Profile {
	out := in
	for _, r := range profileRules {
		value := r.field(&out)
		if r.role != "" && r.role != role {
			*value = ""
			continue
		}
		*value = cleanText(errs, r.name, *value, r.max)
	}
	out.DOB = validateDOB(errs, in.DOB, now)
	out.Gender = normalizeGender(errs, in.Gender)
	if out.Firstname == "" {
		errs.add("firstname", "is required")
	}
	if out.Lastname == "" {
		errs.add("lastname", "is required")
	}
	return out
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
