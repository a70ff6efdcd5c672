//go:build !race

package medimg

const raceEnabled = false
