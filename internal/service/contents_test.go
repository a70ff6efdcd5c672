package service

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/secure"
)

// memoryBlobs keeps objects in memory and counts the stored bytes it hands out.
type memoryBlobs struct {
	objects map[string][]byte
	served  int64
}

func (m *memoryBlobs) Put(_ context.Context, key string, r io.Reader) error {
	b, err := io.ReadAll(r)
	m.objects[key] = b
	return err
}

func (m *memoryBlobs) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	return m.GetRange(ctx, key, 0, int64(len(m.objects[key])))
}

func (m *memoryBlobs) GetRange(_ context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	b, ok := m.objects[key]
	if !ok {
		return nil, domain.Errorf(domain.ENOTFOUND, "no such object")
	}
	b = b[min(offset, int64(len(b))):min(offset+length, int64(len(b)))]
	m.served += int64(len(b))
	return io.NopCloser(bytes.NewReader(b)), nil
}

func (m *memoryBlobs) Delete(context.Context, string) error { return nil }

func (m *memoryBlobs) Walk(context.Context, string, time.Time, func(string) error) error { return nil }

func TestOpenWithoutPixels(t *testing.T) {
	plain := make([]byte, 3<<20)
	if _, err := rand.Read(plain); err != nil {
		t.Fatal(err)
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	var sealed bytes.Buffer
	w, err := secure.NewEncryptWriter(&sealed, key, "file-1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(plain); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	blobs := &memoryBlobs{objects: map[string][]byte{"k": sealed.Bytes()}}
	c := &Contents{Image: domain.Image{ID: "file-1", BlobKey: "k", Size: int64(len(plain))}, key: key, blobs: blobs}

	spans := []domain.Span{
		{Offset: 1000, Length: 1 << 20},       // skipped
		{Offset: 1<<20 + 2000, Length: 100},   // too small to be worth skipping: read
		{Offset: 2 << 20, Length: 512 << 10},  // skipped
		{Offset: 1500, Length: 1 << 20},       // overlaps one before it: ignored
		{Offset: 3<<20 - 10, Length: 1 << 20}, // beyond the file: ignored
	}
	rc := c.OpenWithoutPixels(context.Background(), spans)
	got, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	_ = rc.Close()
	want := bytes.Clone(plain)
	clear(want[1000 : 1000+1<<20])
	clear(want[2<<20 : 2<<20+512<<10])
	if !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes, not the file with its two large spans zeroed", len(got))
	}
	// The skipped spans were neither fetched nor decrypted (chunks at their
	// edges are: at most one chunk of overhead per edge).
	if skipped := int64(1<<20 + 512<<10); blobs.served > int64(len(sealed.Bytes()))-skipped+4*secure.ChunkSize {
		t.Errorf("fetched %d of %d stored bytes, with %d of them skippable", blobs.served, sealed.Len(), skipped)
	}

	// Closing before the end closes the range that is open and opens no other.
	blobs.served = 0
	rc = c.OpenWithoutPixels(context.Background(), spans)
	if _, err := io.ReadFull(rc, make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	_ = rc.Close()
	if _, err := rc.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Errorf("read after close: %v", err)
	}
	if blobs.served > 128<<10 {
		t.Errorf("fetched %d bytes for 10 read", blobs.served)
	}
}
