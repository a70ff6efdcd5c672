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
func normalizeGender(errs *fieldErrors, field, value string) string {
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
	errs.add(field, "must be Male, Female or Other")
	return ""
}

// validateDate accepts a date (YYYY-MM-DD, or an RFC 3339 time, whose date
// is kept) between 1900 and today.
func validateDate(errs *fieldErrors, field, value string, now time.Time) string {
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
		errs.add(field, "must be a date (YYYY-MM-DD)")
		return ""
	}
	if t.After(now) || t.Year() < 1900 {
		errs.add(field, "must be a date between 1900 and today")
		return ""
	}
	return value
}

// normalizeProfile validates a whole profile for a role by the fields of
// domain.ProfileFields and returns it cleaned: text trimmed, the gender
// spelled one way, and the fields of other roles emptied (product.md §5).
func normalizeProfile(errs *fieldErrors, in domain.Profile, role string, now time.Time) domain.Profile {
	out := in
	for _, f := range domain.ProfileFields {
		value := f.Of(&out)
		switch {
		case !f.For(role):
			*value = ""
		case f.Kind == domain.FieldDate:
			*value = validateDate(errs, f.Name, *value, now)
		case f.Kind == domain.FieldGender:
			*value = normalizeGender(errs, f.Name, *value)
		default:
			*value = cleanText(errs, f.Name, *value, f.Max)
		}
		if f.Required && *value == "" {
			errs.add(f.Name, "is required")
		}
	}
	return out
}

// errNotYourRole is the field error for a field of another role.
const errNotYourRole = "This field does not apply to your role."

// applyProfileChange returns the profile with the fields a change sends.
// A field of another role that carries a value is refused; an empty one
// changes nothing, so a form that sends every field empty still works.
func applyProfileChange(errs *fieldErrors, profile domain.Profile, change ProfileChange, role string) domain.Profile {
	for _, f := range domain.ProfileFields {
		value, sent := change[f.Name]
		switch {
		case !sent:
		case !f.For(role):
			if strings.TrimSpace(value) != "" {
				errs.add(f.Name, errNotYourRole)
			}
		default:
			*f.Of(&profile) = value
		}
	}
	return profile
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
