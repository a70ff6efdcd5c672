package blob_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/medishare/medishare/internal/blob"
	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/secure"
)

// The way the server uses a store: encrypt while uploading through a pipe,
// then serve whole downloads and Range requests that fetch only the chunks
// they need. Swapped objects fail on download (S14).
func TestEncryptedContents(t *testing.T) {
	stores := []struct {
		name string
		new  func(t *testing.T) blob.Store
	}{
		{"fs", func(t *testing.T) blob.Store { return newFS(t) }},
		{"s3", func(t *testing.T) blob.Store { s, _ := newS3(t); return s }},
	}
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			testEncryptedContents(t, st.new(t))
		})
	}
}

func putEncrypted(t *testing.T, s blob.Store, key string, plain, fileKey []byte, fileID string) *secure.EncryptWriter {
	t.Helper()
	pr, pw := io.Pipe()
	w, err := secure.NewEncryptWriter(pw, fileKey, fileID)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		_, err := w.Write(plain)
		if err == nil {
			err = w.Close()
		}
		pw.CloseWithError(err)
	}()
	if err := s.Put(context.Background(), key, pr); err != nil {
		t.Fatal(err)
	}
	return w
}

func testEncryptedContents(t *testing.T, s blob.Store) {
	ctx := context.Background()
	env, err := secure.NewEnvelope(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	plain := content(10<<20, 5)
	keyA, wrappedA, _ := env.NewFileKey("file-a")
	w := putEncrypted(t, s, "files/a", plain, keyA, "file-a")
	if sum := sha256.Sum256(plain); !bytes.Equal(w.PlainSHA256(), sum[:]) {
		t.Fatal("PlainSHA256 differs")
	}
	// The stored form is the 12-byte header and each 64 KiB chunk with its 16-byte tag.
	chunks := (int64(len(plain)) + secure.ChunkSize - 1) / secure.ChunkSize
	if n, _ := objectSize(s, "files/a"); n != secure.HeaderSize+int64(len(plain))+16*chunks {
		t.Fatalf("stored %d bytes for %d plaintext bytes in %d chunks", n, len(plain), chunks)
	}

	t.Run("whole download", func(t *testing.T) {
		key, err := env.Unwrap(wrappedA, "file-a")
		if err != nil {
			t.Fatal(err)
		}
		rc, _ := s.Get(ctx, "files/a")
		defer rc.Close()
		r, _ := secure.NewDecryptReader(rc, key, "file-a")
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, plain) {
			t.Fatalf("download: %d bytes, %v", len(got), err)
		}
	})

	t.Run("ranges", func(t *testing.T) {
		fetch := func(off, n int64) (io.ReadCloser, error) { return s.GetRange(ctx, "files/a", off, n) }
		r := rand.New(rand.NewPCG(1, 1))
		for range 20 {
			off := r.Int64N(int64(len(plain)))
			n := 1 + r.Int64N(min(int64(len(plain))-off, 300<<10))
			rc, err := secure.OpenRange(fetch, keyA, "file-a", int64(len(plain)), off, n)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(rc)
			rc.Close()
			if err != nil || !bytes.Equal(got, plain[off:off+n]) {
				t.Fatalf("range %d+%d: %d bytes, %v", off, n, len(got), err)
			}
		}
	})

	t.Run("swapped objects", func(t *testing.T) {
		keyB, _, _ := env.NewFileKey("file-b")
		putEncrypted(t, s, "files/b", []byte("another patient's scan"), keyB, "file-b")
		// Someone with access to the bucket copies B's object over A's.
		rc, _ := s.Get(ctx, "files/b")
		b, _ := io.ReadAll(rc)
		rc.Close()
		if err := s.Put(ctx, "files/a", bytes.NewReader(b)); err != nil {
			t.Fatal(err)
		}
		rc, _ = s.Get(ctx, "files/a")
		defer rc.Close()
		r, _ := secure.NewDecryptReader(rc, keyA, "file-a")
		got, err := io.ReadAll(r)
		if domain.ErrorKind(err) != domain.EINTERNAL || len(got) != 0 {
			t.Fatalf("got %d bytes, %v; want EINTERNAL and nothing", len(got), err)
		}
	})
}
