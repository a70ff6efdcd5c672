package domain

import "time"

// Zone is where the product shows dates and reads the dates people type
// (product.md §9): Pakistan time, which keeps no daylight saving, so the
// fixed offset stands in when the system has no time zone database.
var Zone = func() *time.Location {
	if loc, err := time.LoadLocation("Asia/Karachi"); err == nil {
		return loc
	}
	return time.FixedZone("PKT", 5*60*60)
}()
