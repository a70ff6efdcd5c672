//go:build race

package medimg

// raceEnabled: the race detector instruments allocations, which then cost
// more than in production.
const raceEnabled = true
