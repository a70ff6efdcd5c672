// Package proctest runs the real program as a process, as it runs in
// production, and talks to it as clients do: its development
// environment on a fresh database, start and readiness, the demo
// accounts, uploads and downloads, message streams and metrics. The
// process tests of cmd/medishare and the benchmarks of internal/bench
// share it.
package proctest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/pgtest"
)

// Program is how a test runs the server: the executable, and what its
// environment needs besides the settings.
type Program struct {
	Path string
	Env  []string
}

// Self is the running test binary as the program: cmd/medishare's TestMain
// runs main, with that package's test hooks, when MEDISHARE_TEST_RUN_MAIN
// is 1. Only cmd/medishare's tests may use it.
func Self() Program {
	return Program{Path: os.Args[0], Env: []string{"MEDISHARE_TEST_RUN_MAIN=1"}}
}

// Built is the server as `make build` makes it, bin/medishare; the test
// fails when it is missing.
func Built(t testing.TB) Program {
	t.Helper()
	bin := filepath.Join(pgtest.RepoRoot(), "bin", "medishare")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s is missing: run 'make build' first", bin)
	}
	return Program{Path: bin}
}

// Env is a working development environment on the database at
// databaseURL: a free port on 127.0.0.1, which is also its public address
// (the links it writes lead where the tests connect; no passkeys, which
// need a host name), a data folder of the test's own, text logs.
func Env(t testing.TB, databaseURL string) map[string]string {
	addr := fmt.Sprintf("127.0.0.1:%d", pgtest.FreePort(t))
	return map[string]string{
		"MEDISHARE_ENV":        "development",
		"MEDISHARE_ADDR":       addr,
		"MEDISHARE_PUBLIC_URL": "http://" + addr,
		"MEDISHARE_DATA_DIR":   t.TempDir(),
		"DATABASE_URL":         databaseURL,
		"MEDISHARE_LOG_FORMAT": "text",
	}
}

// Base is the server's address in env, as a URL.
func Base(env map[string]string) string { return "http://" + env["MEDISHARE_ADDR"] }

func (p Program) command(env map[string]string, args ...string) *exec.Cmd {
	cmd := exec.Command(p.Path, args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, p.Env...)
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	return cmd
}

// Start runs `serve` with the settings in env, its log to stderr, and
// kills it when the test ends (if it is still running).
func Start(t testing.TB, p Program, env map[string]string, stderr io.Writer) *exec.Cmd {
	t.Helper()
	cmd := p.command(env, "serve")
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

// Run runs the program with args to its end, returning its stdout,
// stderr and exit code.
func Run(t testing.TB, p Program, env map[string]string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := p.command(env, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return out.String(), errOut.String(), exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return out.String(), errOut.String(), 0
}

// WaitStatus waits until url answers want.
func WaitStatus(t testing.TB, url string, want int) {
	t.Helper()
	testutil.Eventually(t, fmt.Sprintf("%s to answer %d", url, want), func() bool {
		resp, err := http.Get(url)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == want
	})
}

// Buffer is a buffer a child process's output may be written to while
// the test reads it.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
