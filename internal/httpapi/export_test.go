package httpapi

import "time"

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
