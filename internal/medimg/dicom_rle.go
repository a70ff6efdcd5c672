package medimg

import (
	"encoding/binary"
	"image"

	"github.com/suyashkumar/dicom"
)

// tsRLE is the RLE Lossless transfer syntax (PS3.5 Annex G).
const tsRLE = "1.2.840.10008.1.2.5"

// rleHeaderSize is the RLE header: a segment count and 15 segment offsets.
const rleHeaderSize = 64

// renderRLE decodes the first frame of RLE Lossless pixel data into native
// samples and renders those like uncompressed data.
func renderRLE(ds *dicom.Dataset, info dicom.PixelDataInfo, p pixelModule) (image.Image, error) {
	if len(info.Frames) == 0 {
		return nil, ErrNoPreview
	}
	raw, err := decodeRLE(info.Frames[0].EncapsulatedData.Data, p)
	if err != nil {
		return nil, err
	}
	p.bo, p.planar = binary.LittleEndian, false // decodeRLE writes interleaved little-endian samples
	return renderNative(ds, raw, p)
}

// decodeRLE turns one RLE frame into native samples: little endian, each
// pixel's samples together. The frame holds one PackBits segment per byte
// of each sample, most significant byte first.
func decodeRLE(frame []byte, p pixelModule) ([]byte, error) {
	if len(frame) < rleHeaderSize || p.bitsAllocated%8 != 0 || p.bitsAllocated == 0 {
		return nil, ErrNoPreview
	}
	bytesPerSample := p.bitsAllocated / 8
	segments := int(binary.LittleEndian.Uint32(frame))
	if segments < 1 || segments > 15 || segments != p.samples*bytesPerSample {
		return nil, ErrNoPreview
	}
	n := p.rows * p.cols
	out := make([]byte, n*segments)
	for s := 0; s < segments; s++ {
		start := int64(binary.LittleEndian.Uint32(frame[4+4*s:]))
		end := int64(len(frame))
		if s+1 < segments {
			end = int64(binary.LittleEndian.Uint32(frame[8+4*s:]))
		}
		if start < rleHeaderSize || start > end || end > int64(len(frame)) {
			return nil, ErrNoPreview
		}
		plane, err := unpackBits(frame[start:end], n)
		if err != nil {
			return nil, err
		}
		sample, at := s/bytesPerSample, bytesPerSample-1-s%bytesPerSample
		for i, b := range plane {
			out[(i*p.samples+sample)*bytesPerSample+at] = b
		}
	}
	return out, nil
}

// unpackBits expands one PackBits segment into n bytes.
func unpackBits(src []byte, n int) ([]byte, error) {
	out := make([]byte, 0, n+128)
	for i := 0; i < len(src) && len(out) < n; {
		c := int(int8(src[i]))
		i++
		switch {
		case c >= 0: // c+1 literal bytes
			if i+c+1 > len(src) {
				return nil, ErrNoPreview
			}
			out = append(out, src[i:i+c+1]...)
			i += c + 1
		case c > -128: // the next byte 1-c times
			if i >= len(src) {
				return nil, ErrNoPreview
			}
			for k := 0; k < 1-c; k++ {
				out = append(out, src[i])
			}
			i++
		}
	}
	if len(out) < n {
		return nil, ErrNoPreview
	}
	return out[:n], nil
}
