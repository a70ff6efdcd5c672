package medimg

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"sync/atomic"

	"golang.org/x/image/draw"
	"golang.org/x/sync/semaphore"

	"github.com/medishare/medishare/internal/domain"
)

// Limits for rendering previews. The stored forms are at most 10 MiB; the
// decoded image is what costs memory, and that is budgeted before decoding.
const (
	maxPreviewInput  = 64 << 20
	catmullRomPixels = 16 << 20 // above this, scale with the cheaper filter
	// MinPreviewBudget is the smallest budget a Previewer accepts: a
	// streamed PNG of the largest allowed width needs a few MiB, and an
	// ordinary photo a few tens.
	MinPreviewBudget = 32 << 20
)

// Previewer renders previews within a memory budget shared by all its
// renders. Before decoding, a render reads the header, estimates its peak
// memory (the decoded image, the scaled copy, the encoder) and takes that
// many bytes from the budget, waiting its turn; a render whose estimate is
// more than the whole budget is never materialised whole: a non-interlaced
// PNG is decoded row by row straight into the preview, anything else gets
// ErrNoPreview. Use one Previewer per process.
type Previewer struct {
	sem     *semaphore.Weighted
	budget  int64
	renders atomic.Int64
}

// Renders is how many previews were rendered (metrics).
func (p *Previewer) Renders() int64 { return p.renders.Load() }

// NewPreviewer makes a Previewer with a budget of the given bytes (at least
// MinPreviewBudget).
func NewPreviewer(budget int64) *Previewer {
	budget = max(budget, MinPreviewBudget)
	return &Previewer{sem: semaphore.NewWeighted(budget), budget: budget}
}

// Budget is the number of bytes renders share.
func (p *Previewer) Budget() int64 { return p.budget }

// Opener opens the stored form from its first byte. Preview opens it twice:
// once for the header, which decides the memory to wait for, and once to
// render, so nothing is held while a render waits.
type Opener func() (io.ReadCloser, error)

// Preview renders a PNG no larger than maxSide on its longest side (aspect
// ratio kept, never upscaled) from the stored form written by Clean; size is
// its length.
//
// Errors: ErrNoPreview (ENOTFOUND "Preview not available.") for PDF, DICOM
// without pixels, images we cannot decode and images that need more memory
// than the whole budget and cannot be streamed; EVALIDATION "The image is too
// large to process." when the dimensions are over the upload limits;
// EUNSUPPORTED for an unknown content type; EINVALID for a maxSide below 1.
// When ctx ends while the render waits for memory, ctx's error is returned
// wrapped (%w), as are errors from open, from reading and from writing dst.
func (p *Previewer) Preview(ctx context.Context, dst io.Writer, open Opener, size int64, contentType string, maxSide int) error {
	if maxSide < 1 {
		return domain.Errorf(domain.EINVALID, "preview size must be positive")
	}
	if size > maxPreviewInput {
		return errTooLarge()
	}
	switch contentType {
	case PDF:
		return ErrNoPreview
	case JPEG, PNG, DICOM:
	default:
		return errInvalidType()
	}
	pl, err := withOpen(open, func(src io.Reader) (plan, error) {
		return p.plan(src, size, contentType, maxSide)
	})
	if err != nil {
		return err
	}
	if err := p.sem.Acquire(ctx, pl.bytes); err != nil {
		return fmt.Errorf("medimg: wait for preview memory: %w", err)
	}
	defer p.sem.Release(pl.bytes)
	p.renders.Add(1)
	_, err = withOpen(open, func(src io.Reader) (struct{}, error) {
		return struct{}{}, pl.render(dst, src)
	})
	return err
}

// withOpen runs f on the opened stored form. Decoders take any failure to
// read as a malformed file; a failure of the stream itself (storage,
// decryption) is returned as that instead.
func withOpen[T any](open Opener, f func(io.Reader) (T, error)) (T, error) {
	rc, err := open()
	if err != nil {
		var zero T
		return zero, fmt.Errorf("medimg: open stored form: %w", err)
	}
	defer rc.Close()
	src := &readFailure{r: rc}
	t, err := f(src)
	if err != nil && src.err != nil {
		return t, fmt.Errorf("medimg: read stored form: %w", src.err)
	}
	return t, err
}

// readFailure remembers the first error, other than the end, of a reader.
type readFailure struct {
	r   io.Reader
	err error
}

func (r *readFailure) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF && r.err == nil {
		r.err = err
	}
	return n, err
}

// A plan is one render: its estimated peak bytes, and how it goes.
type plan struct {
	bytes  int64
	render func(dst io.Writer, src io.Reader) error
}

// plan reads the header from src and decides how to render within the budget.
func (p *Previewer) plan(src io.Reader, size int64, contentType string, maxSide int) (plan, error) {
	switch contentType {
	case PNG:
		h, err := readPNGHeader(src)
		if err != nil {
			return plan{}, err
		}
		return p.planPNG(h, maxSide)
	case JPEG:
		h, err := readJPEGHeader(src)
		if err != nil {
			return plan{}, err
		}
		return p.planJPEG(h, size, maxSide)
	}
	return p.planDICOM(src, size, maxSide)
}

// planPNG materialises small PNGs with the standard decoder (the previews
// they always had) and streams the others. Whole decoding is kept to a
// quarter of the budget, so one large PNG does not hold up the rest; an
// interlaced PNG cannot be streamed and may use the whole budget.
func (p *Previewer) planPNG(h pngHeader, maxSide int) (plan, error) {
	whole := pngWholeBytes(h, maxSide)
	if whole <= p.budget/4 || (h.interlaced && whole <= p.budget) {
		fine := catmullRom(h.width, h.height)
		return plan{bytes: whole, render: func(dst io.Writer, src io.Reader) error {
			img, err := safeDecode(func() (image.Image, error) { return png.Decode(bufio.NewReaderSize(src, copyBufSize)) })
			if err != nil {
				return err
			}
			if b := img.Bounds(); b.Dx() != h.width || b.Dy() != h.height {
				return ErrNoPreview // not the image the plan was made for
			}
			return encodePreview(dst, img, maxSide, orientationNone, fine)
		}}, nil
	}
	if h.interlaced {
		return plan{}, ErrNoPreview
	}
	nw, nh := fitSize(h.width, h.height, maxSide)
	return plan{bytes: streamPNGBytes(h, maxSide) + 4*int64(nw)*int64(nh) + encodeBytes(nw, nh), render: func(dst io.Writer, src io.Reader) error {
		img, err := streamPNG(src, maxSide)
		if err != nil {
			return err
		}
		return encodePreview(dst, img, maxSide, orientationNone, false) // already to size
	}}, nil
}

// pngWholeBytes estimates a render through image/png: the decoded image (and
// for interlaced images the largest pass, half the image), two rows, the
// scaled copy and the encoder.
func pngWholeBytes(h pngHeader, maxSide int) int64 {
	img := int64(h.width) * int64(h.height) * h.decodedPixelBytes()
	if h.interlaced {
		img += img / 2
	}
	nw, nh := fitSize(h.width, h.height, maxSide)
	return img + 2*(h.rowBytes()+1) + scaleBytes(h.width, h.height, maxSide, catmullRom(h.width, h.height)) + encodeBytes(nw, nh) + 256<<10
}

// planJPEG: the standard library has no reduced-size decoding, so a JPEG
// over the budget has no preview.
func (p *Previewer) planJPEG(h jpegHeader, size int64, maxSide int) (plan, error) {
	nw, nh := fitSize(h.width, h.height, maxSide)
	// The stored form is read whole (for the EXIF orientation and the decoder).
	fixed := size + bytes.MinRead + h.decodeBytes() + encodeBytes(nw, nh)
	need, fine, ok := p.fit(fixed, h.width, h.height, maxSide)
	if !ok {
		return plan{}, ErrNoPreview
	}
	return plan{bytes: need, render: func(dst io.Writer, src io.Reader) error {
		img, o, err := decodeJPEG(src, size, h)
		if err != nil {
			return err
		}
		return encodePreview(dst, img, maxSide, o, fine)
	}}, nil
}

// fit adds the scaling to a render's other costs. The Catmull-Rom filter's
// buffer can be larger than the image, so when it would not fit the budget
// the cheaper filter (the one used above 16 megapixels) takes its place.
func (p *Previewer) fit(fixed int64, w, h, maxSide int) (need int64, fine, ok bool) {
	fine = catmullRom(w, h)
	need = fixed + scaleBytes(w, h, maxSide, fine)
	if need > p.budget && fine {
		fine = false
		need = fixed + scaleBytes(w, h, maxSide, false)
	}
	return need, fine, need <= p.budget
}

// catmullRom reports whether an image of w x h is scaled with the
// Catmull-Rom filter rather than the cheaper bilinear one.
func catmullRom(w, h int) bool { return int64(w)*int64(h) <= catmullRomPixels }

// decodeJPEG decodes a stored JPEG whose header h was read before; it also
// returns the EXIF orientation that Clean kept.
func decodeJPEG(src io.Reader, size int64, h jpegHeader) (image.Image, int, error) {
	buf := bytes.NewBuffer(make([]byte, 0, max(min(size, maxPreviewInput), 0)+bytes.MinRead))
	if _, err := io.Copy(buf, io.LimitReader(src, maxPreviewInput+1)); err != nil {
		return nil, 0, fmt.Errorf("medimg: read stored form: %w", err)
	}
	if buf.Len() > maxPreviewInput {
		return nil, 0, errTooLarge()
	}
	data := buf.Bytes()
	cfg, err := decodeConfig(data)
	if err != nil || cfg.Width != h.width || cfg.Height != h.height {
		return nil, 0, ErrNoPreview
	}
	img, err := safeDecode(func() (image.Image, error) { return jpeg.Decode(bytes.NewReader(data)) })
	return img, jpegOrientation(data), err
}

// scaleBytes estimates scaleToFit: the scaled copy and, for the Catmull-Rom
// filter (fine), its intermediate buffer of one [4]float64 per destination
// column and source row.
func scaleBytes(w, h, maxSide int, fine bool) int64 {
	nw, nh := fitSize(w, h, maxSide)
	if nw == w && nh == h {
		return 0
	}
	n := 4 * int64(nw) * int64(nh)
	if fine {
		n += 32 * int64(nw) * int64(h)
	}
	return n
}

// encodeBytes estimates encodePreview for a preview of nw x nh: the turned
// copy (and an RGBA copy of an image that was not scaled), the PNG written
// (in the caller's growing buffer), and the encoder's and decoders' own
// state (deflater, Huffman tables, row buffers).
func encodeBytes(nw, nh int) int64 {
	return 4*4*int64(nw)*int64(nh) + 2<<20
}

// decodeConfig reads a JPEG's dimensions; a panic counts as a failure.
func decodeConfig(data []byte) (cfg image.Config, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errors.New("medimg: decoder panicked")
		}
	}()
	return jpeg.DecodeConfig(bytes.NewReader(data))
}

// safeDecode runs a third-party decoder, turning a failure or a panic into
// ErrNoPreview.
func safeDecode(decode func() (image.Image, error)) (img image.Image, err error) {
	defer func() {
		if r := recover(); r != nil {
			img, err = nil, ErrNoPreview
		}
	}()
	img, err = decode()
	if err != nil {
		return nil, ErrNoPreview
	}
	return img, nil
}

// encodePreview scales img to fit maxSide (with the Catmull-Rom filter if
// fine, else bilinear), turns it upright (EXIF orientation o), and writes it
// as PNG.
func encodePreview(dst io.Writer, img image.Image, maxSide, o int, fine bool) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = ErrNoPreview
		}
	}()
	out := orient(scaleToFit(img, maxSide, fine), o)
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(dst, out); err != nil {
		return fmt.Errorf("medimg: write preview: %w", err)
	}
	return nil
}

// scaleToFit shrinks img so its longest side is at most maxSide, keeping the
// aspect ratio and greyscale images greyscale.
func scaleToFit(img image.Image, maxSide int, fine bool) image.Image {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	nw, nh := fitSize(w, h, maxSide)
	if nw == w && nh == h {
		return img
	}
	r := image.Rect(0, 0, nw, nh)
	var dst draw.Image
	switch img.(type) {
	case *image.Gray, *image.Gray16:
		dst = image.NewGray(r)
	default:
		dst = image.NewRGBA(r)
	}
	var scaler draw.Scaler = draw.ApproxBiLinear
	if fine {
		scaler = draw.CatmullRom
	}
	scaler.Scale(dst, r, img, b, draw.Src, nil)
	return dst
}
