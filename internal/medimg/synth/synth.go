// Package synth makes synthetic DICOM Part 10 files: the demo study, the
// tests' studies and the benchmarks' uploads. Each file is computed
// radiography or CT image storage, explicit VR little endian, one frame of
// 16-bit pixels with 12 bits stored; the patient is made up.
package synth

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"math/big"
	"strings"
)

// Pixels is one frame, made once and shared by every file that uses it.
type Pixels struct {
	Rows, Cols int
	data       []byte
}

// NewPixels draws a bright disc on a dark field with a gentle gradient and
// a little noise, like a radiograph: it compresses like one, and previews
// show something a person would recognise.
func NewPixels(rows, cols int) *Pixels {
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
	return &Pixels{Rows: rows, Cols: cols, data: px}
}

// Instance is what one file says about itself.
type Instance struct {
	PatientName, PatientID       string
	Study, Series, SOP           string // UIDs
	StudyDescription             string
	SeriesDescription            string
	StudyDate                    string // YYYYMMDD
	AccessionNumber              string
	Modality                     string // CR when empty
	BodyPart                     string
	SeriesNumber, InstanceNumber int
}

// NewUID returns a fresh UID under the 2.25 (UUID-derived) root.
func NewUID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[0] |= 0x80 // no leading zero digit, and the same number of digits most of the time
	return "2.25." + new(big.Int).SetBytes(b).String()
}

// Study returns the instances of one study of the given series sizes, with
// fresh UIDs: series i holds sizes[i] instances.
func Study(patientName, patientID, description string, modality string, sizes ...int) []Instance {
	study := NewUID()
	var out []Instance
	for s, n := range sizes {
		series := NewUID()
		for i := 0; i < n; i++ {
			out = append(out, Instance{
				PatientName: patientName, PatientID: patientID,
				Study: study, Series: series, SOP: NewUID(),
				StudyDescription: description, SeriesDescription: fmt.Sprintf("Series %d", s+1),
				StudyDate: "20261123", AccessionNumber: "A" + patientID, Modality: modality, BodyPart: "CHEST",
				SeriesNumber: s + 1, InstanceNumber: i + 1,
			})
		}
	}
	return out
}

// File returns one whole file.
func (px *Pixels) File(in Instance) []byte {
	modality := in.Modality
	if modality == "" {
		modality = "CR"
	}
	sopClass := "1.2.840.10008.5.1.4.1.1.1" // CR Image Storage
	if modality == "CT" {
		sopClass = "1.2.840.10008.5.1.4.1.1.2"
	}
	var meta, ds buf
	meta.el(0x0002, 0x0001, "OB", []byte{0, 1})
	meta.str(0x0002, 0x0002, "UI", sopClass)
	meta.str(0x0002, 0x0003, "UI", in.SOP)
	meta.str(0x0002, 0x0010, "UI", "1.2.840.10008.1.2.1") // explicit VR little endian
	meta.str(0x0002, 0x0012, "UI", "1.2.826.0.1.3680043.10.543.1")
	ds.str(0x0008, 0x0016, "UI", sopClass)
	ds.str(0x0008, 0x0018, "UI", in.SOP)
	ds.str(0x0008, 0x0020, "DA", in.StudyDate)
	ds.str(0x0008, 0x0050, "SH", in.AccessionNumber)
	ds.str(0x0008, 0x0060, "CS", modality)
	ds.str(0x0008, 0x1030, "LO", in.StudyDescription)
	ds.str(0x0008, 0x103E, "LO", in.SeriesDescription)
	ds.str(0x0010, 0x0010, "PN", in.PatientName)
	ds.str(0x0010, 0x0020, "LO", in.PatientID)
	ds.str(0x0018, 0x0015, "CS", in.BodyPart)
	ds.str(0x0020, 0x000D, "UI", in.Study)
	ds.str(0x0020, 0x000E, "UI", in.Series)
	ds.str(0x0020, 0x0011, "IS", fmt.Sprint(in.SeriesNumber))
	ds.str(0x0020, 0x0013, "IS", fmt.Sprint(in.InstanceNumber))
	ds.us(0x0028, 0x0002, 1)
	ds.str(0x0028, 0x0004, "CS", "MONOCHROME2")
	ds.us(0x0028, 0x0010, px.Rows)
	ds.us(0x0028, 0x0011, px.Cols)
	ds.str(0x0028, 0x0030, "DS", "0.5\\0.5")
	ds.us(0x0028, 0x0100, 16)
	ds.us(0x0028, 0x0101, 12)
	ds.us(0x0028, 0x0102, 11)
	ds.us(0x0028, 0x0103, 0)
	ds.str(0x0028, 0x1050, "DS", "1800")
	ds.str(0x0028, 0x1051, "DS", "3600")

	var group buf
	group.el(0x0002, 0x0000, "UL", binary.LittleEndian.AppendUint32(nil, uint32(len(meta))))
	out := make([]byte, 0, 128+4+len(group)+len(meta)+len(ds)+12+len(px.data))
	out = append(out, make([]byte, 128)...)
	out = append(out, "DICM"...)
	out = append(append(append(out, group...), meta...), ds...)
	var pd buf
	pd.el(0x7FE0, 0x0010, "OW", nil)
	pd = binary.LittleEndian.AppendUint32(pd[:len(pd)-4], uint32(len(px.data)))
	return append(append(out, pd...), px.data...)
}

// buf appends explicit VR little endian elements.
type buf []byte

func (b *buf) el(group, elem uint16, vr string, v []byte) {
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
func (b *buf) str(group, elem uint16, vr, s string) {
	if len(s)%2 == 1 {
		if vr == "UI" {
			s += "\x00"
		} else {
			s += " "
		}
	}
	b.el(group, elem, vr, []byte(s))
}

func (b *buf) us(group, elem uint16, v int) {
	b.el(group, elem, "US", binary.LittleEndian.AppendUint16(nil, uint16(v)))
}
