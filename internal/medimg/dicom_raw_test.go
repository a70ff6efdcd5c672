package medimg

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/medishare/medishare/internal/domain"
)

// stripMeta turns a Part 10 file into the raw dataset it wraps: no
// preamble, no "DICM", no meta group.
func stripMeta(tb testing.TB, data []byte) []byte {
	tb.Helper()
	if len(data) < dicomPrefixLen+12 || string(data[128:132]) != "DICM" {
		tb.Fatal("not Part 10")
	}
	metaLen := binary.LittleEndian.Uint32(data[dicomPrefixLen+8:])
	return data[dicomPrefixLen+12+int(metaLen):]
}

// TestRawDatasets: the fixtures' images written as raw datasets in each of
// the three encodings are detected, wrapped into Part 10 with the syntax
// their start proves, and render like the Part 10 original.
func TestRawDatasets(t *testing.T) {
	ref := previewOf(t, "MR_small.dcm")
	tests := []struct {
		file, ts string
		optional bool // may give ErrNoPreview instead
	}{
		{file: "MR_small.dcm", ts: tsExplicitLE},
		{file: "MR_small_implicit.dcm", ts: tsImplicitLE},
		{file: "MR_small_bigendian.dcm", ts: tsExplicitBE, optional: true},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			raw := stripMeta(t, readFixture(t, tc.file))
			for _, name := range []string{"IM0001", "scan.dcm", "scan.DICOM"} {
				if ct, err := Detect(raw[:dicomPrefixLen], name); err != nil || ct != DICOM {
					t.Fatalf("Detect(%s) = %q, %v", name, ct, err)
				}
			}
			var stored bytes.Buffer
			info, err := Clean(&stored, bytes.NewReader(raw), DICOM)
			if err != nil {
				t.Fatal(err)
			}
			checkWrapped(t, raw, stored.Bytes(), tc.ts)
			checkInfo(t, info, "MR", 64, 64, true)
			if info.DICOM.TransferSyntax != tc.ts {
				t.Errorf("TransferSyntax = %q, want %q", info.DICOM.TransferSyntax, tc.ts)
			}
			var out bytes.Buffer
			err = preview(&out, stored.Bytes(), DICOM, 1024)
			if tc.optional && err != nil {
				wantKind(t, err, domain.ENOTFOUND, msgNoPreview)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			rendersLike(t, ref, &out)
		})
	}
}

// TestRawDatasetNearMisses: bytes that resemble a raw dataset but do not
// prove one stay refused with the invalid-type message, and a proven one
// without its SOP UIDs is refused as damaged.
func TestRawDatasetNearMisses(t *testing.T) {
	charset := dicomElement(0x0008, 0x0005, "CS", []byte("ISO_IR 100"))
	imageType := dicomElement(0x0008, 0x0008, "CS", []byte("ORIGINAL\\PRIMARY"))
	date := dicomElement(0x0008, 0x0020, "DA", []byte("20240101"))
	name := dicomElement(0x0010, 0x0010, "PN", []byte("Doe^John"))
	// join makes a head of elements followed by a comment that runs past
	// the head's end, as in a real file.
	comments := dicomElement(0x0020, 0x4000, "LT", bytes.Repeat([]byte{'x'}, 200))
	join := func(parts ...[]byte) []byte {
		return append(bytes.Join(parts, nil), comments...)
	}
	badVR := bytes.Clone(imageType)
	copy(badVR[4:6], "ZZ")
	control := dicomElement(0x0008, 0x0008, "CS", []byte("ORIG\x01NAL"))
	implicitUnknown := []byte{0x08, 0x00, 0x01, 0x00, 2, 0, 0, 0, 'A', 'B', 0x08, 0x00, 0x02, 0x00, 2, 0, 0, 0, 'A', 'B'}
	raw := stripMeta(t, readFixture(t, "MR_small.dcm"))

	tests := []struct {
		name, file string
		head       []byte
	}{
		{name: "one byte off (no_meta fixture)", file: "no_meta.dcm", head: readFixture(t, "no_meta.dcm")},
		{name: "first element not of group 0008", file: "x.dcm", head: join(name, charset)},
		{name: "tags descending", file: "x.dcm", head: join(date, imageType)},
		{name: "tag repeated", file: "x.dcm", head: join(charset, charset)},
		{name: "unknown VR", file: "x.dcm", head: join(charset, badVR)},
		{name: "control character in a text value", file: "x.dcm", head: join(charset, control)},
		{name: "only one element", file: "x.dcm", head: charset},
		{name: "meta group without preamble", file: "x.dcm", head: join(dicomElement(0x0002, 0x0000, "UL", []byte{4, 0, 0, 0}), dicomElement(0x0002, 0x0001, "OB", []byte{0, 1}))},
		{name: "implicit VR, tags not in the dictionary", file: "x.dcm", head: join(implicitUnknown)},
		{name: "zeros", file: "x.dcm", head: make([]byte, dicomPrefixLen)},
		{name: "raw dataset named .png", file: "x.png", head: raw},
		{name: "raw dataset named .jpg", file: "x.jpg", head: raw},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Detect(tc.head[:min(len(tc.head), dicomPrefixLen)], tc.file)
			wantKind(t, err, domain.EUNSUPPORTED, msgInvalidType)
		})
	}

	t.Run("no SOP UIDs", func(t *testing.T) {
		data := join(charset, imageType, date, name)
		if ct, err := Detect(data[:dicomPrefixLen], "x.dcm"); err != nil || ct != DICOM {
			t.Fatalf("Detect = %q, %v", ct, err)
		}
		_, err := Clean(ioDiscard{}, bytes.NewReader(data), DICOM)
		wantKind(t, err, domain.EVALIDATION, msgDamaged)
	})
}
