package medimg

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/suyashkumar/dicom/pkg/tag"
	"github.com/suyashkumar/dicom/pkg/vrraw"
)

// A raw dataset is a DICOM object written without the Part 10 wrapping: no
// 128-byte preamble, no "DICM", no file meta group. Older modalities, PACS
// exports and toolkits (pydicom, DCMTK's "dataset" mode) write them, and
// Orthanc stores them. Nothing in such a file names its transfer syntax, so
// MediShare accepts one only when its first elements prove both that it is a
// dataset and how it is encoded, and then stores it wrapped into Part 10 with
// a generated file meta group naming the syntax it proved: DICOMweb clients
// and the viewer expect Part 10, and every later reader (previews, frames,
// metadata) reads the stored form the same way as any other upload.

// tsExplicitBE is the retired explicit VR big endian syntax.
const tsExplicitBE = "1.2.840.10008.1.2.2"

// implementationClassUID names MediShare as the writer of a generated file
// meta group (a UUID-derived UID, PS3.5 B.2); implementationVersion is the
// group's (0002,0013).
const (
	implementationClassUID = "2.25.21228686756565631360480347742726159057"
	implementationVersion  = "MEDISHARE"
)

// Bounds of the proof and of the wrapping.
const (
	// rawMinElements complete elements, at the file's start, with nothing
	// that contradicts a dataset, prove the encoding. Two are what the 132
	// bytes Detect sees always hold for a real dataset: its first elements,
	// (0008,0005) Specific Character Set, (0008,0008) Image Type,
	// (0008,0012) Instance Creation Date..., are short.
	rawMinElements = 2
	// rawUIDWindow is how far into a raw dataset the SOP Class and Instance
	// UIDs (0008,0016) and (0008,0018) may lie: only a few short group 0008
	// elements may come before them.
	rawUIDWindow = 64 << 10
)

// rawEncoding is one way a dataset can be written.
type rawEncoding struct {
	ts       string
	bo       binary.ByteOrder
	implicit bool
}

// rawEncodings in the order tried. Explicit VR is tried first: its two VR
// letters are a stronger proof than a dictionary lookup, and an explicit
// little endian dataset never reads as implicit (its first length would be
// the VR's letters, far beyond the file's start).
var rawEncodings = []rawEncoding{
	{ts: tsExplicitLE, bo: binary.LittleEndian},
	{ts: tsExplicitBE, bo: binary.BigEndian},
	{ts: tsImplicitLE, bo: binary.LittleEndian, implicit: true},
}

// rawElement is one top-level element header of a raw dataset.
type rawElement struct {
	tag    tag.Tag
	vr     string
	vl     uint32
	header int // bytes of the header
}

// readRawElement reads the element header at the start of b, or reports that
// b is too short (ok false, short true) or that the bytes cannot be a header.
func (e rawEncoding) readRawElement(b []byte) (el rawElement, short, ok bool) {
	if len(b) < 8 {
		return el, true, false
	}
	el.tag = tag.Tag{Group: e.bo.Uint16(b[0:2]), Element: e.bo.Uint16(b[2:4])}
	if e.implicit {
		el.vr, el.vl, el.header = implicitVR(el.tag), e.bo.Uint32(b[4:8]), 8
		return el, false, true
	}
	el.vr = string(b[4:6])
	if !knownVR(el.vr) {
		return el, false, false
	}
	if longLengthVR(el.vr) {
		if len(b) < 12 {
			return el, true, false
		}
		if b[6] != 0 || b[7] != 0 { // reserved
			return el, false, false
		}
		el.vl, el.header = e.bo.Uint32(b[8:12]), 12
		return el, false, true
	}
	el.vl, el.header = uint32(e.bo.Uint16(b[6:8])), 8
	return el, false, true
}

// provesRawDataset reports whether head, the first bytes of a file (all of
// it if shorter), is the start of a dataset in encoding e: the first element
// is of group 0008, the tags ascend, every header is well formed for e (a VR
// the standard defines; in implicit VR, a tag the dictionary knows), no
// element belongs to the file meta group or is an item, text values are
// text, and at least rawMinElements elements are complete.
func (e rawEncoding) provesRawDataset(head []byte) bool {
	var prev tag.Tag
	complete := 0
	for off := 0; off < len(head); {
		el, short, ok := e.readRawElement(head[off:])
		if short {
			break
		}
		if !ok {
			return false
		}
		switch {
		case complete == 0 && el.tag.Group != 0x0008,
			complete > 0 && !tagAfter(el.tag, prev),
			el.tag.Group == tag.MetadataGroup, el.tag.Group == tag.GroupSeqItem:
			return false
		}
		if e.implicit {
			if _, err := tag.Find(el.tag); err != nil {
				return false
			}
		}
		prev = el.tag
		if el.vl == tag.VLUndefinedLength {
			// Only sequences and encapsulated data open without a length;
			// the proof stops there, on what it has seen.
			if el.vr != vrraw.Sequence && el.vr != vrraw.Unknown && el.vr != vrraw.OtherByte && el.vr != vrraw.OtherWord {
				return false
			}
			break
		}
		start := off + el.header
		end := int64(start) + int64(el.vl)
		if end > int64(len(head)) {
			break // the value runs past what was read
		}
		if isTextVR(el.vr) && !isText(head[start:end]) {
			return false
		}
		complete++
		off = int(end)
	}
	return complete >= rawMinElements
}

// tagAfter reports whether t comes after prev in a dataset's order.
func tagAfter(t, prev tag.Tag) bool {
	return t.Group > prev.Group || t.Group == prev.Group && t.Element > prev.Element
}

// rawDatasetEncoding finds the encoding head proves, if any.
func rawDatasetEncoding(head []byte) (rawEncoding, bool) {
	for _, e := range rawEncodings {
		if e.provesRawDataset(head) {
			return e, true
		}
	}
	return rawEncoding{}, false
}

// knownVR lists the value representations of PS3.5 6.2.
func knownVR(vr string) bool {
	switch vr {
	case "AE", "AS", "AT", "CS", "DA", "DS", "DT", "FL", "FD", "IS", "LO", "LT",
		"OB", "OD", "OF", "OL", "OV", "OW", "PN", "SH", "SL", "SQ", "SS", "ST",
		"SV", "TM", "UC", "UI", "UL", "UN", "UR", "US", "UT", "UV":
		return true
	}
	return false
}

func isTextVR(vr string) bool {
	switch vr {
	case "AE", "AS", "CS", "DA", "DS", "DT", "IS", "LO", "LT", "PN", "SH", "ST",
		"TM", "UC", "UI", "UR", "UT":
		return true
	}
	return false
}

// isText: no control character but the ones text values may hold (ESC for
// character set switches, TAB, LF, FF, CR) and NUL as padding at the end.
func isText(v []byte) bool {
	v = bytes.TrimRight(v, "\x00")
	for _, c := range v {
		if c < 0x20 && c != 0x1B && c != '\t' && c != '\n' && c != '\f' && c != '\r' || c == 0x7F {
			return false
		}
	}
	return true
}

// asPart10 returns src as a Part 10 stream: unchanged when it has the
// "DICM" marker (or proves nothing, so the guard refuses it as before), and
// otherwise, for a raw dataset whose encoding its start proves, preceded by
// a zero preamble, "DICM" and a generated file meta group. The SOP Class and
// Instance UIDs of that group are the dataset's own; a raw dataset without
// them is refused as damaged.
func asPart10(src io.Reader) (io.Reader, error) {
	head := make([]byte, dicomPrefixLen)
	n, err := io.ReadFull(src, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, fmt.Errorf("medimg: read upload: %w", err)
	}
	head = head[:n]
	e, ok := rawEncoding{}, false
	if n < dicomPrefixLen || !bytes.Equal(head[128:], magicDICOM) {
		e, ok = rawDatasetEncoding(head)
	}
	if !ok {
		return io.MultiReader(bytes.NewReader(head), src), nil
	}
	window := make([]byte, rawUIDWindow)
	copy(window, head)
	m, err := io.ReadFull(src, window[n:])
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, fmt.Errorf("medimg: read upload: %w", err)
	}
	window = window[:n+m]
	sopClass, sopInstance := e.sopUIDs(window)
	if !ValidUID(sopClass) || !ValidUID(sopInstance) {
		return nil, errDamaged(errStructure)
	}
	return io.MultiReader(bytes.NewReader(part10Prefix(sopClass, sopInstance, e.ts)), bytes.NewReader(window), src), nil
}

// sopUIDs reads (0008,0016) and (0008,0018) from the top level of a raw
// dataset's start, stopping at the first tag past them.
func (e rawEncoding) sopUIDs(b []byte) (class, instance string) {
	for off := 0; off < len(b); {
		el, _, ok := e.readRawElement(b[off:])
		if !ok || el.tag.Group > 0x0008 || el.tag.Group == 0x0008 && el.tag.Element > 0x0018 ||
			el.vl == tag.VLUndefinedLength {
			break
		}
		start := off + el.header
		end := int64(start) + int64(el.vl)
		if end > int64(len(b)) {
			break
		}
		v := string(bytes.TrimRight(b[start:end], "\x00 "))
		switch el.tag {
		case tag.SOPClassUID:
			class = v
		case tag.SOPInstanceUID:
			instance = v
		}
		off = int(end)
	}
	return class, instance
}

// part10Prefix is a zero preamble, "DICM" and a file meta group (explicit VR
// little endian, as PS3.10 7.1 requires) for a dataset of the given SOP
// instance written in syntax ts.
func part10Prefix(sopClass, sopInstance, ts string) []byte {
	var meta []byte
	meta = appendMetaElement(meta, 0x0001, "OB", []byte{0, 1})
	meta = appendMetaElement(meta, 0x0002, "UI", uidValue(sopClass))
	meta = appendMetaElement(meta, 0x0003, "UI", uidValue(sopInstance))
	meta = appendMetaElement(meta, 0x0010, "UI", uidValue(ts))
	meta = appendMetaElement(meta, 0x0012, "UI", uidValue(implementationClassUID))
	meta = appendMetaElement(meta, 0x0013, "SH", []byte(implementationVersion+" "))
	out := make([]byte, 128, dicomPrefixLen+12+len(meta))
	out = append(out, magicDICOM...)
	out = appendMetaElement(out, 0x0000, "UL", binary.LittleEndian.AppendUint32(nil, uint32(len(meta))))
	return append(out, meta...)
}

// uidValue pads a UID to an even length with a NUL (PS3.5 9.1).
func uidValue(s string) []byte {
	v := []byte(s)
	if len(v)%2 == 1 {
		v = append(v, 0)
	}
	return v
}

func appendMetaElement(b []byte, element uint16, vr string, value []byte) []byte {
	b = binary.LittleEndian.AppendUint16(b, tag.MetadataGroup)
	b = binary.LittleEndian.AppendUint16(b, element)
	b = append(b, vr...)
	if longLengthVR(vr) {
		b = append(b, 0, 0)
		return append(binary.LittleEndian.AppendUint32(b, uint32(len(value))), value...)
	}
	return append(binary.LittleEndian.AppendUint16(b, uint16(len(value))), value...)
}
