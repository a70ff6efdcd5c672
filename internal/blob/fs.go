// Package blob stores file contents: a folder on local disk by default, or an
// S3-compatible bucket. Contents arrive here already encrypted.
package blob

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// FS keeps contents in a folder on local disk.
type FS struct{ dir string }

// NewFS uses dir, creating it (readable by the server's user only) if needed.
func NewFS(dir string) (*FS, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("blob folder: %w", err)
	}
	return &FS{dir: dir}, nil
}

// Ping checks that the folder is there and writable.
func (s *FS) Ping(ctx context.Context) error {
	f, err := os.CreateTemp(s.dir, ".ping-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// Dir is the folder the store writes into.
func (s *FS) Dir() string { return filepath.Clean(s.dir) }
