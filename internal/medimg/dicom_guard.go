package medimg

import (
	"bufio"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"io"
	"strings"

	"github.com/suyashkumar/dicom/pkg/tag"
	"github.com/suyashkumar/dicom/pkg/uid"
	"github.com/suyashkumar/dicom/pkg/vrraw"
)

// dicomGuard sits between the upload and suyashkumar/dicom (S13). The library
// allocates whatever an element's length field claims before reading it and
// recurses once per nested sequence, so a few hundred crafted bytes could ask
// for gigabytes or overflow the stack. The guard reads every element header
// first, by the same rules the library uses, and lets the library see a
// header only once its length and nesting are within bounds. Values pass
// through unbuffered.
//
// The guard also fixes up, in the library's view only, the transfer syntax
// the library cannot follow: deflated datasets are inflated here (so the
// inflated size can be capped), and a dataset whose VR encoding contradicts
// its declared syntax is read the way it is actually written.
type dicomGuard struct {
	raw        *bufio.Reader // the file as stored
	ds         *bufio.Reader // the dataset after the meta group, inflated if need be
	keepPixels bool          // the library reads pixel data into memory (previews)

	phase    int
	bo       binary.ByteOrder
	implicit bool
	deflated bool

	pos       int64 // dataset bytes consumed
	stack     []container
	seqDepth  int
	elements  int
	retained  int64 // bytes the library keeps in memory
	remaining int64 // value bytes still to pass through

	hdr [12]byte
	out []byte // bytes validated and not yet handed to the library
	err error  // sticky; io.EOF once the dataset ended cleanly

	// What the file says about itself, for Info.
	transferSyntax string
	hasPixels      bool
	encapsulated   bool // the pixel data is in fragments (compressed)
	done           bool

	// The start of the first frame's first fragment, when pixel data is
	// skipped: a preview reads a compressed frame's own header from it.
	frameHead []byte
	capture   bool

	// Where the image's own pixel data lies in the file, for serving
	// frames: the dataset's first byte in the file (after the preamble
	// and the meta group), and the pixel data's value or fragments as
	// dataset offsets and lengths.
	datasetStart int64
	pixelSpans   []PixelSpan
}

// PixelSpan is a run of bytes of a stored DICOM file: a native pixel data
// value, or one fragment of encapsulated pixel data.
type PixelSpan struct {
	Offset int64 `json:"o"`
	Length int64 `json:"n"`
}

// maxPixelSpans bounds the fragments remembered for serving frames.
const maxPixelSpans = 20_000

const (
	phasePreamble = iota
	phaseMeta
	phaseDataset
)

// Bounds on what the guard lets the library read. Uploads are at most 10 MiB;
// only a deflated dataset can be larger once inflated.
const (
	maxMetaLength    = 64 << 10 // file meta group
	maxValueLength   = 16 << 20 // one non-pixel value
	maxNumericLength = 1 << 20  // one US/UL/SS/SL/FL/FD/AT list: the library stores 8 bytes per 2
	maxRetained      = 64 << 20 // all values the library keeps
	maxPixelBytes    = 32 << 20 // pixel data read into memory for a preview
	// Elements are bounded by what the library keeps for them, not by a
	// count tuned to images: an RT Structure Set holds some 13 elements
	// per contour (item, image reference sequence and item, delimiters,
	// geometry, point count, number, data), and planning systems write
	// tens of thousands of contours, 150 000 to 400 000 elements in a
	// 10 MiB file, where an image has a few hundred. suyashkumar/dicom
	// allocates some 180 bytes per element (measured on v1.1.0, empty
	// elements and empty items alike: TestElementCost), counted here as
	// elementCost. The header's values and its elements together stay
	// within maxParserMemory, and the count within maxElements (a file of
	// nothing but empty 8-byte elements: 4 MiB, some 90 MB of elements),
	// so the worst case costs about what the former 64 MiB of values and
	// 100 000 elements did (some 82 MB).
	elementCost       = 192
	maxElements       = 500_000
	maxParserMemory   = 96 << 20 // maxRetained of values plus elementCost per element
	maxDeflateTrailer = 64       // bytes after a deflated dataset
	maxSeqDepth       = 16
	maxFrameHead      = 64 << 10 // kept of a compressed frame's start: its JPEG headers
)

// maxDatasetBytes caps the (inflated) dataset, against deflate bombs. A
// variable so tests can lower it.
var maxDatasetBytes int64 = 256 << 20

type containerKind uint8

const (
	cSeq       containerKind = iota // SQ, or UN of undefined length
	cItem                           // (FFFE,E000) inside a sequence
	cFragments                      // encapsulated pixel data or undefined-length OB: raw items
)

type container struct {
	kind      containerKind
	end       int64 // dataset offset where it ends, -1 when a delimiter ends it
	pixels    bool  // cFragments holding pixel data
	topLevel  bool  // cFragments holding the image's own pixel data
	fragments int
}

const (
	tsExplicitLE = "1.2.840.10008.1.2.1"
	tsImplicitLE = "1.2.840.10008.1.2"
)

func newDicomGuard(r io.Reader, keepPixels bool) *dicomGuard {
	return &dicomGuard{raw: bufio.NewReaderSize(r, 4096), keepPixels: keepPixels}
}

// Read hands the library validated bytes only.
func (g *dicomGuard) Read(p []byte) (int, error) {
	for {
		if len(g.out) > 0 {
			n := copy(p, g.out)
			g.out = g.out[n:]
			return n, nil
		}
		if g.err != nil {
			return 0, g.err
		}
		if g.remaining > 0 {
			if len(p) == 0 {
				return 0, nil
			}
			if int64(len(p)) > g.remaining {
				p = p[:g.remaining]
			}
			n, err := g.ds.Read(p)
			if g.capture {
				g.frameHead = append(g.frameHead, p[:min(n, maxFrameHead-len(g.frameHead))]...)
			}
			g.remaining -= int64(n)
			g.capture = g.capture && g.remaining > 0
			g.pos += int64(n)
			if g.pos > maxDatasetBytes {
				g.err = errBounds
				continue
			}
			if n > 0 {
				return n, nil
			}
			if err == nil {
				err = io.ErrNoProgress
			}
			g.err = readFail(err)
			continue
		}
		g.err = g.step()
	}
}

// readFail maps the end of input inside an element to errTruncated and keeps
// other errors (a closed pipe, a time limit) as they are.
func readFail(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errTruncated
	}
	return err
}

// step validates the next header and queues it for the library.
func (g *dicomGuard) step() error {
	switch g.phase {
	case phasePreamble:
		return g.readPreamble()
	case phaseMeta:
		return g.readMeta()
	}
	// Leave the defined-length containers whose end has been reached, as the
	// library does when its read limit is exhausted.
	for len(g.stack) > 0 {
		top := g.stack[len(g.stack)-1]
		if top.end < 0 || g.pos < top.end {
			break
		}
		g.pop()
	}
	if g.pos > maxDatasetBytes {
		return errBounds
	}
	limit := g.limit()
	if limit >= 0 && g.pos >= limit {
		// An undefined-length container still open where its defined-length
		// parent ends: the library would stop reading where we would not.
		return errStructure
	}
	if n := len(g.stack); n > 0 && g.stack[n-1].kind == cFragments {
		return g.fragment(&g.stack[n-1])
	}

	n, err := io.ReadFull(g.ds, g.hdr[:4])
	if n == 0 && err == io.EOF && len(g.stack) == 0 {
		return g.finish()
	}
	if err != nil {
		return readFail(err)
	}
	t := tag.Tag{Group: g.bo.Uint16(g.hdr[0:2]), Element: g.bo.Uint16(g.hdr[2:4])}
	hl := 4
	implicit := g.implicit || t == tag.Item // the library reads items as implicit VR
	vr := ""
	if implicit {
		vr = implicitVR(t)
	} else {
		if _, err := io.ReadFull(g.ds, g.hdr[hl:hl+2]); err != nil {
			return readFail(err)
		}
		vr = string(g.hdr[hl : hl+2])
		hl += 2
	}
	vl, hl, err := g.readVL(implicit, vr, hl)
	if err != nil {
		return err
	}
	g.pos += int64(hl)
	if limit >= 0 && g.pos > limit {
		return errStructure
	}
	g.elements++
	if g.elements > maxElements || g.parserMemory() > maxParserMemory {
		return errBounds
	}
	if err := g.element(t, vr, vl); err != nil {
		return err // the library never sees a header that failed
	}
	g.out = g.hdr[:hl]
	return nil
}

// element decides, as the library's readValue does, whether the element opens
// a container or has a value, and checks its bounds.
func (g *dicomGuard) element(t tag.Tag, vr string, vl uint32) error {
	undefined := vl == tag.VLUndefinedLength
	var top *container
	if n := len(g.stack); n > 0 {
		top = &g.stack[n-1]
	}
	switch {
	case top != nil && top.kind == cSeq:
		// A sequence holds items and, if its length is undefined, ends with a
		// delimiter; anything else would make the library panic or log.
		if t == tag.Item {
			return g.push(container{kind: cItem}, vl)
		}
		if t == tag.SequenceDelimitationItem && top.end < 0 && vl == 0 {
			g.pop()
			return nil
		}
		return errStructure
	case t == tag.ItemDelimitationItem:
		if top != nil && top.kind == cItem && top.end < 0 && vl == 0 {
			g.pop()
			return nil
		}
		return errStructure
	case t.Group == tag.GroupSeqItem:
		return errStructure // an item or delimiter outside any sequence
	}

	kind := tag.GetVRKind(t, vr)
	if t == tag.SpecificCharacterSet && kind != tag.VRStringList {
		return errStructure // the library would log.Panicf on it
	}
	switch kind {
	case tag.VRSequence:
		return g.push(container{kind: cSeq}, vl)
	case tag.VRPixelData:
		if undefined {
			g.encapsulated = g.encapsulated || top == nil
			return g.push(container{kind: cFragments, pixels: true, topLevel: top == nil}, vl)
		}
		if top == nil && vl > 0 {
			g.hasPixels = true
			g.pixelSpans = append(g.pixelSpans, PixelSpan{Offset: g.pos, Length: int64(vl)})
		}
		if g.keepPixels {
			return g.value(vl, maxPixelBytes, 1)
		}
		return g.value(vl, -1, 0)
	case tag.VRBytes, tag.VRUnknown:
		if undefined {
			// OB/OW: raw items; UN: the library reads it as a sequence.
			if vr == vrraw.Unknown {
				return g.push(container{kind: cSeq}, vl)
			}
			return g.push(container{kind: cFragments}, vl)
		}
		return g.value(vl, maxValueLength, 1)
	case tag.VRUInt16List, tag.VRUInt32List, tag.VRInt16List, tag.VRInt32List,
		tag.VRTagList, tag.VRFloat32List, tag.VRFloat64List:
		if undefined {
			return errStructure
		}
		return g.value(vl, maxNumericLength, 4)
	default: // strings and dates
		if undefined {
			return errStructure
		}
		return g.value(vl, maxValueLength, 2)
	}
}

// value checks a value's length and lets it pass through. max < 0 means the
// library skips the value without keeping it; weight is how many bytes the
// library keeps per byte read.
func (g *dicomGuard) value(vl uint32, max int64, weight int64) error {
	n := int64(vl)
	if max >= 0 && n > max {
		return errBounds
	}
	g.retained += n * weight
	if g.retained > maxRetained || g.parserMemory() > maxParserMemory {
		return errBounds
	}
	if limit := g.limit(); limit >= 0 && g.pos+n > limit {
		return errStructure
	}
	g.remaining = n
	return nil
}

// parserMemory is what the library keeps of the header so far: its values
// and its elements.
func (g *dicomGuard) parserMemory() int64 {
	return g.retained + elementCost*int64(g.elements)
}

// push opens a container after checking it fits in its parent and does not
// nest too deep.
func (g *dicomGuard) push(c container, vl uint32) error {
	c.end = -1
	if vl != tag.VLUndefinedLength {
		c.end = g.pos + int64(vl)
		if limit := g.limit(); limit >= 0 && c.end > limit {
			return errStructure
		}
	}
	if c.kind == cSeq {
		g.seqDepth++
		if g.seqDepth > maxSeqDepth {
			return errBounds
		}
	}
	g.stack = append(g.stack, c)
	return nil
}

func (g *dicomGuard) pop() {
	if g.stack[len(g.stack)-1].kind == cSeq {
		g.seqDepth--
	}
	g.stack = g.stack[:len(g.stack)-1]
}

// limit is where the innermost defined-length container ends, or -1.
func (g *dicomGuard) limit() int64 {
	for i := len(g.stack) - 1; i >= 0; i-- {
		if g.stack[i].end >= 0 {
			return g.stack[i].end
		}
	}
	return -1
}

// fragment reads one raw item the way the library's readRawItem does: tag and
// a 4-byte length, no VR.
func (g *dicomGuard) fragment(c *container) error {
	if _, err := io.ReadFull(g.ds, g.hdr[:8]); err != nil {
		return readFail(err)
	}
	g.pos += 8
	t := tag.Tag{Group: g.bo.Uint16(g.hdr[0:2]), Element: g.bo.Uint16(g.hdr[2:4])}
	vl := g.bo.Uint32(g.hdr[4:8])
	if limit := g.limit(); limit >= 0 && g.pos > limit {
		return errStructure
	}
	// The library does not notice a delimiter in place of the basic offset
	// table and would read on past the pixel data, so refuse that too.
	if t == tag.SequenceDelimitationItem && vl == 0 && (c.fragments > 0 || !c.pixels) {
		g.pop()
		g.out = g.hdr[:8]
		return nil
	}
	if t != tag.Item || vl == tag.VLUndefinedLength {
		return errStructure
	}
	var err error
	switch {
	case c.pixels && g.keepPixels:
		err = g.value(vl, maxPixelBytes, 1)
	case c.pixels:
		err = g.value(vl, -1, 0)
	default:
		err = g.value(vl, maxValueLength, 1)
	}
	if err != nil {
		return err
	}
	c.fragments++
	if c.topLevel && c.pixels && len(g.pixelSpans) < maxPixelSpans {
		g.pixelSpans = append(g.pixelSpans, PixelSpan{Offset: g.pos, Length: int64(vl)})
	}
	if c.topLevel && c.fragments > 1 && vl > 0 { // the first item is the offset table
		g.hasPixels = true
		g.capture = c.pixels && !g.keepPixels && g.frameHead == nil
	}
	g.out = g.hdr[:8]
	return nil
}

// readVL mirrors the library's readVL, appending the bytes read to the header.
func (g *dicomGuard) readVL(implicit bool, vr string, hl int) (uint32, int, error) {
	if implicit {
		if _, err := io.ReadFull(g.ds, g.hdr[hl:hl+4]); err != nil {
			return 0, 0, readFail(err)
		}
		return g.bo.Uint32(g.hdr[hl : hl+4]), hl + 4, nil
	}
	if longLengthVR(vr) {
		if _, err := io.ReadFull(g.ds, g.hdr[hl:hl+6]); err != nil {
			return 0, 0, readFail(err)
		}
		vl := g.bo.Uint32(g.hdr[hl+2 : hl+6])
		if vl == tag.VLUndefinedLength && (vr == vrraw.UnlimitedCharacters ||
			vr == vrraw.UniversalResourceIdentifier || vr == vrraw.UnlimitedText) {
			return 0, 0, errStructure
		}
		return vl, hl + 6, nil
	}
	if _, err := io.ReadFull(g.ds, g.hdr[hl:hl+2]); err != nil {
		return 0, 0, readFail(err)
	}
	vl := uint32(g.bo.Uint16(g.hdr[hl : hl+2]))
	if vl == 0xFFFF {
		vl = tag.VLUndefinedLength
	}
	return vl, hl + 2, nil
}

// longLengthVR lists the VRs the library reads with a 4-byte length in
// explicit VR (its list, not the standard's: OV, SV and UV are missing there,
// and the guard must agree with the library byte for byte).
func longLengthVR(vr string) bool {
	switch vr {
	case "NA", vrraw.OtherByte, vrraw.OtherDouble, vrraw.OtherFloat,
		vrraw.OtherLong, vrraw.OtherWord, vrraw.Sequence, vrraw.Unknown,
		vrraw.UnlimitedCharacters, vrraw.UniversalResourceIdentifier,
		vrraw.UnlimitedText:
		return true
	}
	return false
}

// implicitVR is the library's VR lookup for implicit VR.
func implicitVR(t tag.Tag) string {
	if entry, err := tag.Find(t); err == nil {
		switch entry.Tag {
		case tag.PixelData, tag.OverlayData:
			return vrraw.OtherWord
		}
		return entry.VRs[0]
	}
	return tag.UnknownVR
}

func (g *dicomGuard) readPreamble() error {
	buf := make([]byte, dicomPrefixLen)
	if _, err := io.ReadFull(g.raw, buf); err != nil {
		return readFail(err)
	}
	if !bytes.Equal(buf[128:], magicDICOM) {
		return errStructure
	}
	g.out = buf
	g.phase = phaseMeta
	return nil
}

// readMeta reads the whole file meta group (it is small and bounded), checks
// it, decides how the dataset is encoded and hands the group on, with the
// transfer syntax rewritten if the library has to read the dataset in a
// different way than declared.
func (g *dicomGuard) readMeta() error {
	var h [12]byte
	if _, err := io.ReadFull(g.raw, h[:]); err != nil {
		return readFail(err)
	}
	// (0002,0000) UL, length 4: the meta group's length.
	if !bytes.Equal(h[:8], []byte{2, 0, 0, 0, 'U', 'L', 4, 0}) {
		return errStructure
	}
	metaLen := binary.LittleEndian.Uint32(h[8:])
	if metaLen > maxMetaLength {
		return errBounds
	}
	meta := make([]byte, 12+int(metaLen))
	g.datasetStart = dicomPrefixLen + int64(len(meta))
	copy(meta, h[:])
	if _, err := io.ReadFull(g.raw, meta[12:]); err != nil {
		return readFail(err)
	}
	tsOff, tsLen, err := walkMeta(meta)
	if err != nil {
		return err
	}
	ts := strings.Trim(string(meta[tsOff:tsOff+tsLen]), " \x00")
	if !isUID(ts) {
		return errStructure
	}
	g.transferSyntax = ts

	bo, implicit, err := uid.ParseTransferSyntaxUID(ts)
	rewrite := ""
	switch {
	case err != nil:
		// Syntaxes the library does not know (newer codecs, private ones) all
		// encode the dataset as explicit VR little endian.
		bo, implicit, rewrite = binary.LittleEndian, false, tsExplicitLE
	case ts == uid.DeflatedExplicitVRLittleEndian:
		g.deflated, rewrite = true, tsExplicitLE
	}
	g.ds = g.raw
	if g.deflated {
		g.ds = bufio.NewReaderSize(flate.NewReader(g.raw), 4096)
	}
	// Some writers declare one VR encoding and use the other; like pydicom,
	// look at the first element to see which it is.
	if bo == binary.LittleEndian {
		if p, err := g.ds.Peek(6); err == nil {
			looksExplicit := isUpper(p[4]) && isUpper(p[5])
			switch {
			case !implicit && !looksExplicit:
				implicit, rewrite = true, tsImplicitLE
			case implicit && looksExplicit:
				implicit, rewrite = false, tsExplicitLE
			}
		}
	}
	if rewrite != "" {
		if tsLen < len(rewrite) {
			return errStructure
		}
		v := meta[tsOff : tsOff+tsLen]
		clear(v) // the library trims the NUL padding
		copy(v, rewrite)
	}
	g.bo, g.implicit = bo, implicit
	g.out = meta
	g.phase = phaseDataset
	return nil
}

// walkMeta checks the meta group's elements (explicit VR little endian, group
// 2, no sequences) and finds the transfer syntax value.
func walkMeta(meta []byte) (tsOff, tsLen int, err error) {
	tsOff = -1
	off := 12
	for off < len(meta) {
		if len(meta)-off < 8 {
			return 0, 0, errStructure
		}
		t := tag.Tag{Group: binary.LittleEndian.Uint16(meta[off:]), Element: binary.LittleEndian.Uint16(meta[off+2:])}
		vr := string(meta[off+4 : off+6])
		hl, vl := 8, int64(binary.LittleEndian.Uint16(meta[off+6:]))
		if longLengthVR(vr) {
			if len(meta)-off < 12 {
				return 0, 0, errStructure
			}
			hl, vl = 12, int64(binary.LittleEndian.Uint32(meta[off+8:]))
		}
		if t.Group != tag.MetadataGroup || vl > int64(len(meta)-off-hl) {
			return 0, 0, errStructure
		}
		switch tag.GetVRKind(t, vr) {
		case tag.VRSequence, tag.VRItem, tag.VRPixelData, tag.VRUnknown:
			return 0, 0, errStructure
		}
		if t == tag.TransferSyntaxUID {
			if vr != vrraw.UniqueIdentifier {
				return 0, 0, errStructure // the library would log.Panicf on it
			}
			tsOff, tsLen = off+hl, int(vl)
		}
		off += hl + int(vl)
	}
	if tsOff < 0 || tsLen == 0 || tsLen > 64 {
		return 0, 0, errStructure
	}
	return tsOff, tsLen, nil
}

func isUID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range []byte(s) {
		if !(c == '.' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

// finish runs at the clean end of the dataset.
func (g *dicomGuard) finish() error {
	if g.deflated {
		// Writers may follow the compressed stream with a gzip-style trailer
		// (CRC and size); anything longer is not theirs to hide there.
		n, err := io.CopyN(io.Discard, g.raw, maxDeflateTrailer+1)
		if n > maxDeflateTrailer {
			return errStructure
		}
		if err != nil && err != io.EOF {
			return err
		}
	}
	g.done = true
	return io.EOF
}
