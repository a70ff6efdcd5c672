// Package testutil holds what tests of every layer share: waiting for an
// effect (Eventually), counting audit entries (AuditCount), signing in
// through the API (SignIn), forging the audit log as whoever holds the
// database can (ForgeAuditLog) and keeping slow tests out of -short (Slow).
// The harnesses beside it start the real things: pgtest (PostgreSQL),
// s3test (an S3 server), apptest (the whole stack in the test's process)
// and proctest (the real program as a process).
package testutil

import (
	"testing"
	"time"
)

// EventuallyTimeout is how long Eventually waits before failing: long
// enough that a slow, busy machine (two cores, -race, other tests) never
// fails a test that works, since a wait that succeeds ends at once.
const EventuallyTimeout = 60 * time.Second

// Eventually waits until cond holds, and fails the test if it still does
// not after EventuallyTimeout; what names the awaited effect in the failure
// ("the mail to be sent"). cond is called at once, then after 1 ms, and
// then after waits that double up to 100 ms, so a quick effect is seen
// quickly and a slow one costs little. It is the tests' only polling loop:
// tests wait for an effect, never for time to pass. Call it from the
// test's goroutine (it calls t.Fatalf); cond may call t.Fatal too.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	start := time.Now()
	wait := time.Millisecond
	for !cond() {
		if time.Since(start) > EventuallyTimeout {
			t.Fatalf("waited %s for %s", EventuallyTimeout, what)
		}
		time.Sleep(wait)
		wait = min(2*wait, 100*time.Millisecond)
	}
}

// Slow skips the test under `go test -short`, the fast tier: the test
// starts real processes (the program, a PostgreSQL cluster of its own),
// stops them under load, or reads large corpora. `go test` without -short
// runs it.
func Slow(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("slow: not in the -short tier")
	}
}
