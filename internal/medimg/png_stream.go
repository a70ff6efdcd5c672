package medimg

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"hash"
	"hash/crc32"
	"image"
	"io"
)

// PNG colour types (PNG spec, 11.2.2).
const (
	pngGrey      = 0
	pngRGB       = 2
	pngPalette   = 3
	pngGreyAlpha = 4
	pngRGBA      = 6
)

// pngHeader is what the IHDR chunk says.
type pngHeader struct {
	width, height int
	depth         int
	colorType     byte
	interlaced    bool
}

var errPNGFormat = errors.New("medimg: png: malformed")

// readPNGHeader reads the signature and the IHDR chunk. Any failure is
// ErrNoPreview, but dimensions beyond the upload limits are "too large".
func readPNGHeader(r io.Reader) (pngHeader, error) {
	var c [8 + 8 + 13 + 4]byte // signature, length and type, data, CRC
	if _, err := io.ReadFull(r, c[:]); err != nil {
		return pngHeader{}, ErrNoPreview
	}
	d := c[16:29]
	if !bytes.Equal(c[:8], magicPNG) || binary.BigEndian.Uint32(c[8:12]) != 13 || string(c[12:16]) != "IHDR" ||
		crc32.ChecksumIEEE(c[12:29]) != binary.BigEndian.Uint32(c[29:]) {
		return pngHeader{}, ErrNoPreview
	}
	w, h := binary.BigEndian.Uint32(d[0:4]), binary.BigEndian.Uint32(d[4:8])
	if w == 0 || h == 0 || !validPNGDepth(d[9], d[8]) || d[10] != 0 || d[11] != 0 || d[12] > 1 {
		return pngHeader{}, ErrNoPreview
	}
	if w > maxImageSide || h > maxImageSide {
		return pngHeader{}, errTooLarge()
	}
	hdr := pngHeader{width: int(w), height: int(h), depth: int(d[8]), colorType: d[9], interlaced: d[12] == 1}
	return hdr, checkDimensions(hdr.width, hdr.height)
}

func (h pngHeader) channels() int {
	switch h.colorType {
	case pngRGB:
		return 3
	case pngGreyAlpha:
		return 2
	case pngRGBA:
		return 4
	}
	return 1
}

// rowBytes is one filtered row without its filter byte.
func (h pngHeader) rowBytes() int64 {
	return (int64(h.width)*int64(h.channels()*h.depth) + 7) / 8
}

// decodedPixelBytes is what one pixel costs in the image the standard
// library's decoder returns. A tRNS chunk (not known from IHDR) can turn
// greyscale and RGB into NRGBA or NRGBA64, so those count as that.
func (h pngHeader) decodedPixelBytes() int64 {
	switch {
	case h.colorType == pngPalette:
		return 1
	case h.depth == 16:
		return 8
	}
	return 4
}

// greyOutput: the preview of a greyscale image without transparency stays
// greyscale, as scaleToFit keeps *image.Gray and *image.Gray16.
func (h pngHeader) greyOutput(transparent bool) bool {
	return h.colorType == pngGrey && !transparent
}

// pngStream decodes a non-interlaced PNG row by row and averages each row
// into the preview as it goes (a box filter), so memory is a few rows and
// the preview, whatever the image's size. Colours match the standard
// library's decoder: the tests compare the two pixel for pixel.
type pngStream struct {
	hdr      pngHeader
	palette  [256][4]uint8 // NRGBA; entries past PLTE are opaque black, as in image/png
	paletteN int
	trns     []byte // the tRNS chunk for greyscale or RGB
	br       *bufio.Reader
	crc      hash.Hash32
	idatLeft uint32
}

// streamPNG renders the PNG in r to fit maxSide. Malformed data is
// ErrNoPreview.
func streamPNG(r io.Reader, maxSide int) (image.Image, error) {
	br := bufio.NewReaderSize(r, copyBufSize)
	hdr, err := readPNGHeader(br)
	if err != nil {
		return nil, err
	}
	if hdr.interlaced {
		return nil, ErrNoPreview
	}
	s := &pngStream{hdr: hdr, br: br, crc: crc32.NewIEEE()}
	for i := range s.palette {
		s.palette[i] = [4]uint8{0, 0, 0, 0xff}
	}
	if err := s.readToIDAT(); err != nil {
		return nil, ErrNoPreview
	}
	zr, err := zlib.NewReader(s)
	if err != nil {
		return nil, ErrNoPreview
	}
	defer zr.Close()
	img, err := s.render(zr, maxSide)
	if err != nil {
		return nil, ErrNoPreview
	}
	return img, nil
}

// readToIDAT reads the chunks before the image data, keeping PLTE and tRNS,
// and stops at the start of the first IDAT's data.
func (s *pngStream) readToIDAT() error {
	sawPLTE := false
	var hdr [8]byte
	for {
		if _, err := io.ReadFull(s.br, hdr[:]); err != nil {
			return err
		}
		n := binary.BigEndian.Uint32(hdr[:4])
		typ := string(hdr[4:8])
		if n > 0x7FFFFFFF {
			return errPNGFormat
		}
		s.crc.Reset()
		s.crc.Write(hdr[4:8])
		switch typ {
		case "IDAT":
			if s.hdr.colorType == pngPalette && !sawPLTE {
				return errPNGFormat // image/png: chunk order error
			}
			s.idatLeft = n
			return nil
		case "IEND", "IHDR":
			return errPNGFormat
		case "PLTE", "tRNS":
			if n > 3*256 {
				return errPNGFormat
			}
			data := make([]byte, n)
			if _, err := io.ReadFull(s.br, data); err != nil {
				return err
			}
			s.crc.Write(data)
			if err := s.verifyCRC(); err != nil {
				return err
			}
			var err error
			if typ == "PLTE" {
				err = s.plte(data)
				sawPLTE = true
			} else {
				err = s.tRNS(data, sawPLTE)
			}
			if err != nil {
				return err
			}
		default:
			if _, err := io.CopyN(s.crc, s.br, int64(n)); err != nil {
				return err
			}
			if err := s.verifyCRC(); err != nil {
				return err
			}
		}
	}
}

func (s *pngStream) verifyCRC() error {
	var sum [4]byte
	if _, err := io.ReadFull(s.br, sum[:]); err != nil {
		return err
	}
	if binary.BigEndian.Uint32(sum[:]) != s.crc.Sum32() {
		return errPNGFormat
	}
	return nil
}

// plte follows image/png's parsePLTE.
func (s *pngStream) plte(data []byte) error {
	np := len(data) / 3
	if len(data)%3 != 0 || np <= 0 || np > 256 || np > 1<<uint(s.hdr.depth) {
		return errPNGFormat
	}
	switch s.hdr.colorType {
	case pngPalette:
		for i := range np {
			s.palette[i] = [4]uint8{data[3*i], data[3*i+1], data[3*i+2], 0xff}
		}
		s.paletteN = np
	case pngRGB, pngRGBA: // optional and ignorable for these
	default:
		return errPNGFormat
	}
	return nil
}

// tRNS follows image/png's parsetRNS.
func (s *pngStream) tRNS(data []byte, sawPLTE bool) error {
	switch s.hdr.colorType {
	case pngGrey:
		if len(data) != 2 {
			return errPNGFormat
		}
	case pngRGB:
		if len(data) != 6 {
			return errPNGFormat
		}
	case pngPalette:
		if len(data) > 256 || !sawPLTE {
			return errPNGFormat
		}
		for i, a := range data {
			s.palette[i][3] = a
		}
		return nil
	default:
		return errPNGFormat
	}
	s.trns = append([]byte(nil), data...)
	if s.hdr.colorType == pngGrey {
		// image/png scales the low byte of a low-depth grey to 8 bits.
		switch s.hdr.depth {
		case 1:
			s.trns[1] *= 0xff
		case 2:
			s.trns[1] *= 0x55
		case 4:
			s.trns[1] *= 0x11
		}
	}
	return nil
}

// Read presents the IDAT chunks as one stream, checking each one's CRC.
func (s *pngStream) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for s.idatLeft == 0 {
		if err := s.verifyCRC(); err != nil {
			return 0, err
		}
		var hdr [8]byte
		if _, err := io.ReadFull(s.br, hdr[:]); err != nil {
			return 0, err
		}
		if string(hdr[4:8]) != "IDAT" {
			return 0, io.ErrUnexpectedEOF // not enough pixel data
		}
		s.idatLeft = binary.BigEndian.Uint32(hdr[:4])
		if s.idatLeft > 0x7FFFFFFF {
			return 0, errPNGFormat
		}
		s.crc.Reset()
		s.crc.Write(hdr[4:8])
	}
	n, err := s.br.Read(p[:min(len(p), int(s.idatLeft))])
	s.crc.Write(p[:n])
	s.idatLeft -= uint32(n)
	return n, err
}

// render reads the rows from the inflated stream zr. Each source pixel adds
// its premultiplied 16-bit colour to one preview pixel; a preview pixel is
// the rounded mean of those, cut to 8 bits as image/draw would.
func (s *pngStream) render(zr io.Reader, maxSide int) (image.Image, error) {
	h := s.hdr
	nw, nh := fitSize(h.width, h.height, maxSide)
	grey := h.greyOutput(s.trns != nil)
	ch := 4
	if grey {
		ch = 1
	}
	acc := &boxAccumulator{ch: ch, xmap: make([]int32, h.width), width: make([]uint32, nw), sums: make([]uint64, nw*ch)}
	for x := range acc.xmap {
		ox := int32(int64(x) * int64(nw) / int64(h.width))
		acc.xmap[x] = ox
		acc.width[ox]++
	}
	rowLen := h.rowBytes()
	cr := make([]byte, rowLen+1)
	pr := make([]byte, rowLen+1)

	var out image.Image
	if grey {
		g := image.NewGray(image.Rect(0, 0, nw, nh))
		out, acc.pix, acc.stride = g, g.Pix, g.Stride
	} else {
		m := image.NewRGBA(image.Rect(0, 0, nw, nh))
		out, acc.pix, acc.stride = m, m.Pix, m.Stride
	}

	bpp := max(1, h.channels()*h.depth/8) // filter distance in bytes
	cur := 0
	for y := 0; y < h.height; y++ {
		if _, err := io.ReadFull(zr, cr); err != nil {
			return nil, err
		}
		if err := unfilter(cr[0], cr[1:], pr[1:], bpp); err != nil {
			return nil, err
		}
		if oy := int(int64(y) * int64(nh) / int64(h.height)); oy != cur {
			acc.flush(cur)
			cur = oy
		}
		s.add(cr[1:], acc, grey)
		acc.rows++
		cr, pr = pr, cr
	}
	acc.flush(cur)
	return out, nil
}

// boxAccumulator sums the source pixels of one band of preview rows.
type boxAccumulator struct {
	ch     int
	xmap   []int32  // source column -> preview column
	width  []uint32 // source columns per preview column
	sums   []uint64 // per preview column and channel
	rows   uint32   // source rows summed so far
	pix    []uint8
	stride int
}

func (a *boxAccumulator) add4(x int, r, g, b, al uint32) {
	o := 4 * int(a.xmap[x])
	s := a.sums[o : o+4 : o+4]
	s[0] += uint64(r)
	s[1] += uint64(g)
	s[2] += uint64(b)
	s[3] += uint64(al)
}

// flush writes the band's means into preview row oy and starts a new band.
func (a *boxAccumulator) flush(oy int) {
	row := a.pix[oy*a.stride:]
	for ox, w := range a.width {
		c := uint64(w) * uint64(a.rows)
		for k := range a.ch {
			i := ox*a.ch + k
			if c > 0 {
				row[i] = uint8(((a.sums[i] + c/2) / c) >> 8)
			}
			a.sums[i] = 0
		}
	}
	a.rows = 0
}

// unfilter undoes one row's filter (PNG spec, 9.2) in place, given the
// previous row (zeros for the first).
func unfilter(ft byte, cdat, pdat []byte, bpp int) error {
	switch ft {
	case 0:
	case 1:
		for i := bpp; i < len(cdat); i++ {
			cdat[i] += cdat[i-bpp]
		}
	case 2:
		for i, p := range pdat {
			cdat[i] += p
		}
	case 3:
		for i := 0; i < bpp && i < len(cdat); i++ {
			cdat[i] += pdat[i] / 2
		}
		for i := bpp; i < len(cdat); i++ {
			cdat[i] += uint8((int(cdat[i-bpp]) + int(pdat[i])) / 2)
		}
	case 4:
		for i := range cdat {
			var a, c int
			if i >= bpp {
				a, c = int(cdat[i-bpp]), int(pdat[i-bpp])
			}
			b := int(pdat[i])
			p := a + b - c
			pa, pb, pc := abs(p-a), abs(p-b), abs(p-c)
			switch {
			case pa <= pb && pa <= pc:
				cdat[i] += uint8(a)
			case pb <= pc:
				cdat[i] += uint8(b)
			default:
				cdat[i] += uint8(c)
			}
		}
	default:
		return errPNGFormat
	}
	return nil
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// add adds one unfiltered row to the band: grey samples, or premultiplied
// RGBA computed as color.NRGBA(64).RGBA does, all in 16 bits.
func (s *pngStream) add(row []byte, acc *boxAccumulator, grey bool) {
	h := s.hdr
	w := h.width
	be16 := func(i int) uint32 { return uint32(row[2*i])<<8 | uint32(row[2*i+1]) }
	nrgba8 := func(x int, r, g, b, a uint8) {
		acc.add4(x, uint32(r)*0x101*uint32(a)/0xff, uint32(g)*0x101*uint32(a)/0xff, uint32(b)*0x101*uint32(a)/0xff, uint32(a)*0x101)
	}
	nrgba16 := func(x int, r, g, b, a uint32) {
		acc.add4(x, r*a/0xffff, g*a/0xffff, b*a/0xffff, a)
	}
	switch h.colorType {
	case pngGrey:
		switch {
		case grey && h.depth == 16:
			for x := range w {
				acc.sums[acc.xmap[x]] += uint64(be16(x))
			}
		case grey:
			for x := range w {
				acc.sums[acc.xmap[x]] += uint64(greySample(row, x, h.depth)) * 0x101
			}
		case h.depth == 16:
			t := uint32(s.trns[0])<<8 | uint32(s.trns[1])
			for x := range w {
				v, a := be16(x), uint32(0xffff)
				if v == t {
					a = 0
				}
				nrgba16(x, v, v, v, a)
			}
		default:
			t := s.trns[1] // image/png compares the low byte only
			for x := range w {
				v, a := greySample(row, x, h.depth), uint8(0xff)
				if v == t {
					a = 0
				}
				nrgba8(x, v, v, v, a)
			}
		}
	case pngRGB:
		switch {
		case h.depth == 8 && s.trns == nil:
			for x := range w {
				acc.add4(x, uint32(row[3*x])*0x101, uint32(row[3*x+1])*0x101, uint32(row[3*x+2])*0x101, 0xffff)
			}
		case h.depth == 8:
			tr, tg, tb := s.trns[1], s.trns[3], s.trns[5]
			for x := range w {
				r, g, b, a := row[3*x], row[3*x+1], row[3*x+2], uint8(0xff)
				if r == tr && g == tg && b == tb {
					a = 0
				}
				nrgba8(x, r, g, b, a)
			}
		default:
			var tr, tg, tb uint32
			trns := s.trns != nil
			if trns {
				tr = uint32(s.trns[0])<<8 | uint32(s.trns[1])
				tg = uint32(s.trns[2])<<8 | uint32(s.trns[3])
				tb = uint32(s.trns[4])<<8 | uint32(s.trns[5])
			}
			for x := range w {
				r, g, b, a := be16(3*x), be16(3*x+1), be16(3*x+2), uint32(0xffff)
				if trns && r == tr && g == tg && b == tb {
					a = 0
				}
				nrgba16(x, r, g, b, a)
			}
		}
	case pngPalette:
		for x := range w {
			c := s.palette[paletteIndex(row, x, h.depth)]
			nrgba8(x, c[0], c[1], c[2], c[3])
		}
	case pngGreyAlpha:
		if h.depth == 8 {
			for x := range w {
				v := row[2*x]
				nrgba8(x, v, v, v, row[2*x+1])
			}
		} else {
			for x := range w {
				v := be16(2 * x)
				nrgba16(x, v, v, v, be16(2*x+1))
			}
		}
	case pngRGBA:
		if h.depth == 8 {
			for x := range w {
				nrgba8(x, row[4*x], row[4*x+1], row[4*x+2], row[4*x+3])
			}
		} else {
			for x := range w {
				nrgba16(x, be16(4*x), be16(4*x+1), be16(4*x+2), be16(4*x+3))
			}
		}
	}
}

// greySample reads a grey sample of depth 1 to 8, scaled to 8 bits the way
// image/png scales low depths.
func greySample(row []byte, x, depth int) uint8 {
	switch depth {
	case 1:
		return paletteIndex(row, x, 1) * 0xff
	case 2:
		return paletteIndex(row, x, 2) * 0x55
	case 4:
		return paletteIndex(row, x, 4) * 0x11
	}
	return row[x]
}

// paletteIndex reads a sample of depth 1 to 8 as it is stored.
func paletteIndex(row []byte, x, depth int) uint8 {
	switch depth {
	case 1:
		return row[x/8] >> (7 - uint(x%8)) & 1
	case 2:
		return row[x/4] >> (6 - 2*uint(x%4)) & 3
	case 4:
		return row[x/2] >> (4 - 4*uint(x%2)) & 15
	}
	return row[x]
}

// fitSize is the size scaleToFit gives an image of w x h.
func fitSize(w, h, maxSide int) (int, int) {
	if w <= maxSide && h <= maxSide {
		return w, h
	}
	if h > w {
		return max(1, int((int64(w)*int64(maxSide)+int64(h)/2)/int64(h))), maxSide
	}
	return maxSide, max(1, int((int64(h)*int64(maxSide)+int64(w)/2)/int64(w)))
}

// streamPNGBytes is the memory streamPNG needs besides the preview itself:
// two rows, the column map and sums, and the inflater and reader buffers.
func streamPNGBytes(h pngHeader, maxSide int) int64 {
	nw, _ := fitSize(h.width, h.height, maxSide)
	return 2*(h.rowBytes()+1) + 4*int64(h.width) + int64(nw)*(4*8+4) + 128<<10
}
