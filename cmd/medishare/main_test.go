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
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/pgtest"
	"github.com/medishare/medishare/internal/testutil/proctest"
)

// TestMain lets a test start this very binary as the real program, so process
// behaviour (signals, exit codes) is tested without building it again.
func TestMain(m *testing.M) {
	if os.Getenv("MEDISHARE_TEST_RUN_MAIN") == "1" {
		shutdown := make(chan struct{})
		shutdownBegins = func() {
			fmt.Fprintln(os.Stderr, shutdownMark)
			close(shutdown)
		}
		wrapHandler = func(next http.Handler) http.Handler {
			return testRoutes(next, shutdown, os.Getenv("MEDISHARE_TEST_TRACE_REQUESTS") == "1")
		}
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

// The lines the program's test hooks write to its log: the listener
// closes, and (with MEDISHARE_TEST_TRACE_REQUESTS=1) a request reached the
// handlers.
const (
	shutdownMark = "test hook: shutdown begins"
	reachedMark  = "test hook: request reached the handlers: "
)

// testRoutes adds /test/slow, a request that answers its status at once
// and its body only when shutdown begins (it is in flight until then),
// and, when trace is set, marks each request's arrival in the log.
func testRoutes(next http.Handler, shutdown <-chan struct{}, trace bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/test/slow" {
			if trace {
				fmt.Fprintln(os.Stderr, reachedMark+r.Method+" "+r.URL.Path)
			}
			next.ServeHTTP(w, r)
			return
		}
		w.WriteHeader(http.StatusOK)
		_ = http.NewResponseController(w).Flush() // the client sees the handler running
		<-shutdown
		_, _ = fmt.Fprint(w, "finished") // a client that left gets nothing either way
	})
}

// startProgram runs this test binary as the real program (see TestMain).
func startProgram(t testing.TB, env map[string]string, stderr io.Writer) *exec.Cmd {
	t.Helper()
	return proctest.Start(t, proctest.Self(), env, stderr)
}

// waitEnded waits for the server to end a message stream.
func waitEnded(t *testing.T, stream <-chan string) {
	t.Helper()
	deadline := time.After(testutil.EventuallyTimeout)
	for {
		select {
		case _, open := <-stream:
			if !open {
				return
			}
		case <-deadline:
			t.Fatalf("the stream was still open %s after SIGTERM, as if it held the shutdown", testutil.EventuallyTimeout)
		}
	}
}

// waitExit waits for the program to exit and fails the test unless it
// exited 0.
func waitExit(t *testing.T, cmd *exec.Cmd, logs fmt.Stringer) {
	t.Helper()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("process exit: %v\n%s", err, logs)
		}
	case <-time.After(testutil.EventuallyTimeout):
		t.Fatalf("the process did not exit within %s\n%s", testutil.EventuallyTimeout, logs)
	}
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
	env := proctest.Env(t, url)
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
	testutil.Slow(t)
	cluster := pgtest.StartCluster(t)
	env := proctest.Env(t, cluster.URL)
	base := proctest.Base(env)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve"}, func(k string) string { return env[k] }, io.Discard, io.Discard)
	}()

	proctest.WaitStatus(t, base+"/readyz", http.StatusOK)
	cluster.Stop(t)
	proctest.WaitStatus(t, base+"/readyz", http.StatusServiceUnavailable)
	proctest.WaitStatus(t, base+"/healthz", http.StatusOK)
	cluster.Start(t)
	proctest.WaitStatus(t, base+"/readyz", http.StatusOK)

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve returned %v", err)
		}
	case <-time.After(testutil.EventuallyTimeout):
		t.Fatal("serve did not stop")
	}
}

// TestSIGTERMLetsASlowRequestFinish sends SIGTERM while a slow request is in
// flight: readiness fails meanwhile, the request is answered after the
// listener closed, and the process exits 0 (S26).
func TestSIGTERMLetsASlowRequestFinish(t *testing.T) {
	testutil.Slow(t)
	env := proctest.Env(t, pgtest.NewDatabase(t))
	// Long enough for the test to see readiness fail before the listener closes.
	env["MEDISHARE_DRAIN_DELAY"] = "5s"
	base := proctest.Base(env)
	var logs proctest.Buffer
	cmd := startProgram(t, env, &logs)
	proctest.WaitStatus(t, base+"/readyz", http.StatusOK)

	type result struct {
		body string
		err  error
	}
	reached, slow := make(chan int, 1), make(chan result, 1)
	go func() {
		resp, err := http.Get(base + "/test/slow")
		if err != nil {
			reached <- 0
			return
		}
		defer resp.Body.Close()
		reached <- resp.StatusCode // the handler is running
		b, err := io.ReadAll(resp.Body)
		slow <- result{string(b), err}
	}()
	if status := <-reached; status != http.StatusOK {
		t.Fatalf("the slow request: %d\n%s", status, logs.String())
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	proctest.WaitStatus(t, base+"/readyz", http.StatusServiceUnavailable)

	r := <-slow
	if r.err != nil || r.body != "finished" {
		t.Fatalf("in-flight request: %q %v\n%s", r.body, r.err, logs.String())
	}
	waitExit(t, cmd, &logs)
	if !strings.Contains(logs.String(), shutdownMark) || !strings.Contains(logs.String(), "stopped") {
		t.Errorf("log lacks the drain and the clean stop:\n%s", logs.String())
	}
}

// TestSIGTERMClosesMessageStreams: open message streams end when shutdown
// begins, so they do not hold the process for the whole grace period: the
// stream ends well within the grace, and the process exits 0 (1 when the
// grace runs out).
func TestSIGTERMClosesMessageStreams(t *testing.T) {
	testutil.Slow(t)
	env := proctest.Env(t, pgtest.NewDatabase(t))
	// Longer than the test waits for the stream to end.
	env["MEDISHARE_SHUTDOWN_GRACE"] = (2 * testutil.EventuallyTimeout).String()
	base := proctest.Base(env)
	var logs proctest.Buffer
	cmd := startProgram(t, env, &logs)
	proctest.WaitStatus(t, base+"/readyz", http.StatusOK)
	token, _ := proctest.SignInDemoProvider(t, env)
	stream := proctest.OpenStream(t, base, token, "")
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitEnded(t, stream)
	waitExit(t, cmd, &logs)
}

// Metrics are served on their own listener only, with the pool's figures
// and requests by route pattern.
func TestMetricsListener(t *testing.T) {
	testutil.Slow(t)
	env := proctest.Env(t, pgtest.NewDatabase(t))
	env["MEDISHARE_METRICS_ADDR"] = fmt.Sprintf("127.0.0.1:%d", pgtest.FreePort(t))
	startProgram(t, env, io.Discard)
	base := proctest.Base(env)
	proctest.WaitStatus(t, base+"/readyz", http.StatusOK)
	if resp, err := http.Get(base + "/api/users/profile"); err == nil {
		resp.Body.Close()
	}
	// An upload, its preview rendered, a mail sent and a stream open.
	token, patientID := proctest.SignInDemoProvider(t, env)
	upload := proctest.ProbePNG(t, 64)
	proctest.Preview(t, base, token, proctest.MustUpload(t, base, token, patientID, "p.png", upload), http.StatusOK)
	if status, _ := proctest.APIJSON(t, "POST", base+"/api/auth/forgot-password", "", map[string]string{"email": proctest.ReadDemoAccount(t, env, "patient").Email}); status != http.StatusOK {
		t.Fatalf("forgot-password: %d", status)
	}
	proctest.OpenStream(t, base, token, "")
	scrape := func() string {
		b, status := proctest.Fetch(t, "http://"+env["MEDISHARE_METRICS_ADDR"]+"/metrics", "")
		if status != http.StatusOK {
			t.Fatalf("metrics: %d", status)
		}
		return string(b)
	}
	// The mail goes out after the answer.
	testutil.Eventually(t, "the mail to be sent", func() bool { return strings.Contains(scrape(), "medishare_mail_sent_total 1") })
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
	testutil.Slow(t)
	env := proctest.Env(t, pgtest.NewDatabase(t))
	var logs proctest.Buffer
	startProgram(t, env, &logs)
	base := proctest.Base(env)
	proctest.WaitStatus(t, base+"/readyz", http.StatusOK)
	token, userID := proctest.SignInDemo(t, env, "patient")
	image := "00000000-0000-4000-8000-000000000000"
	if status, _ := proctest.APIJSON(t, "GET", base+"/api/upload/image/"+image, token, nil); status != http.StatusNotFound {
		t.Fatalf("status %d", status)
	}
	testutil.Eventually(t, "the request's log line", func() bool { return strings.Contains(logs.String(), "route=/api/upload/image/{id}") })
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

// metricValue is the value of one series in a Prometheus text scrape.
func metricValue(t *testing.T, scrape, series string) float64 {
	t.Helper()
	v, ok := proctest.ParseMetrics(scrape)[series]
	if !ok {
		t.Fatalf("no series %s", series)
	}
	return v
}
