package medimg

import (
	"bytes"
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"math"
	"strings"

	"github.com/suyashkumar/dicom"
	"github.com/suyashkumar/dicom/pkg/tag"
	"github.com/suyashkumar/dicom/pkg/uid"
	"github.com/suyashkumar/dicom/pkg/vrraw"

	"github.com/medishare/medishare/internal/domain"
)

// planDICOM parses the header in src (pixel data skipped) and estimates
// the render from it: the pixel data the parser will hold, the decoded first
// frame, the scaled copy and the encoder. A frame over the budget has no
// preview: DICOM frames are not decoded at reduced size.
func (p *Previewer) planDICOM(src io.Reader, size int64, maxSide int) (plan, error) {
	ds, g, err := parseDICOM(src, nil, false)
	if err != nil {
		var de *domain.Error
		if errors.As(err, &de) {
			return plan{}, ErrNoPreview // a stored file that does not parse has nothing to show
		}
		return plan{}, err
	}
	if !g.hasPixels {
		return plan{}, ErrNoPreview
	}
	pm := readPixelModule(&ds, g.transferSyntax)
	if pm.rows < 1 || pm.cols < 1 {
		return plan{}, ErrNoPreview
	}
	if err := checkDimensions(pm.cols, pm.rows); err != nil {
		return plan{}, err
	}
	// What the parser keeps: the header's values (weighed by the guard), a
	// few hundred bytes per element, and the pixel data, which is at most the
	// file unless the dataset is deflated.
	pixels := min(size, maxRetained)
	if g.deflated {
		pixels = maxRetained
	}
	parse := g.retained + 256*int64(g.elements) + pixels + 1<<20
	frame := dicomFrameBytes(pm, g, pixels)
	nw, nh := fitSize(pm.cols, pm.rows, maxSide)
	need, fine, ok := p.fit(parse+frame+encodeBytes(nw, nh), pm.cols, pm.rows, maxSide)
	if !ok {
		return plan{}, ErrNoPreview
	}
	// An encapsulated JPEG frame is checked against its own header too.
	ja := jpegAllowance{maxSide: maxSide, fine: fine, allow: frame + scaleBytes(pm.cols, pm.rows, maxSide, fine)}
	return plan{bytes: need, render: func(dst io.Writer, src io.Reader) error {
		img, err := renderDICOM(src, ja)
		if err != nil {
			return err
		}
		return encodePreview(dst, img, maxSide, orientationNone, fine)
	}}, nil
}

// dicomFrameBytes estimates decoding the first frame of pixels bytes of
// pixel data into an 8-bit image: native samples may be copied once (byte
// swapping), RLE expands to native samples one segment at a time, and a JPEG
// frame is read from a copy of its fragments, by its own header (or at its
// worst, progressive and without subsampling, when the header parse did not
// keep it). The rendered frame is one byte a pixel for greyscale and four
// for colour.
func dicomFrameBytes(pm pixelModule, g *dicomGuard, pixels int64) int64 {
	n := int64(pm.rows) * int64(pm.cols)
	samples := int64(max(pm.samples, 1))
	out := 4 * n
	if samples == 1 && pm.photometric != "PALETTE COLOR" {
		out = n
	}
	switch {
	case !g.encapsulated:
		return pixels + out
	case g.transferSyntax == tsRLE:
		bytesPerSample := int64(max(pm.bitsAllocated, 8)+7) / 8
		return n*samples*bytesPerSample + n + 128 + out
	case usesSandbox(g.transferSyntax, g.frameHead):
		return pixels + sandboxFrameBytes(g.transferSyntax, pm, pixels) + out
	}
	h, err := readJPEGHeader(bytes.NewReader(g.frameHead))
	if err != nil {
		comps := make([]jpegComponent, min(samples, 4))
		for i := range comps {
			comps[i] = jpegComponent{id: byte(i), h: 1, v: 1}
		}
		h = jpegHeader{width: pm.cols, height: pm.rows, comps: comps, progressive: true}
	}
	return pixels + jpegFrameBytes(h)
}

// jpegFrameBytes is what decoding a JPEG frame costs: the decoder's image,
// and an RGBA copy when DICOM says its three components are RGB.
func jpegFrameBytes(h jpegHeader) int64 {
	n := h.decodeBytes()
	if len(h.comps) == 3 && !h.isRGB() {
		n += 4 * int64(h.width) * int64(h.height)
	}
	return n
}

// renderDICOM parses a stored DICOM file with its pixel data and renders the
// first frame to an 8-bit image; ja is the memory planned for decoding the
// frame and scaling it.
func renderDICOM(src io.Reader, ja jpegAllowance) (image.Image, error) {
	ds, g, err := parseDICOM(src, nil, true)
	if err != nil {
		var de *domain.Error
		if errors.As(err, &de) {
			return nil, ErrNoPreview
		}
		return nil, err
	}
	if !g.hasPixels {
		return nil, ErrNoPreview
	}
	return renderFrame(&ds, g.transferSyntax, ja)
}

// jpegAllowance is what an encapsulated JPEG frame may cost to decode and
// scale.
type jpegAllowance struct {
	maxSide int
	fine    bool
	allow   int64
}

func (a jpegAllowance) admits(h jpegHeader) bool {
	cost := jpegFrameBytes(h) + scaleBytes(h.width, h.height, a.maxSide, a.fine)
	return cost <= a.allow
}

// pixelModule holds the Image Pixel module attributes rendering needs.
type pixelModule struct {
	rows, cols, samples       int
	bitsAllocated, bitsStored int
	highBit                   int
	signed, planar            bool
	photometric               string
	frames                    int
	slope, intercept          float64
	center, width             float64
	hasWindow                 bool
	bo                        binary.ByteOrder
}

func readPixelModule(ds *dicom.Dataset, ts string) pixelModule {
	p := pixelModule{
		rows:          headerInt(ds, tag.Rows, 0),
		cols:          headerInt(ds, tag.Columns, 0),
		samples:       headerInt(ds, tag.SamplesPerPixel, 1),
		bitsAllocated: headerInt(ds, tag.BitsAllocated, 0),
		signed:        headerInt(ds, tag.PixelRepresentation, 0) == 1,
		planar:        headerInt(ds, tag.PlanarConfiguration, 0) == 1,
		photometric:   strings.ToUpper(headerText(ds, tag.PhotometricInterpretation)),
		frames:        headerInt(ds, tag.NumberOfFrames, 1),
		slope:         1,
		bo:            binary.LittleEndian,
	}
	p.bitsStored = headerInt(ds, tag.BitsStored, p.bitsAllocated)
	if p.bitsStored < 1 || p.bitsStored > p.bitsAllocated {
		p.bitsStored = p.bitsAllocated
	}
	p.highBit = headerInt(ds, tag.HighBit, p.bitsStored-1)
	if p.highBit < p.bitsStored-1 || p.highBit >= p.bitsAllocated {
		p.highBit = p.bitsStored - 1
	}
	if v := headerFloats(ds, tag.RescaleSlope); len(v) > 0 && v[0] != 0 && !math.IsInf(v[0], 0) && !math.IsNaN(v[0]) {
		p.slope = v[0]
	}
	if v := headerFloats(ds, tag.RescaleIntercept); len(v) > 0 && !math.IsInf(v[0], 0) && !math.IsNaN(v[0]) {
		p.intercept = v[0]
	}
	c, w := headerFloats(ds, tag.WindowCenter), headerFloats(ds, tag.WindowWidth)
	if len(c) > 0 && len(w) > 0 && w[0] >= 1 && !math.IsInf(w[0], 0) && !math.IsInf(c[0], 0) && !math.IsNaN(c[0]) {
		p.center, p.width, p.hasWindow = c[0], w[0], true
	}
	if ts == uid.ExplicitVRBigEndian {
		p.bo = binary.BigEndian
	}
	return p
}

// renderFrame renders the first frame, recovering from anything unexpected in
// the data as "no preview".
func renderFrame(ds *dicom.Dataset, ts string, ja jpegAllowance) (img image.Image, err error) {
	defer func() {
		if r := recover(); r != nil {
			img, err = nil, ErrNoPreview
		}
	}()
	p := readPixelModule(ds, ts)
	if p.rows < 1 || p.cols < 1 {
		return nil, ErrNoPreview
	}
	if err := checkDimensions(p.cols, p.rows); err != nil {
		return nil, err
	}
	e, err := ds.FindElementByTag(tag.PixelData)
	if err != nil || e.Value == nil {
		return nil, ErrNoPreview
	}
	info, ok := e.Value.GetValue().(dicom.PixelDataInfo)
	if !ok {
		return nil, ErrNoPreview
	}
	if info.IsEncapsulated {
		if ts == tsRLE {
			return renderRLE(ds, info, p)
		}
		return renderEncapsulated(ds, ts, info, p, ja)
	}
	if !info.IntentionallyUnprocessed {
		return nil, ErrNoPreview
	}
	raw := info.UnprocessedValueData
	// 8-bit samples in an OW value are swapped in pairs in big endian files.
	if p.bo == binary.BigEndian && p.bitsAllocated == 8 && e.RawValueRepresentation == vrraw.OtherWord {
		raw = swapPairs(raw)
	}
	return renderNative(ds, raw, p)
}

func swapPairs(b []byte) []byte {
	out := make([]byte, len(b))
	for i := 0; i+1 < len(b); i += 2 {
		out[i], out[i+1] = b[i+1], b[i]
	}
	return out
}

// renderNative renders uncompressed pixel data. The library's own frame
// decoding is not used: it packs single-bit data in the wrong order and does
// not know planar configuration, so the raw bytes are read here.
func renderNative(ds *dicom.Dataset, raw []byte, p pixelModule) (image.Image, error) {
	switch p.bitsAllocated {
	case 1, 8, 16, 32:
	default:
		return nil, ErrNoPreview
	}
	n := p.rows * p.cols
	frameBits := int64(n) * int64(p.samples) * int64(p.bitsAllocated)
	if int64(len(raw))*8 < frameBits {
		return nil, ErrNoPreview
	}
	s := sampler{data: raw, p: p}
	switch {
	case p.samples == 1 && p.photometric == "PALETTE COLOR":
		if img := renderPalette(ds, s, p); img != nil {
			return img, nil
		}
		return renderGrey(s, p), nil // greyscale fallback, e.g. segmented palettes
	case p.samples == 1:
		return renderGrey(s, p), nil
	case p.samples == 3 && p.bitsAllocated >= 8:
		return renderColour(s, p)
	}
	return nil, ErrNoPreview
}

// sampler reads stored sample values: masked to Bits Stored and sign
// extended when Pixel Representation says signed.
type sampler struct {
	data []byte
	p    pixelModule
}

func (s sampler) at(i int) int64 {
	var v uint64
	switch s.p.bitsAllocated {
	case 1:
		v = uint64(s.data[i/8]>>(i%8)) & 1 // DICOM packs bits least significant first
	case 8:
		v = uint64(s.data[i])
	case 16:
		v = uint64(s.p.bo.Uint16(s.data[2*i:]))
	case 32:
		v = uint64(s.p.bo.Uint32(s.data[4*i:]))
	}
	v >>= uint(s.p.highBit + 1 - s.p.bitsStored)
	v &= 1<<uint(s.p.bitsStored) - 1
	if s.p.signed && v&(1<<uint(s.p.bitsStored-1)) != 0 {
		return int64(v) - 1<<uint(s.p.bitsStored)
	}
	return int64(v)
}

// renderGrey applies the modality rescale, then the file's window or one
// computed from the values' range, and inverts MONOCHROME1.
func renderGrey(s sampler, p pixelModule) image.Image {
	n := p.rows * p.cols
	lo, hi := p.center-0.5-(p.width-1)/2, p.center-0.5+(p.width-1)/2
	if !p.hasWindow {
		lo, hi = math.Inf(1), math.Inf(-1)
		for i := 0; i < n; i++ {
			v := float64(s.at(i))*p.slope + p.intercept
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	invert := p.photometric == "MONOCHROME1"
	img := image.NewGray(image.Rect(0, 0, p.cols, p.rows))
	for i := 0; i < n; i++ {
		v := float64(s.at(i))*p.slope + p.intercept
		var y float64
		switch {
		case hi <= lo:
			y = 0
			if v > lo {
				y = 255
			}
		case p.hasWindow:
			// DICOM PS3.3 C.11.2.1.2.1, linear VOI function.
			y = ((v-(p.center-0.5))/(p.width-1) + 0.5) * 255
		default:
			y = (v - lo) / (hi - lo) * 255
		}
		g := uint8(math.Round(math.Max(0, math.Min(255, y))))
		if invert {
			g = 255 - g
		}
		img.Pix[i] = g
	}
	return img
}

// renderColour renders RGB or YBR_FULL samples, interleaved or planar.
func renderColour(s sampler, p pixelModule) (image.Image, error) {
	ybr := false
	switch p.photometric {
	case "RGB":
	case "YBR_FULL":
		ybr = true
	default:
		return nil, ErrNoPreview // YBR_FULL_422 and others are subsampled or compressed-only
	}
	n := p.rows * p.cols
	shift := uint(max(p.bitsStored-8, 0))
	sample := func(pixel, c int) uint8 {
		i := 3*pixel + c
		if p.planar {
			i = c*n + pixel
		}
		return uint8(max(min(s.at(i)>>shift, 255), 0))
	}
	img := image.NewRGBA(image.Rect(0, 0, p.cols, p.rows))
	for i := 0; i < n; i++ {
		r, g, b := sample(i, 0), sample(i, 1), sample(i, 2)
		if ybr {
			r, g, b = color.YCbCrToRGB(r, g, b)
		}
		img.Pix[4*i], img.Pix[4*i+1], img.Pix[4*i+2], img.Pix[4*i+3] = r, g, b, 0xFF
	}
	return img, nil
}

// renderPalette maps 8- or 16-bit indices through the palette colour lookup
// tables, or returns nil when the tables are missing or not usable.
func renderPalette(ds *dicom.Dataset, s sampler, p pixelModule) image.Image {
	var luts [3][]uint8
	var first int
	descs := []tag.Tag{tag.RedPaletteColorLookupTableDescriptor, tag.GreenPaletteColorLookupTableDescriptor, tag.BluePaletteColorLookupTableDescriptor}
	datas := []tag.Tag{tag.RedPaletteColorLookupTableData, tag.GreenPaletteColorLookupTableData, tag.BluePaletteColorLookupTableData}
	for c := range 3 {
		lut, f, ok := readLUT(ds, descs[c], datas[c])
		if !ok {
			return nil
		}
		luts[c], first = lut, f
	}
	n := p.rows * p.cols
	img := image.NewRGBA(image.Rect(0, 0, p.cols, p.rows))
	for i := 0; i < n; i++ {
		v := int(s.at(i)) - first
		for c := range 3 {
			idx := max(0, min(v, len(luts[c])-1))
			img.Pix[4*i+c] = luts[c][idx]
		}
		img.Pix[4*i+3] = 0xFF
	}
	return img
}

// readLUT reads one palette table as 8-bit values.
func readLUT(ds *dicom.Dataset, descTag, dataTag tag.Tag) ([]uint8, int, bool) {
	de, err := ds.FindElementByTag(descTag)
	if err != nil || de.Value == nil {
		return nil, 0, false
	}
	desc, _ := de.Value.GetValue().([]int)
	e, err := ds.FindElementByTag(dataTag)
	if err != nil || e.Value == nil || len(desc) != 3 {
		return nil, 0, false
	}
	data, _ := e.Value.GetValue().([]byte)
	entries, first, bits := desc[0], desc[1], desc[2]
	if entries <= 0 {
		entries = 65536 // 0 means 2^16 entries
	}
	lut := make([]uint8, entries)
	switch {
	case len(data) >= 2*entries:
		// The library stores OW values as little endian words.
		for i := range lut {
			v := binary.LittleEndian.Uint16(data[2*i:])
			if bits > 8 {
				v >>= uint(bits - 8)
			}
			lut[i] = uint8(min(v, 255))
		}
	case len(data) >= entries && bits <= 8:
		copy(lut, data)
	default:
		return nil, 0, false
	}
	return lut, first, true
}

// renderEncapsulated decodes the first frame of compressed pixel data: JPEG
// baseline and 8-bit extended with the standard library's decoder, JPEG
// 2000, JPEG-LS, lossless and 12-bit JPEG in the sandbox (renderSandboxed).
func renderEncapsulated(ds *dicom.Dataset, ts string, info dicom.PixelDataInfo, p pixelModule, ja jpegAllowance) (image.Image, error) {
	var data []byte
	switch {
	case len(info.Frames) == 0:
		return nil, ErrNoPreview
	case p.frames <= 1:
		// One frame may be split over several fragments.
		var buf bytes.Buffer
		for _, f := range info.Frames {
			buf.Write(f.EncapsulatedData.Data)
		}
		data = buf.Bytes()
	default:
		data = info.Frames[0].EncapsulatedData.Data
	}
	if usesSandbox(ts, data) {
		// The plan counted the sandbox by the declared size; the frame
		// must not be larger than the pixel data it planned for.
		if sandboxFrameBytes(ts, p, int64(len(data))) > ja.allow {
			return nil, ErrNoPreview
		}
		return renderSandboxed(ds, ts, data, p)
	}
	if !bytes.HasPrefix(data, []byte{0xFF, 0xD8}) {
		return nil, ErrNoPreview
	}
	h, err := readJPEGHeader(bytes.NewReader(data))
	if err != nil {
		return nil, ErrNoPreview
	}
	if !ja.admits(h) {
		return nil, ErrNoPreview // the frame is larger than its DICOM header said
	}
	img, err := safeDecode(func() (image.Image, error) { return jpeg.Decode(bytes.NewReader(data)) })
	if err != nil {
		return nil, err
	}
	if g, ok := img.(*image.Gray); ok && p.photometric == "MONOCHROME1" {
		for i := range g.Pix {
			g.Pix[i] = 255 - g.Pix[i]
		}
	}
	// Photometric RGB in DICOM means the JPEG holds untransformed RGB. The
	// decoder assumes YCbCr unless an Adobe or JFIF marker says otherwise, and
	// DICOM writers rarely add one, so the header decides.
	if ycc, ok := img.(*image.YCbCr); ok && p.photometric == "RGB" {
		return planesAsRGB(ycc), nil
	}
	return img, nil
}

// planesAsRGB reads a decoded three-component JPEG's planes as R, G and B.
func planesAsRGB(ycc *image.YCbCr) *image.RGBA {
	b := ycc.Bounds()
	img := image.NewRGBA(b)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			yi, ci, o := ycc.YOffset(x, y), ycc.COffset(x, y), img.PixOffset(x, y)
			img.Pix[o], img.Pix[o+1], img.Pix[o+2], img.Pix[o+3] = ycc.Y[yi], ycc.Cb[ci], ycc.Cr[ci], 0xFF
		}
	}
	return img
}
