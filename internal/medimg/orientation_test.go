package medimg

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
	"testing"
)

// exifWith is an APP1 EXIF segment whose IFD0 holds a camera make (ASCII,
// stored after the IFD), the orientation o and a GPS IFD pointer, in the
// given byte order, followed by pad bytes (a thumbnail's worth, say).
func exifWith(bo binary.AppendByteOrder, o int, pad int) []byte {
	tiff := []byte("MM\x00\x2a")
	if bo == binary.AppendByteOrder(binary.LittleEndian) {
		tiff = []byte("II\x2a\x00")
	}
	tiff = bo.AppendUint32(tiff, 8)
	const make_ = "SecretPhone X1\x00"
	valueAt := uint32(8 + 2 + 3*12 + 4)
	tiff = bo.AppendUint16(tiff, 3)
	tiff = bo.AppendUint16(tiff, 0x010F) // Make: ASCII at valueAt
	tiff = bo.AppendUint16(tiff, 2)
	tiff = bo.AppendUint32(tiff, uint32(len(make_)))
	tiff = bo.AppendUint32(tiff, valueAt)
	tiff = bo.AppendUint16(tiff, tagOrientation)
	tiff = bo.AppendUint16(tiff, tiffTypeShort)
	tiff = bo.AppendUint32(tiff, 1)
	tiff = bo.AppendUint16(tiff, uint16(o))
	tiff = append(tiff, 0, 0)
	tiff = bo.AppendUint16(tiff, 0x8825) // GPS IFD pointer
	tiff = bo.AppendUint16(tiff, 4)
	tiff = bo.AppendUint32(tiff, 1)
	tiff = bo.AppendUint32(tiff, 0)
	tiff = bo.AppendUint32(tiff, 0) // no next IFD
	tiff = append(tiff, make_...)
	tiff = append(tiff, gpsMarker...)
	tiff = append(tiff, make([]byte, pad)...)
	return segment(mAPP1, append(append([]byte{}, idExif...), tiff...))
}

func TestCleanKeepsOnlyTheOrientation(t *testing.T) {
	plain := encodeJPEG(t, testImage(64, 48))
	for _, tc := range []struct {
		name string
		bo   binary.AppendByteOrder
		o    int
		pad  int
	}{
		{"big endian, rotated", binary.BigEndian, 6, 0},
		{"little endian, mirrored", binary.LittleEndian, 2, 0},
		{"a 60 KiB segment", binary.BigEndian, 8, 60 << 10},
		{"upright", binary.BigEndian, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			if _, err := Clean(&out, bytes.NewReader(withSegmentsAfterSOI(plain, exifWith(tc.bo, tc.o, tc.pad))), JPEG); err != nil {
				t.Fatal(err)
			}
			got := out.Bytes()
			for _, leak := range []string{"SecretPhone", gpsMarker} {
				if bytes.Contains(got, []byte(leak)) {
					t.Fatalf("cleaned JPEG still holds %q", leak)
				}
			}
			if o := jpegOrientation(got); o != tc.o {
				t.Fatalf("orientation %d, want %d", o, tc.o)
			}
			hasExif := bytes.Contains(got, idExif)
			if hasExif != (tc.o != 1) || (hasExif && !bytes.Contains(got, orientationSegment(tc.o))) {
				t.Fatalf("EXIF kept: %v, for orientation %d", hasExif, tc.o)
			}
			if _, err := decodeConfig(got); err != nil {
				t.Fatalf("cleaned JPEG does not decode: %v", err)
			}
		})
	}
}

func TestExifOrientationRefusesMalformed(t *testing.T) {
	good := exifWith(binary.BigEndian, 6, 0)[4:] // the payload
	if o := exifOrientation(good); o != 6 {
		t.Fatalf("good payload: %d", o)
	}
	bad := map[string][]byte{
		"empty":        nil,
		"not EXIF":     []byte("http://ns.adobe.com/xap/1.0/\x00"),
		"short header": good[:10],
		"byte order":   append(append([]byte{}, idExif...), "XX\x00\x2a\x00\x00\x00\x08"...),
		"IFD outside":  append(append([]byte{}, idExif...), "MM\x00\x2a\xff\xff\xff\xf0"...),
		"cut entries":  good[:len(idExif)+8+2+20],
		"value 9":      bytes.Replace(good, []byte{0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6}, []byte{0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 9}, 1),
		"wrong type":   bytes.Replace(good, []byte{0x01, 0x12, 0, 3}, []byte{0x01, 0x12, 0, 4}, 1),
	}
	for name, p := range bad {
		if o := exifOrientation(p); o != 0 {
			t.Errorf("%s: orientation %d, want 0", name, o)
		}
	}
}

// TestPreviewTurnsUpright renders a picture whose left half is red and right
// half blue, stored sideways: the preview shows it the way EXIF says.
func TestPreviewTurnsUpright(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 80, 40))
	for y := 0; y < 40; y++ {
		for x := 0; x < 80; x++ {
			c := color.RGBA{R: 220, A: 255}
			if x >= 40 {
				c = color.RGBA{B: 220, A: 255}
			}
			img.Set(x, y, c)
		}
	}
	plain := encodeJPEG(t, img)
	for _, tc := range []struct {
		o                   int
		w, h                int
		topIsRed, leftIsRed bool
	}{
		{1, 80, 40, true, true},
		{3, 80, 40, true, false}, // turned round: blue on the left
		{6, 40, 80, true, true},  // turned clockwise: the left half on top
		{8, 40, 80, false, true}, // turned anticlockwise: the right half on top
	} {
		var stored bytes.Buffer
		if _, err := Clean(&stored, bytes.NewReader(withSegmentsAfterSOI(plain, exifWith(binary.BigEndian, tc.o, 0))), JPEG); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := preview(&out, stored.Bytes(), JPEG, 1024); err != nil {
			t.Fatal(err)
		}
		p, err := png.Decode(&out)
		if err != nil {
			t.Fatal(err)
		}
		b := p.Bounds()
		if b.Dx() != tc.w || b.Dy() != tc.h {
			t.Fatalf("orientation %d: preview %dx%d, want %dx%d", tc.o, b.Dx(), b.Dy(), tc.w, tc.h)
		}
		red := func(x, y int) bool { r, _, bl, _ := p.At(x, y).RGBA(); return r > bl }
		if top := red(b.Dx()/2, 2); top != tc.topIsRed && tc.w < tc.h {
			t.Errorf("orientation %d: top red = %v", tc.o, top)
		}
		if left := red(2, b.Dy()/2); left != tc.leftIsRed && tc.w > tc.h {
			t.Errorf("orientation %d: left red = %v", tc.o, left)
		}
	}
}
