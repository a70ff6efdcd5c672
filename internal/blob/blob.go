// Package blob stores file contents: a folder on local disk by default, or an
// S3-compatible bucket. Contents arrive here already encrypted, under keys the
// server makes (S15), so both stores treat them as opaque bytes.
package blob

import (
	"context"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/medishare/medishare/internal/domain"
)

// Store keeps opaque (already encrypted) objects under server-made keys.
// Keys use only a-z, 0-9, '-' and '/' (no leading, trailing or double '/');
// every method returns EINVALID for any other key.
type Store interface {
	// Put stores r's bytes under key, replacing any object there. It streams
	// (memory is bounded whatever the size) and is atomic: readers see the
	// old object or the whole new one, and a failed Put leaves no object
	// behind. Errors: r's own error as is; EUNAVAILABLE.
	Put(ctx context.Context, key string, r io.Reader) error
	// Get opens the object. Errors: ENOTFOUND; EUNAVAILABLE (also from Read).
	Get(ctx context.Context, key string) (io.ReadCloser, error)
	// GetRange opens length bytes from offset, fewer if the object ends
	// sooner (none when offset is at or past the end).
	// Errors: ENOTFOUND; EINVALID for a negative offset or length; EUNAVAILABLE.
	GetRange(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error)
	// Delete removes the object; a missing one is not an error.
	// Errors: EUNAVAILABLE.
	Delete(ctx context.Context, key string) error
	// Walk calls fn for every object under prefix last modified before
	// olderThan (for the janitor, S24). On the way it removes leftovers of
	// uploads that failed or crashed before olderThan, which have no key.
	// Errors: fn's error as is (it stops the walk); EUNAVAILABLE.
	Walk(ctx context.Context, prefix string, olderThan time.Time, fn func(key string) error) error
	// Ping checks that the store is reachable and usable. Errors: EUNAVAILABLE.
	Ping(ctx context.Context) error
}

const (
	msgUnavailable = "The file store is temporarily unavailable."
	msgNotFound    = "The file was not found."
	maxKeyLen      = 1024 // S3's limit
)

func errUnavailable(err error) error {
	return domain.Wrap(domain.EUNAVAILABLE, err, msgUnavailable)
}

func errNotFound(err error) error {
	return domain.Wrap(domain.ENOTFOUND, err, msgNotFound)
}

// validKeyChars keeps keys safe as both file paths and URL paths: no dots
// means no "..", no hidden or temporary names, no extensions to sniff.
func validKeyChars(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '/') {
			return false
		}
	}
	return true
}

func validKey(key string) bool {
	return key != "" && len(key) <= maxKeyLen && validKeyChars(key) &&
		!strings.HasPrefix(key, "/") && !strings.HasSuffix(key, "/") &&
		!strings.Contains(key, "//") && !strings.Contains(key, "..")
}

func checkKey(key string) error {
	if !validKey(key) {
		return domain.Errorf(domain.EINVALID, "invalid object key %q", key)
	}
	return nil
}

// checkPrefix accepts "" (everything) or the start of a valid key.
func checkPrefix(prefix string) error {
	if prefix != "" && (len(prefix) > maxKeyLen || !validKeyChars(prefix) ||
		strings.HasPrefix(prefix, "/") || strings.Contains(prefix, "//")) {
		return domain.Errorf(domain.EINVALID, "invalid object key prefix %q", prefix)
	}
	return nil
}

func checkRange(offset, length int64) error {
	if offset < 0 || length < 0 {
		return domain.Errorf(domain.EINVALID, "invalid range %d+%d", offset, length)
	}
	return nil
}

// sourceReader remembers the caller's read error, so Put can return it as is
// rather than blame the store for a client that went away.
type sourceReader struct {
	ctx context.Context
	r   io.Reader
	err error
}

func (s *sourceReader) Read(p []byte) (int, error) {
	if err := s.ctx.Err(); err != nil {
		s.err = err
		return 0, err
	}
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF {
		s.err = err
	}
	return n, err
}

// putError returns the source's error if there was one, else the store's.
func (s *sourceReader) putError(storeErr error) error {
	if s.err != nil {
		return s.err
	}
	var de *domain.Error
	if errors.As(storeErr, &de) {
		return storeErr
	}
	return errUnavailable(storeErr)
}

// objectReader reports a read that fails halfway (a dropped connection, a
// failing disk) as EUNAVAILABLE, like the call that opened it.
type objectReader struct{ io.ReadCloser }

func (o objectReader) Read(p []byte) (int, error) {
	n, err := o.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		var de *domain.Error
		if !errors.As(err, &de) {
			err = errUnavailable(err)
		}
	}
	return n, err
}

func emptyObject() io.ReadCloser { return io.NopCloser(strings.NewReader("")) }
