package secure

import (
	"strings"
	"testing"

	"github.com/ccojocar/zxcvbn-go/match"
	"github.com/ccojocar/zxcvbn-go/matching"

	"github.com/medishare/medishare/internal/domain"
)

func TestCheckPasswordPolicy(t *testing.T) {
	const (
		short    = "Password must be at least 8 characters."
		long     = "Password must be at most 128 characters."
		common   = "This password is too common. Please choose another."
		personal = "Password must not contain your email or username."
	)
	// 128 characters with no pattern zxcvbn knows (four SHA-256 digests in hex).
	const hex128 = "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb" +
		"3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d"
	tests := []struct {
		name       string
		password   string
		userInputs []string
		want       string // "" for accepted
	}{
		{"empty", "", nil, short},
		{"7 characters", "jfk2ur9", nil, short},
		{"8 characters", "jfk2ur9q", nil, ""},
		{"8 characters counted as runes, not bytes", "ĵfķ2ür9q", nil, ""},
		{"7 runes in 14 bytes", "ĵfķ2ürq", nil, short},
		{"128 characters", hex128, nil, ""},
		{"129 characters", hex128 + "a", nil, long},
		{"129 runes", strings.Repeat("é", 129), nil, long},
		{"passphrase", "violet tractor sings at noon", nil, ""},
		{"password123", "password123", nil, common},
		{"qwertyuiop", "qwertyuiop", nil, common},
		{"iloveyou", "iloveyou", nil, common},
		{"leet variant", "P@ssw0rd1", nil, common},
		{"repeated character", "aaaaaaaaaaaa", nil, common},
		{"digit sequence", "1234567890", nil, common},
		{"common password repeated", "passwordpassword", nil, common},
		{"short unit repeated", strings.Repeat("ab", 64), nil, common},
		{"keyboard walk repeated, last copy cut", strings.Repeat("qwertyuiop", 13)[:128], nil, common},
		{"strong unit repeated", "jfk2ur9qjfk2ur9q", nil, ""},
		{"contains username", "zz-alice-2931-kq", []string{"alice"}, personal},
		{"contains username, other case", "zz-ALICE-2931-kq", []string{"Alice"}, personal},
		{"equals email local part", "bob.smith.md", []string{"bob.smith.md@example.com"}, personal},
		{"contains email local part", "My-bob.smith-pw-77", []string{"x", "bob.smith@example.com"}, personal},
		{"short username is not matched", "al-jfk2ur9q", []string{"al"}, ""},
		{"unrelated user inputs", "jfk2ur9q-violet", []string{"alice", "alice@example.com"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckPasswordPolicy(tt.password, tt.userInputs...)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			assertPasswordError(t, err, tt.want)
		})
	}
}

// A huge password is refused by its byte length, before anything looks at
// it (BenchmarkCheckPasswordPolicy times it).
func TestCheckPasswordPolicyRefusesHugeInput(t *testing.T) {
	assertPasswordError(t, CheckPasswordPolicy(strings.Repeat("x", 1<<20), "alice"), "Password must be at most 128 characters.")
}

// zxcvbn-go's l33t matcher is exponential in the l33t characters present
// (a crafted 128-character password took 6 s), so passwords longer than
// maxL33tRunes are judged without it; BenchmarkCheckPasswordPolicy times
// such a password.
func TestCheckPasswordPolicyLeavesOutTheL33tMatcher(t *testing.T) {
	l33t := match.Matcher{ID: matching.L33TMatcherName}
	for _, tt := range []struct {
		runes int
		left  bool
	}{{1, false}, {maxL33tRunes, false}, {maxL33tRunes + 1, true}, {maxPasswordRunes, true}} {
		left := false
		for _, filter := range matcherFilters(tt.runes) {
			left = left || filter(l33t)
		}
		if left != tt.left {
			t.Errorf("%d runes: l33t matcher left out %v, want %v", tt.runes, left, tt.left)
		}
	}
}

// crafted is a password of l33t characters that made the l33t matcher
// take 6 s.
const crafted = "z$l<<|1(112&@65|@+2%0@i3%6543<1+z0014%2@2[6|[&l620$7&45!2|1[7+l{5<&<o68|2[8z6@&83l8o6{o7l0@$i&z[+!l{[1o@{3|<&13[!326&+51|o%iz6{<"

// BenchmarkCheckPasswordPolicy times the policy on the inputs whose cost
// it bounds: a huge password, and l33t characters at and above the l33t
// matcher's limit.
func BenchmarkCheckPasswordPolicy(b *testing.B) {
	for _, bb := range []struct {
		name     string
		password string
	}{
		{"1 MB", strings.Repeat("x", 1<<20)},
		{"128 l33t characters", crafted},
		{"32 l33t characters", crafted[:32]},
		{"16 l33t characters", crafted[:16]},
		{"128 repeated characters", strings.Repeat("a", 128)},
	} {
		b.Run(bb.name, func(b *testing.B) {
			for b.Loop() {
				_ = CheckPasswordPolicy(bb.password, "alice@example.com")
			}
		})
	}
}

func TestRepeatedUnit(t *testing.T) {
	tests := []struct {
		name, s, want string // want "" for no repetition
	}{
		{"empty", "", ""},
		{"one rune", "a", ""},
		{"two equal", "aa", "a"},
		{"exact repetition", "abcabc", "abc"},
		{"cut last copy", "abcabca", "abc"},
		{"less than twice", "abcab", ""},
		{"no period", "password", ""},
		{"runes, not bytes", "éèéè", "éè"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(repeatedUnit([]rune(tt.s))); got != tt.want {
				t.Errorf("repeatedUnit(%q) = %q, want %q", tt.s, got, tt.want)
			}
		})
	}
}

func assertPasswordError(t *testing.T, err error, msg string) {
	t.Helper()
	e, ok := err.(*domain.Error)
	if !ok {
		t.Fatalf("err = %v, want a *domain.Error", err)
	}
	if e.Kind != domain.EVALIDATION || len(e.Fields) != 1 || e.Fields[0].Field != "password" || e.Fields[0].Message != msg {
		t.Errorf("err = %+v, want EVALIDATION with password: %q", e, msg)
	}
}

// The estimator is third-party code fed user input; it must not take the
// request down, whatever the input.
func FuzzCheckPasswordPolicy(f *testing.F) {
	for _, s := range []string{"password123", "İİİİİİİİpassword", "ẞẞẞẞpassword", "\xff\xfe\xfdabcdefgh", "jfk2ur9q"} {
		f.Add(s, "alice@example.com")
	}
	f.Fuzz(func(t *testing.T, password, input string) {
		err := CheckPasswordPolicy(password, input)
		if err != nil && domain.ErrorKind(err) != domain.EVALIDATION {
			t.Fatalf("err kind %q", domain.ErrorKind(err))
		}
	})
}
