package domain

import "time"

// Limits of studies (the admin settings' defaults and bounds). A single
// upload keeps MaxUploadBytes; an instance of a study may be larger, as
// uncompressed digital radiographs are.
const (
	DefaultMaxInstanceMegabytes = 50
	DefaultMaxStudyMegabytes    = 2048
	MaxInstanceMegabytesCap     = 1024
	MaxStudyMegabytesCap        = 102400
)

// StudyFacts are what the lists show of a DICOM study: no patient
// identifiers (S17).
type StudyFacts struct {
	StudyInstanceUID string   `json:"studyInstanceUid"`
	Description      string   `json:"description"`
	Date             string   `json:"date"` // YYYYMMDD as the files write it, or ""
	Modalities       []string `json:"modalities"`
	Series           int      `json:"series"`
	Instances        int      `json:"instances"`
	Bytes            int64    `json:"bytes"`
}

// StudyPatient is what a study's files say of their patient and the study's
// identifying details, kept sealed at rest: DICOMweb answers and matches on
// them for callers who may see the study.
type StudyPatient struct {
	Name      string `json:"name,omitempty"`
	ID        string `json:"id,omitempty"`
	BirthDate string `json:"birthDate,omitempty"`
	Sex       string `json:"sex,omitempty"`
	Accession string `json:"accession,omitempty"`
	StudyID   string `json:"studyId,omitempty"`
	StudyTime string `json:"studyTime,omitempty"`
	Referring string `json:"referring,omitempty"`
}

// Instance is one stored DICOM instance of a study.
type Instance struct {
	ID                string // its key and chunks are bound to it
	ImageID           string // the study's image
	SeriesUID, SOPUID string
	SOPClassUID       string
	TransferSyntax    string
	SeriesNumber      *int
	InstanceNumber    *int
	Modality          string
	SeriesDescription string
	BodyPart          string
	DICOM             DICOMFacts
	BlobKey           string
	WrappedKey        []byte
	KeyID             []byte
	Size              int64
	SHA256            []byte
	CreatedAt         time.Time
}

// Series is one series of a study, as its instances describe it.
type Series struct {
	SeriesUID    string
	SeriesNumber *int
	Modality     string
	Description  string
	BodyPart     string
	Instances    int
	// First is the series' first instance, for its thumbnail.
	First string
}

// StudyImage is the study's row in the lists (an Image) and the sealed
// facts of its patient, as recorded when an instance joins or starts it.
type StudyImage struct {
	Image   Image
	Patient StudyPatient
}

// StudyScope is whose studies a DICOMweb search reads: every study
// (ReadAll), those CallerID uploaded (Uploaded), or those shared with
// CallerID through a verified share open at Now.
type StudyScope struct {
	ReadAll  bool
	Uploaded bool
	CallerID string
	Now      time.Time
}

// StudyKeys are the matching keys of a study search kept in the clear.
type StudyKeys struct {
	StudyUIDs        []string
	DateFrom, DateTo string // YYYYMMDD, inclusive; "" leaves that end open
	Modality         string
}
