package secure

import (
	"strings"
	"unicode/utf8"

	zxcvbn "github.com/ccojocar/zxcvbn-go"
	"github.com/ccojocar/zxcvbn-go/match"
	"github.com/ccojocar/zxcvbn-go/matching"

	"github.com/medishare/medishare/internal/domain"
)

const (
	minPasswordRunes = 8
	maxPasswordRunes = 128

	// minScore is zxcvbn's "somewhat guessable" (about 10^6 guesses); below
	// that are the common passwords and their obvious variants.
	minScore = 2

	// Shorter user inputs (a two-letter username) would refuse too much.
	minUserInputRunes = 3

	// zxcvbn-go's l33t matcher tries every substitution table the password's
	// characters allow, and that grows exponentially: a crafted 128-character
	// password took 6 s of CPU, 32 characters up to 0.1 s, 16 characters about
	// 10 ms. Common passwords in l33t disguise ("P@ssw0rd1") are short, so
	// longer ones are checked without that matcher (about 10-20 ms at 128).
	maxL33tRunes = 16
)

// CheckPasswordPolicy checks a new password (S1): 8 to 128 characters, not a
// common password or an easy variant of one (zxcvbn's bundled lists of common
// passwords, words and names, keyboard walks, sequences), and not containing
// the user's email local part or username (userInputs).
// Errors: EVALIDATION with a field error on "password".
func CheckPasswordPolicy(password string, userInputs ...string) error {
	// Bytes first: a 1 MB password is refused without counting its runes.
	if len(password) > maxPasswordBytes {
		return tooLong()
	}
	n := utf8.RuneCountInString(password)
	if n < minPasswordRunes {
		return passwordError("Password must be at least 8 characters.")
	}
	if n > maxPasswordRunes {
		return tooLong()
	}

	lower := strings.ToLower(password)
	inputs := make([]string, 0, len(userInputs))
	for _, in := range userInputs {
		in = strings.ToLower(strings.TrimSpace(in))
		if local, _, ok := strings.Cut(in, "@"); ok {
			in = local
		}
		if utf8.RuneCountInString(in) < minUserInputRunes {
			continue
		}
		if strings.Contains(lower, in) {
			return passwordError("Password must not contain your email or username.")
		}
		inputs = append(inputs, in)
	}

	if tooCommon(password, inputs) {
		return passwordError("This password is too common. Please choose another.")
	}
	return nil
}

// tooCommon asks zxcvbn. The estimator is third-party code run on user
// input: if it ever panics, fall back to "not common" rather than failing
// the request; the length rules still hold.
func tooCommon(password string, userInputs []string) (common bool) {
	defer func() {
		if recover() != nil {
			common = false
		}
	}()
	runes := []rune(password)
	// zxcvbn-go only knows repeats of one character; "passwordpassword" or
	// "abab..." are as weak as what they repeat, so judge the unit.
	if unit := repeatedUnit(runes); unit != nil {
		runes = unit
		password = string(unit)
	}
	r := zxcvbn.PasswordStrength(password, userInputs, matcherFilters(len(runes))...)
	if r.Score < minScore {
		return true
	}
	// A whole-password hit in the common-passwords list is refused whatever
	// the score says.
	for _, m := range r.MatchSequence {
		if m.Pattern == "dictionary" && m.DictionaryName == "Passwords" && m.I == 0 && m.J == len(runes)-1 {
			return true
		}
	}
	return false
}

// repeatedUnit returns u when s is u repeated at least twice (the last copy
// may be cut short), else nil. It uses the KMP failure function: the
// shortest period of s is len(s) minus its longest proper border.
func repeatedUnit(s []rune) []rune {
	n := len(s)
	if n < 2 {
		return nil
	}
	border := make([]int, n)
	for i := 1; i < n; i++ {
		k := border[i-1]
		for k > 0 && s[i] != s[k] {
			k = border[k-1]
		}
		if s[i] == s[k] {
			k++
		}
		border[i] = k
	}
	period := n - border[n-1]
	if 2*period > n {
		return nil
	}
	return s[:period]
}

func tooLong() error {
	return passwordError("Password must be at most 128 characters.")
}

func passwordError(msg string) error {
	return domain.ValidationError(msg, domain.FieldError{Field: "password", Message: msg})
}

// matcherFilters leave out of zxcvbn, for a password of n runes, the
// matchers whose cost grows too fast with n: the l33t matcher above
// maxL33tRunes.
func matcherFilters(n int) []func(match.Matcher) bool {
	if n > maxL33tRunes {
		return []func(match.Matcher) bool{matching.FilterL33tMatcher}
	}
	return nil
}
