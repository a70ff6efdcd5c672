package medimg

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/domain"
)

var (
	undefinedSQ = func(group, elem uint16) []byte {
		return append(dicomElement(group, elem, "SQ", nil)[:8], 0xFF, 0xFF, 0xFF, 0xFF)
	}
	itemStart = []byte{0xFE, 0xFF, 0x00, 0xE0, 0xFF, 0xFF, 0xFF, 0xFF}
	itemEnd   = []byte{0xFE, 0xFF, 0x0D, 0xE0, 0, 0, 0, 0}
	seqEnd    = []byte{0xFE, 0xFF, 0xDD, 0xE0, 0, 0, 0, 0}
)

// bigRTStruct is an RT Structure Set as planning systems write them:
// rois regions of interest with contours closed planar contours each, of
// points points, every contour naming its CT image, in undefined-length
// sequences and items.
func bigRTStruct(rois, contours, points int) []byte {
	text := func(s string) []byte {
		if len(s)%2 == 1 {
			s += " "
		}
		return []byte(s)
	}
	var b bytes.Buffer
	b.Write(dicomElement(0x0008, 0x0016, "UI", []byte("1.2.840.10008.5.1.4.1.1.481.3\x00")))
	b.Write(dicomElement(0x0008, 0x0018, "UI", []byte("2.25.1234\x00")))
	b.Write(dicomElement(0x0008, 0x0060, "CS", []byte("RTSTRUCT")))
	b.Write(undefinedSQ(0x3006, 0x0039)) // ROI Contour Sequence
	var data strings.Builder
	for p := range points {
		fmt.Fprintf(&data, "%.3f\\%.3f\\%.3f\\", -120.5+float64(p), 35.25-float64(p), -402.5)
	}
	contourData := text(strings.TrimSuffix(data.String(), "\\"))
	for r := range rois {
		b.Write(itemStart)
		b.Write(dicomElement(0x3006, 0x002A, "IS", text("255\\0\\0")))
		b.Write(undefinedSQ(0x3006, 0x0040)) // Contour Sequence
		for c := range contours {
			b.Write(itemStart)
			b.Write(undefinedSQ(0x3006, 0x0016)) // Contour Image Sequence
			b.Write(itemStart)
			b.Write(dicomElement(0x0008, 0x1150, "UI", []byte("1.2.840.10008.5.1.4.1.1.2\x00")))
			b.Write(dicomElement(0x0008, 0x1155, "UI", text(fmt.Sprintf("1.2.826.0.1.3680043.8.498.%d.%d", r, c))))
			b.Write(itemEnd)
			b.Write(seqEnd)
			b.Write(dicomElement(0x3006, 0x0042, "CS", text("CLOSED_PLANAR")))
			b.Write(dicomElement(0x3006, 0x0046, "IS", text(fmt.Sprint(points))))
			b.Write(dicomElement(0x3006, 0x0048, "IS", text(fmt.Sprint(c+1))))
			b.Write(dicomElement(0x3006, 0x0050, "DS", contourData))
			b.Write(itemEnd)
		}
		b.Write(seqEnd)
		b.Write(dicomElement(0x3006, 0x0084, "IS", text(fmt.Sprint(r+1))))
		b.Write(itemEnd)
	}
	b.Write(seqEnd)
	return dicomFile(nil, b.Bytes())
}

// TestLargeRTStruct: a real-sized structure set, 12 000 contours in 8.5 MB
// (some 150 000 elements), is accepted as a document without preview.
func TestLargeRTStruct(t *testing.T) {
	untimedParse(t)
	data := bigRTStruct(40, 300, 24)
	if len(data) < 5<<20 || len(data) > domain.MaxUploadBytes {
		t.Fatalf("generated %d bytes", len(data))
	}
	info, err := Clean(ioDiscard{}, bytes.NewReader(data), DICOM)
	if err != nil {
		t.Fatalf("Clean: %v (%v)", err, errors.Unwrap(err))
	}
	if info.DICOM.Modality != "RTSTRUCT" || info.DICOM.HasPixels {
		t.Errorf("Info = %+v", info.DICOM)
	}
}

// TestDICOMGuardElementBound: hostile files at the element bound. Empty
// elements up to maxElements, that stay within maxParserMemory, are read;
// one more, or fewer elements beside values that together pass
// maxParserMemory, are refused before the library keeps them.
func TestDICOMGuardElementBound(t *testing.T) {
	untimedParse(t)
	empty := dicomElement(0x0018, 0x0015, "CS", nil)
	text := dicomElement(0x0018, 0x0014, "UT", bytes.Repeat([]byte{'x'}, 6<<20)) // kept twice over: 12 MiB
	// Elements that fit beside the text, and one more.
	fit := int((maxParserMemory-2*int64(6<<20))/elementCost) - 1
	tests := []struct {
		name    string
		dataset []byte
		cause   error // nil: accepted
	}{
		{name: "empty elements at the count bound", dataset: bytes.Repeat(empty, maxElements-1)},
		{name: "empty elements past the count bound", dataset: bytes.Repeat(empty, maxElements+1), cause: errBounds},
		{name: "values and elements at the memory bound", dataset: append(bytes.Clone(text), bytes.Repeat(empty, fit-2)...)},
		{name: "values and elements past the memory bound", dataset: append(bytes.Clone(text), bytes.Repeat(empty, fit+1)...), cause: errBounds},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Clean(ioDiscard{}, bytes.NewReader(dicomFile(nil, tc.dataset)), DICOM)
			if tc.cause == nil {
				if err != nil {
					t.Fatalf("Clean: %v", err)
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

// TestElementCost: elementCost covers what the library allocates for an
// element, so maxParserMemory bounds what it keeps.
func TestElementCost(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates more per element")
	}
	const n = 20_000
	items := undefinedSQ(0x0008, 0x1115)
	for range n / 2 {
		items = append(items, itemStart...)
		items = append(items, itemEnd...)
	}
	items = append(items, seqEnd...)
	for name, ds := range map[string][]byte{
		"empty elements": bytes.Repeat(dicomElement(0x0018, 0x0015, "CS", nil), n),
		"short strings":  bytes.Repeat(dicomElement(0x0018, 0x0015, "CS", []byte("ABCD")), n),
		"empty items":    items,
	} {
		data := dicomFile(nil, ds)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		if _, _, err := parseDICOM(bytes.NewReader(data), nil, false); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		// Less the file's bytes the values hold.
		per := (int64(after.TotalAlloc-before.TotalAlloc) - int64(len(ds))) / n
		t.Logf("%s: %d bytes allocated per element", name, per)
		if per > elementCost {
			t.Errorf("%s: %d bytes allocated per element, elementCost is %d", name, per, elementCost)
		}
	}
}

// untimedParse lifts the parser's time budget for a test of a size bound:
// under -race on a busy machine, half a million elements take longer than
// the budget, and the bound, not the time, is under test. Only for tests
// that do not run in parallel (parseBudget is the package's).
func untimedParse(t *testing.T) {
	old := parseBudget
	parseBudget = time.Hour
	t.Cleanup(func() { parseBudget = old })
}
