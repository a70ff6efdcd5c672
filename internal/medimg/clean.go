package medimg

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/medishare/medishare/internal/domain"
)

// Info is what an upload's contents tell about themselves.
type Info struct {
	ContentType   string
	Width, Height int        // images; DICOM rows/columns
	DICOM         *DICOMInfo // nil unless DICOM
}

// DICOMInfo holds the allow-listed header fields; nothing that identifies a
// patient is ever copied here (S17).
type DICOMInfo struct {
	Modality, BodyPart, StudyDescription string // trimmed, at most 64 characters
	Rows, Columns, Frames                int
	HasPixels                            bool
	// BurnedInAnnotation is the header's (0028,0301) as written, "" when
	// absent: whether the pixels carry text, which may identify the patient.
	// The analysis screen reads it (analysis.BurnedInAnnotation), as files
	// spell it YES, Y or yes.
	BurnedInAnnotation string
	TransferSyntax     string // UID as declared in the file meta group
	// Technical facts for the analysis; nil or zero when the header lacks them.
	BitsStored                int
	PhotometricInterpretation string
	PixelSpacing              []float64 // row and column spacing, mm
	WindowCenter, WindowWidth *float64  // the first window of the header
	// Exposure index, its target and the deviation index (IEC 62494-1).
	ExposureIndex, TargetExposureIndex, DeviationIndex *float64
	LossyCompression                                   bool // (0028,2110) "01"

	// Identity places the file in its study; Patient is what the file says
	// of its patient. Both leave this package only for the studies service,
	// which keeps the identifiers sealed and never logs them (S17).
	Identity DICOMIdentity
	Patient  DICOMPatient
	// PixelSpans are where the image's own pixel data lies in the file:
	// one span for native pixels, the fragments (the offset table first)
	// for encapsulated ones; none for a deflated data set, whose offsets
	// are not the file's.
	PixelSpans []PixelSpan
}

// DICOMIdentity is where an instance belongs: its study, series and own
// identifiers, and the study-level facts a DICOMweb search matches on.
type DICOMIdentity struct {
	StudyInstanceUID, SeriesInstanceUID, SOPInstanceUID, SOPClassUID string
	SeriesNumber, InstanceNumber                                     *int
	SeriesDescription                                                string
	StudyDate, StudyTime, AccessionNumber, StudyID                   string
	ReferringPhysicianName                                           string
}

// DICOMPatient is what a file says of its patient: health information.
type DICOMPatient struct {
	Name, ID, BirthDate, Sex string
}

// Clean reads src completely and writes the stored form to dst as it reads,
// in memory that does not grow with the file, validating the structure on
// the way: DICOM gets its preamble zeroed and its header parsed under bounds,
// JPEG and PNG lose their metadata without re-encoding, PDF is copied.
//
// Errors: EUNSUPPORTED (invalid-type message) for an unknown content type or
// a stream that is not well-formed for its type; EVALIDATION "The image is
// too large to process." for images over the dimension limits; EVALIDATION
// "The DICOM file is damaged or incomplete." for DICOM that does not parse.
// Read errors from src and write errors to dst are returned wrapped (%w), so
// the caller can still recognise, for example, a body-size limit.
func Clean(dst io.Writer, src io.Reader, contentType string) (info Info, err error) {
	defer func() {
		if r := recover(); r != nil {
			info, err = Info{}, domain.Wrap(domain.EINTERNAL, fmt.Errorf("medimg: panic in Clean: %v", r), "Internal server error.")
		}
	}()
	switch contentType {
	case JPEG:
		return cleanJPEG(dst, src)
	case PNG:
		return cleanPNG(dst, src)
	case PDF:
		return cleanPDF(dst, src)
	case DICOM:
		return cleanDICOM(dst, src)
	}
	return Info{}, errInvalidType()
}

// cleanPDF checks the header and copies the rest untouched; PDFs are stored
// and downloaded, never rendered by the server.
func cleanPDF(dst io.Writer, src io.Reader) (Info, error) {
	head := make([]byte, len(magicPDF))
	if _, err := io.ReadFull(src, head); err != nil {
		return Info{}, readErr(err)
	}
	if !bytes.Equal(head, magicPDF) {
		return Info{}, errInvalidType()
	}
	if _, err := dst.Write(head); err != nil {
		return Info{}, writeErr(err)
	}
	if err := copyStream(dst, src); err != nil {
		return Info{}, err
	}
	return Info{ContentType: PDF}, nil
}

// copyStream copies src to dst with a fixed buffer, keeping read and write
// errors apart.
func copyStream(dst io.Writer, src io.Reader) error {
	buf := make([]byte, copyBufSize)
	for {
		n, rerr := src.Read(buf)
		if n > 0 {
			if _, err := dst.Write(buf[:n]); err != nil {
				return writeErr(err)
			}
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			return fmt.Errorf("medimg: read upload: %w", rerr)
		}
	}
}

// readErr turns an early end of the stream into the invalid-type error (the
// file is not a complete file of its type) and passes other read errors on.
func readErr(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errInvalidType()
	}
	return fmt.Errorf("medimg: read upload: %w", err)
}

func writeErr(err error) error { return fmt.Errorf("medimg: write stored form: %w", err) }

// flush finishes a buffered writer, reporting its error as a write error.
func flush(bw *bufio.Writer) error {
	if err := bw.Flush(); err != nil {
		return writeErr(err)
	}
	return nil
}

// drain reads what follows the logical end of a file and throws it away, so
// nothing appended to an image (a ZIP, a script) reaches storage.
func drain(r io.Reader) error {
	if _, err := io.Copy(io.Discard, r); err != nil {
		return fmt.Errorf("medimg: read upload: %w", err)
	}
	return nil
}
