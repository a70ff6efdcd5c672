package medimg

import (
	"bytes"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

var (
	magicJPEG  = []byte{0xFF, 0xD8, 0xFF}
	magicPNG   = []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'}
	magicPDF   = []byte("%PDF-")
	magicDICOM = []byte("DICM") // at offset 128, after the preamble
)

const dicomPrefixLen = 132 // preamble + "DICM"

// Detect decides the type from the first bytes of the file (pass at least the
// first 132 bytes, or the whole file if shorter) and checks that the file
// name's extension agrees: .jpg/.jpeg for JPEG, .png, .pdf, and for DICOM
// .dcm, .dicom or no extension at all.
//
// DICOM is a Part 10 file ("DICM" after the preamble) or a raw dataset
// without preamble or meta group whose first elements prove it one, in
// implicit VR little endian, explicit VR little endian or explicit VR big
// endian (dicom_raw.go); Clean wraps the latter into Part 10.
//
// Anything else, a mismatch or an empty file is an EUNSUPPORTED error with
// the product's invalid-type message.
func Detect(head []byte, filename string) (contentType string, err error) {
	ext := strings.ToLower(path.Ext(CleanName(filename)))
	// A DICOM preamble may itself start with another format's magic (that is
	// the CVE-2019-11687 polyglot), so every type the bytes allow is a
	// candidate and the extension picks one.
	if len(head) >= dicomPrefixLen && bytes.Equal(head[128:dicomPrefixLen], magicDICOM) &&
		(ext == ".dcm" || ext == ".dicom" || ext == "") {
		return DICOM, nil
	}
	if ext == ".dcm" || ext == ".dicom" || ext == "" {
		if _, ok := rawDatasetEncoding(head); ok {
			return DICOM, nil
		}
	}
	switch {
	case bytes.HasPrefix(head, magicJPEG) && (ext == ".jpg" || ext == ".jpeg"):
		return JPEG, nil
	case bytes.HasPrefix(head, magicPNG) && ext == ".png":
		return PNG, nil
	case bytes.HasPrefix(head, magicPDF) && ext == ".pdf":
		return PDF, nil
	}
	return "", errInvalidType()
}

// CleanName returns the user's file name as metadata only (S15): base name
// only, control characters and bidi overrides removed, trimmed, at most 200
// bytes with the extension kept, and "file" when nothing is left.
func CleanName(name string) string {
	name = strings.ToValidUTF8(name, "")
	// Browsers on Windows send full paths with backslashes; treat both as separators.
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || isInvisibleFormat(r) {
			return -1
		}
		return r
	}, name)
	name = strings.TrimSpace(name)
	if name == "." || name == ".." {
		name = ""
	}
	if len(name) > maxNameSize {
		name = truncateName(name, maxNameSize)
	}
	if name == "" {
		return "file"
	}
	return name
}

// isInvisibleFormat reports characters that change how a name reads without
// being visible: bidi overrides and isolates (which can disguise "gnp.exe" as
// "exe.png"), directional marks, zero-width characters and the BOM.
func isInvisibleFormat(r rune) bool {
	switch {
	case r >= 0x202A && r <= 0x202E, // LRE, RLE, PDF, LRO, RLO
		r >= 0x2066 && r <= 0x2069, // LRI, RLI, FSI, PDI
		r >= 0x200B && r <= 0x200F, // zero-width space/joiners, LRM, RLM
		r == 0x061C,                // Arabic letter mark
		r == 0x2060,                // word joiner
		r == 0xFEFF:                // BOM
		return true
	}
	return false
}

// truncateName cuts name to at most limit bytes on a rune boundary, keeping a
// plausible extension so the download still opens with the right program.
func truncateName(name string, limit int) string {
	ext := path.Ext(name)
	if len(ext) > 16 {
		ext = ""
	}
	stem := name[:len(name)-len(ext)]
	cut := limit - len(ext)
	if cut > len(stem) {
		cut = len(stem)
	}
	for cut > 0 && cut < len(stem) && !utf8.RuneStart(stem[cut]) {
		cut--
	}
	return strings.TrimSpace(stem[:cut]) + ext
}
