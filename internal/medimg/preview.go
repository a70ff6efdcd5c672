package medimg

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"

	"golang.org/x/image/draw"

	"github.com/medishare/medishare/internal/domain"
)

// Limits for rendering previews. The stored forms are at most 10 MiB; the
// decoded image is what costs memory, so that is checked before decoding.
const (
	maxPreviewInput  = 64 << 20
	maxDecodeBytes   = 512 << 20 // the decoded image (100 megapixels of RGBA is 400 MB)
	catmullRomPixels = 16 << 20  // above this, scale with the cheaper filter
)

// Preview renders a PNG no larger than maxSide on its longest side (aspect
// ratio kept, never upscaled) from src, the stored form written by Clean;
// size is its length.
//
// Errors: ErrNoPreview (ENOTFOUND "Preview not available.") for PDF, DICOM
// without pixels, and images we cannot decode; EVALIDATION "The image is too
// large to process." when the dimensions are over the limits (checked before
// decoding); EUNSUPPORTED for an unknown content type; EINVALID for a
// maxSide below 1. Read errors from src and write errors to dst are returned
// wrapped (%w).
func Preview(dst io.Writer, src io.Reader, size int64, contentType string, maxSide int) (err error) {
	if maxSide < 1 {
		return domain.Errorf(domain.EINVALID, "preview size must be positive")
	}
	if size > maxPreviewInput {
		return errTooLarge()
	}
	var img image.Image
	orientation := orientationNone
	switch contentType {
	case PDF:
		return ErrNoPreview
	case JPEG, PNG:
		img, orientation, err = decodeImage(src, size, contentType)
	case DICOM:
		img, err = renderDICOM(src)
	default:
		return errInvalidType()
	}
	if err != nil {
		return err
	}
	return encodePreview(dst, img, maxSide, orientation)
}

// decodeImage decodes a stored JPEG or PNG after checking its dimensions and
// the memory its decoded form needs; it also returns the EXIF orientation
// that Clean kept for a JPEG (1 otherwise).
func decodeImage(src io.Reader, size int64, contentType string) (image.Image, int, error) {
	buf := bytes.NewBuffer(make([]byte, 0, max(min(size, maxPreviewInput), 0)+bytes.MinRead))
	if _, err := io.Copy(buf, io.LimitReader(src, maxPreviewInput+1)); err != nil {
		return nil, 0, fmt.Errorf("medimg: read stored form: %w", err)
	}
	if buf.Len() > maxPreviewInput {
		return nil, 0, errTooLarge()
	}
	data := buf.Bytes()
	cfg, err := decodeConfig(data, contentType)
	if err != nil {
		return nil, 0, ErrNoPreview
	}
	if err := checkDecode(cfg); err != nil {
		return nil, 0, err
	}
	orientation := orientationNone
	if contentType == JPEG {
		orientation = jpegOrientation(data)
	}
	img, err := safeDecode(func() (image.Image, error) {
		if contentType == PNG {
			return png.Decode(bytes.NewReader(data))
		}
		return jpeg.Decode(bytes.NewReader(data))
	})
	return img, orientation, err
}

// checkDecode refuses images whose dimensions or decoded size are too large.
func checkDecode(cfg image.Config) error {
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return ErrNoPreview
	}
	if err := checkDimensions(cfg.Width, cfg.Height); err != nil {
		return err
	}
	if int64(cfg.Width)*int64(cfg.Height)*bytesPerPixel(cfg) > maxDecodeBytes {
		return errTooLarge()
	}
	return nil
}

// bytesPerPixel is what one pixel costs once decoded in the colour model
// the decoder reported.
func bytesPerPixel(cfg image.Config) int64 {
	switch cfg.ColorModel {
	case color.GrayModel, color.AlphaModel:
		return 1
	case color.Gray16Model:
		return 2
	case color.YCbCrModel:
		return 3
	case color.RGBAModel, color.NRGBAModel, color.CMYKModel:
		return 4
	}
	if _, ok := cfg.ColorModel.(color.Palette); ok {
		return 1
	}
	return 8
}

// decodeConfig reads the dimensions with the decoder for the stored type
// only; a panic counts as a failure.
func decodeConfig(data []byte, contentType string) (cfg image.Config, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errors.New("medimg: decoder panicked")
		}
	}()
	if contentType == PNG {
		return png.DecodeConfig(bytes.NewReader(data))
	}
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

// encodePreview scales img to fit maxSide, turns it upright (EXIF
// orientation o), and writes it as PNG.
func encodePreview(dst io.Writer, img image.Image, maxSide, o int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = ErrNoPreview
		}
	}()
	out := orient(scaleToFit(img, maxSide), o)
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(dst, out); err != nil {
		return fmt.Errorf("medimg: write preview: %w", err)
	}
	return nil
}

// scaleToFit shrinks img so its longest side is at most maxSide, keeping the
// aspect ratio and greyscale images greyscale.
func scaleToFit(img image.Image, maxSide int) image.Image {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w <= maxSide && h <= maxSide {
		return img
	}
	nw, nh := maxSide, max(1, int((int64(h)*int64(maxSide)+int64(w)/2)/int64(w)))
	if h > w {
		nw, nh = max(1, int((int64(w)*int64(maxSide)+int64(h)/2)/int64(h))), maxSide
	}
	r := image.Rect(0, 0, nw, nh)
	var dst draw.Image
	switch img.(type) {
	case *image.Gray, *image.Gray16:
		dst = image.NewGray(r)
	default:
		dst = image.NewRGBA(r)
	}
	var scaler draw.Scaler = draw.CatmullRom
	if int64(w)*int64(h) > catmullRomPixels {
		scaler = draw.ApproxBiLinear
	}
	scaler.Scale(dst, r, img, b, draw.Src, nil)
	return dst
}

// jpegDecode decodes one JPEG held in memory, as found in DICOM fragments.
func jpegDecode(data []byte) (image.Image, error) {
	cfg, err := decodeConfig(data, JPEG)
	if err != nil {
		return nil, ErrNoPreview
	}
	if err := checkDecode(cfg); err != nil {
		return nil, err
	}
	return safeDecode(func() (image.Image, error) { return jpeg.Decode(bytes.NewReader(data)) })
}
