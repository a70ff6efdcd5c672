package domain

import "time"

// Preview states: rendered and stored, or known to have no preview.
const (
	PreviewReady = "ready"
	PreviewNone  = "none"
)

// Preview is an image's rendered preview, a PNG stored encrypted beside the
// image under a key of its own (S14), or the memory that it has none.
type Preview struct {
	ImageID    string
	State      string
	BlobKey    string
	WrappedKey []byte
	KeyID      []byte
	Size       int64
	SHA256     []byte // of the PNG; its ETag
}

// FileID is what the preview's key and chunks are bound to: unlike any
// image's id, and naming both the image and the stored object, so neither
// another image's preview nor the image itself opens in its place.
func (p Preview) FileID() string { return p.ImageID + "/" + p.BlobKey }

// ScrubStatus is the state of the background check of stored contents, for
// the admins' health panel.
type ScrubStatus struct {
	Images      int       // images stored
	Checked     int       // images checked at least once
	LastChecked time.Time // the latest check; zero before the first
	Failing     int       // images whose last check failed
	Failures    []ContentFailure
}

// ContentFailure is an image whose stored contents failed their last check.
type ContentFailure struct {
	ImageID   string
	FailedAt  time.Time // when the check first failed
	CheckedAt time.Time // the last check, which failed too
	Reason    string
}
