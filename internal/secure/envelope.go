package secure

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"

	"github.com/medishare/medishare/internal/domain"
)

// infoEnvelopeKEK binds the key-encryption key to this one purpose, apart
// from the keys in keys.go (their infos never start with this string).
const infoEnvelopeKEK = "medishare/v1/envelope-kek"

// Wrapped key format (69 bytes):
//
//	version (1) = 1 | key id (8) | nonce (12) | AES-256-GCM(file key) (32 + 16 tag)
//
// The associated data is version | key id | file id, so a wrapped key only
// opens for the file it was made for, under the master it names.
const (
	wrapVersion   = 1
	keyIDSize     = 8
	wrapHeaderLen = 1 + keyIDSize
	fileKeySize   = 32
	wrappedLen    = wrapHeaderLen + 12 + fileKeySize + 16
)

// errUndecryptable is the one message a reader ever sees for a file that fails
// to open: which check failed would help an attacker, not the user.
const errUndecryptable = "The file could not be decrypted."

func decryptError(cause error) error {
	return domain.Wrap(domain.EINTERNAL, cause, errUndecryptable)
}

// Envelope wraps per-file keys with a key-encryption key derived from the
// master key (S14). The master itself never encrypts anything, so rotating it
// means re-wrapping 69-byte keys, not re-encrypting contents.
type Envelope struct {
	aead  cipher.AEAD
	keyID []byte
}

// NewEnvelope derives the key-encryption key from a 32-byte master key.
// Errors: EINVALID when master is not 32 bytes.
func NewEnvelope(master []byte) (*Envelope, error) {
	if len(master) != 32 {
		return nil, domain.Errorf(domain.EINVALID, "master key must be 32 bytes, not %d", len(master))
	}
	kek, err := hkdf.Key(sha256.New, master, nil, infoEnvelopeKEK, 32)
	if err != nil {
		return nil, fmt.Errorf("secure: hkdf: %w", err)
	}
	aead, err := newGCM(kek)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(kek)
	return &Envelope{aead: aead, keyID: sum[:keyIDSize]}, nil
}

func newGCM(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, domain.Wrap(domain.EINVALID, err, "content key must be 32 bytes")
	}
	return cipher.NewGCM(block)
}

// KeyID identifies the master key; wrapped keys carry it, so `medishare keys
// rotate` can find those still under an old master.
func (e *Envelope) KeyID() []byte { return bytes.Clone(e.keyID) }

// Wraps reports whether wrapped was made under this envelope's master. It
// only reads the key id; Unwrap still decides whether the key is genuine.
func (e *Envelope) Wraps(wrapped []byte) bool {
	return len(wrapped) == wrappedLen && wrapped[0] == wrapVersion &&
		bytes.Equal(wrapped[1:wrapHeaderLen], e.keyID)
}

// NewFileKey makes a fresh random 32-byte content key for one file and
// returns it with its wrapped form, to be stored beside the file's record.
// Errors: none in practice (crypto/rand cannot fail since Go 1.24).
func (e *Envelope) NewFileKey(fileID string) (key, wrapped []byte, err error) {
	key = make([]byte, fileKeySize)
	rand.Read(key)
	return key, e.wrap(key, fileID), nil
}

func (e *Envelope) wrap(key []byte, fileID string) []byte {
	out := make([]byte, wrapHeaderLen+12, wrappedLen)
	out[0] = wrapVersion
	copy(out[1:], e.keyID)
	nonce := out[wrapHeaderLen:]
	rand.Read(nonce) // random nonces are safe: a master wraps far fewer than 2^32 keys
	return e.aead.Seal(out, nonce, key, wrapAD(out[:wrapHeaderLen], fileID))
}

func wrapAD(header []byte, fileID string) []byte {
	return append(bytes.Clone(header), fileID...)
}

// Unwrap returns the content key of fileID from its wrapped form.
// Errors: EINTERNAL "The file could not be decrypted." when wrapped is
// malformed, made under another master, or made for another file.
func (e *Envelope) Unwrap(wrapped []byte, fileID string) ([]byte, error) {
	if len(wrapped) != wrappedLen || wrapped[0] != wrapVersion {
		return nil, decryptError(fmt.Errorf("wrapped key: bad length %d or version", len(wrapped)))
	}
	if !bytes.Equal(wrapped[1:wrapHeaderLen], e.keyID) {
		return nil, decryptError(fmt.Errorf("wrapped key: made under master %x, not %x", wrapped[1:wrapHeaderLen], e.keyID))
	}
	nonce := wrapped[wrapHeaderLen : wrapHeaderLen+12]
	key, err := e.aead.Open(nil, nonce, wrapped[wrapHeaderLen+12:], wrapAD(wrapped[:wrapHeaderLen], fileID))
	if err != nil {
		return nil, decryptError(fmt.Errorf("wrapped key: %w", err))
	}
	return key, nil
}

// Rewrap re-wraps a wrapped key under this envelope; old is the envelope of
// the previous master. A key already under this envelope is checked and
// returned as is, so an interrupted rotation can simply run again.
// Errors: EINTERNAL "The file could not be decrypted." when neither master
// opens wrapped for fileID.
func (e *Envelope) Rewrap(old *Envelope, wrapped []byte, fileID string) ([]byte, error) {
	if e.Wraps(wrapped) {
		if _, err := e.Unwrap(wrapped, fileID); err != nil {
			return nil, err
		}
		return bytes.Clone(wrapped), nil
	}
	if old == nil {
		return nil, decryptError(errors.New("wrapped key: under another master, and no old envelope given"))
	}
	key, err := old.Unwrap(wrapped, fileID)
	if err != nil {
		return nil, err
	}
	defer clear(key)
	return e.wrap(key, fileID), nil
}
