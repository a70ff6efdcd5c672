package httpapi

import (
	"net/http"
	"time"

	"github.com/medishare/medishare/internal/service"
)

// SetStreamTiming sets the message stream's keep-alive and session-check
// intervals for one test, putting them back after. Set them before the
// test's server starts, in a test that does not call t.Parallel: every
// stream of the package reads them.
func SetStreamTiming(t interface{ Cleanup(func()) }, ping, check time.Duration) {
	oldPing, oldCheck := keepAlive, sessionCheck
	keepAlive, sessionCheck = ping, check
	t.Cleanup(func() { keepAlive, sessionCheck = oldPing, oldCheck })
}

// StreamTiming is the message stream's keep-alive and session-check intervals.
func StreamTiming() (ping, check time.Duration) { return keepAlive, sessionCheck }

// DICOMwebAuth is the middleware requireDICOMwebAuth over services s, for
// tests that wrap a handler of their own in it.
func DICOMwebAuth(s *service.Services) func(http.Handler) http.Handler {
	return (&api{Services: s}).requireDICOMwebAuth
}

// CallerID is the id of the caller a middleware put in r's context, or "".
func CallerID(r *http.Request) string {
	if p := principal(r); p != nil {
		return p.User.ID
	}
	return ""
}
