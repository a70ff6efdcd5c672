// Package codec decodes the DICOM pixel data compressions that Go has no
// decoder for (JPEG 2000, JPEG-LS, lossless and 12-bit JPEG) with well-known C
// decoders compiled to WebAssembly, run in wazero's sandbox: OpenJPEG, and
// DCMTK's copies of CharLS and of the IJG libjpeg (scripts/codecs.sh builds
// them; the .wasm files are embedded, never committed).
//
// What a hostile frame can do is bounded by the sandbox, not by the C code's
// care: each decode runs in a fresh module instance (no state carried from
// one file to the next) whose linear memory is capped by the runtime
// (RuntimeConfig.WithMemoryLimitPages, sized from the frame's declared size),
// whose run ends at a deadline (WithCloseOnContextDone), and which is given
// no file system, network, environment, arguments, clock or randomness. The
// result is checked against the size the DICOM header declared before any
// sample is used.
package codec

import (
	"context"
	"embed"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"runtime"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

//go:embed wasm
var modules embed.FS

// Transfer syntaxes this package decodes.
const (
	JPEGExtended12     = "1.2.840.10008.1.2.4.51" // 12-bit lossy JPEG (8-bit frames are Go's)
	JPEGLossless       = "1.2.840.10008.1.2.4.57"
	JPEGLosslessSV1    = "1.2.840.10008.1.2.4.70"
	JPEGLSLossless     = "1.2.840.10008.1.2.4.80"
	JPEGLSNearLossless = "1.2.840.10008.1.2.4.81"
	JPEG2000Lossless   = "1.2.840.10008.1.2.4.90"
	JPEG2000           = "1.2.840.10008.1.2.4.91"
)

// module names the decoder of a transfer syntax.
func module(ts string) (string, bool) {
	switch ts {
	case JPEG2000Lossless, JPEG2000:
		return "openjpeg", true
	case JPEGLSLossless, JPEGLSNearLossless:
		return "charls", true
	case JPEGLossless, JPEGLosslessSV1, JPEGExtended12:
		return "ijg", true
	}
	return "", false
}

// Handles reports whether ts is a transfer syntax this package decodes.
func Handles(ts string) bool {
	_, ok := module(ts)
	return ok
}

// Errors. Every failure of a frame is ErrDecode or ErrTooLarge: callers
// show no preview, whatever the cause.
var (
	ErrDecode   = errors.New("codec: the frame does not decode")
	ErrTooLarge = errors.New("codec: the frame is over the sandbox's memory limit")
	ErrNotBuilt = errors.New("codec: decoder module not built (run make codecs)")
)

// Limits of the sandbox.
var (
	// Timeout is how long one decode may run. A frame of the largest size
	// the previews accept decodes in well under a second.
	Timeout = 10 * time.Second
	// MaxMemory is the most one instance may hold, whatever the frame.
	MaxMemory int64 = 1 << 30
)

const (
	pageSize = 64 << 10
	minClass = 8 << 20 // the smallest memory cap: the modules' data, stacks and tables
)

// Frame is a decoded frame: samples of each pixel together, little endian,
// one byte each when Precision is at most 8 and two otherwise.
type Frame struct {
	Width, Height, Components int
	Precision                 int
	Signed                    bool
	// ColourTransformed: the decoder turned the codestream's YCbCr (JPEG
	// 2000's ICT or RCT) back into RGB.
	ColourTransformed bool
	Data              []byte
	// MemoryUsed is the size the instance's linear memory had grown to,
	// for the tests that check MemoryCap's margin.
	MemoryUsed int64
}

// BytesPerSample is 1 or 2.
func (f Frame) BytesPerSample() int {
	if f.Precision <= 8 {
		return 1
	}
	return 2
}

// MemoryCap is the linear memory a decode of a frame of compressed bytes,
// declared w x h with comps samples of bitsAllocated bits, is allowed: what
// the decoder's own structures need for a frame of that size (measured, with
// a margin; see docs/security.md), rounded up to the runtime's memory class.
// The Go side holds a copy of the output besides (Frame.Data).
func MemoryCap(ts string, compressed, w, h, comps, bitsAllocated int) int64 {
	n := int64(w) * int64(h) * int64(max(comps, 1))
	out := n * int64(max((bitsAllocated+7)/8, 1))
	in := int64(compressed)
	var need int64
	switch ts {
	case JPEG2000Lossless, JPEG2000:
		// OpenJPEG holds each component as 32-bit samples in the image and,
		// for a tiled image, in the tile being decoded; besides those, the
		// codestream and the code-block buffers. (Measured: 6 bytes a
		// sample, with the output, for a 2048 x 2048 16-bit frame.)
		need = 8*n + out + 2*in + 4<<20
	case JPEGLSLossless, JPEGLSNearLossless:
		need = 2*out + in + 4<<20
	default:
		// A multi-scan (progressive or non-interleaved) JPEG keeps every
		// component's coefficients or differences, two bytes a sample.
		need = 4*n + out + in + 4<<20
	}
	return class(need)
}

// class rounds a memory need up to a quarter of its power of two (at least
// minClass): at most 25% more than the need, and a few dozen classes in all.
// One runtime, with its compiled modules, per class; the runtimes share the
// compiled code (one compilation cache).
func class(need int64) int64 {
	if need <= minClass {
		return minClass
	}
	step := int64(1) << (bits.Len64(uint64(need)) - 3)
	return (need + step - 1) / step * step
}

// sandbox is one wazero runtime whose instances may hold at most limit
// bytes, with the modules compiled for it.
type sandbox struct {
	rt       wazero.Runtime
	mu       sync.Mutex
	compiled map[string]wazero.CompiledModule
}

var (
	mu        sync.Mutex
	sandboxes = map[int64]*sandbox{}
	// Runtimes of every memory class share the compiled code: a module is
	// compiled once a process.
	cache = wazero.NewCompilationCache()
	// At most one decode a core: decoding is CPU bound, and memory is
	// bounded by the caller's budget (the preview plan counts MemoryCap).
	slots = make(chan struct{}, runtime.GOMAXPROCS(0))
)

func sandboxFor(ctx context.Context, limit int64) (*sandbox, error) {
	mu.Lock()
	defer mu.Unlock()
	if s := sandboxes[limit]; s != nil {
		return s, nil
	}
	cfg := wazero.NewRuntimeConfig().
		WithMemoryLimitPages(uint32(limit / pageSize)).
		WithCloseOnContextDone(true).
		WithCompilationCache(cache)
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	// The C library's system interface. Instances get no preopened
	// directory, no environment, no arguments, no stdin/stdout/stderr, and
	// wazero's defaults for clocks and randomness (fixed, not the host's).
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		_ = rt.Close(ctx)
		return nil, fmt.Errorf("codec: start WASI: %w", err)
	}
	s := &sandbox{rt: rt, compiled: map[string]wazero.CompiledModule{}}
	sandboxes[limit] = s
	return s, nil
}

func (s *sandbox) module(ctx context.Context, name string) (wazero.CompiledModule, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m := s.compiled[name]; m != nil {
		return m, nil
	}
	bin, err := modules.ReadFile("wasm/" + name + ".wasm")
	if err != nil {
		return nil, ErrNotBuilt
	}
	m, err := s.rt.CompileModule(ctx, bin)
	if err != nil {
		return nil, fmt.Errorf("codec: compile %s: %w", name, err)
	}
	s.compiled[name] = m
	return m, nil
}

// Compile compiles every module for the smallest memory class, so that the
// first preview does not wait for it; it returns how long that took.
func Compile(ctx context.Context) (time.Duration, error) {
	start := time.Now()
	s, err := sandboxFor(ctx, minClass)
	if err != nil {
		return 0, err
	}
	for _, name := range []string{"openjpeg", "ijg", "charls"} {
		if _, err := s.module(ctx, name); err != nil {
			return 0, err
		}
	}
	return time.Since(start), nil
}

// Decode decodes one compressed frame of transfer syntax ts that the DICOM
// header declares w x h with comps samples of bitsAllocated bits. The frame
// must decode to exactly that size.
func Decode(ctx context.Context, ts string, data []byte, w, h, comps, bitsAllocated int) (Frame, error) {
	name, ok := module(ts)
	if !ok || w < 1 || h < 1 || comps < 1 || len(data) == 0 || int64(len(data)) > MaxMemory {
		return Frame{}, ErrDecode
	}
	limit := MemoryCap(ts, len(data), w, h, comps, bitsAllocated)
	if limit > MaxMemory {
		return Frame{}, ErrTooLarge
	}
	s, err := sandboxFor(ctx, limit)
	if err != nil {
		return Frame{}, err
	}
	compiled, err := s.module(ctx, name)
	if err != nil {
		return Frame{}, err
	}
	select {
	case slots <- struct{}{}:
		defer func() { <-slots }()
	case <-ctx.Done():
		return Frame{}, ctx.Err()
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	return run(ctx, s.rt, compiled, data, w, h, comps)
}

// run instantiates the module afresh, decodes, copies the checked output
// out, and closes the instance.
func run(ctx context.Context, rt wazero.Runtime, compiled wazero.CompiledModule, data []byte, w, h, comps int) (Frame, error) {
	cfg := wazero.NewModuleConfig().WithName("").WithStartFunctions("_initialize")
	mod, err := rt.InstantiateModule(ctx, compiled, cfg)
	if err != nil {
		return Frame{}, fmt.Errorf("%w: instantiate: %w", ErrDecode, err)
	}
	defer mod.Close(context.WithoutCancel(ctx)) //nolint:errcheck // closing frees the instance; nothing to act on
	malloc, decode, result := mod.ExportedFunction("malloc"), mod.ExportedFunction("decode"), mod.ExportedFunction("result")
	if malloc == nil || decode == nil || result == nil {
		return Frame{}, fmt.Errorf("%w: module lacks its exports", ErrDecode)
	}
	r, err := malloc.Call(ctx, uint64(len(data)))
	if err != nil || r[0] == 0 {
		return Frame{}, ErrTooLarge
	}
	in := uint32(r[0])
	if !mod.Memory().Write(in, data) {
		return Frame{}, ErrDecode
	}
	r, err = decode.Call(ctx, uint64(in), uint64(len(data)), uint64(w), uint64(h), uint64(comps))
	if err != nil {
		if ctx.Err() != nil {
			return Frame{}, fmt.Errorf("%w: %w", ErrDecode, ctx.Err())
		}
		return Frame{}, fmt.Errorf("%w: %w", ErrDecode, err) // a trap: the decoder refused the data
	}
	switch status := uint32(r[0]); status {
	case 0:
	case 4:
		return Frame{}, ErrTooLarge
	default:
		return Frame{}, fmt.Errorf("%w: status %d", ErrDecode, status)
	}
	return readResult(ctx, mod, result, w, h, comps)
}

// readResult reads the shim's result (shim.h, struct shim_result) and checks
// it against the declared frame before copying the samples.
func readResult(ctx context.Context, mod api.Module, result api.Function, w, h, comps int) (Frame, error) {
	r, err := result.Call(ctx)
	if err != nil {
		return Frame{}, fmt.Errorf("%w: %w", ErrDecode, err)
	}
	raw, ok := mod.Memory().Read(uint32(r[0]), 32)
	if !ok {
		return Frame{}, ErrDecode
	}
	u := func(i int) uint32 { return binary.LittleEndian.Uint32(raw[4*i:]) }
	f := Frame{
		Width: int(u(0)), Height: int(u(1)), Components: int(u(2)), Precision: int(u(3)),
		Signed: u(4) != 0, ColourTransformed: u(7) != 0,
	}
	if f.Width != w || f.Height != h || f.Components != comps || f.Precision < 1 || f.Precision > 16 {
		return Frame{}, fmt.Errorf("%w: decoded frame differs from the header", ErrDecode)
	}
	size := uint64(w) * uint64(h) * uint64(comps) * uint64(f.BytesPerSample())
	if uint64(u(6)) != size {
		return Frame{}, fmt.Errorf("%w: decoded %d bytes, want %d", ErrDecode, u(6), size)
	}
	out, ok := mod.Memory().Read(u(5), u(6))
	if !ok {
		return Frame{}, fmt.Errorf("%w: output outside the module's memory", ErrDecode)
	}
	f.Data = append([]byte(nil), out...) // the instance's memory goes with it
	f.MemoryUsed = int64(mod.Memory().Size())
	return f, nil
}
