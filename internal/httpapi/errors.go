package httpapi

import (
	"net/http"
	"strconv"

	"github.com/medishare/medishare/internal/domain"
)

// statuses is the one table from error kinds to HTTP statuses (api.md).
var statuses = map[string]int{
	domain.EINVALID:         http.StatusBadRequest,
	domain.EUNAUTHENTICATED: http.StatusUnauthorized,
	domain.EFORBIDDEN:       http.StatusForbidden,
	domain.ENOTFOUND:        http.StatusNotFound,
	domain.ECONFLICT:        http.StatusConflict,
	domain.EGONE:            http.StatusGone,
	domain.ETOOLARGE:        http.StatusRequestEntityTooLarge,
	domain.EUNSUPPORTED:     http.StatusUnsupportedMediaType,
	domain.EVALIDATION:      http.StatusUnprocessableEntity,
	domain.ETHROTTLED:       http.StatusTooManyRequests,
	domain.EUNAVAILABLE:     http.StatusServiceUnavailable,
	domain.EINTERNAL:        http.StatusInternalServerError,
}

func statusOf(kind string) int {
	if s, ok := statuses[kind]; ok {
		return s
	}
	return http.StatusInternalServerError
}

func itoa(n int) string { return strconv.Itoa(n) }
