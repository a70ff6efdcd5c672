package secure

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"
)

const (
	KiB = 1 << 10
	MiB = 1 << 20
)

func testKey(fill byte) []byte { return bytes.Repeat([]byte{fill}, 32) }

// plaintext returns n bytes that differ from chunk to chunk, so a swapped
// chunk that decrypted would show.
func plaintext(n int) []byte {
	var seed [32]byte
	binary.LittleEndian.PutUint64(seed[:], uint64(n))
	b := make([]byte, n)
	_, _ = rand.NewChaCha8(seed).Read(b)
	return b
}

// encrypt writes plain in pieces of the given size (all at once when 0).
func encrypt(t testing.TB, plain, key []byte, fileID string, piece int) []byte {
	t.Helper()
	var out bytes.Buffer
	w, err := NewEncryptWriter(&out, key, fileID)
	if err != nil {
		t.Fatal(err)
	}
	if piece == 0 {
		piece = max(len(plain), 1)
	}
	for p := plain; len(p) > 0; {
		n := min(piece, len(p))
		if k, err := w.Write(p[:n]); err != nil || k != n {
			t.Fatalf("Write = %d, %v", k, err)
		}
		p = p[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if w.PlainSize() != int64(len(plain)) {
		t.Fatalf("PlainSize = %d, want %d", w.PlainSize(), len(plain))
	}
	if sum := sha256.Sum256(plain); !bytes.Equal(w.PlainSHA256(), sum[:]) {
		t.Fatal("writer's PlainSHA256 is wrong")
	}
	return out.Bytes()
}

// decrypt returns what a reader hands out before its error.
func decrypt(t testing.TB, cipher, key []byte, fileID string) ([]byte, *DecryptReader, error) {
	t.Helper()
	r, err := NewDecryptReader(bytes.NewReader(cipher), key, fileID)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)

	// WriteTo, which io.Copy prefers, must give the same bytes and the same verdict.
	w, _ := NewDecryptReader(bytes.NewReader(cipher), key, fileID)
	var viaWriteTo bytes.Buffer
	_, werr := w.WriteTo(&viaWriteTo)
	if (err == nil) != (werr == nil) || !bytes.Equal(got, viaWriteTo.Bytes()) {
		t.Fatalf("Read and WriteTo disagree: %d bytes, %v; %d bytes, %v", len(got), err, viaWriteTo.Len(), werr)
	}
	return got, r, err
}

func TestStreamRoundTrip(t *testing.T) {
	tests := []struct {
		name  string
		size  int
		piece int
	}{
		{"empty", 0, 0},
		{"1 byte", 1, 0},
		{"64Ki-1", 64*KiB - 1, 0},
		{"64Ki", 64 * KiB, 0},
		{"64Ki+1", 64*KiB + 1, 0},
		{"two chunks exactly", 128 * KiB, 0},
		{"64Ki+1 in 1000-byte writes", 64*KiB + 1, 1000},
		{"3 chunks in 1-byte writes", 3*64*KiB - 5, 1},
		{"10 MiB", 10 * MiB, 0},
		{"10 MiB in 100000-byte writes", 10 * MiB, 100000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plain := plaintext(tt.size)
			key := testKey(1)
			ct := encrypt(t, plain, key, "file-1", tt.piece)
			if int64(len(ct)) != ciphertextSize(int64(tt.size)) {
				t.Fatalf("ciphertext is %d bytes, CiphertextSize says %d", len(ct), ciphertextSize(int64(tt.size)))
			}
			if tt.size > 16 && bytes.Contains(ct, plain[:16]) {
				t.Fatal("ciphertext contains plaintext")
			}
			got, r, err := decrypt(t, ct, key, "file-1")
			if err != nil {
				t.Fatalf("decrypt: %v", err)
			}
			if !bytes.Equal(got, plain) {
				t.Fatalf("round trip differs (got %d bytes, want %d)", len(got), len(plain))
			}
			if r.PlainSize() != int64(tt.size) {
				t.Fatal("reader's PlainSize is wrong")
			}
		})
	}
}

func TestStreamFreshPerFile(t *testing.T) {
	plain := plaintext(100)
	a := encrypt(t, plain, testKey(1), "f", 0)
	b := encrypt(t, plain, testKey(1), "f", 0)
	if bytes.Equal(a[8:12], b[8:12]) || bytes.Equal(a, b) {
		t.Fatal("two encryptions share a nonce prefix")
	}
}

func TestStreamBadKey(t *testing.T) {
	if _, err := NewEncryptWriter(io.Discard, make([]byte, 16), "f"); err == nil {
		t.Fatal("NewEncryptWriter took a 16-byte key")
	}
	if _, err := NewDecryptReader(bytes.NewReader(nil), make([]byte, 31), "f"); err == nil {
		t.Fatal("NewDecryptReader took a 31-byte key")
	}
}

// 2 full chunks and a short one.
const tamperSize = 2*ChunkSize + 1000

func record(i int) int { return HeaderSize + i*(ChunkSize+tagSize) }

func TestStreamFlippedByte(t *testing.T) {
	plain := plaintext(tamperSize)
	key := testKey(1)
	ct := encrypt(t, plain, key, "file-1", 0)

	// Every header byte, both ends of every chunk and tag, and a random sample.
	var positions []int
	for i := range HeaderSize {
		positions = append(positions, i)
	}
	for c := range 3 {
		start, end := record(c), min(record(c+1), len(ct))
		positions = append(positions, start, start+1, end-tagSize-1, end-tagSize, end-1)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 100 {
		positions = append(positions, r.IntN(len(ct)))
	}
	for _, pos := range positions {
		t.Run(fmt.Sprint(pos), func(t *testing.T) {
			bad := bytes.Clone(ct)
			bad[pos] ^= 0x01
			got, _, err := decrypt(t, bad, key, "file-1")
			assertUndecryptable(t, err)
			// Chunks before the damaged one may come out; none of it or after.
			chunk := 0
			if pos >= HeaderSize {
				chunk = (pos - HeaderSize) / (ChunkSize + tagSize)
			}
			if len(got) > chunk*ChunkSize || !bytes.Equal(got, plain[:len(got)]) {
				t.Fatalf("returned %d bytes, but chunk %d is damaged", len(got), chunk)
			}
		})
	}
}

func TestStreamCutAndSpliced(t *testing.T) {
	plain := plaintext(tamperSize)
	key := testKey(1)
	ct := encrypt(t, plain, key, "file-1", 0)
	other := encrypt(t, plain, key, "file-1", 0) // same file, another nonce prefix
	rec := func(b []byte, i int) []byte { return b[record(i):min(record(i+1), len(b))] }
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	hdr := ct[:HeaderSize]

	empty := encrypt(t, nil, key, "file-1", 0)
	oneChunk := encrypt(t, plain[:ChunkSize], key, "file-1", 0)
	tests := []struct {
		name   string
		cipher []byte
	}{
		{"nothing", nil},
		{"header only", hdr},
		{"cut after chunk 0", ct[:record(1)]},
		{"cut after chunk 1", ct[:record(2)]},
		{"cut inside the last chunk", ct[:len(ct)-1]},
		{"cut inside the header", ct[:5]},
		{"one byte appended", cat(ct, []byte{0})},
		{"a tag's worth appended", cat(ct, make([]byte, tagSize))},
		{"last chunk repeated", cat(ct, rec(ct, 2))},
		{"chunk 1 dropped", cat(hdr, rec(ct, 0), rec(ct, 2))},
		{"chunks 0 and 1 swapped", cat(hdr, rec(ct, 1), rec(ct, 0), rec(ct, 2))},
		{"chunk 1 from another encryption", cat(hdr, rec(ct, 0), rec(other, 1), rec(ct, 2))},
		{"empty file's chunk appended to a full one", cat(oneChunk, empty[HeaderSize:])},
		{"empty file extended", cat(empty, rec(ct, 0))},
		{"chunk size changed", cat([]byte("MSE1\x00\x00\x80\x01"), ct[8:])},
		{"bad magic", cat([]byte("MSE2"), ct[4:])},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := decrypt(t, tt.cipher, key, "file-1")
			assertUndecryptable(t, err)
			if !bytes.Equal(got, plain[:len(got)]) {
				t.Fatal("returned bytes that are not the plaintext's prefix")
			}
		})
	}
}

func TestStreamWrongKeyOrFile(t *testing.T) {
	plainA, plainB := plaintext(70*KiB), plaintext(3*KiB)
	keyA, keyB := testKey(1), testKey(2)
	objA := encrypt(t, plainA, keyA, "file-a", 0)
	objB := encrypt(t, plainB, keyB, "file-b", 0)
	sameKeyB := encrypt(t, plainB, keyA, "file-b", 0)
	tests := []struct {
		name   string
		cipher []byte
		key    []byte
		fileID string
	}{
		{"wrong key", objA, keyB, "file-a"},
		{"objects swapped: B's object read as A", objB, keyA, "file-a"},
		{"objects swapped: A's object read as B", objA, keyB, "file-b"},
		{"same key, other file id", sameKeyB, keyA, "file-a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := decrypt(t, tt.cipher, tt.key, tt.fileID)
			assertUndecryptable(t, err)
			if len(got) != 0 {
				t.Fatalf("returned %d bytes", len(got))
			}
		})
	}
}

// failingReader returns its error after n bytes, as a store that drops the
// connection would.
type failingReader struct {
	r   io.Reader
	n   int
	err error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, f.err
	}
	p = p[:min(len(p), f.n)]
	n, err := f.r.Read(p)
	f.n -= n
	return n, err
}

func TestStreamSourceErrorPassesThrough(t *testing.T) {
	ct := encrypt(t, plaintext(tamperSize), testKey(1), "f", 0)
	boom := errors.New("connection reset")
	r, _ := NewDecryptReader(&failingReader{bytes.NewReader(ct), record(1) + 10, boom}, testKey(1), "f")
	got, err := io.ReadAll(r)
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want the source's error", err)
	}
	if len(got) != ChunkSize {
		t.Fatalf("returned %d bytes, want the first chunk only", len(got))
	}
}

type fetchCounter struct {
	ct      []byte
	fetched int64
	calls   int
}

func (f *fetchCounter) fetch(off, n int64) (io.ReadCloser, error) {
	f.calls++
	f.fetched += n
	end := min(off+n, int64(len(f.ct)))
	return io.NopCloser(bytes.NewReader(f.ct[off:end])), nil
}

func TestOpenRange(t *testing.T) {
	key := testKey(1)
	sizes := []int{1, 100, ChunkSize, ChunkSize + 1, 3*ChunkSize + 17, 10 * MiB}
	r := rand.New(rand.NewPCG(3, 4))
	for _, size := range sizes {
		plain := plaintext(size)
		ct := encrypt(t, plain, key, "file-1", 0)
		type rng struct{ off, n int }
		ranges := []rng{{0, size}, {0, 1}, {size - 1, 1}, {0, min(size, ChunkSize)}, {size / 2, size - size/2}, {size, 0}}
		for range 20 {
			off := r.IntN(size)
			ranges = append(ranges, rng{off, 1 + r.IntN(size-off)})
		}
		for _, g := range ranges {
			t.Run(fmt.Sprintf("%d/%d+%d", size, g.off, g.n), func(t *testing.T) {
				f := &fetchCounter{ct: ct}
				rc, err := OpenRange(f.fetch, key, "file-1", int64(size), int64(g.off), int64(g.n))
				if err != nil {
					t.Fatal(err)
				}
				got, err := io.ReadAll(rc)
				rc.Close()
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, plain[g.off:g.off+g.n]) {
					t.Fatalf("got %d bytes that differ from the slice", len(got))
				}
				// Only the header and the chunks holding the range.
				chunks := int64(0)
				if g.n > 0 {
					chunks = int64((g.off+g.n-1)/ChunkSize - g.off/ChunkSize + 1)
				}
				if f.fetched > HeaderSize+chunks*(ChunkSize+tagSize) {
					t.Fatalf("fetched %d bytes for %d chunks", f.fetched, chunks)
				}
			})
		}
	}
}

func TestOpenRangeRefuses(t *testing.T) {
	key := testKey(1)
	size := 2*ChunkSize + 100
	plain := plaintext(size)
	ct := encrypt(t, plain, key, "file-1", 0)
	flip := func(pos int) []byte { b := bytes.Clone(ct); b[pos] ^= 1; return b }
	tests := []struct {
		name      string
		cipher    []byte
		key       []byte
		fileID    string
		plainSize int64
		off, n    int64
	}{
		{"flipped in the range's chunk", flip(record(1) + 5), key, "file-1", int64(size), ChunkSize + 10, 10},
		{"flipped header", flip(9), key, "file-1", int64(size), ChunkSize + 10, 10},
		{"wrong file id", ct, key, "file-2", int64(size), 0, 10},
		{"wrong key", ct, testKey(2), "file-1", int64(size), 0, 10},
		// A wrong stored size makes the last chunk look like a middle one.
		{"size too large", ct, key, "file-1", int64(size) + ChunkSize, 2*ChunkSize + 50, 10},
		{"truncated object", ct[:len(ct)-1], key, "file-1", int64(size), 2 * ChunkSize, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fetchCounter{ct: tt.cipher}
			rc, err := OpenRange(f.fetch, tt.key, tt.fileID, tt.plainSize, tt.off, tt.n)
			if err == nil {
				var got []byte
				got, err = io.ReadAll(rc)
				if len(got) != 0 {
					t.Fatalf("returned %d bytes", len(got))
				}
			}
			assertUndecryptable(t, err)
		})
	}

	bad := []struct{ size, off, n int64 }{{100, -1, 1}, {100, 0, 101}, {100, 101, 0}, {100, 50, -1}, {-1, 0, 0}}
	for _, b := range bad {
		f := &fetchCounter{ct: ct}
		if _, err := OpenRange(f.fetch, key, "f", b.size, b.off, b.n); err == nil || f.calls != 0 {
			t.Errorf("OpenRange(size %d, %d+%d) = %v after %d fetches, want EINVALID and none", b.size, b.off, b.n, err, f.calls)
		}
	}
}

// patternReader yields n bytes without holding them, as an upload would.
type patternReader struct{ n int }

func (p *patternReader) Read(b []byte) (int, error) {
	if p.n == 0 {
		return 0, io.EOF
	}
	k := min(len(b), p.n)
	for i := range b[:k] {
		b[i] = byte(i)
	}
	p.n -= k
	return k, nil
}

func totalAlloc() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}

// Encrypting or decrypting 10 MiB must not allocate in proportion to the file:
// each side holds one chunk (64 KiB) and a copy buffer (32 KiB).
func TestStreamMemory(t *testing.T) {
	const size, limit = 10 * MiB, 1 * MiB
	key := testKey(1)
	buf := make([]byte, 32*KiB)
	ct := encrypt(t, plaintext(size), key, "f", 0)

	tests := []struct {
		name string
		run  func() error
	}{
		{"encrypt", func() error {
			w, err := NewEncryptWriter(io.Discard, key, "f")
			if err != nil {
				return err
			}
			if _, err := io.CopyBuffer(struct{ io.Writer }{w}, &patternReader{size}, buf); err != nil {
				return err
			}
			return w.Close()
		}},
		{"decrypt", func() error {
			r, err := NewDecryptReader(bytes.NewReader(ct), key, "f")
			if err != nil {
				return err
			}
			_, err = io.CopyBuffer(io.Discard, struct{ io.Reader }{r}, buf)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runtime.GC()
			before := totalAlloc()
			if err := tt.run(); err != nil {
				t.Fatal(err)
			}
			alloc := totalAlloc() - before
			t.Logf("%s 10 MiB: %d KiB allocated", tt.name, alloc/KiB)
			if alloc > limit {
				t.Fatalf("allocated %d KiB, want under %d KiB", alloc/KiB, limit/KiB)
			}
		})
	}
}

func BenchmarkEncrypt(b *testing.B) {
	key := testKey(1)
	buf := make([]byte, 32*KiB)
	b.SetBytes(10 * MiB)
	b.ReportAllocs()
	for b.Loop() {
		w, _ := NewEncryptWriter(io.Discard, key, "f")
		if _, err := io.CopyBuffer(struct{ io.Writer }{w}, &patternReader{10 * MiB}, buf); err != nil {
			b.Fatal(err)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecrypt(b *testing.B) {
	key := testKey(1)
	buf := make([]byte, 32*KiB)
	ct := encrypt(b, plaintext(10*MiB), key, "f", 0)
	b.SetBytes(10 * MiB)
	b.ReportAllocs()
	for b.Loop() {
		r, _ := NewDecryptReader(bytes.NewReader(ct), key, "f")
		if _, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{r}, buf); err != nil {
			b.Fatal(err)
		}
	}
}

// ciphertextSize is the stored size of a plainSize-byte file written by
// EncryptWriter.
func ciphertextSize(plainSize int64) int64 {
	return HeaderSize + plainSize + tagSize*chunkCount(plainSize, ChunkSize)
}
