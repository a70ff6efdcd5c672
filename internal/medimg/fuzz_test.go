package medimg

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/medishare/medishare/internal/domain"
)

// Small fixtures make useful seeds; the large ones only slow the fuzzer.
var fuzzFixtures = []string{
	"CT_small.dcm", "MR_small.dcm", "MR_small_implicit.dcm", "MR_small_bigendian.dcm",
	"MR_small_RLE.dcm", "JPEG-lossy.dcm", "JPEG2000.dcm", "SC_rgb_jpeg.dcm",
	"SC_rgb_small_odd.dcm", "ExplVR_BigEnd.dcm", "image_dfl.dcm", "rtplan.dcm",
	"test-SR.dcm", "MR_truncated.dcm", "no_meta.dcm", "ExplVR_LitEndNoMeta.dcm",
	"ExplVR_BigEndNoMeta.dcm", "rtstruct.dcm",
	"CT_small_jpegls.dcm", "US_rgb_jpegls_near.dcm", "MR_small_lossless.dcm", "US_rgb_lossless_sv1.dcm", "US_rgb_j2k.dcm",
}

func FuzzDetect(f *testing.F) {
	f.Add(encodeJPEG(f, testImage(4, 4))[:132], "a.jpg")
	f.Add(encodePNG(f, testImage(4, 4)), "a.png")
	f.Add([]byte(minimalPDF), "a.pdf")
	f.Add(syntheticDICOM(2, 2, "X")[:132], "a.dcm")
	f.Add([]byte{}, "")
	f.Add([]byte("text"), "../../etc/passwd\x00\x1b[31m.png")
	f.Add([]byte("x"), "a\u202egnp.exe")
	f.Fuzz(func(t *testing.T, head []byte, name string) {
		ct, err := Detect(head, name)
		if err != nil {
			if domain.ErrorKind(err) != domain.EUNSUPPORTED || domain.ErrorMessage(err) != msgInvalidType {
				t.Fatalf("unexpected error %v", err)
			}
		} else if ct != JPEG && ct != PNG && ct != PDF && ct != DICOM {
			t.Fatalf("unknown type %q", ct)
		}

		clean := CleanName(name)
		if clean == "" || len(clean) > maxNameSize || !utf8.ValidString(clean) ||
			strings.ContainsAny(clean, `/\`) || clean == "." || clean == ".." ||
			clean != strings.TrimSpace(clean) {
			t.Fatalf("CleanName(%q) = %q", name, clean)
		}
		for _, r := range clean {
			if unicode.IsControl(r) || isInvisibleFormat(r) {
				t.Fatalf("CleanName(%q) kept %U", name, r)
			}
		}
	})
}

// FuzzClean feeds every input to Clean as each type and previews what Clean
// accepts: nothing may panic or hang, and every refusal is a domain error of
// an expected kind.
func FuzzClean(f *testing.F) {
	for _, name := range fuzzFixtures {
		f.Add(readFixture(f, name))
	}
	f.Add(withSegmentsAfterSOI(encodeJPEG(f, testImage(16, 16)), exifSegment()))
	f.Add(withSegmentsAfterSOI(encodeJPEG(f, testImage(16, 8)), exifWith(binary.LittleEndian, 6, 0)))
	f.Add(insertPNGChunk(encodePNG(f, testImage(16, 16)), pngChunk("tEXt", []byte("a\x00b"))))
	f.Add(bombPNG(50000, 50000))
	f.Add([]byte(minimalPDF))
	f.Add(syntheticDICOM(8, 8, "Doe^John"))

	f.Fuzz(func(t *testing.T, data []byte) {
		for _, ct := range []string{JPEG, PNG, PDF, DICOM} {
			var stored bytes.Buffer
			info, err := Clean(&stored, bytes.NewReader(data), ct)
			if err != nil {
				if k := domain.ErrorKind(err); k != domain.EUNSUPPORTED && k != domain.EVALIDATION {
					t.Fatalf("Clean as %s: unexpected error %v", ct, err)
				}
				continue
			}
			if ct == DICOM && (len(stored.Bytes()) < 132 || !bytes.Equal(stored.Bytes()[:128], make([]byte, 128))) {
				t.Fatal("DICOM preamble not zeroed")
			}
			// Decoding allocates for the claimed size; keep fuzzing iterations small.
			if int64(info.Width)*int64(info.Height) > 1<<20 {
				continue
			}
			err = preview(io.Discard, stored.Bytes(), ct, 32)
			if err != nil {
				if k := domain.ErrorKind(err); k != domain.ENOTFOUND && k != domain.EVALIDATION {
					t.Fatalf("Preview as %s: unexpected error %v", ct, err)
				}
			}
		}
	})
}

// FuzzRLEAndOrientation feeds arbitrary bytes to the hand-written decoders:
// they may refuse but never panic or read out of bounds.
func FuzzRLEAndOrientation(f *testing.F) {
	f.Add([]byte{2, 'a', 'b', 'c'})
	f.Add(exifWith(binary.BigEndian, 6, 0)[4:])
	f.Add(withSegmentsAfterSOI(encodeJPEG(f, testImage(4, 4)), exifWith(binary.LittleEndian, 8, 0)))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, p := range []pixelModule{
			{rows: 4, cols: 4, samples: 1, bitsAllocated: 16},
			{rows: 3, cols: 5, samples: 3, bitsAllocated: 8},
		} {
			if raw, err := decodeRLE(data, p); err == nil && len(raw) != p.rows*p.cols*p.samples*p.bitsAllocated/8 {
				t.Fatalf("decoded %d bytes", len(raw))
			}
		}
		if o := exifOrientation(data); o < 0 || o > 8 {
			t.Fatalf("orientation %d", o)
		}
		if o := jpegOrientation(data); o < 1 || o > 8 {
			t.Fatalf("orientation %d", o)
		}
	})
}

// sandboxFuzzFixtures are the compressed fixtures whose frames seed
// FuzzSandboxFrame; each input is decoded as the frame of one of them.
var sandboxFuzzFixtures = []string{
	"CT_small_j2k.dcm", "US_rgb_j2k.dcm", "CT_small_jpegls.dcm", "US_rgb_jpegls_near.dcm",
	"MR_small_lossless.dcm", "US_rgb_lossless_sv1.dcm", "JPEG-lossy.dcm",
}

// FuzzSandboxFrame feeds arbitrary frames to the sandboxed decoders (as the
// frame of a fixture, with that fixture's header): they may refuse, or
// render at the declared size, but never panic, hang or escape their memory.
func FuzzSandboxFrame(f *testing.F) {
	type target struct {
		ts string
		p  pixelModule
	}
	var targets []target
	for i, name := range sandboxFuzzFixtures {
		ts, p, _, frame, _ := firstFrame(f, readFixture(f, name))
		targets = append(targets, target{ts, p})
		f.Add(frame, uint8(i))
		f.Add(frame[:len(frame)/3], uint8(i))
	}
	// Compile first: under the fuzzer's coverage instrumentation wazero's
	// compiler is many times slower, and would stall the first inputs.
	took, err := WarmDecoders(context.Background())
	if err != nil {
		f.Fatal(err)
	}
	f.Logf("decoders compiled in %v", took)
	f.Fuzz(func(t *testing.T, frame []byte, which uint8) {
		tg := targets[int(which)%len(targets)]
		img, err := renderSandboxed(nil, tg.ts, frame, tg.p)
		if err != nil {
			if !errors.Is(err, ErrNoPreview) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if b := img.Bounds(); b.Dx() != tg.p.cols || b.Dy() != tg.p.rows {
			t.Fatalf("rendered %v, declared %dx%d", b, tg.p.cols, tg.p.rows)
		}
	})
}
