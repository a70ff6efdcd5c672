package secure

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"

	"github.com/medishare/medishare/internal/domain"
)

// HKDF info strings, one per purpose, so a key for one use is useless for
// another. Changing one invalidates everything hashed with it.
const (
	infoCodeHash  = "medishare/v1/code-hash"
	infoTokenHash = "medishare/v1/token-hash"
	infoSubkey    = "medishare/v1/subkey/" // + the caller's info
)

// Keys derives purpose-bound keys from the master key. Codes and tokens are
// stored only as keyed hashes (S4), so a leaked table alone does not let
// anyone use or guess them offline.
type Keys struct {
	master   []byte
	codeKey  []byte
	tokenKey []byte
}

// NewKeys derives the keys from a 32-byte master key.
// Errors: EINVALID when master is not 32 bytes.
func NewKeys(master []byte) (*Keys, error) {
	if len(master) != 32 {
		return nil, domain.Errorf(domain.EINVALID, "master key must be 32 bytes, not %d", len(master))
	}
	k := &Keys{master: append([]byte(nil), master...)}
	k.codeKey = k.derive(infoCodeHash)
	k.tokenKey = k.derive(infoTokenHash)
	return k, nil
}

// Subkey returns a 32-byte key for a later purpose (signed URLs, ...).
// Distinct info strings give independent keys; none equals a key Keys uses
// itself.
func (k *Keys) Subkey(info string) []byte {
	return k.derive(infoSubkey + info)
}

func (k *Keys) derive(info string) []byte {
	key, err := hkdf.Key(sha256.New, k.master, nil, info, 32)
	if err != nil {
		// Only possible for an over-long output or FIPS-refused hash; neither
		// applies to 32 bytes of SHA-256.
		panic(fmt.Sprintf("secure: hkdf: %v", err))
	}
	return key
}

// CodeHash returns the keyed hash under which a code is stored. purpose
// (e.g. "confirm", "reset") and subject (the user id) are part of the input,
// so a code is bound to one account and one purpose. Fields are length-
// prefixed so ("ab", "c") and ("a", "bc") hash differently.
func (k *Keys) CodeHash(purpose, subject, code string) []byte {
	m := hmac.New(sha256.New, k.codeKey)
	writeFields(m, purpose, subject, code)
	return m.Sum(nil)
}

// TokenHash returns the keyed hash under which a refresh or link token is
// stored. Tokens carry 256 random bits, so they need no binding input.
func (k *Keys) TokenHash(token string) []byte {
	m := hmac.New(sha256.New, k.tokenKey)
	m.Write([]byte(token))
	return m.Sum(nil)
}

// Equal compares two hashes in constant time.
func Equal(a, b []byte) bool {
	return hmac.Equal(a, b)
}

// writeFields writes each field to a hash, preceded by its length (eight
// bytes, big-endian), so that no two lists of fields give the same bytes:
// ("ab", "c") and ("a", "bc") hash differently. Codes, tokens and the audit
// chain's entries and checkpoints are hashed this way.
func writeFields(h hash.Hash, fields ...string) {
	var n [8]byte
	for _, f := range fields {
		binary.BigEndian.PutUint64(n[:], uint64(len(f)))
		h.Write(n[:]) // a hash's Write never fails
		h.Write([]byte(f))
	}
}
