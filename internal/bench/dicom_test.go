package bench

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"math/big"
	"strings"
)

// benchDICOM makes DICOM Part 10 files for the benchmarks: computed
// radiography (CR Image Storage), explicit VR little endian, one frame of
// 16-bit pixels. The pixels are made once and shared; each file gets the
// identifiers it is given, so Orthanc, which keeps one copy per SOP Instance
// UID, stores every upload.
type benchDICOM struct {
	rows, cols int
	pixels     []byte
}

// dicomUIDs are the identifiers of one file.
type dicomUIDs struct {
	patientID, study, series, instance string
	number                             int
}

// newBenchDICOM makes the pixels: a bright disc on a dark field with a gentle
// gradient and a little noise, 12 bits stored, like a radiograph (it
// compresses like one, and previews render something a person would see).
func newBenchDICOM(rows, cols int) *benchDICOM {
	px := make([]byte, rows*cols*2)
	noise := make([]byte, rows*cols)
	_, _ = rand.Read(noise)
	cy, cx, r2 := rows/2, cols/2, (min(rows, cols)*2/5)*(min(rows, cols)*2/5)
	for y := 0; y < rows; y++ {
		for x := 0; x < cols; x++ {
			v := 300 + 600*y/rows
			if dy, dx := y-cy, x-cx; dy*dy+dx*dx < r2 {
				v = 2400 + 800*x/cols
			}
			v += int(noise[y*cols+x] & 31)
			binary.LittleEndian.PutUint16(px[2*(y*cols+x):], uint16(v))
		}
	}
	return &benchDICOM{rows: rows, cols: cols, pixels: px}
}

// largeBenchDICOM is the 10 MiB file of the transfer measures: 2047 x 2560
// pixels, just under MediShare's 10 MiB upload limit with its header.
func largeBenchDICOM() *benchDICOM { return newBenchDICOM(2047, 2560) }

// newUIDs returns fresh identifiers under the 2.25 (UUID-derived) root.
func newUIDs(patientID string, number int) dicomUIDs {
	return dicomUIDs{patientID: patientID, study: uuidUID(), series: uuidUID(), instance: uuidUID(), number: number}
}

func uuidUID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[0] |= 0x80 // no leading zero digit, and the same number of digits most of the time
	return "2.25." + new(big.Int).SetBytes(b).String()
}

// File returns one whole file with the given identifiers.
func (d *benchDICOM) File(u dicomUIDs) []byte {
	const sopClass = "1.2.840.10008.5.1.4.1.1.1" // CR Image Storage
	var meta, ds dicomBuf
	meta.el(0x0002, 0x0001, "OB", []byte{0, 1})
	meta.str(0x0002, 0x0002, "UI", sopClass)
	meta.str(0x0002, 0x0003, "UI", u.instance)
	meta.str(0x0002, 0x0010, "UI", "1.2.840.10008.1.2.1") // explicit VR little endian
	meta.str(0x0002, 0x0012, "UI", "1.2.826.0.1.3680043.10.543.1")
	ds.str(0x0008, 0x0016, "UI", sopClass)
	ds.str(0x0008, 0x0018, "UI", u.instance)
	ds.str(0x0008, 0x0020, "DA", "20261123")
	ds.str(0x0008, 0x0060, "CS", "CR")
	ds.str(0x0008, 0x1030, "LO", "Chest PA (benchmark)")
	ds.str(0x0010, 0x0010, "PN", "Bench^"+u.patientID)
	ds.str(0x0010, 0x0020, "LO", u.patientID)
	ds.str(0x0018, 0x0015, "CS", "CHEST")
	ds.str(0x0020, 0x000D, "UI", u.study)
	ds.str(0x0020, 0x000E, "UI", u.series)
	ds.str(0x0020, 0x0013, "IS", fmt.Sprint(u.number))
	ds.us(0x0028, 0x0002, 1)
	ds.str(0x0028, 0x0004, "CS", "MONOCHROME2")
	ds.us(0x0028, 0x0010, d.rows)
	ds.us(0x0028, 0x0011, d.cols)
	ds.us(0x0028, 0x0100, 16)
	ds.us(0x0028, 0x0101, 12)
	ds.us(0x0028, 0x0102, 11)
	ds.us(0x0028, 0x0103, 0)
	ds.str(0x0028, 0x1050, "DS", "1800")
	ds.str(0x0028, 0x1051, "DS", "3600")

	var group dicomBuf
	group.el(0x0002, 0x0000, "UL", binary.LittleEndian.AppendUint32(nil, uint32(len(meta))))
	out := make([]byte, 0, 128+4+len(group)+len(meta)+len(ds)+12+len(d.pixels))
	out = append(out, make([]byte, 128)...)
	out = append(out, "DICM"...)
	out = append(append(append(out, group...), meta...), ds...)
	var px dicomBuf
	px.el(0x7FE0, 0x0010, "OW", nil)
	px = binary.LittleEndian.AppendUint32(px[:len(px)-4], uint32(len(d.pixels)))
	return append(append(out, px...), d.pixels...)
}

// dicomBuf appends explicit VR little endian elements.
type dicomBuf []byte

func (b *dicomBuf) el(group, elem uint16, vr string, v []byte) {
	out := binary.LittleEndian.AppendUint16(*b, group)
	out = binary.LittleEndian.AppendUint16(out, elem)
	out = append(out, vr...)
	if strings.Contains("OB OW OF SQ UT UN", vr) {
		out = append(out, 0, 0)
		out = binary.LittleEndian.AppendUint32(out, uint32(len(v)))
	} else {
		out = binary.LittleEndian.AppendUint16(out, uint16(len(v)))
	}
	*b = append(out, v...)
}

// str appends a text value padded to an even length (UIDs with a NUL, the
// rest with a space).
func (b *dicomBuf) str(group, elem uint16, vr, s string) {
	if len(s)%2 == 1 {
		if vr == "UI" {
			s += "\x00"
		} else {
			s += " "
		}
	}
	b.el(group, elem, vr, []byte(s))
}

func (b *dicomBuf) us(group, elem uint16, v int) {
	b.el(group, elem, "US", binary.LittleEndian.AppendUint16(nil, uint16(v)))
}
