package analysis

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"math"
	"strings"

	"github.com/medishare/medishare/internal/domain"
)

// Builtin measures what can be measured on the rendered pixels (exposure,
// contrast, noise, sharpness, the separation of subject and background) and
// reports the file's facts. It runs inside the server, needs no network,
// and never diagnoses: its differential diagnosis and treatment stay empty,
// its confidence nil, and its first warning says so.
type Builtin struct{}

// BuiltinModel names the built-in analyser's method in each result, so a
// later change of the measurements can be told apart.
const BuiltinModel = "medishare-quality-1"

// Name is the provider name of the settings.
func (Builtin) Name() string { return domain.AnalysisBuiltin }

// Thresholds of the quality warnings, on 8-bit rendered pixels (0-255).
const (
	darkLevel        = 2    // a pixel at or below is clipped black
	brightLevel      = 253  // a pixel at or above is clipped white
	underexposedDark = 0.5  // share of clipped black pixels that makes an image underexposed
	clippedBright    = 0.05 // share of clipped white pixels worth a warning
	clippedDark      = 0.2  // share of clipped black pixels worth a warning
	noisySigma       = 10.0 // estimated noise above which detail may drown
	blurredLaplacian = 15.0 // variance of the Laplacian below which the image is soft
	lowContrastRMS   = 0.05 // RMS contrast (of full scale) below which the image is flat
	tinySide         = 256  // a side shorter than this is too small to judge detail
)

// Analyze measures in.Pixels. Errors: EINVALID without pixels or for an
// image smaller than 3×3; ctx's error when it ends first.
func (Builtin) Analyze(ctx context.Context, in Input) (Result, error) {
	if in.Pixels == nil {
		return Result{}, domain.Errorf(domain.EINVALID, "The image has no pixels to analyse.")
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	g := toGray(in.Pixels)
	w, h := g.Rect.Dx(), g.Rect.Dy()
	if w < 3 || h < 3 {
		return Result{}, domain.Errorf(domain.EINVALID, "The image is too small to analyse.")
	}
	q := measure(g)
	return Result{
		Description:  describe(in.Facts, q),
		Treatment:    []string{},
		FollowUp:     followUp(q),
		Warnings:     append(append([]string{NotADiagnosis}, warnings(q)...), headerWarnings(in.Facts)...),
		Measurements: measurements(in.Facts, q),
		Provider:     domain.AnalysisBuiltin,
		Model:        BuiltinModel,
		// DifferentialDiagnosis stays empty and Confidence nil: no diagnosis.
		DifferentialDiagnosis: []Condition{},
	}, nil
}

// quality is what measure finds, on a 0-255 scale.
type quality struct {
	width, height              int
	mean, std                  float64
	darkClipped, brightClipped float64 // shares of all pixels
	p1, p99                    int
	noise                      float64 // estimated standard deviation of the noise
	otsu                       int     // threshold between background and subject
	background, subject        float64 // mean levels on each side of it
	sharpness                  float64 // variance of the Laplacian
}

// toGray is the image's luminance, with its origin at (0, 0).
func toGray(src image.Image) *image.Gray {
	b := src.Bounds()
	if g, ok := src.(*image.Gray); ok && b.Min == (image.Point{}) {
		return g
	}
	g := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			g.SetGray(x-b.Min.X, y-b.Min.Y, color.GrayModel.Convert(src.At(x, y)).(color.Gray))
		}
	}
	return g
}

func measure(g *image.Gray) quality {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	q := quality{width: w, height: h}
	var hist [256]int
	for y := range h {
		row := g.Pix[y*g.Stride : y*g.Stride+w]
		for _, v := range row {
			hist[v]++
		}
	}
	n := float64(w * h)
	var sum, sumSq float64
	for v, c := range hist {
		sum += float64(v * c)
		sumSq += float64(v*v) * float64(c)
	}
	q.mean = sum / n
	q.std = math.Sqrt(math.Max(0, sumSq/n-q.mean*q.mean))
	for v := 0; v <= darkLevel; v++ {
		q.darkClipped += float64(hist[v]) / n
	}
	for v := brightLevel; v < 256; v++ {
		q.brightClipped += float64(hist[v]) / n
	}
	q.p1, q.p99 = percentile(hist, n, 0.01), percentile(hist, n, 0.99)
	q.otsu = otsu(hist, n)
	q.background, q.subject = sideMeans(hist, q.otsu)
	q.noise = noiseSigma(g)
	q.sharpness = laplacianVariance(g)
	return q
}

// percentile is the lowest level at or below which at least share of the pixels lie.
func percentile(hist [256]int, n, share float64) int {
	seen := 0.0
	for v, c := range hist {
		seen += float64(c)
		if seen >= share*n {
			return v
		}
	}
	return 255
}

// otsu is the threshold that best separates two classes of levels (Otsu
// 1979: the largest variance between the classes).
func otsu(hist [256]int, n float64) int {
	var total float64
	for v, c := range hist {
		total += float64(v * c)
	}
	var weightBelow, sumBelow, best float64
	threshold := 0
	for t := range 256 {
		weightBelow += float64(hist[t])
		if weightBelow == 0 {
			continue
		}
		weightAbove := n - weightBelow
		if weightAbove == 0 {
			break
		}
		sumBelow += float64(t * hist[t])
		meanBelow, meanAbove := sumBelow/weightBelow, (total-sumBelow)/weightAbove
		if between := weightBelow * weightAbove * (meanBelow - meanAbove) * (meanBelow - meanAbove); between > best {
			best, threshold = between, t
		}
	}
	return threshold
}

// sideMeans are the mean levels at or below t and above it.
func sideMeans(hist [256]int, t int) (below, above float64) {
	var nb, sb, na, sa float64
	for v, c := range hist {
		if v <= t {
			nb, sb = nb+float64(c), sb+float64(v*c)
		} else {
			na, sa = na+float64(c), sa+float64(v*c)
		}
	}
	if nb > 0 {
		below = sb / nb
	}
	if na > 0 {
		above = sa / na
	}
	return below, above
}

// noiseSigma estimates the standard deviation of additive noise from the
// response to a mask that cancels smooth structure (Immerkær 1996, "Fast
// noise variance estimation").
func noiseSigma(g *image.Gray) float64 {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	var sum float64
	for y := 1; y < h-1; y++ {
		for x := 1; x < w-1; x++ {
			p := func(dx, dy int) float64 { return float64(g.Pix[(y+dy)*g.Stride+x+dx]) }
			r := p(-1, -1) - 2*p(0, -1) + p(1, -1) - 2*p(-1, 0) + 4*p(0, 0) - 2*p(1, 0) + p(-1, 1) - 2*p(0, 1) + p(1, 1)
			sum += math.Abs(r)
		}
	}
	return sum * math.Sqrt(math.Pi/2) / (6 * float64(w-2) * float64(h-2))
}

// laplacianVariance is the variance of the 4-neighbour Laplacian: high for
// crisp edges and fine detail, low for a soft or blurred image.
func laplacianVariance(g *image.Gray) float64 {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	var sum, sumSq, n float64
	for y := 1; y < h-1; y++ {
		for x := 1; x < w-1; x++ {
			i := y*g.Stride + x
			l := float64(g.Pix[i-1]) + float64(g.Pix[i+1]) + float64(g.Pix[i-g.Stride]) + float64(g.Pix[i+g.Stride]) - 4*float64(g.Pix[i])
			sum, sumSq, n = sum+l, sumSq+l*l, n+1
		}
	}
	mean := sum / n
	return sumSq/n - mean*mean
}

func (q quality) underexposed() bool   { return q.darkClipped > underexposedDark || q.p99 < 64 }
func (q quality) rmsContrast() float64 { return q.std / 255 }
func (q quality) rangeUsed() float64   { return float64(q.p99-q.p1) / 255 }
func (q quality) tiny() bool           { return min(q.width, q.height) < tinySide }
func (q quality) noisy() bool          { return q.noise > noisySigma }
func (q quality) blurred() bool {
	return q.sharpness < blurredLaplacian && q.std > 5 // a flat image has no edges to lose
}

// ratio divides, or is 0 when there is nothing to divide by.
func ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}

func orientation(w, h int) string {
	switch {
	case w > h:
		return "landscape"
	case h > w:
		return "portrait"
	}
	return "square"
}

func measurements(f Facts, q quality) []Measurement {
	out := []Measurement{
		{"width", "Width (as rendered)", float64(q.width), "px"},
		{"height", "Height (as rendered)", float64(q.height), "px"},
		{"aspect_ratio", "Aspect ratio (width / height)", round(float64(q.width)/float64(q.height), 3), ""},
		{"mean_level", "Mean brightness (0-255)", round(q.mean, 1), ""},
		{"rms_contrast", "RMS contrast (of full scale)", round(q.rmsContrast(), 3), ""},
		{"clipped_dark", "Clipped black pixels", round(100*q.darkClipped, 2), "%"},
		{"clipped_bright", "Clipped white pixels", round(100*q.brightClipped, 2), "%"},
		{"p1", "1st percentile level", float64(q.p1), ""},
		{"p99", "99th percentile level", float64(q.p99), ""},
		{"range_used", "Range used by the 1st-99th percentiles", round(100*q.rangeUsed(), 1), "%"},
		{"noise_sigma", "Estimated noise (sigma, 0-255)", round(q.noise, 2), ""},
		{"otsu_threshold", "Otsu threshold (0-255)", float64(q.otsu), ""},
		{"snr", "Signal-to-noise ratio (subject)", round(ratio(q.subject, q.noise), 1), ""},
		{"cnr", "Contrast-to-noise ratio (subject / background)", round(ratio(q.subject-q.background, q.noise), 1), ""},
		{"sharpness", "Sharpness (variance of the Laplacian)", round(q.sharpness, 1), ""},
	}
	if f.Rows > 0 {
		out = append(out,
			Measurement{"dicom_rows", "DICOM rows", float64(f.Rows), "px"},
			Measurement{"dicom_columns", "DICOM columns", float64(f.Columns), "px"},
			Measurement{"dicom_frames", "DICOM frames", float64(max(f.Frames, 1)), ""})
	}
	if f.BitsStored > 0 {
		out = append(out, Measurement{"bits_stored", "Bits stored", float64(f.BitsStored), ""})
	}
	if f.StoredBitDepthUsed != nil {
		out = append(out, Measurement{"bit_depth_used", "Stored bit depth used by the 1st-99th percentiles", round(100**f.StoredBitDepthUsed, 1), "%"})
	}
	if len(f.PixelSpacing) == 2 {
		out = append(out,
			Measurement{"pixel_spacing_row", "Pixel spacing (rows)", round(f.PixelSpacing[0], 4), "mm"},
			Measurement{"pixel_spacing_column", "Pixel spacing (columns)", round(f.PixelSpacing[1], 4), "mm"})
	}
	if f.WindowCenter != nil && f.WindowWidth != nil {
		out = append(out,
			Measurement{"window_center", "Window center", round(*f.WindowCenter, 2), ""},
			Measurement{"window_width", "Window width", round(*f.WindowWidth, 2), ""})
	}
	if f.ExposureIndex != nil {
		out = append(out, Measurement{"exposure_index", "Exposure index (EI)", round(*f.ExposureIndex, 1), ""})
	}
	if f.TargetExposureIndex != nil {
		out = append(out, Measurement{"target_exposure_index", "Target exposure index", round(*f.TargetExposureIndex, 1), ""})
	}
	if di, ok := deviationIndex(f); ok {
		out = append(out, Measurement{"deviation_index", "Deviation index (IEC 62494-1)", round(di, 2), ""})
	}
	return out
}

// deviationIndex is the header's, or 10·log10(EI / target EI) from the
// exposure index and its target (IEC 62494-1).
func deviationIndex(f Facts) (float64, bool) {
	switch {
	case f.DeviationIndex != nil:
		return *f.DeviationIndex, true
	case f.ExposureIndex != nil && f.TargetExposureIndex != nil && *f.ExposureIndex > 0 && *f.TargetExposureIndex > 0:
		return 10 * math.Log10(*f.ExposureIndex / *f.TargetExposureIndex), true
	}
	return 0, false
}

// headerWarnings are what the DICOM header says about quality: exposure
// off its target, lossy compression.
func headerWarnings(f Facts) []string {
	var out []string
	if di, ok := deviationIndex(f); ok {
		switch {
		case di > 3:
			out = append(out, fmt.Sprintf("Overexposed for its target: deviation index %+.1f (IEC 62494-1; within ±1 is on target).", di))
		case di < -3:
			out = append(out, fmt.Sprintf("Underexposed for its target: deviation index %+.1f (IEC 62494-1; within ±1 is on target).", di))
		case math.Abs(di) > 1:
			out = append(out, fmt.Sprintf("Exposure somewhat off target: deviation index %+.1f (IEC 62494-1; within ±1 is on target).", di))
		}
	}
	if f.LossyCompression {
		out = append(out, "Lossy compression: the header says the image was compressed with loss; fine detail may be altered.")
	}
	return out
}

func round(v float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(v*p) / p
}

func warnings(q quality) []string {
	var out []string
	switch {
	case q.underexposed():
		out = append(out, fmt.Sprintf("Underexposed: %.0f%% of the pixels are black and the brightest 1%% stay at or below level %d of 255.", 100*q.darkClipped, q.p99))
	case q.darkClipped > clippedDark:
		out = append(out, fmt.Sprintf("Clipped shadows: %.0f%% of the pixels are black; detail there is lost.", 100*q.darkClipped))
	}
	if q.brightClipped > clippedBright {
		out = append(out, fmt.Sprintf("Clipped highlights: %.0f%% of the pixels are at full brightness; detail there is lost.", 100*q.brightClipped))
	}
	if q.noisy() {
		out = append(out, fmt.Sprintf("Noisy: the estimated noise (sigma %.1f of 255) may hide fine detail.", q.noise))
	}
	if q.blurred() {
		out = append(out, fmt.Sprintf("Blurred or soft: little fine detail (variance of the Laplacian %.1f).", q.sharpness))
	}
	if q.rmsContrast() < lowContrastRMS && !q.underexposed() {
		out = append(out, fmt.Sprintf("Low contrast: RMS contrast %.3f of full scale.", q.rmsContrast()))
	}
	if q.tiny() {
		out = append(out, fmt.Sprintf("Tiny: %d × %d pixels is too small to judge fine detail.", q.width, q.height))
	}
	return out
}

func followUp(q quality) []string {
	out := []string{"Have a qualified clinician read the image: this analysis measures image quality and does not assess findings."}
	if q.underexposed() {
		out = append(out, "If the image is to be read, consider a new acquisition with more exposure, or check the window settings.")
	}
	if q.noisy() {
		out = append(out, "If fine detail matters, consider a less noisy acquisition or reconstruction.")
	}
	if q.blurred() {
		out = append(out, "Check for motion or focus problems; repeat the acquisition if fine detail matters.")
	}
	if q.tiny() {
		out = append(out, "Upload the image at its original resolution if one is available.")
	}
	return out
}

// describe says in plain words what the image is and how good it is technically.
func describe(f Facts, q quality) string {
	var b strings.Builder
	b.WriteString(kindOf(f))
	if f.BodyPart != "" {
		fmt.Fprintf(&b, " of the %s", strings.ToLower(f.BodyPart))
	}
	if f.StudyDescription != "" {
		fmt.Fprintf(&b, " (%s)", f.StudyDescription)
	}
	fmt.Fprintf(&b, ", %d × %d pixels as rendered, %s", q.width, q.height, orientation(q.width, q.height))
	if f.Frames > 1 {
		fmt.Fprintf(&b, ", the first of %d frames", f.Frames)
	}
	b.WriteString(". ")
	switch {
	case q.underexposed():
		b.WriteString("It is underexposed: most of it is black. ")
	case q.brightClipped > clippedBright:
		b.WriteString("Its brightest parts are clipped. ")
	default:
		fmt.Fprintf(&b, "Its exposure is usable: the 1st to 99th percentiles span %.0f%% of the range. ", 100*q.rangeUsed())
	}
	var header []string
	if f.BitsStored > 0 {
		header = append(header, fmt.Sprintf("%d bits stored", f.BitsStored))
	}
	if f.PhotometricInterpretation != "" {
		header = append(header, "photometric interpretation "+f.PhotometricInterpretation)
	}
	if len(f.PixelSpacing) == 2 {
		header = append(header, fmt.Sprintf("pixel spacing %g × %g mm", f.PixelSpacing[0], f.PixelSpacing[1]))
	}
	if f.WindowCenter != nil && f.WindowWidth != nil {
		header = append(header, fmt.Sprintf("a window of center %g and width %g", *f.WindowCenter, *f.WindowWidth))
	}
	if len(header) > 0 {
		b.WriteString("Its header gives " + strings.Join(header, ", ") + ". ")
	}
	fmt.Fprintf(&b, "Contrast is %s (RMS %.2f), noise %s (sigma %.1f), and it is %s (variance of the Laplacian %.0f).",
		level(q.rmsContrast(), lowContrastRMS, 0.2, "low", "moderate", "high"), q.rmsContrast(),
		level(q.noise, 3, noisySigma, "low", "moderate", "high"), q.noise,
		level(q.sharpness, blurredLaplacian, 100, "soft", "reasonably sharp", "sharp"), q.sharpness)
	return b.String()
}

// level names where v falls: under low, between, or at or above high.
func level(v, low, high float64, under, between, above string) string {
	switch {
	case v < low:
		return under
	case v < high:
		return between
	}
	return above
}

func kindOf(f Facts) string {
	switch {
	case f.Modality != "":
		// Modalities are read letter by letter: "an MR image", "a CT image".
		if strings.ContainsRune("AEFHILMNORSX", rune(f.Modality[0])) {
			return "An " + f.Modality + " image"
		}
		return "A " + f.Modality + " image"
	case f.ContentType == "image/jpeg":
		return "A JPEG image"
	case f.ContentType == "image/png":
		return "A PNG image"
	}
	return "An image"
}
