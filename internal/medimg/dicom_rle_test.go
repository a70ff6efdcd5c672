package medimg

import (
	"bytes"
	"testing"
)

func TestUnpackBits(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		n    int
		want []byte
		ok   bool
	}{
		{"literal", []byte{2, 'a', 'b', 'c'}, 3, []byte("abc"), true},
		{"run", []byte{0xFE, 'x'}, 3, []byte("xxx"), true}, // -2: three times
		{"no-op byte", []byte{0x80, 0, 'q'}, 1, []byte("q"), true},
		{"padding after n", []byte{1, 'a', 'b', 0xFF, 'z'}, 2, []byte("ab"), true},
		{"literal cut short", []byte{5, 'a'}, 6, nil, false},
		{"run without its byte", []byte{0xFD}, 4, nil, false},
		{"too few bytes", []byte{0, 'a'}, 2, nil, false},
	}
	for _, tt := range tests {
		got, err := unpackBits(tt.in, tt.n)
		if (err == nil) != tt.ok || !bytes.Equal(got, tt.want) {
			t.Errorf("%s: %q, %v", tt.name, got, err)
		}
	}
}

func TestDecodeRLERefusesBadHeaders(t *testing.T) {
	p := pixelModule{rows: 2, cols: 2, samples: 1, bitsAllocated: 16}
	header := func(segments uint32, offsets ...uint32) []byte {
		h := make([]byte, rleHeaderSize)
		h[0] = byte(segments)
		for i, o := range offsets {
			h[4+4*i] = byte(o)
		}
		return h
	}
	for name, frame := range map[string][]byte{
		"short":          make([]byte, 10),
		"segment count":  header(3, 64, 70, 80),
		"offset in head": header(2, 10, 70),
		"offset past":    header(2, 64, 200),
	} {
		if _, err := decodeRLE(frame, p); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}
