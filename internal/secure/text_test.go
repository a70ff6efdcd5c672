package secure

import (
	"bytes"
	"strings"
	"testing"
)

// TestTextSealer: a sealed text opens as the record it was sealed for, and
// as nothing else: not another record, not a flipped byte, not another
// master; and the clear text is nowhere in the sealed bytes.
func TestTextSealer(t *testing.T) {
	s, err := NewTextSealer(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	other, _ := NewTextSealer(bytes.Repeat([]byte{8}, 32))
	text := "Your scan is ready: see me on Tuesday. " + strings.Repeat("ü", 10)
	sealed := s.Seal("m-1", text)
	if bytes.Contains(sealed, []byte("scan")) {
		t.Fatal("the clear text is in the sealed bytes")
	}
	if got, err := s.Open("m-1", sealed); err != nil || got != text {
		t.Fatalf("Open = %q, %v", got, err)
	}
	if again := s.Seal("m-1", text); bytes.Equal(again, sealed) {
		t.Error("two seals of one text are equal: the nonce is not fresh")
	}
	flipped := bytes.Clone(sealed)
	flipped[len(flipped)-1] ^= 1
	for name, try := range map[string]func() (string, error){
		"another record":  func() (string, error) { return s.Open("m-2", sealed) },
		"a flipped byte":  func() (string, error) { return s.Open("m-1", flipped) },
		"another master":  func() (string, error) { return other.Open("m-1", sealed) },
		"a truncated one": func() (string, error) { return s.Open("m-1", sealed[:20]) },
	} {
		if got, err := try(); err == nil || got != "" {
			t.Errorf("%s opened: %q", name, got)
		}
	}
}
