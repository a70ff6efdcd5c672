package medimg

import (
	"bytes"
	"errors"
	"image/jpeg"
	"image/png"
	"io"
	"strings"
	"testing"

	"github.com/medishare/medishare/internal/domain"
)

// scanData returns the bytes from the first SOS marker to the end: the
// entropy-coded data that must survive cleaning byte for byte.
func scanData(t *testing.T, jpg []byte) []byte {
	t.Helper()
	i := bytes.Index(jpg, []byte{0xFF, 0xDA})
	if i < 0 {
		t.Fatal("no SOS marker")
	}
	return jpg[i:]
}

func TestCleanJPEG(t *testing.T) {
	plain := encodeJPEG(t, testImage(64, 48))
	jfifWithThumb := segment(0xE0, append([]byte("JFIF\x00\x01\x01\x00\x00\x48\x00\x48\x02\x02"), make([]byte, 12)...))
	adobe := segment(0xEE, []byte("Adobe\x00\x64\x00\x00\x00\x00\x01"))
	icc := segment(0xE2, append([]byte("ICC_PROFILE\x00\x01\x01"), make([]byte, 64)...))
	xmp := segment(0xE1, []byte("http://ns.adobe.com/xap/1.0/\x00<x:xmpmeta GPSLatitude/>"))
	iptc := segment(0xED, []byte("Photoshop 3.0\x00 caption: patient John Doe"))
	comment := segment(0xFE, []byte("patient John Doe"))

	tests := []struct {
		name     string
		in       []byte
		gone     []string // must not appear in the output
		kept     [][]byte // segments that must survive unchanged
		wantJFIF bool
	}{
		{name: "EXIF with GPS", in: withSegmentsAfterSOI(plain, exifSegment()), gone: []string{"Exif", gpsMarker, "GPS"}},
		{name: "XMP, IPTC and comment", in: withSegmentsAfterSOI(plain, xmp, iptc, comment), gone: []string{"xmpmeta", "Photoshop", "John Doe"}},
		{name: "ICC and Adobe kept", in: withSegmentsAfterSOI(plain, icc, adobe, exifSegment()), gone: []string{"Exif"}, kept: [][]byte{icc, adobe}},
		{name: "JFIF thumbnail dropped", in: withSegmentsAfterSOI(plain, jfifWithThumb), wantJFIF: true},
		{name: "trailing data after EOI", in: append(withSegmentsAfterSOI(plain, exifSegment()), "PK\x03\x04 hidden archive"...), gone: []string{"PK\x03\x04", "hidden"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			info, err := Clean(&out, bytes.NewReader(tc.in), JPEG)
			if err != nil {
				t.Fatal(err)
			}
			if info.ContentType != JPEG || info.Width != 64 || info.Height != 48 || info.DICOM != nil {
				t.Errorf("Info = %+v", info)
			}
			got := out.Bytes()
			for _, s := range tc.gone {
				if bytes.Contains(got, []byte(s)) {
					t.Errorf("output still contains %q", s)
				}
			}
			for _, seg := range tc.kept {
				if !bytes.Contains(got, seg) {
					t.Errorf("segment %q was not kept", seg[4:min(len(seg), 16)])
				}
			}
			if tc.wantJFIF {
				want := []byte("JFIF\x00\x01\x01\x00\x00\x48\x00\x48\x00\x00")
				if !bytes.Contains(got, want) || bytes.Contains(got, make([]byte, 12)) {
					t.Error("JFIF header not kept without its thumbnail")
				}
			}
			// No re-encoding: the scan is byte-identical, and it still decodes.
			if !bytes.Equal(scanData(t, got), scanData(t, plain)) {
				t.Error("entropy-coded data changed")
			}
			if _, err := jpeg.Decode(bytes.NewReader(got)); err != nil {
				t.Errorf("cleaned JPEG does not decode: %v", err)
			}
		})
	}
}

func TestCleanJPEGRefused(t *testing.T) {
	plain := encodeJPEG(t, testImage(16, 16))
	sof := bytes.Index(plain, []byte{0xFF, 0xC0})
	withSize := func(w, h uint16) []byte {
		b := append([]byte{}, plain...)
		b[sof+5], b[sof+6] = byte(h>>8), byte(h)
		b[sof+7], b[sof+8] = byte(w>>8), byte(w)
		return b
	}
	tests := []struct {
		name string
		in   []byte
		kind string
		msg  string
	}{
		{name: "SOF claims 60000x60000", in: withSize(60000, 60000), kind: domain.EVALIDATION, msg: msgTooLarge},
		{name: "SOF claims 30001 wide", in: withSize(30001, 10), kind: domain.EVALIDATION, msg: msgTooLarge},
		{name: "SOF claims 12000x9000", in: withSize(12000, 9000), kind: domain.EVALIDATION, msg: msgTooLarge},
		{name: "SOF with zero height", in: withSize(16, 0), kind: domain.EUNSUPPORTED, msg: msgInvalidType},
		{name: "truncated", in: plain[:len(plain)/2], kind: domain.EUNSUPPORTED, msg: msgInvalidType},
		{name: "no EOI", in: plain[:len(plain)-2], kind: domain.EUNSUPPORTED, msg: msgInvalidType},
		{name: "garbage between segments", in: append(append([]byte{}, plain[:2]...), append([]byte("xx"), plain[2:]...)...), kind: domain.EUNSUPPORTED, msg: msgInvalidType},
		{name: "SOS before SOF", in: []byte{0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02, 0x00, 0xFF, 0xD9}, kind: domain.EUNSUPPORTED, msg: msgInvalidType},
		{name: "not a JPEG", in: []byte("GIF89a........"), kind: domain.EUNSUPPORTED, msg: msgInvalidType},
		{name: "empty", in: nil, kind: domain.EUNSUPPORTED, msg: msgInvalidType},
		{name: "segment length below 2", in: []byte{0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x01}, kind: domain.EUNSUPPORTED, msg: msgInvalidType},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Clean(io.Discard, bytes.NewReader(tc.in), JPEG)
			wantKind(t, err, tc.kind, tc.msg)
		})
	}
}

func TestCleanPNG(t *testing.T) {
	plain := encodePNG(t, testImage(40, 30))
	tests := []struct {
		name string
		in   []byte
		gone []string
	}{
		{name: "tEXt removed", in: insertPNGChunk(plain, pngChunk("tEXt", []byte("Comment\x00patient John Doe"))), gone: []string{"tEXt", "John Doe"}},
		{name: "all metadata chunks removed", in: insertPNGChunk(insertPNGChunk(insertPNGChunk(insertPNGChunk(insertPNGChunk(plain,
			pngChunk("eXIf", []byte("MM\x00\x2a"+gpsMarker))),
			pngChunk("zTXt", []byte("k\x00\x00x"))),
			pngChunk("iTXt", []byte("k\x00\x00\x00\x00\x00secret"))),
			pngChunk("tIME", []byte{0x07, 0xE8, 1, 2, 3, 4, 5})),
			pngChunk("tEXt", []byte("a\x00b"))),
			gone: []string{"eXIf", "zTXt", "iTXt", "tIME", "tEXt", "GPS", "secret"}},
		{name: "trailing data after IEND", in: append(append([]byte{}, plain...), "<script>"...), gone: []string{"<script>"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			info, err := Clean(&out, bytes.NewReader(tc.in), PNG)
			if err != nil {
				t.Fatal(err)
			}
			if info.ContentType != PNG || info.Width != 40 || info.Height != 30 {
				t.Errorf("Info = %+v", info)
			}
			for _, s := range tc.gone {
				if bytes.Contains(out.Bytes(), []byte(s)) {
					t.Errorf("output still contains %q", s)
				}
			}
			if !bytes.Equal(out.Bytes(), plain) {
				t.Error("output is not the PNG without the metadata chunks")
			}
			if _, err := png.Decode(&out); err != nil {
				t.Errorf("cleaned PNG does not decode: %v", err)
			}
		})
	}
}

// bombPNG is a tiny file whose header claims w x h: signature, IHDR, IEND.
func bombPNG(w, h uint32) []byte {
	b := append([]byte{}, magicPNG...)
	b = append(b, ihdr(w, h)...)
	return append(b, pngChunk("IEND", nil)...)
}

func TestCleanPNGRefused(t *testing.T) {
	plain := encodePNG(t, testImage(8, 8))
	badCRC := append([]byte{}, plain...)
	badCRC[len(badCRC)-20] ^= 0xFF // inside the last IDAT
	tests := []struct {
		name string
		in   []byte
		kind string
		msg  string
	}{
		{name: "IHDR claims 50000x50000", in: bombPNG(50000, 50000), kind: domain.EVALIDATION, msg: msgTooLarge},
		{name: "IHDR claims 2^31-1 wide", in: bombPNG(0x7FFFFFFF, 1), kind: domain.EVALIDATION, msg: msgTooLarge},
		{name: "IHDR claims 20000x20000", in: bombPNG(20000, 20000), kind: domain.EVALIDATION, msg: msgTooLarge},
		{name: "no IDAT", in: bombPNG(10, 10), kind: domain.EUNSUPPORTED, msg: msgInvalidType},
		{name: "zero width", in: bombPNG(0, 10), kind: domain.EUNSUPPORTED, msg: msgInvalidType},
		{name: "bad CRC", in: badCRC, kind: domain.EUNSUPPORTED, msg: msgInvalidType},
		{name: "truncated", in: plain[:len(plain)-6], kind: domain.EUNSUPPORTED, msg: msgInvalidType},
		{name: "chunk length over 2^31", in: append(append([]byte{}, plain[:33]...), 0x80, 0, 0, 0, 'I', 'D', 'A', 'T'), kind: domain.EUNSUPPORTED, msg: msgInvalidType},
		{name: "first chunk not IHDR", in: append(append([]byte{}, magicPNG...), pngChunk("IEND", nil)...), kind: domain.EUNSUPPORTED, msg: msgInvalidType},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Clean(io.Discard, bytes.NewReader(tc.in), PNG)
			wantKind(t, err, tc.kind, tc.msg)
		})
	}
}

func TestCleanPDF(t *testing.T) {
	var out bytes.Buffer
	info, err := Clean(&out, strings.NewReader(minimalPDF), PDF)
	if err != nil {
		t.Fatal(err)
	}
	if info.ContentType != PDF || out.String() != minimalPDF {
		t.Errorf("Info = %+v, output changed: %v", info, out.String() != minimalPDF)
	}
	_, err = Clean(io.Discard, strings.NewReader("%PS-Adobe"), PDF)
	wantKind(t, err, domain.EUNSUPPORTED, msgInvalidType)
}

func TestCleanUnknownType(t *testing.T) {
	_, err := Clean(io.Discard, strings.NewReader("GIF89a"), "image/gif")
	wantKind(t, err, domain.EUNSUPPORTED, msgInvalidType)
}

// TestCleanPassesIOErrors: a failing upload or store is reported as itself,
// not as a bad file, so the caller can map a body-size limit to 413.
func TestCleanPassesIOErrors(t *testing.T) {
	errBody := errors.New("http: request body too large")
	errStore := errors.New("bucket unavailable")
	dcm := syntheticDICOM(16, 16, "X")
	tests := []struct {
		name string
		ct   string
		src  io.Reader
		dst  io.Writer
		want error
	}{
		{name: "jpeg read", ct: JPEG, src: io.MultiReader(bytes.NewReader(encodeJPEG(t, testImage(8, 8))[:100]), errReader{errBody}), dst: io.Discard, want: errBody},
		{name: "png read", ct: PNG, src: io.MultiReader(bytes.NewReader(encodePNG(t, testImage(8, 8))[:40]), errReader{errBody}), dst: io.Discard, want: errBody},
		{name: "pdf read", ct: PDF, src: io.MultiReader(strings.NewReader(minimalPDF), errReader{errBody}), dst: io.Discard, want: errBody},
		{name: "dicom read", ct: DICOM, src: io.MultiReader(bytes.NewReader(dcm[:300]), errReader{errBody}), dst: io.Discard, want: errBody},
		{name: "pdf write", ct: PDF, src: strings.NewReader(minimalPDF), dst: errWriter{errStore}, want: errStore},
		{name: "dicom write", ct: DICOM, src: bytes.NewReader(dcm), dst: errWriter{errStore}, want: errStore},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Clean(tc.dst, tc.src, tc.ct)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

type errWriter struct{ err error }

func (w errWriter) Write([]byte) (int, error) { return 0, w.err }
