package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/testutil/pgtest"
)

// TestMain lets a test start this very binary as the real program, so process
// behaviour (signals, exit codes) is tested without building it again.
func TestMain(m *testing.M) {
	if os.Getenv("MEDISHARE_TEST_RUN_MAIN") == "1" {
		wrapHandler = withSlowRoute
		if v := os.Getenv("MEDISHARE_TEST_ORPHAN_AGE"); v != "" { // the janitor's, for TestTwoInstances
			age, err := time.ParseDuration(v)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			orphanAge = age
		}
		if path := os.Getenv("MEDISHARE_TEST_CPUPROFILE"); path != "" { // the server's profile, for benchmarks
			f, err := os.Create(path)
			if err == nil {
				err = pprof.StartCPUProfile(f)
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			defer pprof.StopCPUProfile() // runs when main returns after SIGTERM
		}
		main()
		return
	}
	os.Exit(m.Run())
}

// withSlowRoute adds /test/slow, which takes two seconds to answer.
func withSlowRoute(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/test/slow" {
			next.ServeHTTP(w, r)
			return
		}
		time.Sleep(2 * time.Second)
		_, _ = fmt.Fprint(w, "finished") // a client that left gets nothing either way
	})
}

// devEnv is a working development environment on a fresh database.
func devEnv(t testing.TB, databaseURL string) map[string]string {
	return map[string]string{
		"MEDISHARE_ENV":        "development",
		"MEDISHARE_ADDR":       fmt.Sprintf("127.0.0.1:%d", pgtest.FreePort(t)),
		"MEDISHARE_DATA_DIR":   t.TempDir(),
		"DATABASE_URL":         databaseURL,
		"MEDISHARE_LOG_FORMAT": "text",
	}
}

func startProgram(t testing.TB, env map[string]string, stderr io.Writer) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "serve")
	cmd.Env = []string{"MEDISHARE_TEST_RUN_MAIN=1", "PATH=" + os.Getenv("PATH")}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

func waitStatus(t testing.TB, url string, want int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	last := 0
	for time.Now().Before(deadline) {
		resp, err := http.Get(url)
		if err == nil {
			last = resp.StatusCode
			resp.Body.Close()
			if last == want {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s: status %d, waited for %d", url, last, want)
}

func TestProductionRefusesToStartWithoutKeys(t *testing.T) {
	var stderr bytes.Buffer
	cmd := startProgram(t, map[string]string{
		"MEDISHARE_ENV":        "production",
		"DATABASE_URL":         "postgres://medishare@127.0.0.1:1/medishare",
		"MEDISHARE_PUBLIC_URL": "https://medishare.example.org",
		"SMTP_HOST":            "smtp.example.org",
		"MEDISHARE_DATA_DIR":   t.TempDir(),
	}, &stderr)
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() == 0 {
		t.Fatalf("exit: %v, want a non-zero exit", err)
	}
	for _, name := range []string{"MEDISHARE_MASTER_KEY", "MEDISHARE_JWT_SECRET"} {
		if !strings.Contains(stderr.String(), name) {
			t.Errorf("message does not name %s:\n%s", name, stderr.String())
		}
	}
}

func TestUnknownCommand(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"frobnicate"}, os.Getenv, &out, &out); !errors.Is(err, errUsage) {
		t.Fatalf("err = %v", err)
	}
}

func TestMigrateCommand(t *testing.T) {
	url := pgtest.NewEmptyDatabase(t)
	env := devEnv(t, url)
	getenv := func(k string) string { return env[k] }
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"migrate", "status"}, "pending"},
		{[]string{"migrate", "up"}, "applied"},
		{[]string{"migrate", "down"}, "pending"},
	} {
		var out bytes.Buffer
		if err := run(context.Background(), tc.args, getenv, &out, &out); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if !strings.Contains(out.String(), tc.want) {
			t.Errorf("%v: output lacks %q:\n%s", tc.args, tc.want, out.String())
		}
	}
}

// TestReadinessFollowsTheDatabase stops the database under a running server:
// /readyz turns 503 while /healthz stays 200, and readiness comes back by
// itself when the database does (S27).
func TestReadinessFollowsTheDatabase(t *testing.T) {
	cluster := pgtest.StartCluster(t)
	env := devEnv(t, cluster.URL)
	base := "http://" + env["MEDISHARE_ADDR"]
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve"}, func(k string) string { return env[k] }, io.Discard, io.Discard)
	}()

	waitStatus(t, base+"/readyz", http.StatusOK)
	cluster.Stop(t)
	waitStatus(t, base+"/readyz", http.StatusServiceUnavailable)
	waitStatus(t, base+"/healthz", http.StatusOK)
	cluster.Start(t)
	waitStatus(t, base+"/readyz", http.StatusOK)

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve returned %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
}

// TestSIGTERMLetsASlowRequestFinish sends SIGTERM while a slow request is in
// flight: the request is answered, readiness fails meanwhile, and the process
// exits 0 (S26).
func TestSIGTERMLetsASlowRequestFinish(t *testing.T) {
	env := devEnv(t, pgtest.NewDatabase(t))
	env["MEDISHARE_DRAIN_DELAY"] = "500ms"
	base := "http://" + env["MEDISHARE_ADDR"]
	var stderr bytes.Buffer
	cmd := startProgram(t, env, &stderr)
	waitStatus(t, base+"/readyz", http.StatusOK)

	type result struct {
		status int
		body   string
		err    error
	}
	slow := make(chan result, 1)
	go func() {
		resp, err := http.Get(base + "/test/slow")
		if err != nil {
			slow <- result{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		slow <- result{resp.StatusCode, string(b), err}
	}()
	time.Sleep(300 * time.Millisecond) // the slow request has reached its handler
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if resp, err := http.Get(base + "/readyz"); err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("readyz while draining = %d, want 503", resp.StatusCode)
		}
	}

	r := <-slow
	if r.err != nil || r.status != http.StatusOK || r.body != "finished" {
		t.Fatalf("in-flight request: %d %q %v\n%s", r.status, r.body, r.err, stderr.String())
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("process exit: %v\n%s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("process did not exit after SIGTERM")
	}
	if !strings.Contains(stderr.String(), "stopped") {
		t.Errorf("log lacks the clean stop:\n%s", stderr.String())
	}
}

// TestSIGTERMClosesMessageStreams: open message streams end when shutdown
// begins, so they do not hold the process for the whole grace period.
func TestSIGTERMClosesMessageStreams(t *testing.T) {
	env := devEnv(t, pgtest.NewDatabase(t))
	env["MEDISHARE_SHUTDOWN_GRACE"] = "60s"
	base := "http://" + env["MEDISHARE_ADDR"]
	var stderr bytes.Buffer
	cmd := startProgram(t, env, &stderr)
	waitStatus(t, base+"/readyz", http.StatusOK)
	token, _ := signInDemoProvider(t, env, base)
	req, _ := http.NewRequest("GET", base+"/api/message/stream", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("stream: %v %v", resp, err)
	}
	ended := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, resp.Body) // until the server ends the stream
		resp.Body.Close()
		close(ended)
	}()
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the stream was still open 10 s after SIGTERM")
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("process exit: %v\n%s", err, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("process did not exit after SIGTERM")
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("shutdown with an open stream took %s", took)
	}
}

// Metrics are served on their own listener only, with the pool's figures
// and requests by route pattern.
func TestMetricsListener(t *testing.T) {
	env := devEnv(t, pgtest.NewDatabase(t))
	env["MEDISHARE_METRICS_ADDR"] = fmt.Sprintf("127.0.0.1:%d", pgtest.FreePort(t))
	startProgram(t, env, io.Discard)
	base := "http://" + env["MEDISHARE_ADDR"]
	waitStatus(t, base+"/readyz", http.StatusOK)
	if resp, err := http.Get(base + "/api/users/profile"); err == nil {
		resp.Body.Close()
	}
	// An upload, its preview rendered, a mail sent and a stream open.
	token, patientID := signInDemoProvider(t, env, base)
	upload := probePNGOf(t, 64)
	getPreview(t, base, token, benchUpload(t, base, token, patientID, "p.png", upload), http.StatusOK)
	if status, _ := apiJSON(t, "POST", base+"/api/auth/forgot-password", "", map[string]string{"email": readDemoAccount(t, env, "patient").Email}); status != http.StatusOK {
		t.Fatalf("forgot-password: %d", status)
	}
	openStream(t, base, token, "")
	scrape := func() string {
		b, status := fetch(t, "http://"+env["MEDISHARE_METRICS_ADDR"]+"/metrics", "")
		if status != http.StatusOK {
			t.Fatalf("metrics: %d", status)
		}
		return string(b)
	}
	// The mail goes out after the answer.
	waitFor(t, "the mail to be sent", func() bool { return strings.Contains(scrape(), "medishare_mail_sent_total 1") })
	metrics := scrape()
	for _, want := range []string{"medishare_db_pool_total_conns", "medishare_db_pool_acquires_total",
		`medishare_http_requests_total{method="GET",route="/api/users/profile",status="401"} 1`,
		"medishare_message_streams_open 1", "medishare_preview_renders_total 1",
		"medishare_mail_sent_total 1", "medishare_mail_failures_total 0", "medishare_mail_outbox_queued 0",
		"medishare_audit_write_failures_total 0"} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if got := metricValue(t, metrics, `medishare_http_request_body_bytes_total{route="/api/upload/image"}`); got < float64(len(upload)) {
		t.Errorf("upload bytes counted: %v, sent %d", got, len(upload))
	}
	if got := metricValue(t, metrics, `medishare_http_response_body_bytes_total{route="/api/upload/image/{id}/preview"}`); got <= 0 {
		t.Errorf("preview bytes counted: %v", got)
	}
	// Not on the public address.
	public, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	pb, _ := io.ReadAll(public.Body)
	public.Body.Close()
	if strings.Contains(string(pb), "medishare_http_requests_total") {
		t.Error("metrics are served on the public address")
	}
}

// Each request's log line names its route pattern and the caller's id,
// never their name or email.
func TestAccessLogNamesRouteAndUser(t *testing.T) {
	env := devEnv(t, pgtest.NewDatabase(t))
	var logs syncBuffer
	startProgram(t, env, &logs)
	base := "http://" + env["MEDISHARE_ADDR"]
	waitStatus(t, base+"/readyz", http.StatusOK)
	token, userID := signInDemo(t, env, base, "patient")
	image := "00000000-0000-4000-8000-000000000000"
	if status, _ := apiJSON(t, "GET", base+"/api/upload/image/"+image, token, nil); status != http.StatusNotFound {
		t.Fatalf("status %d", status)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(logs.String(), "route=/api/upload/image/{id}") && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	var line string
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "route=/api/upload/image/{id}") {
			line = l
		}
	}
	if !strings.Contains(line, "user_id="+userID) || strings.Contains(line, "Ayesha") || strings.Contains(line, "demo.patient") {
		t.Errorf("access log line: %s", line)
	}
}

// syncBuffer is a buffer a child process's output may be written to while
// the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// metricValue is the value of one series in a Prometheus text scrape.
func metricValue(t *testing.T, scrape, series string) float64 {
	t.Helper()
	v, ok := parseMetrics(scrape)[series]
	if !ok {
		t.Fatalf("no series %s", series)
	}
	return v
}

// parseMetrics reads a Prometheus text scrape: each series's value.
func parseMetrics(scrape string) map[string]float64 {
	out := map[string]float64{}
	for _, line := range strings.Split(scrape, "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && !strings.HasPrefix(line, "#") {
			if v, err := strconv.ParseFloat(f[1], 64); err == nil {
				out[f[0]] = v
			}
		}
	}
	return out
}
