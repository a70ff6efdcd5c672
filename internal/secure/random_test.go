package secure

import (
	"encoding/base64"
	"strings"
	"testing"
)

func TestRandomDigits(t *testing.T) {
	tests := []struct {
		name string
		n    int
	}{
		{"negative", -1},
		{"zero", 0},
		{"one", 1},
		{"confirmation code", 4},
		{"reset or share code", 6},
		{"long", 300},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RandomDigits(tt.n)
			if len(got) != max(tt.n, 0) {
				t.Fatalf("len(RandomDigits(%d)) = %d", tt.n, len(got))
			}
			if strings.Trim(got, "0123456789") != "" {
				t.Errorf("RandomDigits(%d) = %q has a non-digit", tt.n, got)
			}
		})
	}
}

// Each position of a 6-digit code is uniform over 0-9: a chi-square test per
// position. The threshold (9 degrees of freedom) fails about once in 10^5 runs
// for a fair source, while a modulo bias of 256%10 would fail every time.
func TestRandomDigitsUniform(t *testing.T) {
	const draws, digits = 30000, 6
	var counts [digits][10]int
	for range draws {
		for i, c := range RandomDigits(digits) {
			counts[i][c-'0']++
		}
	}
	const expected = draws / 10.0
	for pos, row := range counts {
		chi2 := 0.0
		for _, c := range row {
			d := float64(c) - expected
			chi2 += d * d / expected
		}
		if chi2 > 40 {
			t.Errorf("position %d: chi-square %.1f over 9 dof, counts %v", pos, chi2, row)
		}
	}
}

func TestRandomToken(t *testing.T) {
	tests := []struct {
		name   string
		nBytes int
		length int
	}{
		{"negative", -1, 0},
		{"empty", 0, 0},
		{"session id", 16, 22},
		{"link token", 32, 43},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok := RandomToken(tt.nBytes)
			if len(tok) != tt.length {
				t.Errorf("len = %d, want %d", len(tok), tt.length)
			}
			b, err := base64.RawURLEncoding.Strict().DecodeString(tok)
			if err != nil || len(b) != max(tt.nBytes, 0) {
				t.Errorf("%q does not decode as unpadded base64url of %d bytes: %v", tok, tt.nBytes, err)
			}
		})
	}
	seen := map[string]bool{}
	for range 1000 {
		tok := RandomToken(32)
		if seen[tok] {
			t.Fatalf("token %q drawn twice", tok)
		}
		seen[tok] = true
	}
}
