package postgres

import "testing"

// The directory's walk tests the text people typed, which reaches the store
// escaped for LIKE (service.escapeLike); unescapeLike must give it back.
func TestUnescapeLike(t *testing.T) {
	for escaped, raw := range map[string]string{
		`anders`:      `anders`,
		`50\%`:        `50%`,
		`a\_b`:        `a_b`,
		`back\\slash`: `back\slash`,
		`\\\%\\\_`:    `\%\_`,
	} {
		if got := unescapeLike(escaped); got != raw {
			t.Errorf("unescapeLike(%q) = %q, want %q", escaped, got, raw)
		}
	}
}
