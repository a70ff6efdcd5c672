package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"

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
	// TotalAtLeast says totalItems is a lower bound (a search matching many).
	TotalAtLeast bool `json:"totalAtLeast,omitempty"`
}

// errorBody is the error body: {"message", "error", "errors", "requestId"}.
type errorBody struct {
	Message   string              `json:"message"`
	Error     string              `json:"error,omitempty"`
	Errors    []domain.FieldError `json:"errors,omitempty"`
	RequestID string              `json:"requestId,omitempty"`
	// MFARequired: the request needs a second-factor code too.
	MFARequired bool `json:"mfaRequired,omitempty"`
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
		body.MFARequired = e.MFARequired
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
