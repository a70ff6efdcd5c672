package medimg

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
)

// JPEG markers this file cares about.
const (
	mSOI  = 0xD8
	mEOI  = 0xD9
	mSOS  = 0xDA
	mDHT  = 0xC4
	mJPG  = 0xC8
	mDAC  = 0xCC
	mAPP0 = 0xE0
	mAPP2 = 0xE2
	mAPPE = 0xEE // APP14, Adobe
	mCOM  = 0xFE
	mTEM  = 0x01
)

// cleanJPEG copies the JPEG segment by segment. Metadata segments are dropped;
// everything the decoder needs, including the entropy-coded data, is copied
// byte for byte, so the pixels are never re-encoded.
func cleanJPEG(dst io.Writer, src io.Reader) (Info, error) {
	br := bufio.NewReaderSize(src, copyBufSize)
	bw := bufio.NewWriterSize(dst, copyBufSize)
	info := Info{ContentType: JPEG}

	var soi [2]byte
	if _, err := io.ReadFull(br, soi[:]); err != nil {
		return Info{}, readErr(err)
	}
	if soi != [2]byte{0xFF, mSOI} {
		return Info{}, errInvalidType()
	}
	if _, err := bw.Write(soi[:]); err != nil {
		return Info{}, writeErr(err)
	}

	sawSOF, sawSOS := false, false
	m, err := nextMarker(br)
	for {
		if err != nil {
			return Info{}, err
		}
		switch {
		case m == mEOI:
			if !sawSOS {
				return Info{}, errInvalidType()
			}
			if err := writeMarker(bw, mEOI); err != nil {
				return Info{}, err
			}
			if err := flush(bw); err != nil {
				return Info{}, err
			}
			// Trailing data (MPF second images, appended archives) is not image.
			return info, drain(br)
		case m == mSOS:
			if !sawSOF {
				return Info{}, errInvalidType()
			}
			if err := copySegment(bw, br, m); err != nil {
				return Info{}, err
			}
			sawSOS = true
			m, err = copyScan(bw, br)
			continue
		case m >= 0xD0 && m <= 0xD7, m == mTEM:
			// Parameterless markers; tolerated between segments.
			if err := writeMarker(bw, m); err != nil {
				return Info{}, err
			}
		case m == mSOI || m < 0xC0:
			return Info{}, errInvalidType()
		case isSOF(m):
			w, h, err := copySOF(bw, br, m)
			if err != nil {
				return Info{}, err
			}
			if !sawSOF {
				info.Width, info.Height = w, h
			}
			sawSOF = true
		default:
			if err := filterSegment(bw, br, m); err != nil {
				return Info{}, err
			}
		}
		m, err = nextMarker(br)
	}
}

func isSOF(m byte) bool {
	return m >= 0xC0 && m <= 0xCF && m != mDHT && m != mJPG && m != mDAC
}

// nextMarker reads the marker that must follow a segment: 0xFF, optional fill
// 0xFF bytes, then the marker code.
func nextMarker(br *bufio.Reader) (byte, error) {
	c, err := br.ReadByte()
	if err != nil {
		return 0, readErr(err)
	}
	if c != 0xFF {
		return 0, errInvalidType()
	}
	for c == 0xFF {
		if c, err = br.ReadByte(); err != nil {
			return 0, readErr(err)
		}
	}
	if c == 0x00 {
		return 0, errInvalidType()
	}
	return c, nil
}

// segmentLength reads a segment's length field and returns the payload size.
func segmentLength(br *bufio.Reader) (int, error) {
	var l [2]byte
	if _, err := io.ReadFull(br, l[:]); err != nil {
		return 0, readErr(err)
	}
	n := int(binary.BigEndian.Uint16(l[:]))
	if n < 2 {
		return 0, errInvalidType()
	}
	return n - 2, nil
}

// writeMarker writes byte by byte: a slice literal would escape and allocate
// once per restart marker.
func writeMarker(bw *bufio.Writer, m byte) error {
	bw.WriteByte(0xFF)
	if err := bw.WriteByte(m); err != nil {
		return writeErr(err)
	}
	return nil
}

func writeSegmentHeader(bw *bufio.Writer, m byte, payload int) error {
	bw.WriteByte(0xFF)
	bw.WriteByte(m)
	bw.WriteByte(byte((payload + 2) >> 8))
	if err := bw.WriteByte(byte(payload + 2)); err != nil {
		return writeErr(err)
	}
	return nil
}

// copySegment copies a length-prefixed segment unchanged.
func copySegment(bw *bufio.Writer, br *bufio.Reader, m byte) error {
	n, err := segmentLength(br)
	if err != nil {
		return err
	}
	if err := writeSegmentHeader(bw, m, n); err != nil {
		return err
	}
	return copyN(bw, br, int64(n), nil)
}

// copyN copies exactly n bytes through buf, telling a short input (malformed
// file) from a failing writer. The caller's buffer matters: io.CopyN would
// allocate one the size of each chunk, which adds up to the file size.
func copyN(dst io.Writer, src io.Reader, n int64, buf []byte) error {
	got, err := io.CopyBuffer(dst, io.LimitReader(src, n), buf)
	if got == n {
		return nil
	}
	if err == nil || err == io.EOF {
		return errInvalidType()
	}
	// CopyN cannot say which side failed; %w keeps either recognisable.
	return fmt.Errorf("medimg: copy segment: %w", err)
}

// copySOF checks a frame header's dimensions before anything can be decoded
// and copies it.
func copySOF(bw *bufio.Writer, br *bufio.Reader, m byte) (w, h int, err error) {
	n, err := segmentLength(br)
	if err != nil {
		return 0, 0, err
	}
	if n < 6 || n > 6+3*255 {
		return 0, 0, errInvalidType()
	}
	var buf [6 + 3*255]byte
	if _, err := io.ReadFull(br, buf[:n]); err != nil {
		return 0, 0, readErr(err)
	}
	h = int(binary.BigEndian.Uint16(buf[1:3]))
	w = int(binary.BigEndian.Uint16(buf[3:5]))
	comps := int(buf[5])
	// Height 0 means "given later by a DNL marker", which no decoder we use
	// supports; a frame without components is not an image.
	if comps == 0 || n != 6+3*comps || w == 0 || h == 0 {
		return 0, 0, errInvalidType()
	}
	if err := checkDimensions(w, h); err != nil {
		return 0, 0, err
	}
	if err := writeSegmentHeader(bw, m, n); err != nil {
		return 0, 0, err
	}
	if _, err := bw.Write(buf[:n]); err != nil {
		return 0, 0, writeErr(err)
	}
	return w, h, nil
}

var (
	idJFIF  = []byte("JFIF\x00")
	idICC   = []byte("ICC_PROFILE\x00")
	idAdobe = []byte("Adobe")
)

// filterSegment keeps what rendering needs and drops metadata: APPn other
// than JFIF, ICC profiles and Adobe (whose transform flag decides the colour
// conversion), and comments. EXIF, XMP, GPS and IPTC all live in the dropped
// segments.
func filterSegment(bw *bufio.Writer, br *bufio.Reader, m byte) error {
	n, err := segmentLength(br)
	if err != nil {
		return err
	}
	keep := true
	switch {
	case m == mAPP0:
		if hasID(br, n, idJFIF) && n >= 14 {
			return copyJFIF(bw, br, n)
		}
		keep = false
	case m == mAPP1 && hasID(br, n, idExif):
		return keepOrientation(bw, br, n)
	case m == mAPP2:
		keep = hasID(br, n, idICC)
	case m == mAPPE:
		keep = hasID(br, n, idAdobe)
	case m > mAPP0 && m <= 0xEF, m == mCOM:
		keep = false
	}
	if !keep {
		if _, err := br.Discard(n); err != nil {
			return readErr(err)
		}
		return nil
	}
	if err := writeSegmentHeader(bw, m, n); err != nil {
		return err
	}
	return copyN(bw, br, int64(n), nil)
}

func hasID(br *bufio.Reader, payload int, id []byte) bool {
	if payload < len(id) {
		return false
	}
	p, err := br.Peek(len(id))
	return err == nil && bytes.Equal(p, id)
}

// copyJFIF keeps the JFIF header but not its thumbnail: a thumbnail can show
// what a crop removed.
func copyJFIF(bw *bufio.Writer, br *bufio.Reader, n int) error {
	var hdr [14]byte // "JFIF\0", version, units, densities, thumbnail size
	if _, err := io.ReadFull(br, hdr[:]); err != nil {
		return readErr(err)
	}
	if _, err := br.Discard(n - len(hdr)); err != nil {
		return readErr(err)
	}
	hdr[12], hdr[13] = 0, 0
	if err := writeSegmentHeader(bw, mAPP0, len(hdr)); err != nil {
		return err
	}
	if _, err := bw.Write(hdr[:]); err != nil {
		return writeErr(err)
	}
	return nil
}

// copyScan copies entropy-coded data up to the next marker that is neither a
// stuffed 0xFF00 nor a restart marker, and returns that marker. The 0xFF that
// introduces it is not written: the caller writes the marker only if it keeps
// the segment.
func copyScan(bw *bufio.Writer, br *bufio.Reader) (byte, error) {
	for {
		chunk, err := br.ReadSlice(0xFF)
		switch err {
		case bufio.ErrBufferFull:
			if _, err := bw.Write(chunk); err != nil {
				return 0, writeErr(err)
			}
			continue
		case nil:
			if _, err := bw.Write(chunk[:len(chunk)-1]); err != nil {
				return 0, writeErr(err)
			}
		default:
			return 0, readErr(err)
		}
		for {
			c, err := br.ReadByte()
			if err != nil {
				return 0, readErr(err)
			}
			if c == 0xFF { // fill byte before a marker
				continue
			}
			if c == 0x00 || (c >= 0xD0 && c <= 0xD7) {
				if err := writeMarker(bw, c); err != nil {
					return 0, err
				}
				break
			}
			return c, nil
		}
	}
}
