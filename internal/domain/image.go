package domain

import "time"

// Limits of product.md §9.
const (
	MaxUploadBytes = 10 * 1024 * 1024
	MaxCaptionLen  = 500
)

// Person names someone in a listing.
type Person struct {
	ID, Firstname, Lastname string
}

// DICOMFacts are the allow-listed header fields kept from a DICOM file.
type DICOMFacts struct {
	Modality         string `json:"modality"`
	BodyPart         string `json:"bodyPart"`
	StudyDescription string `json:"studyDescription"`
	Rows             int    `json:"rows"`
	Columns          int    `json:"columns"`
	Frames           int    `json:"frames"`
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
	UploadedBy  Person
	Patient     Person
	CreatedAt   time.Time

	// ViaShare is the share through which the caller reaches the image, when
	// the caller is its recipient rather than its uploader or an admin.
	ViaShare *Share
	// Shares are the image's shares that are not revoked, for the uploader
	// and admins; listings fill them in.
	Shares []Share
}
