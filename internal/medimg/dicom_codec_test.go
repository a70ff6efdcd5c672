package medimg

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/suyashkumar/dicom"
	"github.com/suyashkumar/dicom/pkg/tag"
	"github.com/suyashkumar/dicom/pkg/vrraw"

	"github.com/medishare/medishare/internal/medimg/codec"
)

// firstFrame parses a fixture with its pixel data and returns its transfer
// syntax, pixel module, dataset and the first frame's bytes (compressed) or
// the native pixel data.
func firstFrame(tb testing.TB, data []byte) (string, pixelModule, *dicom.Dataset, []byte, bool) {
	tb.Helper()
	ds, g, err := parseDICOM(bytes.NewReader(data), nil, true)
	if err != nil {
		tb.Fatal(err)
	}
	p := readPixelModule(&ds, g.transferSyntax)
	e, err := ds.FindElementByTag(tag.PixelData)
	if err != nil {
		tb.Fatal(err)
	}
	info := e.Value.GetValue().(dicom.PixelDataInfo)
	if !info.IsEncapsulated {
		raw := info.UnprocessedValueData
		if p.bo == binary.BigEndian && p.bitsAllocated == 8 && e.RawValueRepresentation == vrraw.OtherWord {
			raw = swapPairs(raw)
		}
		return g.transferSyntax, p, &ds, raw, false
	}
	var frame []byte
	for _, f := range info.Frames {
		frame = append(frame, f.EncapsulatedData.Data...)
		if p.frames > 1 {
			break
		}
	}
	return g.transferSyntax, p, &ds, frame, true
}

// samplesOf returns every stored sample value of the first frame (masked,
// sign extended, pixels' samples together), decoding it in the sandbox when
// it is compressed.
func samplesOf(tb testing.TB, data []byte) []int64 {
	tb.Helper()
	ts, p, _, frame, compressed := firstFrame(tb, data)
	raw := frame
	if compressed {
		f, err := codec.Decode(context.Background(), ts, frame, p.cols, p.rows, p.samples, p.bitsAllocated)
		if err != nil {
			tb.Fatalf("decode %s: %v", ts, err)
		}
		p = codecPixels(ts, p, f)
		raw = f.Data
	}
	n := p.rows * p.cols * p.samples
	s := sampler{data: raw, p: p}
	out := make([]int64, n)
	for i := range out {
		if p.planar { // one plane a sample: reorder to pixels' samples together
			pixel, c := i%(p.rows*p.cols), i/(p.rows*p.cols)
			out[pixel*p.samples+c] = s.at(i)
			continue
		}
		out[i] = s.at(i)
	}
	return out
}

// referenceTools installs DCMTK's and GDCM's command-line decoders (through
// scripts/apt-ensure.sh, like every other tool of the tests) or skips.
func referenceTools(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("reference decoders: not in -short")
	}
	script := filepath.Join(fixtureDir(t), "..", "..", "scripts", "apt-ensure.sh")
	if out, err := exec.Command(script, "dcmdjpeg:dcmtk", "dcmdjpls:dcmtk", "gdcmconv:libgdcm-tools").CombinedOutput(); err != nil {
		t.Skipf("reference decoders not installable: %v\n%s", err, out)
	}
}

// reference decompresses a fixture with a reference tool into native little
// endian pixel data.
func reference(t *testing.T, file string, tool ...string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "ref.dcm")
	args := append(tool[1:], filepath.Join(fixtureDir(t), file), out)
	if b, err := exec.Command(tool[0], args...).CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", tool, err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSandboxPixelForPixel compares every sample the sandboxed decoders give
// with an independent source: the uncompressed original the lossless
// fixtures were made from, and the reference tools' decompression (DCMTK's
// dcmdjpeg and dcmdjpls, GDCM's gdcmconv --raw, which links Debian's
// OpenJPEG) for every fixture.
func TestSandboxPixelForPixel(t *testing.T) {
	tests := []struct {
		file     string
		original string   // "" when no uncompressed original
		maxDiff  int64    // against the original
		tool     []string // reference decompression
	}{
		{file: "CT_small_jpegls.dcm", original: "CT_small.dcm", tool: []string{"dcmdjpls"}},
		{file: "US_rgb_jpegls_near.dcm", original: "ExplVR_BigEnd.dcm", maxDiff: 2, tool: []string{"dcmdjpls"}},
		{file: "CT_small_lossless_sv1.dcm", original: "CT_small.dcm", tool: []string{"dcmdjpeg"}},
		{file: "MR_small_lossless.dcm", original: "MR_small.dcm", tool: []string{"dcmdjpeg"}},
		{file: "US_rgb_lossless_sv1.dcm", original: "ExplVR_BigEnd.dcm", tool: []string{"dcmdjpeg"}},
		{file: "CT_small_j2k.dcm", original: "CT_small.dcm", tool: []string{"gdcmconv", "--raw"}},
		{file: "US_rgb_j2k.dcm", original: "ExplVR_BigEnd.dcm", tool: []string{"gdcmconv", "--raw"}},
		{file: "US_rgb_j2k_lossy.dcm", tool: []string{"gdcmconv", "--raw"}},
		{file: "JPEG2000.dcm", tool: []string{"gdcmconv", "--raw"}},
		{file: "JPEG-lossy.dcm", tool: []string{"dcmdjpeg"}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			got := samplesOf(t, readFixture(t, tc.file))
			if tc.original != "" {
				compareSamples(t, "original", got, samplesOf(t, readFixture(t, tc.original)), tc.maxDiff)
			}
			t.Run("reference", func(t *testing.T) {
				referenceTools(t)
				// Lossy frames too must match the reference exactly: the
				// reference tools run the same decoder sources (OpenJPEG
				// 2.5.0, DCMTK 3.6.7's IJG and CharLS) natively, and both
				// use integer arithmetic (IJG's default islow IDCT, the
				// 5-3 and the fixed-point 9-7 wavelet).
				ref := reference(t, tc.file, tc.tool...)
				compareSamples(t, tc.tool[0], got, samplesOf(t, ref), 0)
				// And the preview is the reference's: the colour
				// transforms (YBR_ICT here) are undone the same way.
				samePreview(t, previewOf(t, tc.file), previewOfData(t, ref))
			})
		})
	}
}

func compareSamples(t *testing.T, what string, got, want []int64, maxDiff int64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d samples, %s has %d", len(got), what, len(want))
	}
	bad, worst := 0, int64(0)
	for i := range got {
		d := got[i] - want[i]
		if d < 0 {
			d = -d
		}
		worst = max(worst, d)
		if d > maxDiff {
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d samples differ from %s by more than %d (worst %d)", bad, len(got), what, maxDiff, worst)
	}
}

func previewOfData(t *testing.T, data []byte) image.Image {
	t.Helper()
	var out bytes.Buffer
	if err := preview(&out, data, DICOM, 1024); err != nil {
		t.Fatalf("Preview: %v", err)
	}
	img, err := png.Decode(&out)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func samePreview(t *testing.T, got, want image.Image) {
	t.Helper()
	if got.Bounds() != want.Bounds() {
		t.Fatalf("bounds %v, want %v", got.Bounds(), want.Bounds())
	}
	for y := want.Bounds().Min.Y; y < want.Bounds().Max.Y; y++ {
		for x := want.Bounds().Min.X; x < want.Bounds().Max.X; x++ {
			r0, g0, b0, _ := want.At(x, y).RGBA()
			r1, g1, b1, _ := got.At(x, y).RGBA()
			if r0 != r1 || g0 != g1 || b0 != b1 {
				t.Fatalf("pixel (%d,%d) = %v, want %v", x, y, got.At(x, y), want.At(x, y))
			}
		}
	}
}

// TestSandboxSameImage: a lossless compression renders exactly like its
// uncompressed original.
func TestSandboxSameImage(t *testing.T) {
	for file, original := range map[string]string{
		"CT_small_jpegls.dcm":       "CT_small.dcm",
		"CT_small_lossless_sv1.dcm": "CT_small.dcm",
		"CT_small_j2k.dcm":          "CT_small.dcm",
		"MR_small_lossless.dcm":     "MR_small.dcm",
		"US_rgb_j2k.dcm":            "ExplVR_BigEnd.dcm",
		"US_rgb_lossless_sv1.dcm":   "ExplVR_BigEnd.dcm",
	} {
		t.Run(file, func(t *testing.T) {
			samePreview(t, previewOf(t, file), previewOf(t, original))
		})
	}
}

// TestSandboxHostileFrames: damaged, lying and random frames give no
// preview (or ErrDecode from the codec), never a panic, a hang or a
// memory blow-up.
func TestSandboxHostileFrames(t *testing.T) {
	for _, file := range []string{"JPEG2000.dcm", "CT_small_jpegls.dcm", "MR_small_lossless.dcm", "JPEG-lossy.dcm"} {
		ts, p, ds, frame, _ := firstFrame(t, readFixture(t, file))
		random := make([]byte, 4096)
		for i := range random {
			random[i] = byte(i*7919 + i>>3)
		}
		cases := map[string]struct {
			frame      []byte
			rows, cols int
		}{
			"truncated":          {frame: frame[:len(frame)/2], rows: p.rows, cols: p.cols},
			"header only":        {frame: frame[:min(len(frame), 120)], rows: p.rows, cols: p.cols},
			"random bytes":       {frame: random, rows: p.rows, cols: p.cols},
			"random after magic": {frame: append(append([]byte(nil), frame[:4]...), random...), rows: p.rows, cols: p.cols},
			"flipped bytes":      {frame: flipEvery(frame, 97), rows: p.rows, cols: p.cols},
			"other size":         {frame: frame, rows: p.rows + 1, cols: p.cols},
			"huge dimensions":    {frame: withHugeSize(ts, frame), rows: p.rows, cols: p.cols},
		}
		for name, c := range cases {
			t.Run(file+"/"+name, func(t *testing.T) {
				q := p
				q.rows, q.cols = c.rows, c.cols
				img, err := renderSandboxed(ds, ts, c.frame, q)
				if name == "flipped bytes" && err == nil {
					if b := img.Bounds(); b.Dx() != q.cols || b.Dy() != q.rows {
						t.Fatalf("damaged frame rendered at %v", b)
					}
					return // entropy-coded data may survive damage; it rendered at the declared size
				}
				if err == nil || !errors.Is(err, ErrNoPreview) {
					t.Fatalf("renderSandboxed = %T, %v; want ErrNoPreview", img, err)
				}
			})
		}
	}
}

func flipEvery(b []byte, k int) []byte {
	out := append([]byte(nil), b...)
	for i := 200; i < len(out); i += k {
		out[i] ^= 0x5A
	}
	return out
}

// withHugeSize rewrites the frame's own header to claim 60000 x 60000.
func withHugeSize(ts string, frame []byte) []byte {
	out := append([]byte(nil), frame...)
	if codec.Handles(ts) && (ts == codec.JPEG2000 || ts == codec.JPEG2000Lossless) {
		// SIZ follows SOC: FF4F FF51 Lsiz(2) Rsiz(2) Xsiz(4) Ysiz(4).
		if i := bytes.Index(out, []byte{0xFF, 0x51}); i >= 0 && i+14 <= len(out) {
			binary.BigEndian.PutUint32(out[i+6:], 60000)
			binary.BigEndian.PutUint32(out[i+10:], 60000)
		}
		return out
	}
	// SOFn (JPEG) or SOF55 (JPEG-LS): FFCx Lf(2) P(1) Y(2) X(2).
	for i := 2; i+9 < len(out); i++ {
		if out[i] == 0xFF && (out[i+1]&0xF0 == 0xC0 && out[i+1] != 0xC4 && out[i+1] != 0xCC || out[i+1] == 0xF7) {
			binary.BigEndian.PutUint16(out[i+5:], 60000)
			binary.BigEndian.PutUint16(out[i+7:], 60000)
			break
		}
	}
	return out
}

// TestSandboxPlanCountsTheDecoder: the plan of a sandboxed frame reserves
// the sandbox's memory cap, and a frame declared beyond the budget is
// refused before anything is decoded.
func TestSandboxPlanCountsTheDecoder(t *testing.T) {
	data := readFixture(t, "JPEG2000.dcm")
	ts, p, _, frame, _ := firstFrame(t, data)
	pv := NewPreviewer(MinPreviewBudget)
	pl, err := pv.plan(bytes.NewReader(data), int64(len(data)), DICOM, 256)
	if err != nil {
		t.Fatal(err)
	}
	if want := codec.MemoryCap(ts, len(frame), p.cols, p.rows, p.samples, p.bitsAllocated); pl.bytes < want {
		t.Errorf("plan reserves %d bytes, the sandbox alone may use %d", pl.bytes, want)
	}
	// The same header claiming 8000 x 8000 16-bit samples (128 MiB) is over a 32 MiB budget.
	big := bytes.Replace(data, le16Element(0x0028, 0x0010, uint16(p.rows)), le16Element(0x0028, 0x0010, 8000), 1)
	big = bytes.Replace(big, le16Element(0x0028, 0x0011, uint16(p.cols)), le16Element(0x0028, 0x0011, 8000), 1)
	if bytes.Equal(big, data) {
		t.Fatal("rows and columns not found")
	}
	if _, err := pv.plan(bytes.NewReader(big), int64(len(big)), DICOM, 256); !errors.Is(err, ErrNoPreview) {
		t.Errorf("plan of an 8000 x 8000 frame = %v, want ErrNoPreview", err)
	}
}

// le16Element is an explicit VR little endian US element.
func le16Element(group, element, v uint16) []byte {
	b := binary.LittleEndian.AppendUint16(nil, group)
	b = binary.LittleEndian.AppendUint16(b, element)
	b = append(b, 'U', 'S', 2, 0)
	return binary.LittleEndian.AppendUint16(b, v)
}

func BenchmarkSandboxDecode(b *testing.B) {
	for _, file := range []string{"JPEG2000.dcm", "CT_small_j2k.dcm", "US_rgb_j2k.dcm", "CT_small_jpegls.dcm", "US_rgb_jpegls_near.dcm", "CT_small_lossless_sv1.dcm", "MR_small_lossless.dcm", "JPEG-lossy.dcm"} {
		ts, p, _, frame, _ := firstFrame(b, readFixture(b, file))
		b.Run(file, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := codec.Decode(context.Background(), ts, frame, p.cols, p.rows, p.samples, p.bitsAllocated); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestSandboxDeadline: a decode that runs past codec.Timeout is stopped and
// gives no preview.
func TestSandboxDeadline(t *testing.T) {
	old := codec.Timeout
	codec.Timeout = time.Microsecond
	t.Cleanup(func() { codec.Timeout = old })
	ts, p, ds, frame, _ := firstFrame(t, readFixture(t, "JPEG2000.dcm"))
	start := time.Now()
	if _, err := renderSandboxed(ds, ts, frame, p); !errors.Is(err, ErrNoPreview) {
		t.Errorf("renderSandboxed past its deadline = %v, want ErrNoPreview", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("stopped after %v", d)
	}
}

// TestSandboxLargeFrames compresses a 2048 x 2048 16-bit frame with the
// reference encoders (DCMTK's dcmcjpls and dcmcjpeg, GDCM's gdcmconv) and
// decodes it in the sandbox: MemoryCap leaves the decoders room at scale,
// and every sample comes back.
func TestSandboxLargeFrames(t *testing.T) {
	referenceTools(t)
	// What is measured here is memory, not time (TestSandboxDeadline tests
	// the deadline): under the race detector, beside the other suites of
	// make test on two cores, a 2048 x 2048 decode can take longer than the
	// production deadline. The test runs before any parallel test starts.
	old := codec.Timeout
	codec.Timeout = 10 * time.Minute
	t.Cleanup(func() { codec.Timeout = old })
	dir := t.TempDir()
	src := filepath.Join(dir, "big.dcm")
	if err := os.WriteFile(src, syntheticDICOM(2048, 2048, "Large^Frame"), 0o600); err != nil {
		t.Fatal(err)
	}
	want := samplesOf(t, readFile(t, src))
	for _, enc := range [][]string{
		{"dcmcjpls"},
		{"dcmcjpeg", "--encode-lossless"},
		{"dcmcjpeg", "--encode-lossless-sv1"},
		{"gdcmconv", "--j2k"},
	} {
		t.Run(enc[0]+" "+strings.Join(enc[1:], " "), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "c.dcm")
			if b, err := exec.Command(enc[0], append(enc[1:], src, out)...).CombinedOutput(); err != nil {
				t.Fatalf("%v: %v\n%s", enc, err, b)
			}
			data := readFile(t, out)
			ts, p, _, frame, _ := firstFrame(t, data)
			f, err := codec.Decode(context.Background(), ts, frame, p.cols, p.rows, p.samples, p.bitsAllocated)
			if err != nil {
				t.Fatalf("decode %s: %v", ts, err)
			}
			limit := codec.MemoryCap(ts, len(frame), p.cols, p.rows, p.samples, p.bitsAllocated)
			t.Logf("%s: %d-byte frame, instance memory %d MiB of a %d MiB cap", ts, len(frame), f.MemoryUsed>>20, limit>>20)
			compareSamples(t, "original", samplesOf(t, data), want, 0)
		})
	}
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSandboxLossyColour: a lossy JPEG 2000 frame with the irreversible
// colour transform (YBR_ICT) comes out in the original's colours: close to
// the uncompressed original on average, channel by channel.
func TestSandboxLossyColour(t *testing.T) {
	got, want := previewOf(t, "US_rgb_j2k_lossy.dcm"), previewOf(t, "ExplVR_BigEnd.dcm")
	if got.Bounds() != want.Bounds() {
		t.Fatalf("bounds %v, want %v", got.Bounds(), want.Bounds())
	}
	var sum [3]float64
	b := want.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r0, g0, b0, _ := want.At(x, y).RGBA()
			r1, g1, b1, _ := got.At(x, y).RGBA()
			for c, d := range []int64{int64(r0>>8) - int64(r1>>8), int64(g0>>8) - int64(g1>>8), int64(b0>>8) - int64(b1>>8)} {
				sum[c] += float64(max(d, -d))
			}
		}
	}
	n := float64(b.Dx() * b.Dy())
	for c, s := range sum {
		t.Logf("channel %d: mean difference %.2f", c, s/n)
		if s/n > 4 {
			t.Errorf("channel %d differs from the original by %.1f on average", c, s/n)
		}
	}
}
