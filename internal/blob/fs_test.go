package blob_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/blob"
	"github.com/medishare/medishare/internal/domain"
)

func newFS(t *testing.T) *blob.FS {
	t.Helper()
	s, err := blob.NewFS(filepath.Join(t.TempDir(), "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestFS(t *testing.T) {
	testStore(t, newFS(t))
}

func TestFSPermissionsAndLayout(t *testing.T) {
	s := newFS(t)
	put(t, s, "files/ab/cd-ef", []byte("secret"))
	tests := []struct {
		path string
		mode fs.FileMode
	}{
		{"", 0o700 | fs.ModeDir},
		{"files", 0o700 | fs.ModeDir},
		{"files/ab", 0o700 | fs.ModeDir},
		{"files/ab/cd-ef", 0o600},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			info, err := os.Stat(filepath.Join(s.Dir(), tt.path))
			if err != nil {
				t.Fatal(err)
			}
			if info.Mode() != tt.mode {
				t.Fatalf("mode %v, want %v", info.Mode(), tt.mode)
			}
		})
	}
	entries, _ := os.ReadDir(filepath.Join(s.Dir(), "files/ab"))
	if len(entries) != 1 {
		t.Fatalf("the folder holds %d entries, want only the object (no temporary file)", len(entries))
	}
}

// A crash between writing and renaming leaves a temporary file: Walk never
// reports it, and removes it once it is older than the cut-off.
func TestFSWalkRemovesStaleTempFiles(t *testing.T) {
	s := newFS(t)
	put(t, s, "files/a", []byte("a"))
	dir := filepath.Join(s.Dir(), "files")
	old := time.Now().Add(-2 * time.Hour)
	makeFile := func(name string, mtime time.Time) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("half"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return p
	}
	staleTmp := makeFile(".tmp-123", old)
	freshTmp := makeFile(".tmp-456", time.Now())
	stalePing := filepath.Join(s.Dir(), ".ping-1")
	if err := os.WriteFile(stalePing, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_ = os.Chtimes(stalePing, old, old)
	foreign := makeFile("Not-A-Key.txt", old)

	got := walk(t, s, "", time.Now().Add(-time.Hour))
	if len(got) != 0 {
		t.Fatalf("Walk reported %v", got)
	}
	tests := []struct {
		name   string
		path   string
		exists bool
	}{
		{"stale temp file", staleTmp, false},
		{"stale ping file", stalePing, false},
		{"fresh temp file (an upload in progress)", freshTmp, true},
		{"a file that is not ours", foreign, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := os.Stat(tt.path)
			if exists := err == nil; exists != tt.exists {
				t.Fatalf("exists = %v, want %v", exists, tt.exists)
			}
		})
	}
	if got := walk(t, s, "", time.Now().Add(time.Hour)); !slices.Equal(got, []string{"files/a"}) {
		t.Fatalf("Walk = %v, want [files/a]", got)
	}
}

func TestFSUnavailable(t *testing.T) {
	s := newFS(t)
	put(t, s, "k", []byte("x"))
	if err := os.RemoveAll(s.Dir()); err != nil {
		t.Fatal(err)
	}
	// A file where the folder was: nothing can be created under it.
	if err := os.WriteFile(s.Dir(), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	wantKind(t, s.Ping(ctx), domain.EUNAVAILABLE)
	err := s.Put(ctx, "k", strings.NewReader("x"))
	wantKind(t, err, domain.EUNAVAILABLE)
	if domain.ErrorMessage(err) != "The file store is temporarily unavailable." {
		t.Fatalf("message %q", domain.ErrorMessage(err))
	}
}

func TestNewFSCreatesPrivateFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	s, err := blob.NewFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.Dir() != dir {
		t.Fatalf("Dir = %s", s.Dir())
	}
	info, err := os.Stat(dir)
	if err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("folder mode %v, %v", info.Mode(), err)
	}
}
