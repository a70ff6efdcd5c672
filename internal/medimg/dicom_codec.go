package medimg

import (
	"context"
	"encoding/binary"
	"errors"
	"image"
	"math"
	"time"

	"github.com/suyashkumar/dicom"

	"github.com/medishare/medishare/internal/medimg/codec"
)

// usesSandbox reports whether a frame of transfer syntax ts is decoded by
// internal/medimg/codec (JPEG 2000, JPEG-LS, lossless JPEG, 12-bit JPEG)
// rather than by Go's JPEG decoder. head is the start of the frame: JPEG
// Extended frames of 8 bits stay Go's.
func usesSandbox(ts string, head []byte) bool {
	if !codec.Handles(ts) {
		return false
	}
	return ts != codec.JPEGExtended12 || sofPrecision(head) != 8
}

// sofPrecision is the sample precision of a JPEG frame's first SOF marker,
// or 0 when head does not reach one.
func sofPrecision(head []byte) int {
	if len(head) < 4 || head[0] != 0xFF || head[1] != 0xD8 {
		return 0
	}
	for i := 2; i+4 < len(head); {
		if head[i] != 0xFF {
			return 0
		}
		m := head[i+1]
		switch {
		case m == 0xFF:
			i++
			continue
		case m >= 0xD0 && m <= 0xD7:
			i += 2
			continue
		case m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC:
			return int(head[i+4])
		case m == 0xDA || m == 0xD9:
			return 0
		}
		i += 2 + (int(head[i+2])<<8 | int(head[i+3]))
	}
	return 0
}

// sandboxFrameBytes is what decoding a frame in the sandbox costs: the
// instance's memory cap (which holds the compressed copy and the decoder's
// output), the output copied out, and the frame copied from its fragments.
func sandboxFrameBytes(ts string, pm pixelModule, compressed int64) int64 {
	samples := max(pm.samples, 1)
	capBytes := codec.MemoryCap(ts, int(min(compressed, math.MaxInt32)), pm.cols, pm.rows, samples, pm.bitsAllocated)
	native := int64(pm.rows) * int64(pm.cols) * int64(samples) * int64(max((pm.bitsAllocated+7)/8, 1))
	return capBytes + native + compressed
}

// renderSandboxed decodes one frame with internal/medimg/codec and renders
// its samples as native pixel data: the same masking, sign, rescale and
// window as uncompressed frames.
func renderSandboxed(ds *dicom.Dataset, ts string, data []byte, p pixelModule) (image.Image, error) {
	if p.bitsAllocated > 16 || p.samples != 1 && p.samples != 3 {
		return nil, ErrNoPreview
	}
	f, err := codec.Decode(context.Background(), ts, data, p.cols, p.rows, p.samples, p.bitsAllocated)
	if err != nil {
		if errors.Is(err, codec.ErrDecode) || errors.Is(err, codec.ErrTooLarge) || errors.Is(err, codec.ErrNotBuilt) {
			return nil, ErrNoPreview
		}
		return nil, err
	}
	p = codecPixels(ts, p, f)
	return renderNative(ds, f.Data, p)
}

// codecPixels describes a decoded frame's samples for renderNative: little
// endian, interleaved, 8 or 16 bits allocated with the codestream's
// precision stored, and the colour the decoder left them in.
func codecPixels(ts string, p pixelModule, f codec.Frame) pixelModule {
	p.bitsAllocated = 8 * f.BytesPerSample()
	p.bitsStored = f.Precision
	p.highBit = f.Precision - 1
	p.signed = p.signed || f.Signed
	p.planar = false
	p.bo = binary.LittleEndian
	switch p.photometric {
	case "YBR_ICT", "YBR_RCT":
		p.photometric = "RGB" // JPEG 2000's own colour transforms, undone by the decoder
	case "YBR_FULL", "YBR_FULL_422", "YBR_PARTIAL_422":
		if f.ColourTransformed {
			p.photometric = "RGB"
		} else {
			p.photometric = "YBR_FULL" // upsampled by the decoder; converted when rendered
		}
	}
	return p
}

// WarmDecoders compiles the sandboxed decoders (once a process), so that the
// first preview of a JPEG 2000, JPEG-LS or lossless JPEG frame does not wait
// for it; it returns how long compiling took.
func WarmDecoders(ctx context.Context) (time.Duration, error) {
	return codec.Compile(ctx)
}
