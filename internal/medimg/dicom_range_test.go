package medimg

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestStoredRange(t *testing.T) {
	previews := NewPreviewer(64 << 20)
	got := map[string]StoredRange{}
	for _, c := range []struct {
		file string
		ok   bool
	}{
		{"CT_small.dcm", true},
		{"MR_small.dcm", true},
		{"MR_small_RLE.dcm", true},
		{"MR_small_bigendian.dcm", true},
		{"JPEG-lossy.dcm", false}, // compressed frames: not measured
	} {
		t.Run(c.file, func(t *testing.T) {
			file, err := os.ReadFile(filepath.Join("..", "..", "testdata", "dicom", c.file))
			if err != nil {
				t.Fatal(err)
			}
			var stored bytes.Buffer
			if _, err := Clean(&stored, bytes.NewReader(file), DICOM); err != nil {
				t.Fatal(err)
			}
			open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(stored.Bytes())), nil }
			r, err := previews.StoredRange(context.Background(), open, int64(stored.Len()))
			if !c.ok {
				if !errors.Is(err, ErrNoPreview) {
					t.Fatalf("a compressed frame measured: %+v %v", r, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.BitsStored < 8 || r.P99 <= r.P1 || r.UsedShare() <= 0 || r.UsedShare() > 1 {
				t.Errorf("stored range %+v, share %v", r, r.UsedShare())
			}
			got[c.file] = r
		})
	}
	// One image in three encodings: one range.
	if a, b, c := got["MR_small.dcm"], got["MR_small_RLE.dcm"], got["MR_small_bigendian.dcm"]; a != b || a != c {
		t.Errorf("MR_small's range differs by encoding: native %+v, RLE %+v, big endian %+v", a, b, c)
	}
}
