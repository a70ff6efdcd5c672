package secure

import (
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"

	"github.com/medishare/medishare/internal/domain"
)

// Encrypted file format ("MSE1"), as stored in the blob store:
//
//	header (12 bytes): magic "MSE1" | chunk size C (uint32, big endian) | nonce prefix (4 random bytes)
//	chunks:            AES-256-GCM(plaintext chunk) | 16-byte tag, one after another
//
// Every chunk but the last holds exactly C plaintext bytes; the last holds 1
// to C bytes, or 0 when the file is empty, so a file of n bytes has
// max(1, ceil(n/C)) chunks and n + 16*chunks + 12 ciphertext bytes.
// Chunk i is sealed with
//
//	nonce = nonce prefix | i (uint64, big endian)
//	associated data = magic | C | i (uint64, big endian) | last (1 byte, 1 on the last chunk) | file id
//
// Each file has a fresh key, so nonces never repeat under one key. Binding the
// index and the last flag makes reordering, dropping, truncating at a chunk
// boundary or appending chunks fail; binding the file id makes an object
// copied over another file's fail; the header's fields are in the nonce or the
// associated data, so editing them fails too. Writers use C = 64 KiB; readers
// accept any C up to 1 MiB.
const (
	streamMagic = "MSE1"
	// HeaderSize is the length of the header before the first chunk.
	HeaderSize = 12
	// ChunkSize is the plaintext size of each chunk this package writes.
	ChunkSize = 64 << 10
	// maxChunkSize bounds the buffer a reader allocates for a header's C.
	maxChunkSize = 1 << 20
	tagSize      = 16
)

func newContentAEAD(key []byte) (cipher.AEAD, error) {
	if len(key) != fileKeySize {
		return nil, domain.Errorf(domain.EINVALID, "content key must be %d bytes, not %d", fileKeySize, len(key))
	}
	return newGCM(key)
}

func chunkCount(plainSize int64, chunk int) int64 {
	return max(1, (plainSize+int64(chunk)-1)/int64(chunk))
}

// chunkAD is the associated data of one chunk; index and last are
// rewritten in place for each chunk, so sealing allocates nothing.
type chunkAD []byte

func newChunkAD(chunk int, fileID string) chunkAD {
	ad := make([]byte, 0, 8+8+1+len(fileID))
	ad = append(ad, streamMagic...)
	ad = binary.BigEndian.AppendUint32(ad, uint32(chunk))
	ad = append(ad, make([]byte, 9)...)
	return append(ad, fileID...)
}

func (ad chunkAD) set(index uint64, last bool) {
	binary.BigEndian.PutUint64(ad[8:16], index)
	ad[16] = 0
	if last {
		ad[16] = 1
	}
}

// EncryptWriter encrypts a file as it is written, holding at most one chunk.
type EncryptWriter struct {
	dst    io.Writer
	aead   cipher.AEAD
	header [HeaderSize]byte
	nonce  [12]byte
	ad     chunkAD
	buf    []byte // one chunk of plaintext, sealed in place
	n      int    // plaintext bytes in buf
	index  uint64
	size   int64
	hash   hash.Hash
	sum    []byte
	err    error // sticky: a failed write leaves the output unusable
	closed bool
}

// NewEncryptWriter encrypts to dst with a 32-byte content key, binding fileID.
// Nothing is written to dst until the first chunk is full or Close.
// Errors: EINVALID when key is not 32 bytes.
func NewEncryptWriter(dst io.Writer, key []byte, fileID string) (*EncryptWriter, error) {
	aead, err := newContentAEAD(key)
	if err != nil {
		return nil, err
	}
	w := &EncryptWriter{
		dst:  dst,
		aead: aead,
		ad:   newChunkAD(ChunkSize, fileID),
		buf:  make([]byte, ChunkSize, ChunkSize+tagSize),
		hash: sha256.New(),
	}
	copy(w.header[:], streamMagic)
	binary.BigEndian.PutUint32(w.header[4:], ChunkSize)
	rand.Read(w.header[8:])
	copy(w.nonce[:4], w.header[8:])
	return w, nil
}

// Write encrypts p. A full chunk is sealed only when more data follows, since
// the last chunk is sealed differently.
// Errors: whatever dst returned; once one occurs every later call returns it.
func (w *EncryptWriter) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	if w.closed {
		return 0, errors.New("secure: write after close")
	}
	written := 0
	for len(p) > 0 {
		if w.n == ChunkSize {
			if err := w.seal(false); err != nil {
				return written, err
			}
		}
		c := copy(w.buf[w.n:ChunkSize], p)
		w.hash.Write(p[:c])
		w.n += c
		w.size += int64(c)
		written += c
		p = p[c:]
	}
	return written, nil
}

func (w *EncryptWriter) seal(last bool) error {
	if w.index == 0 {
		if _, err := w.dst.Write(w.header[:]); err != nil {
			w.err = err
			return err
		}
	}
	binary.BigEndian.PutUint64(w.nonce[4:], w.index)
	w.ad.set(w.index, last)
	out := w.aead.Seal(w.buf[:0], w.nonce[:], w.buf[:w.n], w.ad)
	if _, err := w.dst.Write(out); err != nil {
		w.err = err
		return err
	}
	w.buf = out[:ChunkSize]
	w.n = 0
	w.index++
	return nil
}

// Close seals the final chunk (empty for an empty file). It does not close dst.
// Errors: whatever dst returned.
func (w *EncryptWriter) Close() error {
	if w.closed || w.err != nil {
		return w.err
	}
	if err := w.seal(true); err != nil {
		return err
	}
	w.closed = true
	w.sum = w.hash.Sum(nil)
	return nil
}

// PlainSize is the number of plaintext bytes written.
func (w *EncryptWriter) PlainSize() int64 { return w.size }

// PlainSHA256 is the SHA-256 of the plaintext, once Close has succeeded
// (nil before).
func (w *EncryptWriter) PlainSHA256() []byte { return w.sum }

// DecryptReader streams the plaintext of an encrypted file. It returns a
// chunk's bytes only after the chunk's tag checked out.
type DecryptReader struct {
	src    io.Reader
	aead   cipher.AEAD
	fileID string
	chunk  int
	nonce  [12]byte
	ad     chunkAD
	buf    []byte
	plain  []byte // authenticated plaintext not yet returned
	index  uint64
	err    error // sticky, io.EOF at the end

	// Whole-file mode: the last chunk is the one the source ends after, so
	// each read takes one byte of the next chunk along (buf has room for it).
	peek    byte
	hasPeek bool
	size    int64

	// Range mode (lastIndex >= 0): the caller knows the plaintext size.
	lastIndex int64
	lastLen   int // plaintext bytes in the last chunk
	skip      int // bytes to drop from the first chunk
	remaining int64
}

// NewDecryptReader decrypts a whole file from src. Reads fail if anything
// was changed, cut short or appended, and then return no plaintext of the
// chunk in question.
// Errors: EINVALID when key is not 32 bytes; reads return EINTERNAL "The file
// could not be decrypted." for a damaged file and src's own errors as they are.
func NewDecryptReader(src io.Reader, key []byte, fileID string) (*DecryptReader, error) {
	aead, err := newContentAEAD(key)
	if err != nil {
		return nil, err
	}
	return &DecryptReader{src: src, aead: aead, fileID: fileID, lastIndex: -1, remaining: -1}, nil
}

// PlainSize is the number of plaintext bytes, once Read returned io.EOF.
func (r *DecryptReader) PlainSize() int64 { return r.size }

// Start reads and checks the first chunk now rather than at the first
// Read, so that a file damaged from its start fails before an answer has
// begun. Errors: as Read's, never io.EOF.
func (r *DecryptReader) Start() error {
	for len(r.plain) == 0 && r.err == nil {
		if r.chunk == 0 {
			r.err = r.readHeader()
		} else {
			r.err = r.next()
		}
	}
	if r.err == io.EOF {
		return nil
	}
	return r.err
}

// Read returns plaintext. Its error is sticky; next returns io.EOF along
// with the last chunk's plaintext, which is handed out first.
func (r *DecryptReader) Read(p []byte) (int, error) {
	for len(r.plain) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		if r.chunk == 0 {
			r.err = r.readHeader()
		} else {
			r.err = r.next()
		}
	}
	n := copy(p, r.plain)
	r.plain = r.plain[n:]
	return n, nil
}

// WriteTo writes the plaintext to w a chunk at a time, straight from the
// decryption buffer: io.Copy uses it and saves a copy of every byte.
func (r *DecryptReader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for {
		if len(r.plain) > 0 {
			n, err := w.Write(r.plain)
			total += int64(n)
			r.plain = r.plain[n:]
			if err != nil {
				return total, err
			}
		}
		switch {
		case r.err == io.EOF:
			return total, nil
		case r.err != nil:
			return total, r.err
		case r.chunk == 0:
			r.err = r.readHeader()
		default:
			r.err = r.next()
		}
	}
}

func (r *DecryptReader) readHeader() error {
	var h [HeaderSize]byte
	if _, err := io.ReadFull(r.src, h[:]); err != nil {
		return r.srcError(err)
	}
	if string(h[:4]) != streamMagic {
		return decryptError(errors.New("not an MSE1 stream"))
	}
	chunk := binary.BigEndian.Uint32(h[4:8])
	if chunk == 0 || chunk > maxChunkSize {
		return decryptError(fmt.Errorf("chunk size %d out of range", chunk))
	}
	r.chunk = int(chunk)
	copy(r.nonce[:4], h[8:])
	r.ad = newChunkAD(r.chunk, r.fileID)
	r.buf = make([]byte, r.chunk+tagSize+1)
	return nil
}

// srcError tells a stream cut short (a damaged file) from a failing source
// (say, a store gone away mid-read), which keeps its own error.
func (r *DecryptReader) srcError(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return decryptError(fmt.Errorf("chunk %d: stream ends early", r.index))
	}
	return err
}

// next reads, checks and decrypts the next chunk into r.plain.
func (r *DecryptReader) next() error {
	if r.lastIndex >= 0 {
		return r.nextInRange()
	}
	record := r.chunk + tagSize
	n := 0
	if r.hasPeek {
		r.buf[0] = r.peek
		n, r.hasPeek = 1, false
	}
	// A full chunk is the last one only if nothing follows it: one read
	// takes the chunk and the next one's first byte.
	m, err := io.ReadFull(r.src, r.buf[n:record+1])
	n += m
	last := false
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		last = true
	case err != nil:
		return err
	default:
		r.peek, r.hasPeek, n = r.buf[record], true, record
	}
	if err := r.open(n, last); err != nil {
		return err
	}
	r.size += int64(len(r.plain))
	if last {
		return io.EOF
	}
	return nil
}

func (r *DecryptReader) open(n int, last bool) error {
	if n < tagSize {
		return decryptError(fmt.Errorf("chunk %d: %d bytes, shorter than a tag", r.index, n))
	}
	binary.BigEndian.PutUint64(r.nonce[4:], r.index)
	r.ad.set(r.index, last)
	plain, err := r.aead.Open(r.buf[:0], r.nonce[:], r.buf[:n], r.ad)
	if err != nil {
		return decryptError(fmt.Errorf("chunk %d (last=%v): %w", r.index, last, err))
	}
	if !last && len(plain) != r.chunk {
		return decryptError(fmt.Errorf("chunk %d: short chunk before the last", r.index))
	}
	if len(plain) == 0 && r.index > 0 {
		return decryptError(errors.New("empty last chunk after data"))
	}
	r.plain = plain
	r.index++
	return nil
}
