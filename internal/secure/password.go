// Package secure holds the project's cryptography: password hashing, random
// codes and tokens, and keyed hashes for storing them (security.md S1, S2, S4).
package secure

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/crypto/argon2"

	"github.com/medishare/medishare/internal/domain"
)

// argonParams are the cost parameters of one hash; they travel inside the
// encoded string so old hashes keep verifying after the defaults change.
type argonParams struct {
	memory  uint32 // KiB
	time    uint32
	threads uint8
}

// defaultParams follow OWASP's argon2id minimum (19 MiB, t=2, p=1).
var defaultParams = argonParams{memory: 19 * 1024, time: 2, threads: 1}

const (
	saltLen = 16
	keyLen  = 32

	// Limits on stored hashes: a corrupted or hostile row must not make one
	// verification allocate gigabytes or spin for minutes.
	maxMemory  = 256 * 1024
	maxTime    = 10
	maxThreads = 16
	minSaltLen = 8
	maxSaltLen = 64
	minKeyLen  = 16
	maxKeyLen  = 64

	// No password allowed by the policy is longer than this, so longer input
	// is refused before it reaches argon2.
	maxPasswordBytes = maxPasswordRunes * 4

	busyMessage = "The service is busy. Please try again."
)

// dummyHash is verified for unknown accounts so they cost as much as known ones
// (S2). Its password was random and thrown away. It must use defaultParams; a
// test checks that.
const dummyHash = "$argon2id$v=19$m=19456,t=2,p=1$ufiS+30WQgKL8+j2zmU3Xw$fyYn2Tiumgz9uapoUXE11oZlPPAg4zVVELD7yFaf83M"

// Passwords hashes and verifies passwords with argon2id. Each hash takes about
// 19 MiB, so a semaphore bounds how many run at once.
type Passwords struct {
	slots  chan struct{}
	params argonParams
	// testHookHashing, when set, runs while a slot is held (tests count
	// concurrent hashes with it).
	testHookHashing func()
}

// NewPasswords returns a hasher that runs at most maxConcurrent hashes at once
// (at least 1).
func NewPasswords(maxConcurrent int) *Passwords {
	return &Passwords{slots: make(chan struct{}, max(maxConcurrent, 1)), params: defaultParams}
}

// Hash returns the PHC-format argon2id hash of password.
// Errors: EVALIDATION when the password is longer than any allowed password,
// EUNAVAILABLE when ctx ends while waiting for a hashing slot.
func (p *Passwords) Hash(ctx context.Context, password string) (string, error) {
	if len(password) > maxPasswordBytes {
		return "", tooLong()
	}
	salt := make([]byte, saltLen)
	rand.Read(salt) // never fails since Go 1.24: it crashes the program instead
	key, err := p.derive(ctx, password, salt, p.params, keyLen)
	if err != nil {
		return "", err
	}
	return encodeHash(p.params, salt, key), nil
}

// Verify reports whether password matches the encoded hash. The cost
// parameters are read from encoded, so hashes made with other parameters
// still verify. A wrong password is (false, nil).
// Errors: EINTERNAL when encoded is malformed or asks for absurd costs,
// EUNAVAILABLE when ctx ends while waiting for a hashing slot.
func (p *Passwords) Verify(ctx context.Context, encoded, password string) (bool, error) {
	params, salt, want, err := decodeHash(encoded)
	if err != nil {
		// The row is corrupt or not ours: a server fault, details for the log only.
		return false, domain.Wrap(domain.EINTERNAL, fmt.Errorf("password hash is malformed: %w", err), "Internal server error.")
	}
	if len(password) > maxPasswordBytes {
		// Could never have been set; skip the work (the timing says nothing
		// about whether the account exists).
		return false, nil
	}
	got, err := p.derive(ctx, password, salt, params, uint32(len(want)))
	if err != nil {
		return false, err
	}
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// VerifyDummy spends the time of one verification, for accounts that do not
// exist, so that response times do not reveal which emails are registered
// (S2). It returns nothing: the answer for an unknown account is always "no".
func (p *Passwords) VerifyDummy(ctx context.Context, password string) {
	_, _ = p.Verify(ctx, dummyHash, password)
}

// derive runs argon2id while holding a slot.
func (p *Passwords) derive(ctx context.Context, password string, salt []byte, params argonParams, n uint32) ([]byte, error) {
	// A request that is already gone must not take a slot from a live one.
	if err := ctx.Err(); err != nil {
		return nil, domain.Wrap(domain.EUNAVAILABLE, err, busyMessage)
	}
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, domain.Wrap(domain.EUNAVAILABLE, ctx.Err(), busyMessage)
	}
	defer func() { <-p.slots }()
	if p.testHookHashing != nil {
		p.testHookHashing()
	}
	return argon2.IDKey([]byte(password), salt, params.time, params.memory, params.threads, n), nil
}

var b64 = base64.RawStdEncoding // the PHC string format's alphabet, no padding

func encodeHash(params argonParams, salt, key []byte) string {
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, params.memory, params.time, params.threads,
		b64.EncodeToString(salt), b64.EncodeToString(key))
}

// decodeHash parses a PHC argon2id string strictly: exact field order, no
// extra text, costs within limits (argon2.IDKey panics on t=0 or p=0).
func decodeHash(encoded string) (params argonParams, salt, key []byte, err error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[0] != "" {
		return params, nil, nil, fmt.Errorf("want 5 $-separated fields")
	}
	if parts[1] != "argon2id" {
		return params, nil, nil, fmt.Errorf("algorithm %q is not argon2id", parts[1])
	}
	if parts[2] != "v="+strconv.Itoa(argon2.Version) {
		return params, nil, nil, fmt.Errorf("unsupported version %q", parts[2])
	}
	costs := strings.Split(parts[3], ",")
	if len(costs) != 3 {
		return params, nil, nil, fmt.Errorf("want m, t and p")
	}
	m, err1 := parseCost(costs[0], "m=", maxMemory)
	t, err2 := parseCost(costs[1], "t=", maxTime)
	p, err3 := parseCost(costs[2], "p=", maxThreads)
	if err1 != nil || err2 != nil || err3 != nil {
		return params, nil, nil, fmt.Errorf("bad costs %q", parts[3])
	}
	if m < 8*p { // RFC 9106: memory is at least 8 KiB per lane
		return params, nil, nil, fmt.Errorf("memory %d below 8*p", m)
	}
	params = argonParams{memory: m, time: t, threads: uint8(p)}
	if salt, err = b64.Strict().DecodeString(parts[4]); err != nil || len(salt) < minSaltLen || len(salt) > maxSaltLen {
		return params, nil, nil, fmt.Errorf("bad salt")
	}
	if key, err = b64.Strict().DecodeString(parts[5]); err != nil || len(key) < minKeyLen || len(key) > maxKeyLen {
		return params, nil, nil, fmt.Errorf("bad key")
	}
	return params, salt, key, nil
}

// parseCost reads "k=N" with 1 <= N <= limit, digits only.
func parseCost(s, prefix string, limit uint32) (uint32, error) {
	digits, ok := strings.CutPrefix(s, prefix)
	if !ok || digits == "" || len(digits) > 10 || strings.TrimLeft(digits, "0123456789") != "" {
		return 0, fmt.Errorf("bad %s", prefix)
	}
	n, err := strconv.ParseUint(digits, 10, 32)
	if err != nil || n < 1 || n > uint64(limit) {
		return 0, fmt.Errorf("bad %s", prefix)
	}
	return uint32(n), nil
}
