package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// tempPrefix starts the names of files being written. Keys never contain
// '.', so a temporary file can never be mistaken for an object.
const tempPrefix = ".tmp-"

// FS keeps contents in a folder on local disk, one file per object, readable
// by the server's user only.
type FS struct{ dir string }

var _ Store = (*FS)(nil)

// NewFS uses dir, creating it (readable by the server's user only) if needed.
func NewFS(dir string) (*FS, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("blob folder: %w", err)
	}
	return &FS{dir: dir}, nil
}

// Dir is the folder the store writes into.
func (s *FS) Dir() string { return filepath.Clean(s.dir) }

// Ping checks that the folder is there and writable.
// Errors: EUNAVAILABLE.
func (s *FS) Ping(ctx context.Context) error {
	f, err := os.CreateTemp(s.dir, ".ping-*")
	if err != nil {
		return errUnavailable(err)
	}
	name := f.Name()
	cerr := f.Close()
	if err := os.Remove(name); err != nil {
		return errUnavailable(err)
	}
	if cerr != nil {
		return errUnavailable(cerr)
	}
	return nil
}

func (s *FS) path(key string) (string, error) {
	if err := checkKey(key); err != nil {
		return "", err
	}
	return filepath.Join(s.dir, filepath.FromSlash(key)), nil
}

// Put writes a temporary file beside the object, syncs it and renames it
// into place: a reader never sees half an object, and a crash leaves only a
// temporary file, which Walk removes once it is old.
// Errors: EINVALID for a bad key; r's own error as is; EUNAVAILABLE.
func (s *FS) Put(ctx context.Context, key string, r io.Reader) error {
	path, err := s.path(key)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return errUnavailable(err)
	}
	f, err := os.CreateTemp(dir, tempPrefix+"*") // mode 0600
	if err != nil {
		return errUnavailable(err)
	}
	tmp := f.Name()
	src := &sourceReader{ctx: ctx, r: r}
	if err := writeSynced(f, src); err != nil {
		_ = os.Remove(tmp) // best effort: err is what to report; the janitor removes what stays
		return src.putError(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp) // as above
		return errUnavailable(err)
	}
	// The rename itself is durable only once the folder is synced.
	if err := syncDir(dir); err != nil {
		return errUnavailable(err)
	}
	return nil
}

func writeSynced(f *os.File, r io.Reader) error {
	// A buffer larger than one encrypted chunk takes a whole chunk per read,
	// so the writer feeding r moves on while this goroutine writes (os.File's
	// own ReadFrom would read in 32 KiB pieces and hold the writer up).
	_, err := io.CopyBuffer(struct{ io.Writer }{f}, r, make([]byte, 128<<10))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// open opens an object file, treating folders and paths through files as
// missing objects (keys "a" and "a/b" cannot both exist on disk).
func (s *FS) open(key string) (*os.File, int64, error) {
	path, err := s.path(key)
	if err != nil {
		return nil, 0, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, fsError(err)
	}
	info, err := f.Stat()
	if err != nil {
		_ = f.Close() // opened read-only: nothing to lose
		return nil, 0, errUnavailable(err)
	}
	if !info.Mode().IsRegular() {
		_ = f.Close() // as above
		return nil, 0, errNotFound(fmt.Errorf("%s is not a file", key))
	}
	return f, info.Size(), nil
}

func isMissing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

func fsError(err error) error {
	if isMissing(err) {
		return errNotFound(err)
	}
	return errUnavailable(err)
}

// Get opens the object.
// Errors: EINVALID for a bad key; ENOTFOUND; EUNAVAILABLE.
func (s *FS) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	f, _, err := s.open(key)
	if err != nil {
		return nil, err
	}
	return objectReader{f}, nil
}

// GetRange opens length bytes from offset, fewer if the object ends sooner.
// Errors: EINVALID for a bad key or a negative offset or length; ENOTFOUND;
// EUNAVAILABLE.
func (s *FS) GetRange(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	if err := checkRange(offset, length); err != nil {
		return nil, err
	}
	f, size, err := s.open(key)
	if err != nil {
		return nil, err
	}
	if offset >= size || length == 0 {
		_ = f.Close() // opened read-only: nothing to lose
		return emptyObject(), nil
	}
	return objectReader{struct {
		io.Reader
		io.Closer
	}{io.NewSectionReader(f, offset, min(length, size-offset)), f}}, nil
}

// Delete removes the object; a missing one is not an error. Emptied folders
// stay: removing them would race with a Put creating a file inside.
// Errors: EINVALID for a bad key; EUNAVAILABLE.
func (s *FS) Delete(ctx context.Context, key string) error {
	path, err := s.path(key)
	if err != nil {
		return err
	}
	info, err := os.Lstat(path)
	if err != nil {
		if isMissing(err) {
			return nil
		}
		return errUnavailable(err)
	}
	if info.IsDir() {
		return nil // a folder of other keys, not an object
	}
	if err := os.Remove(path); err != nil && !isMissing(err) {
		return errUnavailable(err)
	}
	return nil
}

// Walk calls fn for every object under prefix modified before olderThan, in
// lexical order, and removes temporary files older than olderThan that
// failed or crashed uploads left (fn never sees them).
// Errors: EINVALID for a bad prefix; fn's error as is; EUNAVAILABLE.
func (s *FS) Walk(ctx context.Context, prefix string, olderThan time.Time, fn func(key string) error) error {
	if err := checkPrefix(prefix); err != nil {
		return err
	}
	// Start in the deepest folder the prefix names, and skip folders that
	// cannot hold a matching key.
	start := s.dir
	if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
		start = filepath.Join(s.dir, filepath.FromSlash(prefix[:i]))
	}
	err := filepath.WalkDir(start, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if isMissing(err) {
				return nil // gone meanwhile, or the prefix names no folder
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(s.dir, path)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		if d.IsDir() {
			if path != start && !strings.HasPrefix(key+"/", prefix) && !strings.HasPrefix(prefix, key+"/") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			return s.removeStale(path, d, olderThan)
		}
		if !strings.HasPrefix(key, prefix) || !validKey(key) || !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			if isMissing(err) {
				return nil
			}
			return err
		}
		if !info.ModTime().Before(olderThan) {
			return nil
		}
		return walkFn{fn}.call(key)
	})
	var fe fnError
	switch {
	case errors.As(err, &fe):
		return fe.err
	case err != nil && ctx.Err() != nil:
		return errUnavailable(ctx.Err())
	case err != nil:
		return errUnavailable(err)
	}
	return nil
}

// removeStale deletes a temporary file (an unfinished upload or ping) once
// it is older than olderThan; a younger one may still be being written.
func (s *FS) removeStale(path string, d fs.DirEntry, olderThan time.Time) error {
	if !strings.HasPrefix(d.Name(), tempPrefix) && !strings.HasPrefix(d.Name(), ".ping-") {
		return nil
	}
	info, err := d.Info()
	if err != nil || !info.ModTime().Before(olderThan) {
		return nil
	}
	if err := os.Remove(path); err != nil && !isMissing(err) {
		return err
	}
	return nil
}

// fnError carries the callback's error out of the walk unchanged, so Walk
// does not mistake it for a store failure.
type fnError struct{ err error }

func (e fnError) Error() string { return e.err.Error() }

type walkFn struct{ fn func(string) error }

func (w walkFn) call(key string) error {
	if err := w.fn(key); err != nil {
		return fnError{err}
	}
	return nil
}
