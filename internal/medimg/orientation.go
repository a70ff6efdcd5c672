package medimg

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"image"
	"io"
)

// A phone photo is often stored sideways with an EXIF orientation that tells
// viewers how to turn it. Cleaning drops EXIF (GPS, device, times), so it
// writes back a minimal EXIF segment holding only the orientation, and
// previews apply it themselves.

const (
	mAPP1           = 0xE1
	tagOrientation  = 0x0112
	tiffTypeShort   = 3
	orientationNone = 1
)

var idExif = []byte("Exif\x00\x00")

// keepOrientation replaces an EXIF segment of n bytes with one that holds
// only its orientation, or with nothing when it has none.
func keepOrientation(bw *bufio.Writer, br *bufio.Reader, n int) error {
	payload := make([]byte, n) // a segment is under 64 KiB
	if _, err := io.ReadFull(br, payload); err != nil {
		return readErr(err)
	}
	o := exifOrientation(payload)
	if o <= orientationNone {
		return nil
	}
	seg := orientationSegment(o)
	if err := writeSegmentHeader(bw, mAPP1, len(seg)); err != nil {
		return err
	}
	if _, err := bw.Write(seg); err != nil {
		return writeErr(err)
	}
	return nil
}

// exifOrientation reads the orientation (1 to 8) from IFD0 of an APP1 EXIF
// payload; 0 when it is missing or malformed.
func exifOrientation(p []byte) int {
	if !bytes.HasPrefix(p, idExif) {
		return 0
	}
	t := p[len(idExif):]
	if len(t) < 8 {
		return 0
	}
	var bo binary.ByteOrder
	switch string(t[:2]) {
	case "II":
		bo = binary.LittleEndian
	case "MM":
		bo = binary.BigEndian
	default:
		return 0
	}
	if bo.Uint16(t[2:]) != 42 {
		return 0
	}
	off := int64(bo.Uint32(t[4:]))
	if off < 8 || off+2 > int64(len(t)) {
		return 0
	}
	count := int(bo.Uint16(t[off:]))
	for k := 0; k < count; k++ {
		e := off + 2 + 12*int64(k)
		if e+12 > int64(len(t)) {
			return 0
		}
		if bo.Uint16(t[e:]) != tagOrientation {
			continue
		}
		if bo.Uint16(t[e+2:]) != tiffTypeShort || bo.Uint32(t[e+4:]) != 1 {
			return 0
		}
		if v := int(bo.Uint16(t[e+8:])); v >= 1 && v <= 8 {
			return v
		}
		return 0
	}
	return 0
}

// orientationSegment is an APP1 payload whose only entry is the orientation:
// a big-endian TIFF header, IFD0 with one SHORT, and no next IFD.
func orientationSegment(o int) []byte {
	seg := append([]byte{}, idExif...)
	seg = append(seg, 'M', 'M', 0, 42, 0, 0, 0, 8) // header; IFD0 at offset 8
	seg = append(seg, 0, 1)                        // one entry
	seg = append(seg, tagOrientation>>8, tagOrientation&0xFF, 0, tiffTypeShort, 0, 0, 0, 1)
	seg = append(seg, byte(o>>8), byte(o), 0, 0) // the value, left-justified
	return append(seg, 0, 0, 0, 0)               // no next IFD
}

// jpegOrientation finds the EXIF orientation of a JPEG held in memory by
// walking its segments up to the first scan; 1 when there is none.
func jpegOrientation(data []byte) int {
	i := 2 // after SOI
	for i+4 <= len(data) {
		if data[i] != 0xFF {
			return orientationNone
		}
		m := data[i+1]
		switch {
		case m == 0xFF:
			i++
			continue
		case m == mSOS || m == mEOI:
			return orientationNone
		case m >= 0xD0 && m <= 0xD7, m == mTEM:
			i += 2
			continue
		}
		n := int(binary.BigEndian.Uint16(data[i+2:]))
		if n < 2 || i+2+n > len(data) {
			return orientationNone
		}
		if m == mAPP1 {
			if o := exifOrientation(data[i+4 : i+2+n]); o != 0 {
				return o
			}
		}
		i += 2 + n
	}
	return orientationNone
}

// orient turns img upright as EXIF orientation o says (1 to 8).
func orient(img image.Image, o int) image.Image {
	if o <= orientationNone || o > 8 {
		return img
	}
	// Pixels are moved as bytes: At and Set would allocate a colour per pixel.
	var src, dst []uint8
	var sstride, dstride, bpp int
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	dw, dh := w, h
	if o >= 5 { // the four that swap width and height
		dw, dh = h, w
	}
	r := image.Rect(0, 0, dw, dh)
	var out image.Image
	if g, gray := img.(*image.Gray); gray {
		d := image.NewGray(r)
		src, sstride, dst, dstride, bpp, out = g.Pix[g.PixOffset(b.Min.X, b.Min.Y):], g.Stride, d.Pix, d.Stride, 1, d
	} else {
		m, ok := img.(*image.RGBA)
		if !ok {
			m = toRGBA(img)
		}
		d := image.NewRGBA(r)
		src, sstride, dst, dstride, bpp, out = m.Pix[m.PixOffset(m.Rect.Min.X, m.Rect.Min.Y):], m.Stride, d.Pix, d.Stride, 4, d
	}
	for y := 0; y < dh; y++ {
		for x := 0; x < dw; x++ {
			var sx, sy int
			switch o {
			case 2:
				sx, sy = w-1-x, y
			case 3:
				sx, sy = w-1-x, h-1-y
			case 4:
				sx, sy = x, h-1-y
			case 5:
				sx, sy = y, x
			case 6:
				sx, sy = y, h-1-x
			case 7:
				sx, sy = w-1-y, h-1-x
			case 8:
				sx, sy = w-1-y, x
			}
			copy(dst[y*dstride+x*bpp:y*dstride+x*bpp+bpp], src[sy*sstride+sx*bpp:])
		}
	}
	return out
}

// toRGBA copies an image that was not scaled (so not yet RGBA), converting
// colours as image.RGBA's Set does; decoded JPEGs, the usual case, without
// allocating per pixel.
func toRGBA(img image.Image) *image.RGBA {
	b := img.Bounds()
	m := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	ycc, isYCbCr := img.(*image.YCbCr)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if !isYCbCr {
				m.Set(x-b.Min.X, y-b.Min.Y, img.At(x, y))
				continue
			}
			r, g, bl, _ := ycc.YCbCrAt(x, y).RGBA()
			i := m.PixOffset(x-b.Min.X, y-b.Min.Y)
			m.Pix[i], m.Pix[i+1], m.Pix[i+2], m.Pix[i+3] = uint8(r>>8), uint8(g>>8), uint8(bl>>8), 0xFF
		}
	}
	return m
}
