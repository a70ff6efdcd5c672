package medimg

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"testing"
	"time"
)

func TestDbgMutate(t *testing.T) {
	var seeds [][]byte
	for _, n := range fuzzFixtures { seeds = append(seeds, readFixture(t, n)) }
	seeds = append(seeds, withSegmentsAfterSOI(encodeJPEG(t, testImage(16, 16)), exifSegment()), encodePNG(t, testImage(16, 16)), syntheticDICOM(8, 8, "X"))
	rng := rand.New(rand.NewPCG(7, 9))
	deadline := time.Now().Add(40 * time.Second)
	n := 0
	for time.Now().Before(deadline) {
		d := append([]byte{}, seeds[rng.IntN(len(seeds))]...)
		for k := rng.IntN(8) + 1; k > 0 && len(d) > 0; k-- {
			switch rng.IntN(4) {
			case 0: d[rng.IntN(len(d))] = byte(rng.Uint32())
			case 1: d[rng.IntN(len(d))] ^= 1 << rng.IntN(8)
			case 2: i := rng.IntN(len(d)); d = d[:i+rng.IntN(len(d)-i)+0]
			case 3: i := rng.IntN(len(d)); v := []byte{0xFF, 0xFF, 0xFF, 0xFF}; if i+4 <= len(d) { copy(d[i:], v[:rng.IntN(4)+1]) }
			}
		}
		for _, ct := range []string{JPEG, PNG, PDF, DICOM} {
			start := time.Now()
			var stored bytes.Buffer
			info, err := Clean(&stored, bytes.NewReader(d), ct)
			if el := time.Since(start); el > 300*time.Millisecond { t.Logf("slow clean %s %v %v", ct, el, err); os.WriteFile("/tmp/fz/slow_clean", d, 0o644) }
			if err != nil || int64(info.Width)*int64(info.Height) > 1<<20 { continue }
			start = time.Now()
			err = Preview(io.Discard, bytes.NewReader(stored.Bytes()), int64(stored.Len()), ct, 32)
			if el := time.Since(start); el > 300*time.Millisecond { t.Logf("slow preview %s %v %v %+v", ct, el, err, info); os.WriteFile("/tmp/fz/slow_preview_"+ct[len(ct)-3:], stored.Bytes(), 0o644) }
		}
		n++
	}
	t.Logf("%d inputs", n)
}
