package medimg

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/suyashkumar/dicom/pkg/tag"

	"github.com/medishare/medishare/internal/domain"
)

var phiTags = []tag.Tag{tag.PatientName, tag.PatientID, tag.PatientBirthDate}

// preview outcomes a fixture may have.
const (
	wantGrey   = "grey"
	wantColour = "colour"
	wantAny    = "any"  // grey or colour
	wantMaybe  = "opt"  // renders, or ErrNoPreview
	wantNone   = "none" // ErrNoPreview
)

// TestDICOMFixtures runs every fixture in testdata/dicom through Detect,
// Clean and Preview, with the outcome testdata/dicom/README.md gives.
func TestDICOMFixtures(t *testing.T) {
	tests := []struct {
		file       string
		detectErr  bool   // not Part 10: refused by Detect
		cleanErr   bool   // refused by Clean with the damaged message
		modality   string // "" to skip
		rows, cols int    // 0 to skip
		hasPixels  bool
		preview    string
		raw        string // a raw dataset: the transfer syntax its wrapping must name
	}{
		{file: "CT_small.dcm", modality: "CT", rows: 128, cols: 128, hasPixels: true, preview: wantGrey},
		{file: "MR_small.dcm", modality: "MR", rows: 64, cols: 64, hasPixels: true, preview: wantGrey},
		{file: "MR_small_implicit.dcm", modality: "MR", rows: 64, cols: 64, hasPixels: true, preview: wantGrey},
		{file: "MR_small_bigendian.dcm", modality: "MR", rows: 64, cols: 64, hasPixels: true, preview: wantMaybe},
		{file: "MR_small_RLE.dcm", modality: "MR", rows: 64, cols: 64, hasPixels: true, preview: wantGrey},
		{file: "JPEG-lossy.dcm", modality: "NM", hasPixels: true, preview: wantGrey},
		{file: "SC_rgb_jpeg.dcm", hasPixels: true, preview: wantColour},
		{file: "SC_rgb_small_odd.dcm", rows: 3, cols: 3, hasPixels: true, preview: wantColour},
		{file: "ExplVR_BigEnd.dcm", modality: "US", rows: 60, cols: 80, hasPixels: true, preview: wantMaybe},
		{file: "examples_palette.dcm", modality: "US", rows: 350, cols: 800, hasPixels: true, preview: wantAny},
		{file: "image_dfl.dcm", modality: "OT", rows: 512, cols: 512, hasPixels: true, preview: wantMaybe},
		{file: "JPEG2000.dcm", modality: "NM", hasPixels: true, preview: wantGrey},
		{file: "liver_1frame.dcm", rows: 512, cols: 512, hasPixels: true, preview: wantAny},
		{file: "CT_small_jpegls.dcm", modality: "CT", rows: 128, cols: 128, hasPixels: true, preview: wantGrey},
		{file: "CT_small_lossless_sv1.dcm", modality: "CT", rows: 128, cols: 128, hasPixels: true, preview: wantGrey},
		{file: "CT_small_j2k.dcm", modality: "CT", rows: 128, cols: 128, hasPixels: true, preview: wantGrey},
		{file: "MR_small_lossless.dcm", modality: "MR", rows: 64, cols: 64, hasPixels: true, preview: wantGrey},
		{file: "US_rgb_j2k.dcm", modality: "US", rows: 60, cols: 80, hasPixels: true, preview: wantColour},
		{file: "US_rgb_j2k_lossy.dcm", modality: "US", rows: 60, cols: 80, hasPixels: true, preview: wantColour},
		{file: "US_rgb_jpegls_near.dcm", modality: "US", rows: 60, cols: 80, hasPixels: true, preview: wantColour},
		{file: "US_rgb_lossless_sv1.dcm", modality: "US", rows: 60, cols: 80, hasPixels: true, preview: wantColour},
		{file: "rtplan.dcm", modality: "RTPLAN", preview: wantNone},
		{file: "test-SR.dcm", modality: "SR", preview: wantNone},
		{file: "waveform_ecg.dcm", modality: "ECG", preview: wantNone},
		{file: "MR_truncated.dcm", cleanErr: true},
		// A raw dataset one byte off (a stray space before its first
		// element): nothing proves where its elements start.
		{file: "no_meta.dcm", detectErr: true},
		{file: "ExplVR_LitEndNoMeta.dcm", modality: "RTPLAN", raw: tsExplicitLE, preview: wantNone},
		{file: "ExplVR_BigEndNoMeta.dcm", modality: "RTPLAN", raw: tsExplicitBE, preview: wantNone},
		{file: "rtstruct.dcm", modality: "RTSTRUCT", raw: tsImplicitLE, preview: wantNone},
	}

	// Every fixture in the folder must have a case.
	entries, err := os.ReadDir(fixtureDir(t))
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, tc := range tests {
		covered[tc.file] = true
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".dcm") && !covered[e.Name()] {
			t.Errorf("fixture %s has no test case", e.Name())
		}
	}

	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			data := readFixture(t, tc.file)

			ct, err := Detect(data[:min(len(data), 132)], tc.file)
			if tc.detectErr {
				wantKind(t, err, domain.EUNSUPPORTED, msgInvalidType)
				return
			}
			if err != nil || ct != DICOM {
				t.Fatalf("Detect = %q, %v", ct, err)
			}

			var stored bytes.Buffer
			info, err := Clean(&stored, bytes.NewReader(data), DICOM)
			if tc.cleanErr {
				wantKind(t, err, domain.EVALIDATION, msgDamaged)
				return
			}
			if err != nil {
				t.Fatalf("Clean: %v", err)
			}
			if tc.raw != "" {
				checkWrapped(t, data, stored.Bytes(), tc.raw)
			} else {
				checkStored(t, data, stored.Bytes())
			}
			checkInfo(t, info, tc.modality, tc.rows, tc.cols, tc.hasPixels)
			checkNoPHI(t, stored.Bytes(), info)

			var out bytes.Buffer
			err = preview(&out, stored.Bytes(), DICOM, 256)
			checkPreview(t, tc.preview, out.Bytes(), err, 256)
		})
	}
}

// checkStored: the stored form is the upload with the preamble zeroed.
func checkStored(t *testing.T, upload, stored []byte) {
	t.Helper()
	if len(stored) != len(upload) {
		t.Fatalf("stored %d bytes, upload had %d", len(stored), len(upload))
	}
	if !bytes.Equal(stored[:128], make([]byte, 128)) {
		t.Error("preamble not zeroed")
	}
	if !bytes.Equal(stored[128:], upload[128:]) {
		t.Error("stored form differs from the upload after the preamble")
	}
}

// checkWrapped: a raw dataset is stored whole after a zero preamble, "DICM"
// and a meta group naming the syntax and the dataset's own SOP UIDs.
func checkWrapped(t *testing.T, upload, stored []byte, ts string) {
	t.Helper()
	if len(stored) < dicomPrefixLen || !bytes.Equal(stored[:128], make([]byte, 128)) || string(stored[128:132]) != "DICM" {
		t.Fatal("stored form is not Part 10")
	}
	if !bytes.HasSuffix(stored, upload) {
		t.Fatal("stored form does not end with the upload")
	}
	meta := stored[dicomPrefixLen : len(stored)-len(upload)]
	tsOff, tsLen, err := walkMeta(meta)
	if err != nil {
		t.Fatalf("meta group: %v", err)
	}
	if got := strings.TrimRight(string(meta[tsOff:tsOff+tsLen]), "\x00"); got != ts {
		t.Errorf("transfer syntax %q, want %q", got, ts)
	}
	e, _ := rawDatasetEncoding(upload)
	class, instance := e.sopUIDs(upload)
	for _, u := range []string{class, instance} {
		if u == "" || !bytes.Contains(meta, uidValue(u)) {
			t.Errorf("meta group lacks the dataset's UID %q", u)
		}
	}
}

func checkInfo(t *testing.T, info Info, modality string, rows, cols int, hasPixels bool) {
	t.Helper()
	if info.ContentType != DICOM || info.DICOM == nil {
		t.Fatalf("Info = %+v", info)
	}
	d := info.DICOM
	if modality != "" && d.Modality != modality {
		t.Errorf("Modality = %q, want %q", d.Modality, modality)
	}
	if rows != 0 && (d.Rows != rows || d.Columns != cols || info.Height != rows || info.Width != cols) {
		t.Errorf("size = %dx%d (Info %dx%d), want %dx%d", d.Columns, d.Rows, info.Width, info.Height, cols, rows)
	}
	if d.HasPixels != hasPixels {
		t.Errorf("HasPixels = %v, want %v", d.HasPixels, hasPixels)
	}
	if hasPixels && d.Frames < 1 {
		t.Errorf("Frames = %d with pixels", d.Frames)
	}
	if d.TransferSyntax == "" || !isUID(d.TransferSyntax) {
		t.Errorf("TransferSyntax = %q", d.TransferSyntax)
	}
}

// checkNoPHI: no patient name, id or birth date from the header reaches Info.
func checkNoPHI(t *testing.T, data []byte, info Info) {
	t.Helper()
	d := info.DICOM
	fields := d.Modality + "\x00" + d.BodyPart + "\x00" + d.StudyDescription
	for _, phi := range phiValues(t, data) {
		if strings.Contains(fields, phi) {
			t.Errorf("Info carries patient data %q", phi)
		}
	}
}

// phiValues parses the fixture and returns its patient name, id and birth
// date (where present and not trivially short).
func phiValues(t *testing.T, data []byte) []string {
	t.Helper()
	ds, _, err := parseDICOM(bytes.NewReader(data), nil, false)
	if err != nil {
		t.Fatalf("parse for PHI: %v", err)
	}
	var out []string
	for _, tg := range phiTags {
		if v := headerText(&ds, tg); len(v) >= 3 {
			out = append(out, v)
		}
	}
	return out
}

func checkPreview(t *testing.T, want string, out []byte, err error, maxSide int) {
	t.Helper()
	if want == wantNone || (want == wantMaybe && errors.Is(err, ErrNoPreview)) {
		if !errors.Is(err, ErrNoPreview) {
			t.Fatalf("Preview: err = %v, want ErrNoPreview", err)
		}
		wantKind(t, err, domain.ENOTFOUND, msgNoPreview)
		return
	}
	if err != nil {
		t.Fatalf("Preview: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("preview is not a PNG: %v", err)
	}
	b := img.Bounds()
	if b.Dx() < 1 || b.Dy() < 1 || b.Dx() > maxSide || b.Dy() > maxSide {
		t.Errorf("preview size %dx%d, max side %d", b.Dx(), b.Dy(), maxSide)
	}
	grey := isGrey(img)
	switch want {
	case wantGrey:
		if !grey {
			t.Errorf("preview is %T, want greyscale", img)
		}
	case wantColour:
		if grey {
			t.Errorf("preview is %T, want colour", img)
		}
	}
	if flat(img) {
		t.Error("preview is a single flat colour")
	}
}

func isGrey(img image.Image) bool {
	switch img.(type) {
	case *image.Gray, *image.Gray16:
		return true
	}
	return false
}

// flat reports an image whose pixels are all the same.
func flat(img image.Image) bool {
	b := img.Bounds()
	r0, g0, b0, _ := img.At(b.Min.X, b.Min.Y).RGBA()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r != r0 || g != g0 || bl != b0 {
				return false
			}
		}
	}
	return true
}

func previewOf(t *testing.T, file string) image.Image {
	t.Helper()
	data := readFixture(t, file)
	var out bytes.Buffer
	if err := preview(&out, data, DICOM, 1024); err != nil {
		t.Fatalf("Preview %s: %v", file, err)
	}
	img, err := png.Decode(&out)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// TestDICOMSameImage: the same image in different encodings renders the same.
func TestDICOMSameImage(t *testing.T) {
	ref := previewOf(t, "MR_small.dcm")
	tests := []struct {
		name     string
		file     string
		optional bool // may give ErrNoPreview instead
	}{
		{name: "implicit VR", file: "MR_small_implicit.dcm"},
		{name: "RLE lossless", file: "MR_small_RLE.dcm"},
		{name: "big endian", file: "MR_small_bigendian.dcm", optional: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := readFixture(t, tc.file)
			var out bytes.Buffer
			err := preview(&out, data, DICOM, 1024)
			if tc.optional && errors.Is(err, ErrNoPreview) {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			rendersLike(t, ref, &out)
		})
	}
}

// rendersLike fails the test unless the PNG in out is the same grey image
// as ref, MR_small.dcm's preview.
func rendersLike(t *testing.T, ref image.Image, out *bytes.Buffer) {
	t.Helper()
	img, err := png.Decode(out)
	if err != nil {
		t.Fatal(err)
	}
	a, b := ref.(*image.Gray), img.(*image.Gray)
	if a.Bounds() != b.Bounds() || !bytes.Equal(a.Pix, b.Pix) {
		t.Error("renders differently from MR_small.dcm")
	}
}

// TestDICOMPreambleZeroed: an executable header in the preamble (the
// CVE-2019-11687 polyglot) does not reach storage.
func TestDICOMPreambleZeroed(t *testing.T) {
	preamble := append([]byte("MZ\x90\x00"), bytes.Repeat([]byte{0xCC}, 124)...)
	data := dicomFile(preamble, dicomElement(0x0008, 0x0060, "CS", []byte("OT")))
	ct, err := Detect(data, "scan.dcm")
	if err != nil || ct != DICOM {
		t.Fatalf("Detect = %q, %v", ct, err)
	}
	var stored bytes.Buffer
	if _, err := Clean(&stored, bytes.NewReader(data), DICOM); err != nil {
		t.Fatal(err)
	}
	checkStored(t, data, stored.Bytes())
}

// TestDICOMGuard: headers that would make the library allocate or recurse
// without bound are refused before the library sees them.
func TestDICOMGuard(t *testing.T) {
	untimedParse(t) // the "too many elements" case
	hugeString := dicomElement(0x0008, 0x1030, "UT", nil)
	copy(hugeString[8:], []byte{0xF0, 0xFF, 0xFF, 0x7F}) // claims 2 GiB
	hugeInts := dicomElement(0x0028, 0x3006, "OW", nil)
	copy(hugeInts[8:], []byte{0xFE, 0xFF, 0xFF, 0xFF})
	undefinedDate := append([]byte{0x08, 0x00, 0x20, 0x00, 'D', 'A'}, 0xFF, 0xFF)
	var deep []byte
	for range 200 { // SQ, undefined length; item, undefined length
		deep = append(deep, 0x08, 0x00, 0x15, 0x11, 'S', 'Q', 0, 0, 0xFF, 0xFF, 0xFF, 0xFF)
		deep = append(deep, 0xFE, 0xFF, 0x00, 0xE0, 0xFF, 0xFF, 0xFF, 0xFF)
	}
	strayItem := []byte{0xFE, 0xFF, 0x00, 0xE0, 0x04, 0, 0, 0, 1, 2, 3, 4}
	notAnItem := append(dicomElement(0x0008, 0x1115, "SQ", nil)[:8], 0x10, 0, 0, 0)
	notAnItem = append(notAnItem, dicomElement(0x0008, 0x0060, "CS", []byte("CTCTCTCT"))...)

	tests := []struct {
		name    string
		dataset []byte
		cause   error
	}{
		{name: "string claiming 2 GiB", dataset: hugeString, cause: errBounds},
		{name: "OW claiming 4 GiB", dataset: hugeInts, cause: errBounds},
		{name: "date of undefined length", dataset: undefinedDate, cause: errStructure},
		{name: "200 nested sequences", dataset: deep, cause: errBounds},
		{name: "item outside a sequence", dataset: strayItem, cause: errStructure},
		{name: "non-item inside a sequence", dataset: notAnItem, cause: errStructure},
		{name: "truncated value", dataset: dicomElement(0x0008, 0x0060, "CS", []byte("CTCT"))[:10], cause: errTruncated},
		{name: "too many elements", dataset: bytes.Repeat(dicomElement(0x0018, 0x0015, "CS", nil), maxElements+1), cause: errBounds},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := dicomFile(nil, tc.dataset)
			_, err := Clean(ioDiscard{}, bytes.NewReader(data), DICOM)
			wantKind(t, err, domain.EVALIDATION, msgDamaged)
			if !errors.Is(err, tc.cause) {
				t.Errorf("cause = %v, want %v", errors.Unwrap(err), tc.cause)
			}
		})
	}
}

// TestDICOMErrorsCarryNoPHI: a damaged file's error says nothing of its
// header, whatever the library would have said.
func TestDICOMErrorsCarryNoPHI(t *testing.T) {
	const name = "Doe^Jane^Secret"
	data := syntheticDICOM(8, 8, name)
	data = data[:len(data)-10] // cut into the pixel data
	_, err := Clean(ioDiscard{}, bytes.NewReader(data), DICOM)
	wantKind(t, err, domain.EVALIDATION, msgDamaged)
	if strings.Contains(err.Error(), "Doe") || strings.Contains(err.Error(), "Secret") {
		t.Errorf("error text carries the patient name: %v", err)
	}
	ok := syntheticDICOM(8, 8, name)
	info, err := Clean(ioDiscard{}, bytes.NewReader(ok), DICOM)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(info.DICOM.Modality+info.DICOM.BodyPart+info.DICOM.StudyDescription, "Doe") {
		t.Error("Info carries the patient name")
	}
}

// TestNoFixturesInPackage: fixtures live in the repository's testdata/dicom
// only, never copied into a package folder.
func TestNoFixturesInPackage(t *testing.T) {
	matches, _ := filepath.Glob("*.dcm")
	if len(matches) > 0 {
		t.Errorf("DICOM files in the package folder: %v", matches)
	}
}

type ioDiscard struct{}

func (ioDiscard) Write(p []byte) (int, error) { return len(p), nil }

// deflatedDICOM builds a deflated explicit VR little endian file whose
// dataset is the given elements.
func deflatedDICOM(t *testing.T, dataset ...[]byte) []byte {
	t.Helper()
	meta := dicomElement(0x0002, 0x0001, "OB", []byte{0, 1})
	meta = append(meta, dicomElement(0x0002, 0x0010, "UI", []byte("1.2.840.10008.1.2.1.99"))...)
	out := make([]byte, 128, 1024)
	out = append(out, "DICM"...)
	out = append(out, dicomElement(0x0002, 0x0000, "UL", binary.LittleEndian.AppendUint32(nil, uint32(len(meta))))...)
	out = append(out, meta...)
	var z bytes.Buffer
	w, err := flate.NewWriter(&z, flate.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range dataset {
		if _, err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return append(out, z.Bytes()...)
}

func TestDICOMDeflate(t *testing.T) {
	old := maxDatasetBytes
	maxDatasetBytes = 1 << 20
	t.Cleanup(func() { maxDatasetBytes = old })

	modality := dicomElement(0x0008, 0x0060, "CS", []byte("OT"))
	bomb := dicomElement(0x7FE0, 0x0010, "OB", make([]byte, 4<<20)) // 4 MiB of zeros: a few KiB deflated
	tests := []struct {
		name  string
		data  []byte
		cause error // nil: accepted
	}{
		{name: "small deflated dataset", data: deflatedDICOM(t, modality)},
		{name: "inflates past the cap", data: deflatedDICOM(t, modality, bomb), cause: errBounds},
		{name: "data hidden after the stream", data: append(deflatedDICOM(t, modality), bytes.Repeat([]byte("MZ"), 100)...), cause: errStructure},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			info, err := Clean(ioDiscard{}, bytes.NewReader(tc.data), DICOM)
			if tc.cause == nil {
				if err != nil || info.DICOM.Modality != "OT" || info.DICOM.TransferSyntax != "1.2.840.10008.1.2.1.99" {
					t.Fatalf("Clean = %+v, %v", info.DICOM, err)
				}
				return
			}
			wantKind(t, err, domain.EVALIDATION, msgDamaged)
			if !errors.Is(err, tc.cause) {
				t.Errorf("cause = %v, want %v", errors.Unwrap(err), tc.cause)
			}
		})
	}
}

// TestDICOMParseBudget: a parser that runs out of time gives up with the
// damaged-file error instead of holding the upload.
func TestDICOMParseBudget(t *testing.T) {
	old := parseBudget
	parseBudget = time.Nanosecond
	t.Cleanup(func() { parseBudget = old })

	data := syntheticDICOM(256, 256, "Doe^John") // several pipe writes
	_, err := Clean(ioDiscard{}, bytes.NewReader(data), DICOM)
	wantKind(t, err, domain.EVALIDATION, msgDamaged)
	if !errors.Is(err, errParseTimeout) {
		t.Errorf("cause = %v, want the time limit", errors.Unwrap(err))
	}
}

// TestCleanOneByteReads: results do not depend on how the upload arrives.
func TestCleanOneByteReads(t *testing.T) {
	tests := []struct {
		name string
		ct   string
		data []byte
	}{
		{name: "dicom", ct: DICOM, data: readFixture(t, "MR_small.dcm")},
		{name: "deflated dicom", ct: DICOM, data: readFixture(t, "image_dfl.dcm")},
		{name: "jpeg", ct: JPEG, data: withSegmentsAfterSOI(encodeJPEG(t, testImage(64, 64)), exifSegment())},
		{name: "png", ct: PNG, data: insertPNGChunk(encodePNG(t, testImage(32, 32)), pngChunk("tEXt", []byte("a\x00b")))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var whole, bytewise bytes.Buffer
			want, err := Clean(&whole, bytes.NewReader(tc.data), tc.ct)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Clean(&bytewise, iotest.OneByteReader(bytes.NewReader(tc.data)), tc.ct)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(whole.Bytes(), bytewise.Bytes()) || !reflect.DeepEqual(want, got) {
				t.Error("one-byte reads give a different result")
			}
		})
	}
}

// The header's Burned In Annotation is kept as written, for the analysis
// screen to read: files say Y, yes or YES with spaces, not only YES.
func TestDICOMBurnedInAnnotationAsWritten(t *testing.T) {
	for _, value := range []string{"YES ", "Y ", "yes ", "NO", ""} {
		dataset := [][]byte{dicomElement(0x0008, 0x0060, "CS", []byte("CT"))}
		if value != "" {
			dataset = append(dataset, dicomElement(0x0028, 0x0301, "CS", []byte(value)))
		}
		info, err := Clean(ioDiscard{}, bytes.NewReader(dicomFile(nil, dataset...)), DICOM)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := info.DICOM.BurnedInAnnotation, strings.TrimSpace(value); got != want {
			t.Errorf("BurnedInAnnotation = %q, want %q", got, want)
		}
	}
}
