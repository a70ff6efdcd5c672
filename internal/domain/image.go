package domain

import "time"

// Limits of product.md §9.
const (
	MaxUploadBytes = 10 * 1024 * 1024
	MaxCaptionLen  = 500
)

// Content types the product stores (S12).
const (
	TypeJPEG  = "image/jpeg"
	TypePNG   = "image/png"
	TypePDF   = "application/pdf"
	TypeDICOM = "application/dicom"
)

// DICOMFacts are the allow-listed header fields kept from a DICOM file.
type DICOMFacts struct {
	Modality         string `json:"modality"`
	BodyPart         string `json:"bodyPart"`
	StudyDescription string `json:"studyDescription"`
	Rows             int    `json:"rows"`
	Columns          int    `json:"columns"`
	Frames           int    `json:"frames"`
	// BurnedInAnnotation: the pixels carry text (the header says so); never sent out for analysis.
	BurnedInAnnotation bool `json:"burnedInAnnotation,omitempty"`
	// Technical facts the analysis reports; absent when the header lacks them.
	BitsStored                int       `json:"bitsStored,omitempty"`
	PhotometricInterpretation string    `json:"photometricInterpretation,omitempty"`
	PixelSpacing              []float64 `json:"pixelSpacing,omitempty"` // mm, row then column
	WindowCenter              *float64  `json:"windowCenter,omitempty"`
	WindowWidth               *float64  `json:"windowWidth,omitempty"`
	ExposureIndex             *float64  `json:"exposureIndex,omitempty"`
	TargetExposureIndex       *float64  `json:"targetExposureIndex,omitempty"`
	DeviationIndex            *float64  `json:"deviationIndex,omitempty"`
	LossyCompression          bool      `json:"lossyCompression,omitempty"`
}

// Image is one stored medical file.
type Image struct {
	ID          string
	Caption     string
	ContentType string
	FileName    string
	Size        int64
	SHA256      []byte
	BlobKey     string
	WrappedKey  []byte
	KeyID       []byte
	Width       int
	Height      int
	DICOM       *DICOMFacts
	// Study is set on a DICOM study: its instances are its contents, the
	// image's own blob its first (representative) instance.
	Study *StudyFacts
	// StudySealed is what the study's files say of their patient, sealed
	// (StudyPatient); only the studies service opens it.
	StudySealed []byte
	UploadedBy  Person
	// Patient is empty (no ID) on a study that waits for its uploader to
	// choose a patient.
	Patient   Person
	CreatedAt time.Time

	// ViaShare is the share through which the caller reaches the image, when
	// the caller is its recipient rather than its uploader or a reader of
	// every image.
	ViaShare *Share
	// ReadAll is set when the caller may open every image
	// (images:read-all): its contents open whatever its share says.
	ReadAll bool
	// Shares are the image's shares that are not revoked, for the uploader
	// and readers of every image; listings fill them in.
	Shares []Share
	// Sealed is set on what a recipient sees of an image before verifying
	// its share: see Seal.
	Sealed bool
}

// HasPixels reports whether the file holds a picture a preview can show.
func (im Image) HasPixels() bool {
	return im.ContentType == TypeJPEG || im.ContentType == TypePNG ||
		(im.DICOM != nil && im.DICOM.Rows > 0 && im.DICOM.Columns > 0)
}

// Opens reports whether the caller who reached im may see its contents at
// now: always, unless they reach it through a share not yet verified and
// may not open every image.
func (im Image) Opens(now time.Time) bool {
	return im.ReadAll || im.ViaShare == nil || im.ViaShare.Opens(now)
}

// Seal keeps, of an image whose share is not verified yet, only who shared
// it, when, its content type and the share's expiry: the caption, the
// patient, the file's name, size and DICOM facts are health information
// that waits for the second factor (the emailed code).
func (im Image) Seal() Image {
	sealed := Image{ID: im.ID, ContentType: im.ContentType, Sealed: true}
	if sh := im.ViaShare; sh != nil {
		view := Share{ID: sh.ID, ImageID: sh.ImageID, SharedBy: sh.SharedBy, SharedWith: sh.SharedWith,
			CreatedAt: sh.CreatedAt, ExpiresAt: sh.ExpiresAt, VerifiedAt: sh.VerifiedAt, VoidedAt: sh.VoidedAt, RevokedAt: sh.RevokedAt}
		sealed.ViaShare = &view
	}
	return sealed
}

// SealedUnlessOpen is im, sealed when the caller may not see its contents yet.
func (im Image) SealedUnlessOpen(now time.Time) Image {
	if im.Opens(now) {
		return im
	}
	return im.Seal()
}

// StoredAnalysis is an analysis as it is kept: the result sealed (the
// service opens it), and what stays readable beside it.
type StoredAnalysis struct {
	ID, ImageID, RequestedBy string
	Provider, Model          string
	Sealed                   []byte
	CreatedAt                time.Time
}
