package domain

// WrappedKey is one image's content key as stored: wrapped by the master
// key that KeyID names.
type WrappedKey struct {
	ImageID string
	Wrapped []byte
	KeyID   []byte
}

// SealedText is a record's sealed text (a message, an analysis, a queued
// mail), for sealing again under another master key.
type SealedText struct {
	ID     string
	Sealed []byte
}
