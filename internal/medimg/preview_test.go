package medimg

import (
	"bytes"
	"errors"
	"image"
	"image/png"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/medishare/medishare/internal/domain"
)

func TestPreviewImages(t *testing.T) {
	grey := image.NewGray(image.Rect(0, 0, 300, 600))
	for i := range grey.Pix {
		grey.Pix[i] = uint8(i)
	}
	tests := []struct {
		name     string
		ct       string
		data     []byte
		maxSide  int
		wantW    int
		wantH    int
		wantGrey bool
	}{
		{name: "jpeg landscape scaled down", ct: JPEG, data: encodeJPEG(t, testImage(800, 600)), maxSide: 256, wantW: 256, wantH: 192},
		{name: "jpeg smaller than max not upscaled", ct: JPEG, data: encodeJPEG(t, testImage(100, 50)), maxSide: 256, wantW: 100, wantH: 50},
		{name: "png portrait scaled down", ct: PNG, data: encodePNG(t, testImage(300, 600)), maxSide: 128, wantW: 64, wantH: 128},
		{name: "grey png stays grey", ct: PNG, data: encodePNG(t, grey), maxSide: 100, wantW: 50, wantH: 100, wantGrey: true},
		{name: "grey jpeg stays grey", ct: JPEG, data: encodeJPEG(t, grey), maxSide: 100, wantW: 50, wantH: 100, wantGrey: true},
		{name: "thin image keeps one pixel", ct: PNG, data: encodePNG(t, testImage(1000, 2)), maxSide: 100, wantW: 100, wantH: 1},
		{name: "interlaced png", ct: PNG, data: interlacedPNG(t), maxSide: 25, wantW: 25, wantH: 20},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Previews are made from the stored form.
			var stored bytes.Buffer
			if _, err := Clean(&stored, bytes.NewReader(tc.data), tc.ct); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := preview(&out, stored.Bytes(), tc.ct, tc.maxSide); err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(&out)
			if err != nil {
				t.Fatal(err)
			}
			if s := img.Bounds().Size(); s.X != tc.wantW || s.Y != tc.wantH {
				t.Errorf("size %v, want %dx%d", s, tc.wantW, tc.wantH)
			}
			if isGrey(img) != tc.wantGrey {
				t.Errorf("preview is %T, want grey=%v", img, tc.wantGrey)
			}
		})
	}
}

func TestPreviewRefused(t *testing.T) {
	jpg := encodeJPEG(t, testImage(32, 32))
	tests := []struct {
		name    string
		ct      string
		data    []byte
		maxSide int
		kind    string
		msg     string
	}{
		{name: "pdf", ct: PDF, data: []byte(minimalPDF), maxSide: 256, kind: domain.ENOTFOUND, msg: msgNoPreview},
		{name: "png bomb", ct: PNG, data: bombPNG(50000, 50000), maxSide: 256, kind: domain.EVALIDATION, msg: msgTooLarge},
		{name: "truncated jpeg", ct: JPEG, data: jpg[:len(jpg)/2], maxSide: 256, kind: domain.ENOTFOUND, msg: msgNoPreview},
		{name: "not an image", ct: PNG, data: []byte("hello"), maxSide: 256, kind: domain.ENOTFOUND, msg: msgNoPreview},
		{name: "unknown type", ct: "image/gif", data: []byte("GIF89a"), maxSide: 256, kind: domain.EUNSUPPORTED, msg: msgInvalidType},
		{name: "zero max side", ct: JPEG, data: jpg, maxSide: 0, kind: domain.EINVALID},
		{name: "dicom without pixels", ct: DICOM, data: readFixture(t, "rtplan.dcm"), maxSide: 256, kind: domain.ENOTFOUND, msg: msgNoPreview},
		{name: "damaged dicom", ct: DICOM, data: readFixture(t, "MR_truncated.dcm"), maxSide: 256, kind: domain.ENOTFOUND, msg: msgNoPreview},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := preview(io.Discard, tc.data, tc.ct, tc.maxSide)
			wantKind(t, err, tc.kind, tc.msg)
			if tc.msg == msgNoPreview && !errors.Is(err, ErrNoPreview) {
				t.Error("not ErrNoPreview")
			}
		})
	}
}

// TestBombsRefusedWithoutAllocating: a header claiming 50000x50000 is refused
// from the header alone, by Clean and by Preview.
func TestBombsRefusedWithoutAllocating(t *testing.T) {
	jpg := encodeJPEG(t, testImage(16, 16))
	sof := bytes.Index(jpg, []byte{0xFF, 0xC0})
	jpegBomb := append([]byte{}, jpg...)
	jpegBomb[sof+5], jpegBomb[sof+6], jpegBomb[sof+7], jpegBomb[sof+8] = 0xEA, 0x60, 0xEA, 0x60 // 60000x60000

	tests := []struct {
		name string
		ct   string
		data []byte
		run  func(ct string, data []byte) error
	}{
		{name: "Clean png", ct: PNG, data: bombPNG(50000, 50000), run: func(ct string, d []byte) error {
			_, err := Clean(io.Discard, bytes.NewReader(d), ct)
			return err
		}},
		{name: "Preview png", ct: PNG, data: bombPNG(50000, 50000), run: func(ct string, d []byte) error {
			return preview(io.Discard, d, ct, 256)
		}},
		{name: "Clean jpeg", ct: JPEG, data: jpegBomb, run: func(ct string, d []byte) error {
			_, err := Clean(io.Discard, bytes.NewReader(d), ct)
			return err
		}},
		{name: "Preview jpeg", ct: JPEG, data: jpegBomb, run: func(ct string, d []byte) error {
			return preview(io.Discard, d, ct, 256)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			alloc := allocated(func() { err = tc.run(tc.ct, tc.data) })
			wantKind(t, err, domain.EVALIDATION, msgTooLarge)
			if alloc > 1<<20 {
				t.Errorf("allocated %d bytes to refuse a bomb", alloc)
			}
		})
	}
}

// allocated reports the bytes f allocates (the whole process, so tests using
// it do not run in parallel).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestPreviewStoredDICOMSizes(t *testing.T) {
	// A synthetic 300x200 image scaled to 100 on its long side.
	data := syntheticDICOM(200, 300, "Doe^John")
	var out bytes.Buffer
	if err := preview(&out, data, DICOM, 100); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&out)
	if err != nil {
		t.Fatal(err)
	}
	if s := img.Bounds().Size(); s.X != 100 || s.Y != 67 || !isGrey(img) {
		t.Errorf("preview %T %v, want grey 100x67", img, s)
	}
	if strings.Contains(out.String(), "Doe") {
		t.Error("preview carries the patient name")
	}
}
