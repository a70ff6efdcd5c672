package medimg

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/medishare/medishare/internal/domain"
)

// fixtureDir finds the DICOM fixtures in testdata/dicom at the repository
// root (the directory holding go.mod); testdata/dicom/README.md says what
// each one exercises.
func fixtureDir(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
	fixtures := filepath.Join(dir, "testdata", "dicom")
	if _, err := os.Stat(fixtures); err != nil {
		tb.Fatalf("DICOM fixtures missing: %v", err)
	}
	return fixtures
}

func readFixture(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(fixtureDir(tb), name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// wantKind fails unless err is a domain error of the given kind (and, if msg
// is not empty, with exactly that message).
func wantKind(tb testing.TB, err error, kind, msg string) {
	tb.Helper()
	var de *domain.Error
	if !errors.As(err, &de) {
		tb.Fatalf("got error %v, want a domain error of kind %s", err, kind)
	}
	if de.Kind != kind {
		tb.Fatalf("got kind %s (%v), want %s", de.Kind, err, kind)
	}
	if msg != "" && de.Message != msg {
		tb.Fatalf("got message %q, want %q", de.Message, msg)
	}
}

// testImage is a gradient with some colour, so scaling and colour checks have
// something to look at.
func testImage(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(x * 255 / max(w-1, 1)), uint8(y * 255 / max(h-1, 1)), 128, 255})
		}
	}
	return img
}

func encodeJPEG(tb testing.TB, img image.Image) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

func encodePNG(tb testing.TB, img image.Image) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

const gpsMarker = "GPSLatitude=52.3676N;GPSLongitude=4.9041E"

// exifSegment is an APP1 segment shaped like EXIF, carrying a GPS marker string.
func exifSegment() []byte {
	payload := append([]byte("Exif\x00\x00"), "MM\x00\x2a\x00\x00\x00\x08"+gpsMarker...)
	seg := []byte{0xFF, 0xE1, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(len(payload)+2))
	return append(seg, payload...)
}

// withSegmentsAfterSOI inserts raw segments right after the SOI marker.
func withSegmentsAfterSOI(jpg []byte, segs ...[]byte) []byte {
	out := append([]byte{}, jpg[:2]...)
	for _, s := range segs {
		out = append(out, s...)
	}
	return append(out, jpg[2:]...)
}

func segment(marker byte, payload []byte) []byte {
	seg := []byte{0xFF, marker, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(len(payload)+2))
	return append(seg, payload...)
}

// pngChunk builds one PNG chunk with a correct CRC.
func pngChunk(typ string, data []byte) []byte {
	c := make([]byte, 8, 12+len(data))
	binary.BigEndian.PutUint32(c, uint32(len(data)))
	copy(c[4:], typ)
	c = append(c, data...)
	return binary.BigEndian.AppendUint32(c, crc32.ChecksumIEEE(c[4:]))
}

func ihdr(w, h uint32) []byte {
	d := make([]byte, 13)
	binary.BigEndian.PutUint32(d, w)
	binary.BigEndian.PutUint32(d[4:], h)
	d[8], d[9] = 8, 6 // 8-bit RGBA
	return pngChunk("IHDR", d)
}

// insertPNGChunk puts a chunk right after IHDR.
func insertPNGChunk(p []byte, chunk []byte) []byte {
	at := len(magicPNG) + 25
	out := append([]byte{}, p[:at]...)
	out = append(out, chunk...)
	return append(out, p[at:]...)
}

// minimalPDF is a hand-written one-page PDF.
const minimalPDF = "%PDF-1.4\n" +
	"1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n" +
	"2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n" +
	"3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >> endobj\n" +
	"trailer << /Root 1 0 R >>\n%%EOF\n"

// dicomElement encodes one explicit VR little endian element.
func dicomElement(group, elem uint16, vr string, value []byte) []byte {
	b := binary.LittleEndian.AppendUint16(nil, group)
	b = binary.LittleEndian.AppendUint16(b, elem)
	b = append(b, vr...)
	if longLengthVR(vr) {
		b = append(b, 0, 0)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(value)))
	} else {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(value)))
	}
	return append(b, value...)
}

// dicomFile builds a Part 10 file (explicit VR little endian) from dataset
// elements; preamble is the 128-byte preamble (nil for zeros).
func dicomFile(preamble []byte, dataset ...[]byte) []byte {
	return dicomFileTS(preamble, tsExplicitLE+"\x00", dataset...)
}

// dicomFileTS is dicomFile with another transfer syntax (padded to an even
// length) in the meta group; the dataset is still explicit VR little endian.
func dicomFileTS(preamble []byte, ts string, dataset ...[]byte) []byte {
	meta := dicomElement(0x0002, 0x0001, "OB", []byte{0, 1})
	meta = append(meta, dicomElement(0x0002, 0x0010, "UI", []byte(ts))...)
	out := make([]byte, 128, 1024)
	copy(out, preamble)
	out = append(out, "DICM"...)
	out = append(out, dicomElement(0x0002, 0x0000, "UL", binary.LittleEndian.AppendUint32(nil, uint32(len(meta))))...)
	out = append(out, meta...)
	for _, e := range dataset {
		out = append(out, e...)
	}
	return out
}

func us(v uint16) []byte { return binary.LittleEndian.AppendUint16(nil, v) }

// syntheticDICOM is a 16-bit greyscale image of the given size with a
// patient name, whose pixel data is a simple ramp.
func syntheticDICOM(rows, cols int, patient string) []byte {
	// A 4096-step ramp, repeated by doubling copies (fast under -race).
	pix := make([]byte, 2*rows*cols)
	ramp := min(len(pix), 2*4096)
	for i := 0; i < ramp/2; i++ {
		binary.LittleEndian.PutUint16(pix[2*i:], uint16(i))
	}
	for n := ramp; n < len(pix); n *= 2 {
		copy(pix[n:], pix[:n])
	}
	return dicomFile(nil,
		dicomElement(0x0008, 0x0060, "CS", []byte("MR")),
		dicomElement(0x0010, 0x0010, "PN", []byte(patient)),
		dicomElement(0x0028, 0x0002, "US", us(1)),
		dicomElement(0x0028, 0x0004, "CS", []byte("MONOCHROME2 ")),
		dicomElement(0x0028, 0x0010, "US", us(uint16(rows))),
		dicomElement(0x0028, 0x0011, "US", us(uint16(cols))),
		dicomElement(0x0028, 0x0100, "US", us(16)),
		dicomElement(0x0028, 0x0101, "US", us(12)),
		dicomElement(0x0028, 0x0102, "US", us(11)),
		dicomElement(0x0028, 0x0103, "US", us(0)),
		dicomElement(0x7FE0, 0x0010, "OW", pix),
	)
}

// testBudget is the preview budget of a server with the default memory
// limit (768 MiB, half of it for previews).
const testBudget = 384 << 20

var testPreviewer = NewPreviewer(testBudget)

func bytesOpener(data []byte) Opener {
	return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
}

// preview renders a stored form as the server does.
func preview(dst io.Writer, data []byte, ct string, maxSide int) error {
	return testPreviewer.Preview(context.Background(), dst, bytesOpener(data), int64(len(data)), ct, maxSide)
}
