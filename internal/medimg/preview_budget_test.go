package medimg

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"
	"testing"
	"testing/iotest"
	"time"

	"github.com/medishare/medishare/internal/domain"
)

// progressiveJPEG is a real JPEG whose frame and scan headers were made to
// claim a progressive image of w x h (its first scan, of DC coefficients).
// Its data is too short for that: only a decoder that allocates before
// reading finds out.
func progressiveJPEG(tb testing.TB, w, h uint16) []byte {
	jpg := encodeJPEG(tb, testImage(16, 16))
	sof := bytes.Index(jpg, []byte{0xFF, 0xC0})
	jpg[sof+1] = 0xC2
	binary.BigEndian.PutUint16(jpg[sof+5:], h)
	binary.BigEndian.PutUint16(jpg[sof+7:], w)
	sos := bytes.Index(jpg, []byte{0xFF, 0xDA})
	spectral := sos + 5 + 2*int(jpg[sos+4])
	jpg[spectral], jpg[spectral+1], jpg[spectral+2] = 0, 0, 0 // Ss, Se, Ah/Al
	return jpg
}

// rleDICOM is an 8-bit DICOM image of side x side pixels with samples
// samples a pixel (1 for MONOCHROME2, 3 for RGB), one flat colour,
// compressed with RLE Lossless: about side*side/64 bytes a sample stored.
func rleDICOM(side, samples int) []byte {
	n := side * side
	frame := make([]byte, rleHeaderSize, rleHeaderSize+samples*(n/64+4))
	binary.LittleEndian.PutUint32(frame, uint32(samples))
	for s := range samples {
		binary.LittleEndian.PutUint32(frame[4+4*s:], uint32(len(frame)))
		for left := n; left > 0; left -= 128 {
			run := min(left, 128)
			frame = append(frame, byte(int8(1-run)), byte(0x60+0x30*s)) // the value run times
		}
	}
	if len(frame)%2 == 1 {
		frame = append(frame, 0x80) // a no-op byte keeps the item even
	}
	photometric := "MONOCHROME2 "
	if samples == 3 {
		photometric = "RGB "
	}
	return encapsulatedDICOM(tsRLE+"\x00", side, side, samples, photometric, frame)
}

// encapsulatedDICOM is an 8-bit DICOM image whose pixel data is one frame
// in one fragment, in transfer syntax ts (padded to an even length).
func encapsulatedDICOM(ts string, rows, cols, samples int, photometric string, frame []byte) []byte {
	if len(frame)%2 == 1 {
		frame = append(frame, 0)
	}
	item := func(data []byte) []byte {
		b := []byte{0xFE, 0xFF, 0x00, 0xE0}
		b = binary.LittleEndian.AppendUint32(b, uint32(len(data)))
		return append(b, data...)
	}
	pixels := []byte{0xE0, 0x7F, 0x10, 0x00, 'O', 'B', 0, 0, 0xFF, 0xFF, 0xFF, 0xFF}
	pixels = append(pixels, item(nil)...) // empty offset table
	pixels = append(pixels, item(frame)...)
	pixels = append(pixels, 0xFE, 0xFF, 0xDD, 0xE0, 0, 0, 0, 0)
	return dicomFileTS(nil, ts,
		dicomElement(0x0008, 0x0060, "CS", []byte("OT")),
		dicomElement(0x0028, 0x0002, "US", us(uint16(samples))),
		dicomElement(0x0028, 0x0004, "CS", []byte(photometric)),
		dicomElement(0x0028, 0x0006, "US", us(0)),
		dicomElement(0x0028, 0x0010, "US", us(uint16(rows))),
		dicomElement(0x0028, 0x0011, "US", us(uint16(cols))),
		dicomElement(0x0028, 0x0100, "US", us(8)),
		dicomElement(0x0028, 0x0101, "US", us(8)),
		dicomElement(0x0028, 0x0102, "US", us(7)),
		dicomElement(0x0028, 0x0103, "US", us(0)),
		pixels,
	)
}

// bigJPEGFrame is a real baseline JPEG whose frame header was made to claim
// w x h; its data is too short for that.
func bigJPEGFrame(tb testing.TB, w, h uint16) []byte {
	jpg := encodeJPEG(tb, testImage(16, 16))
	sof := bytes.Index(jpg, []byte{0xFF, 0xC0})
	binary.BigEndian.PutUint16(jpg[sof+5:], h)
	binary.BigEndian.PutUint16(jpg[sof+7:], w)
	return jpg
}

// TestPreviewOverBudgetRefusedFromHeader: images whose decoding would take
// more than the whole budget, and that cannot be streamed, get "Preview not
// available." from their header, before anything is decoded.
func TestPreviewOverBudgetRefusedFromHeader(t *testing.T) {
	tests := []struct {
		name string
		ct   string
		data []byte
	}{
		// 150 MB of planes and 600 MB of coefficients.
		{name: "progressive jpeg 10000x10000", ct: JPEG, data: progressiveJPEG(t, 10000, 10000)},
		// 300 MB of samples, a 100 MB plane and the 400 MB RGBA frame.
		{name: "rle dicom 10000x10000 rgb", ct: DICOM, data: rleDICOM(10000, 3)},
		// A JPEG frame whose own header says 100 MP: 150 MB decoded, 400 MB as RGB.
		{name: "jpeg dicom frame 10000x10000", ct: DICOM, data: encapsulatedDICOM("1.2.840.10008.1.2.4.50\x00", 10000, 10000, 3, "RGB ", bigJPEGFrame(t, 10000, 10000))},
		// 512 MB, and interlaced PNGs are not streamed.
		{name: "interlaced png 8000x8000 16-bit rgba", ct: PNG, data: flatPNG(probeSide, true)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			alloc := allocated(func() { err = preview(io.Discard, tc.data, tc.ct, 1024) })
			if !errors.Is(err, ErrNoPreview) {
				t.Fatalf("err = %v, want ErrNoPreview", err)
			}
			wantKind(t, err, domain.ENOTFOUND, msgNoPreview)
			t.Logf("%d KiB file: %d KiB allocated to refuse it", len(tc.data)>>10, alloc>>10)
			if alloc > 4<<20 {
				t.Errorf("allocated %d MiB to refuse it", alloc>>20)
			}
		})
	}
}

// TestEstimatesCoverAllocations: for real renders along every path, the
// bytes a render takes from the budget are at least the bytes it allocates
// (garbage included, so the live peak is lower still).
func TestEstimatesCoverAllocations(t *testing.T) {
	grey := image.NewGray(image.Rect(0, 0, 1200, 900))
	for i := range grey.Pix {
		grey.Pix[i] = uint8(i * 7)
	}
	gradient16 := image.NewNRGBA64(image.Rect(0, 0, 1600, 700))
	for y := range 700 {
		for x := range 1600 {
			gradient16.SetNRGBA64(x, y, color.NRGBA64{uint16(x * 40), uint16(y * 93), 0x8000, 0xC000})
		}
	}
	tests := []struct {
		name   string
		ct     string
		data   []byte
		budget int64 // 0: testBudget
	}{
		{name: "jpeg colour", ct: JPEG, data: encodeJPEG(t, testImage(1200, 900))},
		{name: "jpeg grey", ct: JPEG, data: encodeJPEG(t, grey)},
		{name: "jpeg small, turned", ct: JPEG, data: withSegmentsAfterSOI(encodeJPEG(t, testImage(300, 200)), exifWith(binary.BigEndian, 6, 0))},
		{name: "jpeg bilinear in a small budget", ct: JPEG, data: encodeJPEG(t, testImage(1600, 1100)), budget: MinPreviewBudget},
		{name: "png whole", ct: PNG, data: encodePNG(t, testImage(900, 700))},
		{name: "png 16-bit whole", ct: PNG, data: encodePNG(t, gradient16)},
		{name: "png 16-bit streamed", ct: PNG, data: encodePNG(t, gradient16), budget: MinPreviewBudget},
		{name: "png interlaced", ct: PNG, data: interlacedPNG(t)},
		{name: "dicom native", ct: DICOM, data: syntheticDICOM(1100, 900, "Doe^John")},
		{name: "dicom rle", ct: DICOM, data: rleDICOM(1100, 1)},
		{name: "dicom rle rgb", ct: DICOM, data: rleDICOM(900, 3)},
		{name: "dicom jpeg", ct: DICOM, data: readFixture(t, "SC_rgb_jpeg.dcm")},
		{name: "dicom palette", ct: DICOM, data: readFixture(t, "examples_palette.dcm")},
		{name: "dicom CT", ct: DICOM, data: readFixture(t, "CT_small.dcm")},
		// Decoded in the sandbox: the instance's memory counts among the
		// allocations, and the plan reserves its whole cap.
		{name: "dicom jpeg 2000", ct: DICOM, data: readFixture(t, "JPEG2000.dcm")},
		{name: "dicom jpeg 2000 colour", ct: DICOM, data: readFixture(t, "US_rgb_j2k_lossy.dcm")},
		{name: "dicom jpeg-ls", ct: DICOM, data: readFixture(t, "CT_small_jpegls.dcm")},
		{name: "dicom jpeg lossless", ct: DICOM, data: readFixture(t, "CT_small_lossless_sv1.dcm")},
		{name: "dicom jpeg 12-bit", ct: DICOM, data: readFixture(t, "JPEG-lossy.dcm")},
	}
	if _, err := WarmDecoders(context.Background()); err != nil { // compiling is once a process, not a render's
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := testPreviewer
			if tc.budget > 0 {
				p = NewPreviewer(tc.budget)
			}
			pl, err := withOpen(bytesOpener(tc.data), func(r io.Reader) (plan, error) {
				return p.plan(r, int64(len(tc.data)), tc.ct, 1024)
			})
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			alloc := allocated(func() {
				err = p.Preview(context.Background(), &out, bytesOpener(tc.data), int64(len(tc.data)), tc.ct, 1024)
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("estimate %d KiB, allocated %d KiB", pl.bytes>>10, alloc>>10)
			if int64(alloc) > pl.bytes {
				t.Errorf("allocated %d KiB, more than the %d KiB estimate", alloc>>10, pl.bytes>>10)
			}
		})
	}
}

// TestPreviewPlans: the budget follows the decoded bytes from the header.
func TestPreviewPlans(t *testing.T) {
	probe := pngHeader{width: 8000, height: 8000, depth: 16, colorType: pngRGBA}
	if got := pngWholeBytes(probe, 1024); got < 8000*8000*4*2 {
		t.Errorf("whole decoding of the probe's PNG estimated at %d bytes, below its 512 MB of pixels", got)
	}
	p := NewPreviewer(testBudget)
	pl, err := p.planPNG(probe, 1024)
	if err != nil || pl.bytes > 32<<20 {
		t.Errorf("probe's PNG: plan of %d bytes, %v; want it streamed in a few MiB", pl.bytes, err)
	}
	small := pngHeader{width: 800, height: 600, depth: 8, colorType: pngRGBA}
	if pl, err := p.planPNG(small, 1024); err != nil || pl.bytes != pngWholeBytes(small, 1024) {
		t.Errorf("a small PNG is decoded whole: plan of %d bytes, %v", pl.bytes, err)
	}

	baseline := jpegHeader{width: 4000, height: 3000, comps: []jpegComponent{{1, 2, 2}, {2, 1, 1}, {3, 1, 1}}}
	progressive := baseline
	progressive.progressive = true
	if b, pr := baseline.decodeBytes(), progressive.decodeBytes(); b < 4000*3000*3/2 || pr < 5*b-(64<<10)*4 {
		t.Errorf("4:2:0 12 MP: baseline %d bytes, progressive %d", b, pr)
	}
	if _, err := p.planJPEG(baseline, 5<<20, 1024); err != nil {
		t.Errorf("12 MP photo refused: %v", err)
	}
}

// blockingWriter holds a render in its final write until released.
type blockingWriter struct {
	writing chan struct{}
	release chan struct{}
}

func (w *blockingWriter) Write(p []byte) (int, error) {
	select {
	case w.writing <- struct{}{}:
	default:
	}
	<-w.release
	return len(p), nil
}

// TestPreviewerBoundsRendersByBytes: renders share the budget by their
// estimated bytes: two that do not fit together run one after the other, a
// small one runs beside a large one, and a wait ends with its context.
func TestPreviewerBoundsRendersByBytes(t *testing.T) {
	big := encodeJPEG(t, testImage(1500, 1000))
	small := encodeJPEG(t, testImage(100, 80))
	estimate := func(data []byte) int64 {
		pl, err := withOpen(bytesOpener(data), func(r io.Reader) (plan, error) {
			return testPreviewer.plan(r, int64(len(data)), JPEG, 1024)
		})
		if err != nil {
			t.Fatal(err)
		}
		return pl.bytes
	}
	b, s := estimate(big), estimate(small)
	if b+s >= 2*b-1 || 2*b-1 < MinPreviewBudget {
		t.Fatalf("estimates %d and %d do not suit the test", b, s)
	}
	p := NewPreviewer(2*b - 1) // room for one big render and a small one, not two big
	render := func(ctx context.Context, dst io.Writer, data []byte) error {
		return p.Preview(ctx, dst, bytesOpener(data), int64(len(data)), JPEG, 1024)
	}

	held := &blockingWriter{writing: make(chan struct{}, 1), release: make(chan struct{})}
	first := make(chan error, 1)
	go func() { first <- render(context.Background(), held, big) }()
	<-held.writing // the first big render holds its bytes

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := render(ctx, io.Discard, big); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second big render: %v, want it to wait until its context ends", err)
	}
	if err := render(context.Background(), io.Discard, small); err != nil {
		t.Fatalf("small render beside the big one: %v", err)
	}
	close(held.release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if err := render(context.Background(), io.Discard, big); err != nil {
		t.Fatalf("big render after the first: %v", err)
	}
	if !p.sem.TryAcquire(p.Budget()) {
		t.Fatal("the budget was not given back")
	}
}

// TestPreviewPassesReadErrors: a stored form that fails to open or to read
// (storage, decryption) is an error of its own, not "Preview not available.".
func TestPreviewPassesReadErrors(t *testing.T) {
	errStorage := errors.New("storage went away")
	files := map[string][]byte{
		PNG:   probePNG(t)[:200<<10],
		JPEG:  encodeJPEG(t, testImage(64, 64)),
		DICOM: readFixture(t, "CT_small.dcm"),
	}
	for ct, data := range files {
		for _, at := range []int{10, len(data) / 2} {
			t.Run(fmt.Sprintf("%s read fails at %d", ct, at), func(t *testing.T) {
				open := func() (io.ReadCloser, error) {
					return io.NopCloser(io.MultiReader(bytes.NewReader(data[:at]), iotest.ErrReader(errStorage))), nil
				}
				err := testPreviewer.Preview(context.Background(), io.Discard, open, int64(len(data)), ct, 256)
				if !errors.Is(err, errStorage) {
					t.Fatalf("err = %v, want the read error", err)
				}
			})
		}
		t.Run(ct+" open fails", func(t *testing.T) {
			open := func() (io.ReadCloser, error) { return nil, errStorage }
			if err := testPreviewer.Preview(context.Background(), io.Discard, open, int64(len(data)), ct, 256); !errors.Is(err, errStorage) {
				t.Fatalf("err = %v, want the open error", err)
			}
		})
	}
}

// TestDICOMJPEGFrameOwnHeader: the header parse keeps the start of a
// compressed frame, so a JPEG frame is budgeted by its own header.
func TestDICOMJPEGFrameOwnHeader(t *testing.T) {
	data := readFixture(t, "SC_rgb_jpeg.dcm")
	ds, g, err := parseDICOM(bytes.NewReader(data), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	pm := readPixelModule(&ds, g.transferSyntax)
	h, err := readJPEGHeader(bytes.NewReader(g.frameHead))
	if err != nil {
		t.Fatalf("frame header: %v (kept %d bytes)", err, len(g.frameHead))
	}
	if h.width != pm.cols || h.height != pm.rows || len(h.comps) != 3 {
		t.Fatalf("frame %dx%d with %d components, DICOM says %dx%d", h.width, h.height, len(h.comps), pm.cols, pm.rows)
	}
	worst := jpegHeader{width: pm.cols, height: pm.rows, comps: []jpegComponent{{1, 1, 1}, {2, 1, 1}, {3, 1, 1}}, progressive: true}
	if got := dicomFrameBytes(pm, g, 0); got != jpegFrameBytes(h) || got >= jpegFrameBytes(worst) {
		t.Errorf("frame estimate %d, want its own header's %d (worst case %d)", got, jpegFrameBytes(h), jpegFrameBytes(worst))
	}
}
