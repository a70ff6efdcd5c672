package secure

import (
	"crypto/rand"
	"encoding/base64"
)

// RandomDigits returns n decimal digits from crypto/rand, each uniform over
// 0-9: bytes of 250 or more are redrawn, so there is no modulo bias.
// It returns "" for n <= 0.
func RandomDigits(n int) string {
	if n <= 0 {
		return ""
	}
	out := make([]byte, 0, n)
	buf := make([]byte, n+n/8+1) // a few spare bytes for the rare redraw
	for len(out) < n {
		rand.Read(buf) // never fails since Go 1.24: it crashes the program instead
		for _, b := range buf {
			if b < 250 && len(out) < n {
				out = append(out, '0'+b%10)
			}
		}
	}
	return string(out)
}

// RandomToken returns nBytes from crypto/rand as unpadded base64url, safe in
// URLs and cookies. Link tokens use 32 bytes.
func RandomToken(nBytes int) string {
	b := make([]byte, max(nBytes, 0))
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
