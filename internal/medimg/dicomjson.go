package medimg

import (
	"encoding/base64"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/suyashkumar/dicom"
	"github.com/suyashkumar/dicom/pkg/tag"
)

// DICOMJSON is one data set in the DICOM JSON model (PS3.18 F.2): each
// attribute by its tag's eight hex digits.
type DICOMJSON map[string]DICOMJSONAttr

// DICOMJSONAttr is one attribute: its VR and its values, or the URI where
// its bulk data (pixels and other binary values) can be fetched.
type DICOMJSONAttr struct {
	VR           string `json:"vr"`
	Value        []any  `json:"Value,omitempty"`
	InlineBinary string `json:"InlineBinary,omitempty"`
	BulkDataURI  string `json:"BulkDataURI,omitempty"`
}

// maxInlineBinary bounds a binary value written inline in metadata; a
// larger one is left out (only the pixels have a bulk data URI).
const maxInlineBinary = 64 << 10

// PersonName is a PN value in the DICOM JSON model.
type PersonName struct {
	Alphabetic string `json:"Alphabetic,omitempty"`
}

// TagKey is the DICOM JSON key of a tag: eight upper-case hex digits.
func TagKey(group, element uint16) string { return fmt.Sprintf("%04X%04X", group, element) }

// Metadata reads a stored DICOM file (streaming, pixels skipped, under the
// parser's bounds) and returns its data set, file meta group excluded, in
// the DICOM JSON model; binary values become BulkDataURI references under
// bulkBase (the instance's URL), as WADO-RS metadata answers them.
// Errors: EVALIDATION (damaged).
func Metadata(src io.Reader, bulkBase string) (DICOMJSON, error) {
	ds, _, err := parseDICOM(src, nil, false)
	if err != nil {
		return nil, err
	}
	out := DICOMJSON{}
	for _, e := range ds.Elements {
		if e.Tag.Group == 0x0002 {
			continue // the file meta group is not part of the data set
		}
		out[TagKey(e.Tag.Group, e.Tag.Element)] = jsonAttr(e, bulkBase)
	}
	return out, nil
}

// jsonAttr converts one element (F.2.3: value types by VR).
func jsonAttr(e *dicom.Element, bulkBase string) DICOMJSONAttr {
	vr := e.RawValueRepresentation
	if len(vr) != 2 {
		vr = "UN"
	}
	attr := DICOMJSONAttr{VR: vr}
	if e.Tag == tag.PixelData {
		attr.BulkDataURI = bulkBase + "/frames/1"
		return attr
	}
	if e.Value == nil {
		return attr
	}
	switch e.Value.ValueType() {
	case dicom.Strings:
		vals, _ := e.Value.GetValue().([]string)
		for _, v := range vals {
			v = strings.TrimRight(v, " \x00")
			switch vr {
			case "PN":
				attr.Value = append(attr.Value, PersonName{Alphabetic: v})
			case "IS":
				if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
					attr.Value = append(attr.Value, n)
				}
			case "DS":
				if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && finite(f) {
					attr.Value = append(attr.Value, f)
				}
			default:
				attr.Value = append(attr.Value, v)
			}
		}
	case dicom.Ints:
		vals, _ := e.Value.GetValue().([]int)
		if vr == "AT" {
			for i := 0; i+1 < len(vals); i += 2 {
				attr.Value = append(attr.Value, TagKey(uint16(vals[i]), uint16(vals[i+1])))
			}
			break
		}
		for _, v := range vals {
			attr.Value = append(attr.Value, v)
		}
	case dicom.Floats:
		vals, _ := e.Value.GetValue().([]float64)
		for _, v := range vals {
			if finite(v) {
				attr.Value = append(attr.Value, v)
			}
		}
	case dicom.Sequences:
		items, _ := e.Value.GetValue().([]*dicom.SequenceItemValue)
		attr.VR = "SQ"
		for _, item := range items {
			ds := DICOMJSON{}
			elems, _ := item.GetValue().([]*dicom.Element)
			for _, child := range elems {
				ds[TagKey(child.Tag.Group, child.Tag.Element)] = jsonAttr(child, bulkBase)
			}
			attr.Value = append(attr.Value, ds)
		}
	case dicom.Bytes:
		if b, _ := e.Value.GetValue().([]byte); len(b) <= maxInlineBinary {
			attr.InlineBinary = base64.StdEncoding.EncodeToString(b)
		}
	}
	return attr
}
