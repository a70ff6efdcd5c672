// Package analysis looks at a medical image and says what can be said
// about it. The built-in analyser (builtin.go) measures the image's
// technical quality on its rendered pixels and reports the file's facts; it
// never diagnoses. An external vision model is reached through the OpenAI
// Chat Completions protocol (openai.go).
package analysis

import (
	"context"
	"image"
)

// Facts are what the stored file says about the image: the allow-listed
// DICOM header fields, and for every image its type and size. Nothing in
// them identifies a patient (S17).
type Facts struct {
	ContentType      string
	Modality         string
	BodyPart         string
	StudyDescription string
	Rows, Columns    int
	Frames           int
	// BurnedInAnnotation: the DICOM header says the pixels carry text
	// (as BurnedInAnnotation reads the element).
	BurnedInAnnotation bool
	// DICOM technical facts; nil or zero when the header lacks them.
	BitsStored                                         int
	PhotometricInterpretation                          string
	PixelSpacing                                       []float64 // mm, row then column
	WindowCenter, WindowWidth                          *float64
	ExposureIndex, TargetExposureIndex, DeviationIndex *float64
	LossyCompression                                   bool
	// StoredBitDepthUsed is the share (0-1) of the stored bit depth that the
	// 1st-99th percentiles of the stored values span; nil when not measured.
	StoredBitDepthUsed *float64
}

// Input is one image to analyse: its rendered pixels (what a person sees:
// DICOM with its window applied, at most 1024 px a side) and its facts.
type Input struct {
	Pixels image.Image
	Facts  Facts
	// SendUnscreened: an admin lets images leave the server that the
	// screen cannot vouch for (photographs, modalities off its list); the
	// analysisSendUnscreened setting.
	SendUnscreened bool
}

// Condition is one entry of a differential diagnosis, with a confidence
// from 0 to 1.
type Condition struct {
	Condition  string
	Confidence float64
}

// Measurement is one figure the analyser measured, in the order shown.
type Measurement struct {
	Key   string  // stable name, e.g. "rms_contrast"
	Label string  // as people read it, e.g. "RMS contrast"
	Value float64 //
	Unit  string  // "" for a plain number, "%" for a share, "px" ...
}

// Result is an analysis. The built-in analyser leaves DifferentialDiagnosis
// and Treatment empty and Confidence nil: it does not diagnose.
type Result struct {
	Description           string
	DifferentialDiagnosis []Condition
	Treatment             []string
	FollowUp              []string
	Warnings              []string
	Confidence            *float64
	Measurements          []Measurement
	Provider              string // "builtin", "openai"
	Model                 string // the analyser's or the model's own name
	// Provenance of an external model's analysis: what was sent, how, where.
	Provenance *Provenance `json:",omitempty"`
}

// Provenance records what an external analysis rests on.
type Provenance struct {
	PromptVersion, SchemaVersion string
	ImageSHA256                  string // of the PNG sent
	DeIdentification             string // what was done to the image before it left
	SentTo                       string // the model server's host
}

// Analyzer analyses one image.
type Analyzer interface {
	// Name is the provider's name as the settings know it ("builtin").
	Name() string
	Analyze(ctx context.Context, in Input) (Result, error)
}

// NotADiagnosis is the warning every built-in analysis carries.
const NotADiagnosis = "Image quality and metadata only - not a diagnosis."
