package secure

import (
	"crypto/rand"
	"crypto/subtle"
	"fmt"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/hotp"
	"github.com/pquerna/otp/totp"
)

// TOTP parameters (RFC 6238): what every authenticator app assumes.
const (
	TOTPPeriod = 30 // seconds a code lives
	TOTPDigits = 6
	// TOTPDrift is how many steps either side of now a code is accepted
	// for: a phone's clock may be a little off.
	TOTPDrift = 1
)

var totpOpts = hotp.ValidateOpts{Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// NewTOTP makes an authenticator secret (base32, 160 bits) and the
// otpauth:// URL an app scans to add it.
func NewTOTP(issuer, account string) (secret, url string, err error) {
	key, err := totp.Generate(totp.GenerateOpts{
		Issuer: issuer, AccountName: account, Period: TOTPPeriod, SecretSize: 20,
		Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1, Rand: rand.Reader,
	})
	if err != nil {
		return "", "", fmt.Errorf("secure: totp: %w", err)
	}
	return key.Secret(), key.URL(), nil
}

// TOTPStep is the time step of t.
func TOTPStep(t time.Time) int64 { return t.Unix() / TOTPPeriod }

// TOTPCode is the code of secret for a time step.
func TOTPCode(secret string, step int64) (string, error) {
	return hotp.GenerateCodeCustom(secret, uint64(step), totpOpts)
}

// MatchTOTP finds the time step, within the drift around now, whose code
// is code; ok is false when none is. Whether that step was used before is
// the caller's to check.
func MatchTOTP(secret, code string, now time.Time) (step int64, ok bool) {
	code = strings.TrimSpace(code)
	if len(code) != TOTPDigits {
		return 0, false
	}
	current := TOTPStep(now)
	for s := current - TOTPDrift; s <= current+TOTPDrift; s++ {
		want, err := TOTPCode(secret, s)
		if err == nil && subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			return s, true
		}
	}
	return 0, false
}

// recoveryAlphabet is lowercase base32: no 0, 1, 8 or 9 to mistake for
// letters.
const recoveryAlphabet = "abcdefghijklmnopqrstuvwxyz234567"

// RecoveryCode is a random recovery code, xxxxx-xxxxx (50 bits).
func RecoveryCode() string {
	b := make([]byte, 10)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("secure: random: %v", err)) // crypto/rand does not fail on supported systems
	}
	out := make([]byte, 0, 11)
	for i, c := range b {
		if i == 5 {
			out = append(out, '-')
		}
		out = append(out, recoveryAlphabet[c&31])
	}
	return string(out)
}

// NormalRecoveryCode is a recovery code as typed, in the form it is hashed
// in: lower case, without the hyphen or spaces; ok is false when it cannot
// be one.
func NormalRecoveryCode(s string) (string, bool) {
	s = strings.ToLower(strings.NewReplacer("-", "", " ", "").Replace(s))
	if len(s) != 10 || strings.Trim(s, recoveryAlphabet) != "" {
		return "", false
	}
	return s, true
}
