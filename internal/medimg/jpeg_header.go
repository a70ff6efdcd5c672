package medimg

import (
	"bufio"
	"encoding/binary"
	"io"
)

// jpegHeader is what a JPEG's headers say about the image the standard
// library's decoder would build.
type jpegHeader struct {
	width, height int
	comps         []jpegComponent
	progressive   bool
	jfif          bool
	adobe         bool // an APP14 Adobe segment with a transform flag
	transform     byte
}

type jpegComponent struct {
	id, h, v byte
}

// readJPEGHeader reads the segments up to the first scan. JPEGs the standard
// decoder does not support (lossless, arithmetic coding, 12-bit, other
// component counts) are ErrNoPreview; dimensions over the upload limits are
// "too large".
func readJPEGHeader(r io.Reader) (jpegHeader, error) {
	br := bufio.NewReaderSize(r, 4096)
	var soi [2]byte
	if _, err := io.ReadFull(br, soi[:]); err != nil || soi != [2]byte{0xFF, mSOI} {
		return jpegHeader{}, ErrNoPreview
	}
	var h jpegHeader
	sawSOF := false
	for {
		m, err := nextMarker(br)
		if err != nil {
			return jpegHeader{}, ErrNoPreview
		}
		switch {
		case m >= 0xD0 && m <= 0xD7, m == mTEM:
			continue
		case m == mSOS:
			if !sawSOF {
				return jpegHeader{}, ErrNoPreview
			}
			return h, nil
		case m == mEOI, m == mSOI:
			return jpegHeader{}, ErrNoPreview
		}
		n, err := segmentLength(br)
		if err != nil {
			return jpegHeader{}, ErrNoPreview
		}
		switch {
		case isSOF(m):
			if sawSOF || (m != 0xC0 && m != 0xC1 && m != 0xC2) {
				return jpegHeader{}, ErrNoPreview // image/jpeg: baseline, extended and progressive only
			}
			seg, err := readSegment(br, n, 6+3*4)
			if err != nil {
				return jpegHeader{}, ErrNoPreview
			}
			if err := h.sof(seg, m == 0xC2); err != nil {
				return jpegHeader{}, err
			}
			sawSOF = true
			continue
		case m == mAPP0 && n >= 5:
			if p, err := br.Peek(5); err == nil && string(p) == "JFIF\x00" {
				h.jfif = true
			}
		case m == mAPPE && n >= 12:
			if p, err := br.Peek(12); err == nil && string(p[:5]) == "Adobe" {
				h.adobe, h.transform = true, p[11]
			}
		}
		if _, err := br.Discard(n); err != nil {
			return jpegHeader{}, ErrNoPreview
		}
	}
}

// readSegment reads a payload of n bytes, at most limit.
func readSegment(br *bufio.Reader, n, limit int) ([]byte, error) {
	if n > limit {
		return nil, errInvalidType()
	}
	seg := make([]byte, n)
	_, err := io.ReadFull(br, seg)
	return seg, err
}

// sof reads a frame header the way image/jpeg checks it.
func (h *jpegHeader) sof(seg []byte, progressive bool) error {
	if len(seg) < 6 || seg[0] != 8 {
		return ErrNoPreview // only 8-bit precision decodes
	}
	h.height = int(binary.BigEndian.Uint16(seg[1:3]))
	h.width = int(binary.BigEndian.Uint16(seg[3:5]))
	nc := int(seg[5])
	if (nc != 1 && nc != 3 && nc != 4) || len(seg) != 6+3*nc || h.width == 0 || h.height == 0 {
		return ErrNoPreview
	}
	if err := checkDimensions(h.width, h.height); err != nil {
		return err
	}
	h.progressive = progressive
	h.comps = make([]jpegComponent, nc)
	for i := range h.comps {
		c := seg[6+3*i:]
		hv := c[1]
		h.comps[i] = jpegComponent{id: c[0], h: hv >> 4, v: hv & 0x0F}
		if h.comps[i].h < 1 || h.comps[i].h > 4 || h.comps[i].v < 1 || h.comps[i].v > 4 {
			return ErrNoPreview
		}
		if nc == 1 {
			h.comps[i].h, h.comps[i].v = 1, 1 // image/jpeg ignores them for greyscale
		}
	}
	return nil
}

// isRGB follows image/jpeg: three components stored as RGB, not YCbCr.
func (h jpegHeader) isRGB() bool {
	if h.jfif || len(h.comps) != 3 {
		return false
	}
	if h.adobe && h.transform == 0 {
		return true
	}
	return h.comps[0].id == 'R' && h.comps[1].id == 'G' && h.comps[2].id == 'B'
}

// decodeBytes estimates what image/jpeg allocates: one byte per sample in
// each component's plane (whole MCUs), the coefficients of every block for a
// progressive image (64 int32s), and an RGBA or CMYK copy when it converts
// RGB or four-component images.
func (h jpegHeader) decodeBytes() int64 {
	var hmax, vmax int64 = 1, 1
	for _, c := range h.comps {
		hmax, vmax = max(hmax, int64(c.h)), max(vmax, int64(c.v))
	}
	mxx := (int64(h.width) + 8*hmax - 1) / (8 * hmax)
	myy := (int64(h.height) + 8*vmax - 1) / (8 * vmax)
	var n int64
	for _, c := range h.comps {
		blocks := mxx * myy * int64(c.h) * int64(c.v)
		n += 64 * blocks
		if h.progressive {
			n += 4 * 64 * blocks
		}
	}
	if len(h.comps) == 4 || h.isRGB() {
		n += 4 * int64(h.width) * int64(h.height)
	}
	return n + 64<<10
}
