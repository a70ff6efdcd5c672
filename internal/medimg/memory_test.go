package medimg

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/adler32"
	"image"
	"image/color"
	"image/png"
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

// probeSide is the side of the PNG of the outside probe's finding 1.
const probeSide = 8000

var probeColour = color.NRGBA64{R: 0x7000, G: 0x4000, B: 0x8000, A: 0xF000}

// probePNG is that PNG: 8000 x 8000 pixels of 16-bit RGBA (512 MB once
// decoded) in one flat colour, under 1 MB stored.
func probePNG(tb testing.TB) []byte { return flatPNG(probeSide, false) }

// flatPNG is a side x side 16-bit RGBA PNG in probeColour, interlaced
// (Adam7) or not. Its rows are unfiltered and the same within a pass, so the
// zlib stream is each pass's row deflated once (flushed to a byte boundary,
// referring only to itself) and repeated: milliseconds to build, where
// deflating 512 MB takes a minute under the race detector.
func flatPNG(side int, interlaced bool) []byte {
	passes := [][4]int{{0, 0, 1, 1}}
	if interlaced {
		passes = [][4]int{{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4}, {0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2}}
	}
	z := []byte{0x78, 0xDA}
	var sum uint32 = 1 // the checksum of nothing
	for _, p := range passes {
		w, h := (side-p[0]+p[2]-1)/p[2], (side-p[1]+p[3]-1)/p[3]
		row := make([]byte, 1+8*w) // filter byte 0: None
		for x := range w {
			px := row[1+8*x:]
			binary.BigEndian.PutUint16(px, probeColour.R)
			binary.BigEndian.PutUint16(px[2:], probeColour.G)
			binary.BigEndian.PutUint16(px[4:], probeColour.B)
			binary.BigEndian.PutUint16(px[6:], probeColour.A)
		}
		var b bytes.Buffer
		fw, _ := flate.NewWriter(&b, flate.BestCompression)
		_, _ = fw.Write(row) // into a bytes.Buffer: cannot fail
		_ = fw.Flush()
		rowSum := adler32.Checksum(row)
		for range h {
			z = append(z, b.Bytes()...)
			sum = adler32Combine(sum, rowSum, int64(len(row)))
		}
	}
	z = append(z, 0x03, 0x00) // an empty final block
	z = binary.BigEndian.AppendUint32(z, sum)

	d := make([]byte, 13)
	binary.BigEndian.PutUint32(d, uint32(side))
	binary.BigEndian.PutUint32(d[4:], uint32(side))
	d[8], d[9] = 16, pngRGBA
	if interlaced {
		d[12] = 1
	}
	out := append(append([]byte{}, magicPNG...), pngChunk("IHDR", d)...)
	for i := 0; i < len(z); i += 64 << 10 {
		out = append(out, pngChunk("IDAT", z[i:min(i+64<<10, len(z))])...)
	}
	return append(out, pngChunk("IEND", nil)...)
}

// adler32Combine is zlib's adler32_combine: the checksum of A then B from
// theirs and B's length.
func adler32Combine(a, b uint32, lenB int64) uint32 {
	const base = 65521
	rem := uint32(lenB % base)
	sum1 := a & 0xFFFF
	sum2 := rem * sum1 % base
	sum1 += b&0xFFFF + base - 1
	sum2 += a>>16 + b>>16 + base - rem
	for sum1 >= base {
		sum1 -= base
	}
	for sum2 >= base {
		sum2 -= base
	}
	return sum2<<16 | sum1
}

// TestPreviewLargePNGStreams: the probe's PNG, 512 MB decoded, is previewed
// in a few MB: it is decoded row by row into the preview, never whole.
func TestPreviewLargePNGStreams(t *testing.T) {
	data := probePNG(t)
	var out bytes.Buffer
	var err error
	alloc := allocated(func() { err = preview(&out, data, PNG, 1024) })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d KiB PNG of %dx%d, 16-bit RGBA: %d KiB allocated to preview it", len(data)>>10, probeSide, probeSide, alloc>>10)
	if alloc > 32<<20 {
		t.Errorf("allocated %d MiB to preview it", alloc>>20)
	}
	pl, err := withOpen(bytesOpener(data), func(r io.Reader) (plan, error) { return testPreviewer.plan(r, int64(len(data)), PNG, 1024) })
	if err != nil || int64(alloc) > pl.bytes {
		t.Errorf("budget taken %d KiB (%v), allocated %d KiB", pl.bytes>>10, err, alloc>>10)
	}
	img, err := png.Decode(&out)
	if err != nil {
		t.Fatal(err)
	}
	if s := img.Bounds().Size(); s.X != 1024 || s.Y != 1024 {
		t.Fatalf("preview %v, want 1024x1024", s)
	}
	want := color.NRGBAModel.Convert(color.RGBAModel.Convert(probeColour))
	for _, p := range []image.Point{{0, 0}, {512, 700}, {1023, 1023}} {
		if got := color.NRGBAModel.Convert(img.At(p.X, p.Y)); !near(got, want, 1) {
			t.Errorf("pixel %v = %v, want %v", p, got, want)
		}
	}
}

func near(a, b color.Color, tol int32) bool {
	ar, ag, ab, aa := a.RGBA()
	br, bg, bb, ba := b.RGBA()
	d := func(x, y uint32) bool { v := int32(x>>8) - int32(y>>8); return v >= -tol && v <= tol }
	return d(ar, br) && d(ag, bg) && d(ab, bb) && d(aa, ba)
}
