package medimg

import (
	"bytes"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

const streamSize = 10 << 20

// noise returns n bytes of 64 KiB of random data repeated: random enough for
// a parser that does not decode, and cheap under the race detector.
func noise(n int, seed byte) []byte {
	b := make([]byte, n)
	var key [32]byte
	key[0] = seed
	rand.NewChaCha8(key).Read(b[:min(n, 64<<10)])
	for k := 64 << 10; k < n; k *= 2 {
		copy(b[k:], b[:k])
	}
	return b
}

// bigJPEG is a ~10 MiB JPEG-shaped stream: a real header, an EXIF segment and
// random entropy-coded data (0xFF stuffed, restart markers every 64 KiB).
// Clean walks it without decoding, which is the point.
func bigJPEG(tb testing.TB) []byte {
	plain := encodeJPEG(tb, testImage(64, 64))
	sos := bytes.Index(plain, []byte{0xFF, 0xDA})
	sosLen := int(plain[sos+2])<<8 | int(plain[sos+3])
	out := make([]byte, 0, streamSize+streamSize/64)
	out = append(out, withSegmentsAfterSOI(plain[:sos+2+sosLen], exifSegment())...)
	scan := bytes.ReplaceAll(noise(streamSize, 1), []byte{0xFF}, []byte{0xFF, 0x00})
	for i := 0; i < len(scan); i += 64 << 10 {
		out = append(out, scan[i:min(i+64<<10, len(scan))]...)
		out = append(out, 0xFF, 0xD0+byte(i>>16)%8)
	}
	return append(out, 0xFF, 0xD9)
}

// bigPNG is a ~10 MiB PNG-shaped stream: a real signature and IHDR, a text
// chunk, and IDAT chunks of random bytes with correct CRCs (Clean checks the
// chunk structure, not the compressed data).
func bigPNG(tb testing.TB) []byte {
	out := make([]byte, 0, streamSize+streamSize/64)
	out = append(out, magicPNG...)
	out = append(out, ihdr(2000, 2000)...)
	out = append(out, pngChunk("tEXt", []byte("Author\x00someone"))...)
	data := noise(streamSize, 2)
	for i := 0; i < len(data); i += 64 << 10 {
		out = append(out, pngChunk("IDAT", data[i:min(i+64<<10, len(data))])...)
	}
	return append(out, pngChunk("IEND", nil)...)
}

// TestCleanStreams: Clean's memory does not grow with the file.
func TestCleanStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 10 MiB inputs")
	}
	tests := []struct {
		name string
		ct   string
		data []byte
	}{
		{name: "jpeg", ct: JPEG, data: bigJPEG(t)},
		{name: "png", ct: PNG, data: bigPNG(t)},
		{name: "dicom", ct: DICOM, data: syntheticDICOM(2290, 2290, "Doe^John")},
		{name: "pdf", ct: PDF, data: []byte(minimalPDF + strings.Repeat("%padding\n", streamSize/9))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.data) < 9<<20 {
				t.Fatalf("input only %d bytes", len(tc.data))
			}
			var n int64
			var err error
			alloc := allocated(func() {
				w := &countingWriter{}
				_, err = Clean(w, bytes.NewReader(tc.data), tc.ct)
				n = w.n
			})
			if err != nil {
				t.Fatal(err)
			}
			if n < int64(len(tc.data))-1<<10 {
				t.Errorf("wrote %d of %d bytes", n, len(tc.data))
			}
			t.Logf("%s: %d MiB in, %d KiB allocated", tc.name, len(tc.data)>>20, alloc>>10)
			if alloc > 4<<20 {
				t.Errorf("Clean allocated %d bytes for a %d byte file", alloc, len(tc.data))
			}
		})
	}
}

type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}

func BenchmarkClean(b *testing.B) {
	inputs := []struct {
		name string
		ct   string
		data []byte
	}{
		{name: "jpeg-10MiB", ct: JPEG, data: bigJPEG(b)},
		{name: "dicom-10MiB", ct: DICOM, data: syntheticDICOM(2290, 2290, "Doe^John")},
		{name: "dicom-CT_small", ct: DICOM, data: readFixture(b, "CT_small.dcm")},
	}
	for _, in := range inputs {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Clean(io.Discard, bytes.NewReader(in.data), in.ct); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
