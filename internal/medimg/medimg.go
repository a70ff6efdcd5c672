// Package medimg decides what an uploaded file is, cleans it for storage and
// renders browser previews. It trusts nothing in the file: type comes from
// the bytes (S12), dimensions are checked before anything is decoded, DICOM
// headers are parsed under bounds (S13) and patient data never leaves the
// package through errors or Info (S17).
package medimg

import (
	"errors"

	"github.com/medishare/medishare/internal/domain"
)

// Content types this package accepts.
const (
	JPEG  = "image/jpeg"
	PNG   = "image/png"
	PDF   = "application/pdf"
	DICOM = "application/dicom"
)

// Limits. Uploads are at most 10 MiB (S11), so anything a header claims beyond
// these is either an attack or a file we cannot handle anyway.
const (
	maxImageSide = 30000       // pixels on one side of an image
	maxPixels    = 100_000_000 // pixels in one image
	maxNameSize  = 200         // bytes in a cleaned file name
	copyBufSize  = 32 << 10    // streaming buffer
)

// User-facing messages; the product spec fixes their wording.
const (
	msgInvalidType = "Invalid file type. Allowed: .jpg, .png, .pdf, .dicom"
	msgTooLarge    = "The image is too large to process."
	msgDamaged     = "The DICOM file is damaged or incomplete."
	msgNoPreview   = "Preview not available."
)

// ErrNoPreview: the type has no browser-viewable rendering (PDF, DICOM without
// pixels, or a compression we cannot decode). It is a domain ENOTFOUND error;
// compare with errors.Is.
var ErrNoPreview error = domain.Errorf(domain.ENOTFOUND, msgNoPreview)

func errInvalidType() error { return domain.Errorf(domain.EUNSUPPORTED, msgInvalidType) }

func errTooLarge() error { return domain.Errorf(domain.EVALIDATION, msgTooLarge) }

// errDamaged keeps a cause for operators, but only one of ours: library errors
// can quote element values, and those may be patient data (S17).
func errDamaged(cause error) error {
	return domain.Wrap(domain.EVALIDATION, cause, msgDamaged)
}

// checkDimensions refuses decompression bombs before any pixel is decoded.
func checkDimensions(w, h int) error {
	if w > maxImageSide || h > maxImageSide || int64(w)*int64(h) > maxPixels {
		return errTooLarge()
	}
	return nil
}

// Causes attached to errDamaged. They name what failed, never what the file said.
var (
	errTruncated     = errors.New("medimg: dicom: file ends inside an element")
	errStructure     = errors.New("medimg: dicom: malformed element structure")
	errBounds        = errors.New("medimg: dicom: header exceeds parser bounds")
	errParse         = errors.New("medimg: dicom: header does not parse")
	errParserPanic   = errors.New("medimg: dicom: parser panicked")
	errParseTimeout  = errors.New("medimg: dicom: parser time limit reached")
	errParserStopped = errors.New("medimg: dicom: parser stopped reading")
)
