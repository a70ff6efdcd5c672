package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"

	"github.com/medishare/medishare/internal/domain"
)

// Body limits of api.md: JSON bodies 64 KiB.
const maxJSONBody = 64 << 10

// envelope is the success body: {"message", "data", "pagination"}.
type envelope struct {
	Message    string      `json:"message,omitempty"`
	Data       any         `json:"data,omitempty"`
	Pagination *Pagination `json:"pagination,omitempty"`
}

// Pagination is the paging object of list responses.
type Pagination struct {
	CurrentPage int  `json:"currentPage"`
	PageSize    int  `json:"pageSize"`
	TotalPages  int  `json:"totalPages"`
	TotalItems  int  `json:"totalItems"`
	HasPrevPage bool `json:"hasPrevPage"`
	HasNextPage bool `json:"hasNextPage"`
}

// errorBody is the error body: {"message", "error", "errors", "requestId"}.
type errorBody struct {
	Message   string              `json:"message"`
	Error     string              `json:"error,omitempty"`
	Errors    []domain.FieldError `json:"errors,omitempty"`
	RequestID string              `json:"requestId,omitempty"`
}

// writeJSON writes v as JSON with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(v); err != nil {
		slog.Debug("write response", "err", err)
	}
}

// writeOK writes a success envelope.
func writeOK(w http.ResponseWriter, status int, message string, data any) {
	writeJSON(w, status, envelope{Message: message, Data: data})
}

// writeError turns err into the API's error body and status. Only unexpected
// errors are logged as errors; their details never reach the client.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
		// The client went away: nobody reads the answer and nothing failed here.
		slog.Debug("request cancelled by the client", "request_id", requestID(r.Context()))
		return
	}
	kind := domain.ErrorKind(err)
	status := statusOf(kind)
	body := errorBody{Message: domain.ErrorMessage(err)}
	var e *domain.Error
	if errors.As(err, &e) {
		body.Error = e.Code
		body.Errors = e.Fields
		if e.RetryAfterSeconds > 0 {
			w.Header().Set("Retry-After", itoa(e.RetryAfterSeconds))
		}
	}
	if status >= 500 {
		body.RequestID = requestID(r.Context())
		level := slog.LevelError
		if kind == domain.EUNAVAILABLE {
			level = slog.LevelWarn
		}
		slog.Log(r.Context(), level, "request failed", "request_id", body.RequestID, "kind", kind, "err", err)
	}
	writeJSON(w, status, body)
}

// readJSON decodes a JSON body of at most limit bytes into dst.
// Errors: EUNSUPPORTED (not JSON), ETOOLARGE, EINVALID (malformed).
func readJSON(w http.ResponseWriter, r *http.Request, limit int64, dst any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return domain.Errorf(domain.EUNSUPPORTED, "Please send JSON (Content-Type: application/json).")
		}
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(dst); err != nil {
		var tooLarge *http.MaxBytesError
		var syntaxErr *json.SyntaxError
		var typeErr *json.UnmarshalTypeError
		switch {
		case errors.As(err, &tooLarge):
			return domain.Errorf(domain.ETOOLARGE, "The request is too large.")
		case errors.Is(err, io.EOF):
			return domain.Errorf(domain.EINVALID, "The request body is empty.")
		case errors.As(err, &typeErr) && typeErr.Field != "":
			// Embedded structs prefix the field with their type name; keep the JSON name.
			field := typeErr.Field[strings.LastIndexByte(typeErr.Field, '.')+1:]
			return domain.ValidationError("Please check the highlighted fields.",
				domain.FieldError{Field: field, Message: "has the wrong type"})
		case errors.As(err, &syntaxErr), errors.Is(err, io.ErrUnexpectedEOF):
			return domain.Errorf(domain.EINVALID, "The request body is not valid JSON.")
		default:
			return domain.Wrap(domain.EINVALID, err, "The request body is not valid JSON.")
		}
	}
	// One JSON value only: trailing data is a client bug worth reporting.
	if err := dec.Decode(&struct{}{}); !errors.Is(err, io.EOF) {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return domain.Errorf(domain.ETOOLARGE, "The request is too large.")
		}
		return domain.Errorf(domain.EINVALID, "The request body must hold a single JSON value.")
	}
	return nil
}
