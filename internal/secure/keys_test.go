package secure

import (
	"bytes"
	"encoding/hex"
	"testing"

	"github.com/medishare/medishare/internal/domain"
)

func testKeys(t *testing.T, fill byte) *Keys {
	t.Helper()
	k, err := NewKeys(bytes.Repeat([]byte{fill}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestNewKeysLength(t *testing.T) {
	tests := []struct {
		name string
		size int
		ok   bool
	}{
		{"nil", -1, false},
		{"empty", 0, false},
		{"16 bytes", 16, false},
		{"31 bytes", 31, false},
		{"32 bytes", 32, true},
		{"33 bytes", 33, false},
		{"64 bytes", 64, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var master []byte
			if tt.size >= 0 {
				master = make([]byte, tt.size)
			}
			k, err := NewKeys(master)
			if tt.ok != (err == nil) || tt.ok != (k != nil) {
				t.Fatalf("NewKeys(%d bytes) = %v, %v", tt.size, k, err)
			}
			if !tt.ok && domain.ErrorKind(err) != domain.EINVALID {
				t.Errorf("err kind = %q, want EINVALID", domain.ErrorKind(err))
			}
		})
	}
}

func TestCodeHashBinding(t *testing.T) {
	k := testKeys(t, 1)
	base := k.CodeHash("reset", "user-1", "123456")
	tests := []struct {
		name string
		hash []byte
	}{
		{"other purpose", k.CodeHash("confirm", "user-1", "123456")},
		{"other subject", k.CodeHash("reset", "user-2", "123456")},
		{"other code", k.CodeHash("reset", "user-1", "123457")},
		{"field boundary moved", k.CodeHash("rese", "tuser-1", "123456")},
		{"fields swapped", k.CodeHash("user-1", "reset", "123456")},
		{"other master key", testKeys(t, 2).CodeHash("reset", "user-1", "123456")},
		{"token hash of the same text", k.TokenHash("123456")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if Equal(tt.hash, base) {
				t.Error("hash equals the base hash")
			}
		})
	}
	if !Equal(k.CodeHash("reset", "user-1", "123456"), base) {
		t.Error("CodeHash is not deterministic")
	}
}

// Stored hashes outlive releases: a change to the encoding or the derivation
// would void every pending code and token, so it must be deliberate.
// The expected values were computed independently (Python hmac/hashlib,
// RFC 5869 HKDF) with a master key of 32 bytes of 0x01.
func TestHashesAreStable(t *testing.T) {
	k := testKeys(t, 1)
	tests := []struct {
		name string
		got  []byte
		want string
	}{
		{"code hash", k.CodeHash("reset", "user-1", "123456"), "44ef8fdf8bbc2a751c04689e493440225aa02566e0cbf62d7ec57a06230d30e8"},
		{"token hash", k.TokenHash("tok"), "72116c7d2986e2cc278a01b87269275e074ffc53a21c99f339dfb38d48464703"},
		{"subkey", k.Subkey("signed-url"), "17b682b2db87c0debe936470ebcb6d6a3a1c22bc2d06cbd3666f68e192f46b24"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := hex.EncodeToString(tt.got); got != tt.want {
				t.Errorf("= %s, want %s", got, tt.want)
			}
		})
	}
}

func TestSubkey(t *testing.T) {
	k := testKeys(t, 1)
	a, b := k.Subkey("signed-url"), k.Subkey("other")
	if len(a) != 32 || Equal(a, b) || !Equal(a, k.Subkey("signed-url")) {
		t.Errorf("subkeys: %x %x", a, b)
	}
	// A caller cannot reach the keys Keys uses itself.
	if Equal(k.Subkey(infoCodeHash), k.codeKey) || Equal(k.Subkey(""), k.codeKey) || Equal(k.Subkey(""), k.tokenKey) {
		t.Error("a subkey equals an internal key")
	}
}

func TestNewKeysCopiesMaster(t *testing.T) {
	master := bytes.Repeat([]byte{1}, 32)
	k, err := NewKeys(master)
	if err != nil {
		t.Fatal(err)
	}
	before := k.Subkey("x")
	master[0] = 9
	if !Equal(before, k.Subkey("x")) {
		t.Error("changing the caller's slice changed the keys")
	}
}

func TestEqual(t *testing.T) {
	tests := []struct {
		name string
		a, b []byte
		want bool
	}{
		{"same", []byte{1, 2, 3}, []byte{1, 2, 3}, true},
		{"both empty", nil, []byte{}, true},
		{"one byte differs", []byte{1, 2, 3}, []byte{1, 2, 4}, false},
		{"prefix", []byte{1, 2}, []byte{1, 2, 3}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Equal(tt.a, tt.b); got != tt.want {
				t.Errorf("Equal = %v, want %v", got, tt.want)
			}
		})
	}
}
