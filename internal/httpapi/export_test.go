package httpapi

import "time"

// SetStreamTiming sets the message stream's keep-alive and session-check
// intervals for one test, putting them back after.
func SetStreamTiming(t interface{ Cleanup(func()) }, ping, check time.Duration) {
	oldPing, oldCheck := keepAlive, sessionCheck
	keepAlive, sessionCheck = ping, check
	t.Cleanup(func() { keepAlive, sessionCheck = oldPing, oldCheck })
}
