package analysis_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/medishare/medishare/internal/analysis"
	"github.com/medishare/medishare/internal/medimg"
)

// phantom is a test object: a bright disc with a sharp edge and a bar
// pattern on a dark background, like a radiograph of a test tool.
func phantom(size int) *image.Gray {
	g := image.NewGray(image.Rect(0, 0, size, size))
	c := float64(size) / 2
	for y := range size {
		for x := range size {
			v := 30.0
			dx, dy := float64(x)-c, float64(y)-c
			if dx*dx+dy*dy < (c*0.7)*(c*0.7) {
				v = 170
				if (x/6)%2 == 0 && y > size/3 && y < size/2 {
					v = 220
				}
			}
			g.SetGray(x, y, color.Gray{Y: uint8(v)})
		}
	}
	return g
}

func withNoise(src *image.Gray, sigma float64) *image.Gray {
	r := rand.New(rand.NewPCG(1, 2))
	out := image.NewGray(src.Rect)
	for i, v := range src.Pix {
		n := float64(v) + r.NormFloat64()*sigma
		out.Pix[i] = uint8(max(0, min(255, n)))
	}
	return out
}

// boxBlur averages each pixel with its neighbours within radius.
func boxBlur(src *image.Gray, radius int) *image.Gray {
	w, h := src.Rect.Dx(), src.Rect.Dy()
	out := image.NewGray(src.Rect)
	for y := range h {
		for x := range w {
			sum, n := 0, 0
			for dy := -radius; dy <= radius; dy++ {
				for dx := -radius; dx <= radius; dx++ {
					if xx, yy := x+dx, y+dy; xx >= 0 && yy >= 0 && xx < w && yy < h {
						sum += int(src.Pix[yy*src.Stride+xx])
						n++
					}
				}
			}
			out.Pix[y*out.Stride+x] = uint8(sum / n)
		}
	}
	return out
}

func analyze(t *testing.T, img image.Image, facts analysis.Facts) analysis.Result {
	t.Helper()
	r, err := analysis.Builtin{}.Analyze(context.Background(), analysis.Input{Pixels: img, Facts: facts})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func value(t *testing.T, r analysis.Result, key string) float64 {
	t.Helper()
	for _, m := range r.Measurements {
		if m.Key == key {
			return m.Value
		}
	}
	t.Fatalf("no measurement %q in %+v", key, r.Measurements)
	return 0
}

func hasWarning(r analysis.Result, prefix string) bool {
	return slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.HasPrefix(w, prefix) })
}

// neverDiagnoses checks what every built-in result must hold.
func neverDiagnoses(t *testing.T, r analysis.Result) {
	t.Helper()
	if len(r.DifferentialDiagnosis) != 0 || len(r.Treatment) != 0 || r.Confidence != nil {
		t.Errorf("the built-in analyser diagnosed: %+v %v %v", r.DifferentialDiagnosis, r.Treatment, r.Confidence)
	}
	if len(r.Warnings) == 0 || r.Warnings[0] != analysis.NotADiagnosis {
		t.Errorf("first warning %v, want %q", r.Warnings, analysis.NotADiagnosis)
	}
	if r.Provider != "builtin" || r.Model != analysis.BuiltinModel || r.Description == "" || len(r.FollowUp) == 0 {
		t.Errorf("result: provider %q model %q description %q follow-up %v", r.Provider, r.Model, r.Description, r.FollowUp)
	}
}

func TestBuiltinOnAGoodImage(t *testing.T) {
	r := analyze(t, withNoise(phantom(512), 2), analysis.Facts{ContentType: "image/png"})
	neverDiagnoses(t, r)
	if len(r.Warnings) != 1 {
		t.Errorf("a clean, well exposed image got quality warnings: %v", r.Warnings)
	}
	if v := value(t, r, "noise_sigma"); v < 1 || v > 3 {
		t.Errorf("noise of sigma 2 estimated as %v", v)
	}
	if v := value(t, r, "otsu_threshold"); v < 30 || v >= 170 {
		t.Errorf("Otsu threshold %v is not between background (30) and subject (170)", v)
	}
	if snr, cnr := value(t, r, "snr"), value(t, r, "cnr"); snr < 50 || cnr < 40 || cnr >= snr {
		t.Errorf("SNR %v, CNR %v", snr, cnr)
	}
	if v := value(t, r, "aspect_ratio"); v != 1 {
		t.Errorf("aspect ratio %v", v)
	}
	if !strings.HasPrefix(r.Description, "A PNG image, 512 × 512 pixels as rendered, square.") {
		t.Errorf("description: %s", r.Description)
	}
}

func TestBuiltinFindsQualityProblems(t *testing.T) {
	black := image.NewGray(image.Rect(0, 0, 400, 300))
	r := analyze(t, black, analysis.Facts{ContentType: "image/jpeg"})
	neverDiagnoses(t, r)
	if !hasWarning(r, "Underexposed") || value(t, r, "clipped_dark") != 100 || !strings.Contains(r.Description, "underexposed") {
		t.Errorf("a black image: %v, %s", r.Warnings, r.Description)
	}
	if value(t, r, "aspect_ratio") != 1.333 || !strings.Contains(r.Description, "landscape") {
		t.Errorf("a 400×300 image: aspect %v, %s", value(t, r, "aspect_ratio"), r.Description)
	}

	noisy := analyze(t, withNoise(phantom(512), 25), analysis.Facts{})
	if !hasWarning(noisy, "Noisy") || value(t, noisy, "noise_sigma") < 15 {
		t.Errorf("a noisy image: sigma %v, %v", value(t, noisy, "noise_sigma"), noisy.Warnings)
	}

	source := withNoise(phantom(512), 2)
	sharp, soft := analyze(t, source, analysis.Facts{}), analyze(t, boxBlur(source, 4), analysis.Facts{})
	if value(t, soft, "sharpness") >= value(t, sharp, "sharpness")/4 {
		t.Errorf("blurring kept the sharpness: %v, source %v", value(t, soft, "sharpness"), value(t, sharp, "sharpness"))
	}
	if !hasWarning(soft, "Blurred") || hasWarning(sharp, "Blurred") {
		t.Errorf("blur warnings: blurred %v, source %v", soft.Warnings, sharp.Warnings)
	}

	tiny := analyze(t, phantom(64), analysis.Facts{})
	if !hasWarning(tiny, "Tiny") {
		t.Errorf("a 64 px image: %v", tiny.Warnings)
	}

	white := image.NewGray(image.Rect(0, 0, 300, 300))
	for i := range white.Pix {
		white.Pix[i] = 255
	}
	if r := analyze(t, white, analysis.Facts{}); !hasWarning(r, "Clipped highlights") {
		t.Errorf("a white image: %v", r.Warnings)
	}

	if _, err := (analysis.Builtin{}).Analyze(context.Background(), analysis.Input{}); err == nil {
		t.Error("no pixels analysed")
	}
}

// TestBuiltinOnEncodedImages analyses JPEG and PNG files as the server
// renders them (a preview), colour included.
func TestBuiltinOnEncodedImages(t *testing.T) {
	rgb := image.NewRGBA(image.Rect(0, 0, 640, 480))
	for y := range 480 {
		for x := range 640 {
			rgb.Set(x, y, color.RGBA{uint8(x / 3), uint8(y / 2), 128, 255})
		}
	}
	for _, c := range []struct {
		contentType string
		encode      func(*bytes.Buffer) error
	}{
		{medimg.JPEG, func(b *bytes.Buffer) error { return jpeg.Encode(b, rgb, &jpeg.Options{Quality: 90}) }},
		{medimg.PNG, func(b *bytes.Buffer) error { return png.Encode(b, rgb) }},
	} {
		var file bytes.Buffer
		if err := c.encode(&file); err != nil {
			t.Fatal(err)
		}
		r := analyze(t, render(t, file.Bytes(), c.contentType), analysis.Facts{ContentType: c.contentType})
		neverDiagnoses(t, r)
		if value(t, r, "width") != 640 || value(t, r, "height") != 480 {
			t.Errorf("%s: rendered %v × %v", c.contentType, value(t, r, "width"), value(t, r, "height"))
		}
	}
}

// TestBuiltinOnDICOMFixtures analyses every fixture that renders.
func TestBuiltinOnDICOMFixtures(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "dicom")
	for _, c := range []struct {
		file     string
		modality string
	}{
		{"CT_small.dcm", "CT"},
		{"MR_small.dcm", "MR"},
		{"MR_small_RLE.dcm", "MR"},
		{"MR_small_implicit.dcm", "MR"},
		{"MR_small_bigendian.dcm", "MR"},
	} {
		t.Run(c.file, func(t *testing.T) {
			file, err := os.ReadFile(filepath.Join(dir, c.file))
			if err != nil {
				t.Fatal(err)
			}
			var stored bytes.Buffer
			info, err := medimg.Clean(&stored, bytes.NewReader(file), medimg.DICOM)
			if err != nil {
				t.Fatal(err)
			}
			d := info.DICOM
			facts := analysis.Facts{ContentType: medimg.DICOM, Modality: d.Modality, BodyPart: d.BodyPart,
				StudyDescription: d.StudyDescription, Rows: d.Rows, Columns: d.Columns, Frames: d.Frames,
				BitsStored: d.BitsStored, PhotometricInterpretation: d.PhotometricInterpretation, PixelSpacing: d.PixelSpacing,
				WindowCenter: d.WindowCenter, WindowWidth: d.WindowWidth}
			open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(stored.Bytes())), nil }
			if sr, err := medimg.NewPreviewer(64<<20).StoredRange(context.Background(), open, int64(stored.Len())); err == nil {
				used := sr.UsedShare()
				facts.StoredBitDepthUsed = &used
			} else {
				t.Fatalf("stored range: %v", err)
			}
			r := analyze(t, render(t, stored.Bytes(), medimg.DICOM), facts)
			neverDiagnoses(t, r)
			if !strings.HasPrefix(r.Description, kind(c.modality)) {
				t.Errorf("description: %s", r.Description)
			}
			if value(t, r, "dicom_rows") != float64(info.DICOM.Rows) || value(t, r, "width") < 1 {
				t.Errorf("measurements: %+v", r.Measurements)
			}
			if v := value(t, r, "bit_depth_used"); v <= 0 || v > 100 {
				t.Errorf("bit depth used %v%%", v)
			}
			if value(t, r, "bits_stored") < 8 || !strings.Contains(r.Description, "photometric interpretation MONOCHROME2") {
				t.Errorf("the header's facts: %+v, %s", r.Measurements, r.Description)
			}
			if v := value(t, r, "range_used"); v <= 0 || v > 100 {
				t.Errorf("range used %v%%", v)
			}
		})
	}
}

func kind(modality string) string {
	if modality == "MR" {
		return "An MR image"
	}
	return "A " + modality + " image"
}

// render is the server's rendering of a stored file: its preview, decoded.
func render(t *testing.T, stored []byte, contentType string) image.Image {
	t.Helper()
	var out bytes.Buffer
	open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(stored)), nil }
	if err := medimg.NewPreviewer(64<<20).Preview(context.Background(), &out, open, int64(len(stored)), contentType, 1024); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&out)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// The DICOM header's technical facts: reported, and exposure off its
// target or lossy compression warned about.
func TestBuiltinReportsTheHeader(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	facts := analysis.Facts{ContentType: medimg.DICOM, Modality: "DX", BodyPart: "CHEST", Rows: 512, Columns: 512, Frames: 1,
		BitsStored: 12, PhotometricInterpretation: "MONOCHROME2", PixelSpacing: []float64{0.143, 0.143},
		WindowCenter: f(2048), WindowWidth: f(4096), ExposureIndex: f(1000), TargetExposureIndex: f(250), LossyCompression: true}
	r := analyze(t, withNoise(phantom(512), 2), facts)
	neverDiagnoses(t, r)
	if v := value(t, r, "deviation_index"); v < 6 || v > 6.03 { // 10·log10(4)
		t.Errorf("deviation index %v, want 6.02", v)
	}
	if value(t, r, "bits_stored") != 12 || value(t, r, "pixel_spacing_row") != 0.143 || value(t, r, "window_width") != 4096 {
		t.Errorf("header measurements: %+v", r.Measurements)
	}
	if !hasWarning(r, "Overexposed for its target: deviation index +6.0") || !hasWarning(r, "Lossy compression") {
		t.Errorf("header warnings: %v", r.Warnings)
	}
	if !strings.Contains(r.Description, "12 bits stored, photometric interpretation MONOCHROME2, pixel spacing 0.143 × 0.143 mm") {
		t.Errorf("description: %s", r.Description)
	}

	facts.ExposureIndex, facts.TargetExposureIndex, facts.DeviationIndex, facts.LossyCompression = nil, nil, f(-0.4), false
	r = analyze(t, withNoise(phantom(512), 2), facts)
	if value(t, r, "deviation_index") != -0.4 || len(r.Warnings) != 1 {
		t.Errorf("on target: DI %v, warnings %v", value(t, r, "deviation_index"), r.Warnings)
	}
}
