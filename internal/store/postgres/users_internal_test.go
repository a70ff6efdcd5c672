package postgres

import (
	"slices"
	"testing"
)

// TestSearchGrams: the trigrams a search walks are its runs of three ASCII
// letters or digits, in lower case, each once; anything else only splits
// them.
func TestSearchGrams(t *testing.T) {
	for search, want := range map[string][]string{
		"Nders":      {"nde", "der", "ers"},
		"ann kow":    {"ann", "kow"},
		"seed.4242@": {"see", "eed", "424", "242"},
		"aaaa":       {"aaa"},
		"jo":         nil,
		"a_b-c d":    nil,
		"Łódź":       nil,
		"xŁabc":      {"abc"},
		"\u212aab":   nil, // the Kelvin sign is no K here, whatever Go's lower case says
	} {
		if got := searchGrams(search); !slices.Equal(got, want) {
			t.Errorf("searchGrams(%q) = %q, want %q", search, got, want)
		}
	}
}
