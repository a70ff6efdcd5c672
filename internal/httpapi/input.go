package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/medishare/medishare/internal/domain"
)

// Every string a request brings in (JSON members, form fields, query
// parameters) passes checkText here, at the edge: a NUL byte or invalid
// UTF-8 is refused with a field error in the product's words, instead of
// reaching PostgreSQL, which cannot store them.

const badTextMessage = "contains characters that are not allowed"

// checkText refuses a value that is not clean UTF-8 text.
func checkText(field, value string) error {
	if utf8.ValidString(value) && !strings.ContainsRune(value, 0) {
		return nil
	}
	return domain.ValidationError("The request contains characters that are not allowed.",
		domain.FieldError{Field: field, Message: badTextMessage})
}

// withCleanQuery refuses API requests whose query string is malformed or
// holds a parameter that is not clean text.
func withCleanQuery(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.RawQuery != "" {
			values, err := url.ParseQuery(r.URL.RawQuery)
			if err != nil {
				writeError(w, r, domain.Errorf(domain.EINVALID, "The query string is malformed."))
				return
			}
			for name, list := range values {
				for _, v := range append(list, name) {
					if err := checkText(name, v); err != nil {
						writeError(w, r, err)
						return
					}
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// readJSON decodes a JSON body of at most limit bytes into dst and checks
// every string in it. Errors: EUNSUPPORTED (not JSON), ETOOLARGE, EINVALID
// (malformed), EVALIDATION (a member of the wrong type, or not clean text).
func readJSON(w http.ResponseWriter, r *http.Request, limit int64, dst any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return domain.Errorf(domain.EUNSUPPORTED, "Please send JSON (Content-Type: application/json).")
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		if errors.As(err, new(*http.MaxBytesError)) {
			return errBodyTooLarge
		}
		return domain.Wrap(domain.EINVALID, err, "The request body could not be read.")
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		return domain.Errorf(domain.EINVALID, "The request body is empty.")
	}
	if !utf8.Valid(body) {
		return domain.Errorf(domain.EINVALID, "The request body is not valid UTF-8 text.")
	}
	if err := json.Unmarshal(body, dst); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			// Embedded structs prefix the field with their type name; keep the JSON name.
			field := typeErr.Field[strings.LastIndexByte(typeErr.Field, '.')+1:]
			return domain.ValidationError("Please check the highlighted fields.",
				domain.FieldError{Field: field, Message: "has the wrong type"})
		}
		var syntaxErr *json.SyntaxError
		if errors.As(err, &syntaxErr) && strings.Contains(syntaxErr.Error(), "after top-level value") {
			return domain.Errorf(domain.EINVALID, "The request body must hold a single JSON value.")
		}
		return domain.Wrap(domain.EINVALID, err, "The request body is not valid JSON.")
	}
	return checkStrings(reflect.ValueOf(dst), "")
}

var errBodyTooLarge = domain.Errorf(domain.ETOOLARGE, "The request is too large.")

// checkStrings walks a decoded value and checks every string in it, naming
// a bad one by its JSON member name.
func checkStrings(v reflect.Value, field string) error {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return checkStrings(v.Elem(), field)
	case reflect.String:
		return checkText(field, v.String())
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name := field // an embedded struct's members are the parent's
			if !f.Anonymous {
				name = jsonName(f)
			}
			if err := checkStrings(v.Field(i), name); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if err := checkStrings(v.Index(i), field); err != nil {
				return err
			}
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			if err := checkStrings(iter.Key(), field); err != nil {
				return err
			}
			// A map with text keys holds a JSON object's members: name a
			// bad value by its member.
			name := field
			if iter.Key().Kind() == reflect.String {
				name = iter.Key().String()
			}
			if err := checkStrings(iter.Value(), name); err != nil {
				return err
			}
		}
	}
	return nil
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" || name == "-" {
		return f.Name
	}
	return name
}

// cleanHeader makes a request header fit for the audit log: valid UTF-8
// without NUL, at most n bytes, cut at a character boundary.
func cleanHeader(s string, n int) string {
	s = strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
