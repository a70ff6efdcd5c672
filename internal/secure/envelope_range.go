package secure

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/medishare/medishare/internal/domain"
)

// FetchFunc returns length bytes of the stored object starting at offset;
// blob.Store.GetRange fits with the context and object key bound.
type FetchFunc func(offset, length int64) (io.ReadCloser, error)

// OpenRange returns plaintext bytes [offset, offset+length) of an encrypted
// file of plainSize bytes (as stored with its record), for HTTP Range
// requests. It fetches the 12-byte header, then only the chunks that hold
// the range, and checks each of them before returning any of its bytes; a
// range that reaches the end checks the last-chunk flag too. A partial read
// cannot be checked against the whole file's SHA-256.
// Errors: EINVALID for a bad key or a range outside [0, plainSize]; the
// fetch's own errors; reads return EINTERNAL "The file could not be
// decrypted." for a damaged file.
func OpenRange(fetch FetchFunc, key []byte, fileID string, plainSize, offset, length int64) (io.ReadCloser, error) {
	aead, err := newContentAEAD(key)
	if err != nil {
		return nil, err
	}
	if plainSize < 0 || offset < 0 || length < 0 || offset > plainSize || length > plainSize-offset {
		return nil, domain.Errorf(domain.EINVALID, "range %d+%d is outside the file (%d bytes)", offset, length, plainSize)
	}
	if length == 0 {
		return io.NopCloser(bytes.NewReader(nil)), nil
	}
	r := &DecryptReader{aead: aead, fileID: fileID, remaining: length}
	if err := r.fetchHeader(fetch); err != nil {
		return nil, err
	}
	chunk := int64(r.chunk)
	r.lastIndex = chunkCount(plainSize, r.chunk) - 1
	r.lastLen = int(plainSize - r.lastIndex*chunk)
	first, end := offset/chunk, (offset+length-1)/chunk
	r.index = uint64(first)
	r.skip = int(offset - first*chunk)
	record := chunk + tagSize
	cipherOff := HeaderSize + first*record
	cipherEnd := HeaderSize + end*record + chunk + tagSize
	if end == r.lastIndex {
		cipherEnd = HeaderSize + end*record + int64(r.lastLen) + tagSize
	}
	body, err := fetch(cipherOff, cipherEnd-cipherOff)
	if err != nil {
		return nil, err
	}
	r.src = body
	return &rangeReader{DecryptReader: r, body: body}, nil
}

func (r *DecryptReader) fetchHeader(fetch FetchFunc) error {
	h, err := fetch(0, HeaderSize)
	if err != nil {
		return err
	}
	defer h.Close()
	r.src = h
	if err := r.readHeader(); err != nil {
		return err
	}
	r.src = nil
	return nil
}

type rangeReader struct {
	*DecryptReader
	body io.Closer
}

func (r *rangeReader) Close() error { return r.body.Close() }

// nextInRange reads the next chunk of a range, whose length is known from
// the plaintext size, and trims it to the part the caller asked for.
func (r *DecryptReader) nextInRange() error {
	if r.remaining == 0 {
		return io.EOF
	}
	last := int64(r.index) == r.lastIndex
	n := r.chunk + tagSize
	if last {
		n = r.lastLen + tagSize
	}
	if _, err := io.ReadFull(r.src, r.buf[:n]); err != nil {
		return r.srcError(err)
	}
	if err := r.open(n, last); err != nil {
		return err
	}
	if r.skip > 0 {
		if r.skip > len(r.plain) {
			return decryptError(fmt.Errorf("range skip %d past chunk of %d", r.skip, len(r.plain)))
		}
		r.plain, r.skip = r.plain[r.skip:], 0
	}
	if int64(len(r.plain)) >= r.remaining {
		r.plain = r.plain[:r.remaining]
		r.remaining = 0
		return io.EOF
	}
	r.remaining -= int64(len(r.plain))
	if last {
		return decryptError(errors.New("range runs past the last chunk"))
	}
	return nil
}
