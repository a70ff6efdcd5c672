package main

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/testutil/pgtest"
)

const benchFileSize = domain.MaxUploadBytes

// BenchmarkTransfers measures, against the real server process, upload and
// download throughput for one and for 16 concurrent 10 MiB files and the
// server's peak memory, next to a baseline of this machine: reading a file
// and encrypting it with AES-GCM in a tight loop. `make bench` runs it once
// and writes docs/performance.md (BENCH_REPORT).
func BenchmarkTransfers(b *testing.B) {
	env := devEnv(b, pgtest.NewDatabase(b))
	env["MEDISHARE_LOG_LEVEL"] = "warn"
	base := "http://" + env["MEDISHARE_ADDR"]
	cmd := startProgram(b, env, io.Discard)
	waitStatus(b, base+"/readyz", http.StatusOK)
	token, patientID := signInDemoProvider(b, env, base)
	file := benchPDF()

	baseline := baselineMBps(file)
	rssStart := procStatus(cmd.Process.Pid, "VmRSS")
	var ids []string
	var mu sync.Mutex
	transfer := func(n int, do func(i int)) float64 {
		start := time.Now()
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(i int) { defer wg.Done(); do(i) }(i)
		}
		wg.Wait()
		return float64(n*len(file)) / (1 << 20) / time.Since(start).Seconds()
	}
	upload := func(int) {
		id := benchUpload(b, base, token, patientID, file)
		mu.Lock()
		ids = append(ids, id)
		mu.Unlock()
	}
	download := func(i int) { benchDownload(b, base, token, ids[i%len(ids)], len(file)) }

	up1 := transfer(1, upload)
	down1 := transfer(1, download)
	// Reset the high-water mark so the peak is the one of the concurrent transfers.
	os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", cmd.Process.Pid), []byte("5"), 0)
	rssBefore16 := procStatus(cmd.Process.Pid, "VmRSS")
	up16 := transfer(16, upload)
	down16 := transfer(16, download)
	peak := procStatus(cmd.Process.Pid, "VmHWM")
	growth := peak - rssBefore16

	b.ReportMetric(baseline, "baseline-MB/s")
	b.ReportMetric(up1, "upload1-MB/s")
	b.ReportMetric(up16, "upload16-MB/s")
	b.ReportMetric(down1, "download1-MB/s")
	b.ReportMetric(down16, "download16-MB/s")
	b.ReportMetric(float64(peak)/1024, "peak-RSS-MiB")
	b.ReportMetric(float64(growth)/1024, "growth-16-MiB")

	if path := os.Getenv("BENCH_REPORT"); path != "" {
		report := fmt.Sprintf(`# Performance

Measured by `+"`make bench`"+` (BenchmarkTransfers in cmd/medishare/bench_test.go) on %s
against the real server process (local disk store, PostgreSQL on the same machine),
with 10 MiB files, on this machine (%s).

| measure | result |
|---|---|
| baseline: read + AES-256-GCM encrypt in a tight loop | %.0f MB/s |
| upload, 1 file | %.0f MB/s (%.0f%% of baseline) |
| upload, 16 files at once | %.0f MB/s (%.0f%% of baseline) |
| download, 1 file | %.0f MB/s (%.0f%% of baseline) |
| download, 16 files at once | %.0f MB/s (%.0f%% of baseline) |
| server memory at start (RSS) | %.0f MiB |
| server peak memory during the 16 concurrent transfers (VmHWM) | %.0f MiB |
| peak growth during 16 concurrent uploads and downloads | %.0f MiB (target: under 64 MiB) |

Targets: uploads and downloads at least half the baseline's throughput; peak
memory growth under 64 MiB for 16 concurrent 10 MiB uploads. An upload does more
than the baseline: it parses the multipart body, validates and cleans the file,
hashes it, encrypts it and writes it to disk; a download decrypts twice (a full
check of every chunk and the SHA-256 before the first byte is sent, then the
stream).

What limits throughput today (from a CPU profile of uploads and downloads in
one process): the CPU is busy only about a quarter of the time. An upload waits
for the fsync that makes its contents durable before the record commits (S24),
and each transfer moves 64 KiB chunks through several goroutines and pipes. The
throughput targets are not met yet; memory stays flat, as designed.
`, time.Now().UTC().Format("2006-01-02"), machine(), baseline,
			up1, 100*up1/baseline, up16, 100*up16/baseline, down1, 100*down1/baseline, down16, 100*down16/baseline,
			float64(rssStart)/1024, float64(peak)/1024, float64(growth)/1024)
		if err := os.WriteFile(path, []byte(report), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

func benchPDF() []byte {
	head, tail := "%PDF-1.4\n", "\n%%EOF\n"
	body := make([]byte, benchFileSize-len(head)-len(tail))
	rand.Read(body)
	return append(append([]byte(head), body...), tail...)
}

func baselineMBps(file []byte) float64 {
	key := make([]byte, 32)
	block, _ := aes.NewCipher(key)
	gcm, _ := cipher.NewGCM(block)
	nonce := make([]byte, gcm.NonceSize())
	out := make([]byte, 0, 64<<10+16)
	start := time.Now()
	const rounds = 20
	for r := 0; r < rounds; r++ {
		rd := bytes.NewReader(file)
		buf := make([]byte, 64<<10)
		for {
			n, err := io.ReadFull(rd, buf)
			if n > 0 {
				out = gcm.Seal(out[:0], nonce, buf[:n], nil)
			}
			if err != nil {
				break
			}
		}
	}
	return float64(rounds*len(file)) / (1 << 20) / time.Since(start).Seconds()
}

func benchUpload(b *testing.B, base, token, patientID string, file []byte) string {
	pr, pw := io.Pipe()
	w := multipart.NewWriter(pw)
	go func() {
		w.WriteField("caption", "bench")
		w.WriteField("patientId", patientID)
		fw, _ := w.CreateFormFile("file", "bench.pdf")
		fw.Write(file)
		pw.CloseWithError(w.Close())
	}()
	req, _ := http.NewRequest("POST", base+"/api/upload/image", pr)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", w.FormDataContentType())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ Data struct{ ID string } }
	json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode != 201 {
		b.Fatalf("upload: %d", resp.StatusCode)
	}
	return out.Data.ID
}

func benchDownload(b *testing.B, base, token, id string, size int) {
	req, _ := http.NewRequest("GET", base+"/api/upload/image/"+id+"/content", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	n, _ := io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != 200 || n != int64(size) {
		b.Fatalf("download: %d, %d bytes", resp.StatusCode, n)
	}
}

// procStatus reads a memory line of /proc/PID/status, in KiB.
func procStatus(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			return n
		}
	}
	return 0
}

func machine() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	cores := strings.Count(string(b), "processor\t:")
	model := "unknown CPU"
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "model name\t: "); ok {
			model = v
			break
		}
	}
	return fmt.Sprintf("%d cores, %s", cores, model)
}
