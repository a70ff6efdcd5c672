// Package domain holds the entities and error kinds shared by every layer.
// It imports nothing of the project.
package domain

import (
	"errors"
	"fmt"
)

// Error kinds. A service says what went wrong; the HTTP layer decides the status.
const (
	EINVALID         = "invalid"         // malformed request
	EUNAUTHENTICATED = "unauthenticated" // no or bad credentials
	EFORBIDDEN       = "forbidden"       // authenticated but not allowed
	ENOTFOUND        = "not_found"       // missing or not visible to the caller
	ECONFLICT        = "conflict"        // clashes with existing state
	EGONE            = "gone"            // expired or voided
	ETOOLARGE        = "too_large"       // body or file over its limit
	EUNSUPPORTED     = "unsupported"     // wrong media type
	EVALIDATION      = "validation"      // field errors
	ETHROTTLED       = "throttled"       // too many attempts
	EUNAVAILABLE     = "unavailable"     // a dependency is down
	EINTERNAL        = "internal"        // a bug or an unexpected failure
)

// FieldError is one field's validation message.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Error is an error meant for the person in front of the screen.
// Message is shown as is; Code is an optional machine-readable tag
// (the "error" member of the API's error body).
type Error struct {
	Kind    string
	Message string
	Code    string
	Fields  []FieldError
	// RetryAfterSeconds is set on ETHROTTLED errors.
	RetryAfterSeconds int
	// MFARequired says the request needs a second-factor code besides
	// (a password reset of an account that has one).
	MFARequired bool
	// Err is the underlying cause, never shown to the client.
	Err error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Kind, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Kind, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an error of the given kind with a formatted message.
func Errorf(kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an error of the given kind that keeps err as its hidden cause.
func Wrap(kind string, err error, message string) *Error {
	return &Error{Kind: kind, Message: message, Err: err}
}

// ValidationError returns an EVALIDATION error carrying field messages.
func ValidationError(message string, fields ...FieldError) *Error {
	return &Error{Kind: EVALIDATION, Message: message, Fields: fields}
}

// ErrorKind returns the kind of err, or EINTERNAL for errors that are not *Error.
func ErrorKind(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return EINTERNAL
}

// ErrorMessage returns the user-facing message of err, or a generic one for
// errors that are not *Error (their text may hold internal details).
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Message != "" {
		return e.Message
	}
	return "Internal server error."
}
