package secure

import (
	"bytes"
	"io"
	"testing"

	"github.com/medishare/medishare/internal/domain"
)

// countingReader counts the reads that reach the stored object.
type countingReader struct {
	r     io.Reader
	reads int
}

func (c *countingReader) Read(p []byte) (int, error) {
	c.reads++
	return c.r.Read(p)
}

// TestOnePassReleasesOnlyCheckedChunks: read once, as a download does, a
// stream damaged in chunk 2 hands out chunks 0 and 1 and not one byte of
// chunk 2; Start catches damage in chunk 0 before anything is handed out.
func TestOnePassReleasesOnlyCheckedChunks(t *testing.T) {
	key, id := testKey(7), "file-1"
	plain := plaintext(4*ChunkSize + 100)
	sealed := encrypt(t, plain, key, id, 0)

	damaged := bytes.Clone(sealed)
	damaged[HeaderSize+2*(ChunkSize+tagSize)+10] ^= 1
	r, err := NewDecryptReader(bytes.NewReader(damaged), key, id)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(); err != nil {
		t.Fatalf("Start on an intact first chunk: %v", err)
	}
	var out bytes.Buffer
	n, err := r.WriteTo(&out)
	if domain.ErrorKind(err) != domain.EINTERNAL || n != 2*ChunkSize || !bytes.Equal(out.Bytes(), plain[:2*ChunkSize]) {
		t.Fatalf("WriteTo = %d, %v; want the two chunks before the damaged one and EINTERNAL", n, err)
	}

	damaged = bytes.Clone(sealed)
	damaged[HeaderSize+10] ^= 1
	r, err = NewDecryptReader(bytes.NewReader(damaged), key, id)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(); domain.ErrorKind(err) != domain.EINTERNAL {
		t.Fatalf("Start on a damaged first chunk: %v", err)
	}
	if k, err := r.Read(make([]byte, 10)); k != 0 || err == nil {
		t.Fatalf("Read after a failed Start: %d, %v", k, err)
	}
}

// TestOneReadPerChunk: the decrypting reader reads each chunk, with the
// byte after it that tells whether it is the last, in one read.
func TestOneReadPerChunk(t *testing.T) {
	key, id := testKey(8), "file-2"
	for _, size := range []int{0, 1, ChunkSize, 3*ChunkSize + 5} {
		plain := plaintext(size)
		src := &countingReader{r: bytes.NewReader(encrypt(t, plain, key, id, 0))}
		r, err := NewDecryptReader(src, key, id)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if _, err := r.WriteTo(&out); err != nil || !bytes.Equal(out.Bytes(), plain) {
			t.Fatalf("%d bytes: %v", size, err)
		}
		// The header, one read per chunk, and the read that finds the end.
		if want := 1 + int(chunkCount(int64(size), ChunkSize)) + 1; src.reads > want {
			t.Fatalf("%d bytes: %d reads, want at most %d", size, src.reads, want)
		}
	}
}
