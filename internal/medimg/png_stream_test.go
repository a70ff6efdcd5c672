package medimg

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"testing"

	"github.com/medishare/medishare/internal/domain"
)

// rawPNG writes a non-interlaced PNG of unfiltered rows, filtering row y
// with filter y%5 so that None, Sub, Up, Average and Paeth all occur. The
// chunks go between IHDR and IDAT; the image data is split over two IDATs.
func rawPNG(w, h, depth int, colorType byte, rows [][]byte, chunks ...[]byte) []byte {
	hdr := pngHeader{width: w, height: h, depth: depth, colorType: colorType}
	bpp := max(1, hdr.channels()*depth/8)
	var raw bytes.Buffer
	prev := make([]byte, len(rows[0]))
	for y, row := range rows {
		ft := byte(y % 5)
		raw.WriteByte(ft)
		raw.Write(filterRow(ft, row, prev, bpp))
		prev = row
	}
	z := bytes.NewBuffer(zlibBytes(raw.Bytes()))

	ihdrData := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdrData, uint32(w))
	binary.BigEndian.PutUint32(ihdrData[4:], uint32(h))
	ihdrData[8], ihdrData[9] = byte(depth), colorType
	out := append([]byte{}, magicPNG...)
	out = append(out, pngChunk("IHDR", ihdrData)...)
	for _, c := range chunks {
		out = append(out, c...)
	}
	half := z.Len() / 2
	out = append(out, pngChunk("IDAT", z.Bytes()[:half])...)
	out = append(out, pngChunk("IDAT", z.Bytes()[half:])...)
	return append(out, pngChunk("IEND", nil)...)
}

func filterRow(ft byte, row, prev []byte, bpp int) []byte {
	out := make([]byte, len(row))
	for i := range row {
		var a, c byte
		if i >= bpp {
			a, c = row[i-bpp], prev[i-bpp]
		}
		b := prev[i]
		switch ft {
		case 0:
			out[i] = row[i]
		case 1:
			out[i] = row[i] - a
		case 2:
			out[i] = row[i] - b
		case 3:
			out[i] = row[i] - byte((int(a)+int(b))/2)
		case 4:
			p := int(a) + int(b) - int(c)
			pa, pb, pc := abs(p-int(a)), abs(p-int(b)), abs(p-int(c))
			pred := c
			switch {
			case pa <= pb && pa <= pc:
				pred = a
			case pb <= pc:
				pred = b
			}
			out[i] = row[i] - pred
		}
	}
	return out
}

// randomRows is h rows of random bytes for an image of the given layout.
func randomRows(r *rand.Rand, w, h, depth int, colorType byte) [][]byte {
	n := pngHeader{width: w, height: h, depth: depth, colorType: colorType}.rowBytes()
	rows := make([][]byte, h)
	for y := range rows {
		rows[y] = make([]byte, n)
		for i := range rows[y] {
			rows[y][i] = byte(r.Uint32())
			if r.IntN(4) == 0 {
				rows[y][i] = 0 // repeats, so tRNS values occur
			}
		}
	}
	return rows
}

// pngCases covers every colour type and bit depth, with and without tRNS,
// and palettes shorter than their indices reach.
func pngCases(tb testing.TB) map[string][]byte {
	r := rand.New(rand.NewPCG(1, 2))
	const w, h = 21, 11 // odd, so packed rows end mid-byte
	cases := map[string][]byte{}
	depths := map[byte][]int{pngGrey: {1, 2, 4, 8, 16}, pngRGB: {8, 16}, pngPalette: {1, 2, 4, 8}, pngGreyAlpha: {8, 16}, pngRGBA: {8, 16}}
	for ct, ds := range depths {
		for _, d := range ds {
			rows := randomRows(r, w, h, d, ct)
			name := fmt.Sprintf("type%d-depth%d", ct, d)
			switch ct {
			case pngPalette:
				np := max(1, (1<<d)*2/3) // some indices past the palette's end
				plte := make([]byte, 3*np)
				for i := range plte {
					plte[i] = byte(r.Uint32())
				}
				cases[name] = rawPNG(w, h, d, ct, rows, pngChunk("PLTE", plte))
				trns := make([]byte, min(np+1, 256))
				for i := range trns {
					trns[i] = byte(r.Uint32())
				}
				cases[name+"-tRNS"] = rawPNG(w, h, d, ct, rows, pngChunk("PLTE", plte), pngChunk("tRNS", trns))
			case pngGrey:
				cases[name] = rawPNG(w, h, d, ct, rows)
				cases[name+"-tRNS"] = rawPNG(w, h, d, ct, rows, pngChunk("tRNS", []byte{0, 0}))
			case pngRGB:
				cases[name] = rawPNG(w, h, d, ct, rows)
				cases[name+"-tRNS"] = rawPNG(w, h, d, ct, rows, pngChunk("tRNS", make([]byte, 6)))
			default:
				cases[name] = rawPNG(w, h, d, ct, rows)
			}
		}
	}
	// And what image/png writes, with its own filter choices.
	cases["go-nrgba64"] = encodePNG(tb, testImage64(37, 29))
	cases["go-rgba"] = encodePNG(tb, testImage(37, 29))
	return cases
}

func testImage64(w, h int) *image.NRGBA64 {
	img := image.NewNRGBA64(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetNRGBA64(x, y, color.NRGBA64{uint16(x * 1733), uint16(y * 2221), uint16(x * y * 97), uint16(0xFFFF - x*y*31)})
		}
	}
	return img
}

// TestStreamPNGMatchesDecoder: at full size, the streamed rendering holds
// exactly the colours image/png decodes, for every colour type and depth.
func TestStreamPNGMatchesDecoder(t *testing.T) {
	for name, data := range pngCases(t) {
		t.Run(name, func(t *testing.T) {
			ref, err := png.Decode(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("image/png: %v", err)
			}
			got, err := streamPNG(bytes.NewReader(data), 1024)
			if err != nil {
				t.Fatal(err)
			}
			compareImages(t, got, ref)
		})
	}
}

// compareImages checks got (a streamed rendering at full size) against the
// image/png decoding ref, converted to got's model.
func compareImages(t testing.TB, got, ref image.Image) {
	t.Helper()
	if got.Bounds() != ref.Bounds() {
		t.Fatalf("bounds %v, want %v", got.Bounds(), ref.Bounds())
	}
	_, refGrey := ref.(*image.Gray)
	_, refGrey16 := ref.(*image.Gray16)
	if isGrey(got) != (refGrey || refGrey16) {
		t.Fatalf("streamed %T for decoded %T", got, ref)
	}
	b := ref.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			var want, have color.Color
			if g, ok := got.(*image.Gray); ok {
				want, have = color.GrayModel.Convert(ref.At(x, y)), g.GrayAt(x, y)
			} else {
				want, have = color.RGBAModel.Convert(ref.At(x, y)), got.(*image.RGBA).RGBAAt(x, y)
			}
			if want != have {
				t.Fatalf("pixel (%d,%d) = %v, want %v (decoded %v)", x, y, have, want, ref.At(x, y))
			}
		}
	}
}

// TestStreamPNGDownsamples: a smaller rendering is the mean of the
// premultiplied source pixels each preview pixel covers.
func TestStreamPNGDownsamples(t *testing.T) {
	data := encodePNG(t, testImage64(300, 200))
	ref, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	got, err := streamPNG(bytes.NewReader(data), 64)
	if err != nil {
		t.Fatal(err)
	}
	nw, nh := fitSize(300, 200, 64)
	if s := got.Bounds().Size(); s.X != nw || s.Y != nh {
		t.Fatalf("size %v, want %dx%d", s, nw, nh)
	}
	var sums [64 * 64][4]uint64
	var counts [64 * 64]uint64
	for y := range 200 {
		for x := range 300 {
			i := (y*nh/200)*nw + x*nw/300
			r, g, b, a := ref.At(x, y).RGBA()
			sums[i][0] += uint64(r)
			sums[i][1] += uint64(g)
			sums[i][2] += uint64(b)
			sums[i][3] += uint64(a)
			counts[i]++
		}
	}
	m := got.(*image.RGBA)
	for i := range nw * nh {
		for k := range 4 {
			want := uint8((sums[i][k] + counts[i]/2) / counts[i] >> 8)
			if have := m.Pix[4*i+k]; have != want {
				t.Fatalf("preview pixel %d channel %d = %d, want %d", i, k, have, want)
			}
		}
	}
}

func TestStreamPNGRefusesMalformed(t *testing.T) {
	good := encodePNG(t, testImage(20, 10))
	idat := bytes.Index(good, []byte("IDAT"))
	flipped := append([]byte{}, good...)
	flipped[idat+10] ^= 0xFF // the chunk's CRC no longer matches
	short := good[:idat+20]
	badFilter := rawPNG(4, 2, 8, pngGrey, [][]byte{{1, 2, 3, 4}, {5, 6, 7, 8}})
	// Filter byte 9 on the first row; the data stays valid zlib.
	raw := bytes.NewBuffer(zlibBytes([]byte{9, 1, 2, 3, 4, 0, 5, 6, 7, 8}))
	at := bytes.Index(badFilter, []byte("IDAT")) - 4
	badFilter = append(append(append([]byte{}, badFilter[:at]...), pngChunk("IDAT", raw.Bytes())...), pngChunk("IEND", nil)...)
	noPalette := rawPNG(4, 1, 8, pngPalette, [][]byte{{0, 1, 2, 3}})

	for name, data := range map[string][]byte{
		"crc": flipped, "truncated": short, "filter type": badFilter, "palette without PLTE": noPalette,
		"interlaced": interlacedHeader(64, 64), "empty": nil,
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := streamPNG(bytes.NewReader(data), 32); err != ErrNoPreview {
				t.Fatalf("err = %v, want ErrNoPreview", err)
			}
		})
	}
}

// interlacedHeader is the signature and IHDR of an interlaced 16-bit RGBA
// PNG, with no image data.
func interlacedHeader(w, h uint32) []byte {
	d := make([]byte, 13)
	binary.BigEndian.PutUint32(d, w)
	binary.BigEndian.PutUint32(d[4:], h)
	d[8], d[9], d[12] = 16, pngRGBA, 1
	return append(append([]byte{}, magicPNG...), pngChunk("IHDR", d)...)
}

// FuzzStreamPNG: the streaming decoder never panics, and wherever image/png
// decodes a non-interlaced image, it renders the same colours.
func FuzzStreamPNG(f *testing.F) {
	for _, data := range pngCases(f) {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := streamPNG(bytes.NewReader(data), 8); err != nil {
			if k := domain.ErrorKind(err); k != domain.ENOTFOUND && k != domain.EVALIDATION {
				t.Fatalf("unexpected error %v", err)
			}
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(data))
		if err != nil || cfg.Width*cfg.Height > 1<<16 || cfg.Width > maxImageSide || cfg.Height > maxImageSide {
			return
		}
		ref, err := png.Decode(bytes.NewReader(data))
		if err != nil || data[8+8+12] == 1 { // interlace flag in IHDR
			return
		}
		got, err := streamPNG(bytes.NewReader(data), maxImageSide)
		if err != nil {
			t.Fatalf("image/png decodes it, streamPNG: %v", err)
		}
		compareImages(t, got, ref)
	})
}

// interlacedPNG is testImage(50, 40) as an interlaced (Adam7) 8-bit RGBA
// PNG, rows unfiltered.
func interlacedPNG(tb testing.TB) []byte {
	const w, h = 50, 40
	img := testImage(w, h)
	passes := [7][4]int{{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4}, {0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2}}
	var raw bytes.Buffer
	for _, p := range passes {
		for y := p[1]; y < h; y += p[3] {
			if p[0] >= w {
				break
			}
			raw.WriteByte(0)
			for x := p[0]; x < w; x += p[2] {
				raw.Write(img.Pix[img.PixOffset(x, y) : img.PixOffset(x, y)+4])
			}
		}
	}
	z := bytes.NewBuffer(zlibBytes(raw.Bytes()))
	d := make([]byte, 13)
	binary.BigEndian.PutUint32(d, w)
	binary.BigEndian.PutUint32(d[4:], h)
	d[8], d[9], d[12] = 8, pngRGBA, 1
	out := append(append([]byte{}, magicPNG...), pngChunk("IHDR", d)...)
	out = append(out, pngChunk("IDAT", z.Bytes())...)
	out = append(out, pngChunk("IEND", nil)...)
	if _, err := png.Decode(bytes.NewReader(out)); err != nil {
		tb.Fatalf("interlaced test PNG: %v", err)
	}
	return out
}

// zlibBytes compresses data; writes to a bytes.Buffer cannot fail.
func zlibBytes(data []byte) []byte {
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	_, _ = zw.Write(data)
	_ = zw.Close()
	return z.Bytes()
}
