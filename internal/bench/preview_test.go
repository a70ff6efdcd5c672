package bench

import (
	"bytes"
	"fmt"
	"image/png"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/testutil/proctest"
)

// probeSide is the side of the PNG of the outside probe's finding 1: 8000 x
// 8000 pixels of 16-bit RGBA, 512 MB once decoded, about 0.5 MB stored.
const probeSide = 8000

// Before the preview memory budget (commit 1f9a2d3, this machine, two runs
// of this benchmark): RSS at rest, peak, growth, answers, time.
var previewsBefore = [5]string{"83 MiB", "2024 MiB (2022 in the second run)", "1940 MiB", "4 x 200", "13 to 21 s"}

// BenchmarkPreviewMemory uploads the probe's PNG to the real server process
// and asks for four previews of it at once, reporting the server's peak
// memory (VmHWM) and what each request answered. `make bench` runs it once
// and writes its section of docs/performance.md (BENCH_REPORT).
func BenchmarkPreviewMemory(b *testing.B) {
	_, base, cmd, token, patientID := startBenchServer(b)

	file := probePNG(b)
	id := proctest.MustUpload(b, base, token, patientID, "probe.png", file)
	pid := cmd.Process.Pid
	rssStart := procStatus(pid, "VmRSS")
	// Reset the peak, so VmHWM is what the previews take.
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		b.Fatal(err)
	}

	const n = 4
	statuses := make([]int, n)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = previewStatus(b, base, token, id)
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	peak := procStatus(pid, "VmHWM")
	growth := peak - rssStart

	b.ReportMetric(float64(len(file))/(1<<20), "file-MiB")
	b.ReportMetric(float64(peak)/1024, "peak-RSS-MiB")
	b.ReportMetric(float64(growth)/1024, "growth-MiB")
	b.ReportMetric(elapsed.Seconds(), "seconds")
	b.Logf("four previews of a %d KiB %dx%d 16-bit RGBA PNG: statuses %v, peak %d MiB, growth %d MiB, %.1f s",
		len(file)>>10, probeSide, probeSide, statuses, peak>>10, growth>>10, elapsed.Seconds())

	if path := os.Getenv("BENCH_REPORT"); path != "" {
		section := fmt.Sprintf(`## Preview memory

Measured by `+"`make bench`"+` (BenchmarkPreviewMemory in internal/bench/preview_test.go)
on %s against the real server process with its default settings (a Go memory
limit of 768 MiB, half of it for previews): one PNG of %d x %d pixels, 16-bit
RGBA (512 MB once decoded, %d KiB stored), uploaded once and previewed by four
requests at once. "Before" is the same benchmark on the code before the
preview memory budget (docs/architecture.md, "Preview memory").

| measure | before | now |
|---|---|---|
| server memory before the previews (RSS) | %s | %.0f MiB |
| server peak memory during the four previews (VmHWM) | %s | %.0f MiB |
| peak growth | %s | %.0f MiB |
| answers | %s | %s |
| time for the four | %s | %.1f s |

Before, each preview decoded the whole image (512 MB) and two ran at a time;
now the PNG is decoded row by row into the preview, and every render takes its
estimated peak bytes from a budget the process shares, below the Go memory limit.
`, time.Now().UTC().Format("2006-01-02"), probeSide, probeSide, len(file)>>10,
			previewsBefore[0], float64(rssStart)/1024, previewsBefore[1], float64(peak)/1024,
			previewsBefore[2], float64(growth)/1024, previewsBefore[3], answers(statuses), previewsBefore[4], elapsed.Seconds())
		if err := updateReport(path, "previews", section); err != nil {
			b.Fatal(err)
		}
	}
}

// answers sums up the status codes, e.g. "4 x 200".
func answers(statuses []int) string {
	count := map[int]int{}
	var order []int
	for _, s := range statuses {
		if count[s] == 0 {
			order = append(order, s)
		}
		count[s]++
	}
	var parts []string
	for _, s := range order {
		parts = append(parts, fmt.Sprintf("%d x %d", count[s], s))
	}
	return strings.Join(parts, ", ")
}

func probePNG(tb testing.TB) []byte { return proctest.ProbePNG(tb, probeSide) }

// previewStatus asks for a preview and returns the status, checking that a
// 200 carries a PNG.
func previewStatus(tb testing.TB, base, token, id string) int {
	req, _ := http.NewRequest("GET", base+"/api/upload/image/"+id+"/preview", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Error(err)
		return 0
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == 200 {
		if _, err := png.DecodeConfig(bytes.NewReader(body)); err != nil {
			tb.Errorf("preview is not a PNG: %v", err)
		}
	}
	return resp.StatusCode
}

// updateReport replaces the named section of the report (between
// "<!-- bench:NAME -->" markers), or appends it, keeping the other
// benchmarks' sections.
func updateReport(path, name, section string) error {
	begin, end := "<!-- bench:"+name+" -->\n", "<!-- /bench:"+name+" -->\n"
	block := begin + section + end
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	s := string(old)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	switch {
	case i >= 0 && j > i:
		s = s[:i] + block + s[j+len(end):]
	case s == "":
		s = block
	default:
		s = strings.TrimRight(s, "\n") + "\n\n" + block
	}
	return os.WriteFile(path, []byte(s), 0o644)
}
