package secure

import (
	"bytes"
	"testing"

	"github.com/medishare/medishare/internal/domain"
)

func testEnvelope(t testing.TB, fill byte) *Envelope {
	t.Helper()
	e, err := NewEnvelope(bytes.Repeat([]byte{fill}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestNewEnvelopeLength(t *testing.T) {
	tests := []struct {
		name string
		size int
		ok   bool
	}{
		{"empty", 0, false},
		{"16 bytes", 16, false},
		{"31 bytes", 31, false},
		{"32 bytes", 32, true},
		{"33 bytes", 33, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewEnvelope(make([]byte, tt.size))
			if tt.ok && err != nil {
				t.Fatalf("NewEnvelope: %v", err)
			}
			if !tt.ok && domain.ErrorKind(err) != domain.EINVALID {
				t.Fatalf("NewEnvelope: got %v, want EINVALID", err)
			}
		})
	}
}

func TestKeyID(t *testing.T) {
	a, a2, b := testEnvelope(t, 1), testEnvelope(t, 1), testEnvelope(t, 2)
	if len(a.KeyID()) != 8 {
		t.Fatalf("KeyID is %d bytes, want 8", len(a.KeyID()))
	}
	if !bytes.Equal(a.KeyID(), a2.KeyID()) {
		t.Error("same master, different key ids")
	}
	if bytes.Equal(a.KeyID(), b.KeyID()) {
		t.Error("different masters, same key id")
	}
	a.KeyID()[0] ^= 0xff // a copy: the envelope must not change
	if !bytes.Equal(a.KeyID(), a2.KeyID()) {
		t.Error("KeyID returned the envelope's own slice")
	}
}

func TestWrapUnwrap(t *testing.T) {
	e := testEnvelope(t, 1)
	key, wrapped, err := e.NewFileKey("file-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(key) != 32 || len(wrapped) != wrappedLen {
		t.Fatalf("key %d bytes, wrapped %d bytes", len(key), len(wrapped))
	}
	key2, wrapped2, _ := e.NewFileKey("file-1")
	if bytes.Equal(key, key2) || bytes.Equal(wrapped, wrapped2) {
		t.Fatal("two file keys are equal")
	}
	if !bytes.Equal(wrapped[1:9], e.KeyID()) {
		t.Fatal("wrapped key does not carry the key id")
	}
	flipped := func(i int) []byte {
		w := bytes.Clone(wrapped)
		w[i] ^= 1
		return w
	}
	tests := []struct {
		name    string
		env     *Envelope
		wrapped []byte
		fileID  string
		ok      bool
	}{
		{"same file", e, wrapped, "file-1", true},
		{"same master again", testEnvelope(t, 1), wrapped, "file-1", true},
		{"other file", e, wrapped, "file-2", false},
		{"other master", testEnvelope(t, 2), wrapped, "file-1", false},
		{"flipped version", e, flipped(0), "file-1", false},
		{"flipped key id", e, flipped(3), "file-1", false},
		{"flipped nonce", e, flipped(12), "file-1", false},
		{"flipped ciphertext", e, flipped(30), "file-1", false},
		{"flipped tag", e, flipped(wrappedLen - 1), "file-1", false},
		{"truncated", e, wrapped[:wrappedLen-1], "file-1", false},
		{"empty", e, nil, "file-1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.env.Unwrap(tt.wrapped, tt.fileID)
			if tt.ok {
				if err != nil || !bytes.Equal(got, key) {
					t.Fatalf("Unwrap = %x, %v; want the key", got, err)
				}
				return
			}
			assertUndecryptable(t, err)
			if got != nil {
				t.Fatal("Unwrap returned a key with an error")
			}
		})
	}
}

func assertUndecryptable(t testing.TB, err error) {
	t.Helper()
	if domain.ErrorKind(err) != domain.EINTERNAL || domain.ErrorMessage(err) != "The file could not be decrypted." {
		t.Fatalf("got %v, want EINTERNAL %q", err, "The file could not be decrypted.")
	}
}

func TestRewrap(t *testing.T) {
	old, cur, other := testEnvelope(t, 1), testEnvelope(t, 2), testEnvelope(t, 3)
	key, wrapped, _ := old.NewFileKey("file-1")

	rewrapped, err := cur.Rewrap(old, wrapped, "file-1")
	if err != nil {
		t.Fatal(err)
	}
	if !cur.Wraps(rewrapped) || old.Wraps(rewrapped) {
		t.Fatal("rewrapped key does not name the new master")
	}
	if got, err := cur.Unwrap(rewrapped, "file-1"); err != nil || !bytes.Equal(got, key) {
		t.Fatalf("Unwrap after Rewrap = %x, %v", got, err)
	}
	if _, err := old.Unwrap(rewrapped, "file-1"); err == nil {
		t.Fatal("the old master still opens the rewrapped key")
	}

	t.Run("already rewrapped", func(t *testing.T) {
		again, err := cur.Rewrap(old, rewrapped, "file-1")
		if err != nil || !bytes.Equal(again, rewrapped) {
			t.Fatalf("second Rewrap = %x, %v; want it unchanged", again, err)
		}
	})
	t.Run("wrong old master", func(t *testing.T) {
		_, err := cur.Rewrap(other, wrapped, "file-1")
		assertUndecryptable(t, err)
	})
	t.Run("no old envelope", func(t *testing.T) {
		_, err := cur.Rewrap(nil, wrapped, "file-1")
		assertUndecryptable(t, err)
	})
	t.Run("wrong file", func(t *testing.T) {
		_, err := cur.Rewrap(old, wrapped, "file-2")
		assertUndecryptable(t, err)
	})
}
