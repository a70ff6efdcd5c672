package secure

import (
	"bytes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"fmt"

	"github.com/medishare/medishare/internal/domain"
)

// infoTextKey binds the key that seals short texts (messages) to that use.
const infoTextKey = "medishare/v1/text"

// Sealed text format:
//
//	version (1) = 1 | key id (8) | nonce (12) | AES-256-GCM(text) (len + 16 tag)
//
// The associated data is version | key id | record id, so a sealed text
// only opens as the record it was sealed for (a text moved to another
// message does not open), under the master it names.
const (
	textVersion   = 1
	textHeaderLen = 1 + keyIDSize
	textNonceLen  = 12
)

// TextSealer seals texts that are health information (message contents)
// for storage in the database: a dump of it shows none of them.
type TextSealer struct {
	aead  cipher.AEAD
	keyID []byte
}

// NewTextSealer derives the sealing key from a 32-byte master key.
// Errors: EINVALID when master is not 32 bytes.
func NewTextSealer(master []byte) (*TextSealer, error) {
	if len(master) != 32 {
		return nil, domain.Errorf(domain.EINVALID, "master key must be 32 bytes, not %d", len(master))
	}
	key, err := hkdf.Key(sha256.New, master, nil, infoTextKey, 32)
	if err != nil {
		return nil, fmt.Errorf("secure: hkdf: %w", err)
	}
	aead, err := newGCM(key)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(key)
	return &TextSealer{aead: aead, keyID: sum[:keyIDSize]}, nil
}

func (s *TextSealer) ad(header []byte, recordID string) []byte {
	return append(bytes.Clone(header), recordID...)
}

// Seal returns text sealed for the record recordID.
func (s *TextSealer) Seal(recordID, text string) []byte {
	out := make([]byte, textHeaderLen+textNonceLen, textHeaderLen+textNonceLen+len(text)+s.aead.Overhead())
	out[0] = textVersion
	copy(out[1:], s.keyID)
	nonce := out[textHeaderLen:]
	if _, err := rand.Read(nonce); err != nil {
		panic(fmt.Sprintf("secure: random: %v", err)) // crypto/rand does not fail on supported systems
	}
	return s.aead.Seal(out, nonce, []byte(text), s.ad(out[:textHeaderLen], recordID))
}

// Open returns the text sealed for recordID.
// Errors: EINTERNAL when sealed is damaged, was made for another record or
// under another master.
func (s *TextSealer) Open(recordID string, sealed []byte) (string, error) {
	if len(sealed) < textHeaderLen+textNonceLen+s.aead.Overhead() || sealed[0] != textVersion || !bytes.Equal(sealed[1:textHeaderLen], s.keyID) {
		return "", domain.Errorf(domain.EINTERNAL, "The message could not be decrypted.")
	}
	nonce := sealed[textHeaderLen : textHeaderLen+textNonceLen]
	plain, err := s.aead.Open(nil, nonce, sealed[textHeaderLen+textNonceLen:], s.ad(sealed[:textHeaderLen], recordID))
	if err != nil {
		return "", domain.Wrap(domain.EINTERNAL, err, "The message could not be decrypted.")
	}
	return string(plain), nil
}

// KeyID identifies the sealing key (and so the master key); sealed texts
// carry it, so `medishare keys rotate` can find those under an old master.
func (s *TextSealer) KeyID() []byte { return bytes.Clone(s.keyID) }

// Reseal returns sealed, made under old (or already under s), sealed
// again under s for the same record.
// Errors: EINTERNAL when neither opens it.
func (s *TextSealer) Reseal(old *TextSealer, recordID string, sealed []byte) ([]byte, error) {
	text, err := old.Open(recordID, sealed)
	if err != nil {
		if text, err = s.Open(recordID, sealed); err != nil {
			return nil, err
		}
	}
	return s.Seal(recordID, text), nil
}
