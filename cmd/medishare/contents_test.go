package main

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/store/postgres"
	"github.com/medishare/medishare/internal/testutil/pgtest"
)

// runCommand runs this binary as the real program with args, returning its
// stdout, stderr and exit code.
func runCommand(t *testing.T, env map[string]string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = []string{"MEDISHARE_TEST_RUN_MAIN=1", "PATH=" + os.Getenv("PATH")}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return stdout.String(), stderr.String(), exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), 0
}

// TestContentsVerifyAndTheScrub: `medishare contents verify` reads every
// stored file and names a damaged one (exit 1), and the server's periodic
// scrub finds and audits it too.
func TestContentsVerifyAndTheScrub(t *testing.T) {
	dbURL := pgtest.NewDatabase(t)
	env := devEnv(t, dbURL)
	env["MEDISHARE_SCRUB_EVERY"] = "0"
	base := "http://" + env["MEDISHARE_ADDR"]
	server := startProgram(t, env, io.Discard)
	waitStatus(t, base+"/readyz", http.StatusOK)
	token, patientID := signInDemoProvider(t, env, base)
	good := benchUpload(t, base, token, patientID, "good.pdf", []byte("%PDF-1.4\n"+strings.Repeat("good ", 30000)+"\n%%EOF\n"))
	bad := benchUpload(t, base, token, patientID, "bad.pdf", []byte("%PDF-1.4\n"+strings.Repeat("bad ", 30000)+"\n%%EOF\n"))
	if err := server.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = server.Wait() // "signal: killed", from the line above

	if out, errOut, code := runCommand(t, env, "contents", "verify"); code != 0 || out != "" || !strings.Contains(errOut, "all 2 images intact") {
		t.Fatalf("intact: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	path := filepath.Join(env["MEDISHARE_DATA_DIR"], "blobs", "images", bad)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-100] ^= 0x01 // in the last chunk, which a download reaches last
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCommand(t, env, "contents", "verify")
	if code != 1 || !strings.Contains(out, "damaged: image "+bad+": contents: chunk 1") || strings.Contains(out, good) ||
		!strings.Contains(errOut, "1 of 2 images damaged") {
		t.Fatalf("damaged: exit %d, stdout %q, stderr %q", code, out, errOut)
	}

	db, err := postgres.Open(t.Context(), dbURL, postgres.PoolOptions{MaxConns: 2, StatementTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	store := postgres.NewStore(db)
	failures := func() int {
		actions, err := store.AuditActions(t.Context(), "images", bad)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Count(strings.Join(actions, " "), "integrity_failure:")
	}
	if n := failures(); n != 1 {
		t.Fatalf("%d integrity_failure entries after the command", n)
	}

	// The server's scrub, as if neither image had been checked yet.
	if _, err := db.Pool.Exec(t.Context(), "UPDATE content_checks SET checked_at = NULL, failed_at = NULL, failure = NULL"); err != nil {
		t.Fatal(err)
	}
	env["MEDISHARE_SCRUB_EVERY"] = "50ms"
	startProgram(t, env, io.Discard)
	waitStatus(t, base+"/readyz", http.StatusOK)
	deadline := time.Now().Add(20 * time.Second)
	for failures() != 2 {
		if time.Now().After(deadline) {
			t.Fatal("the server's scrub did not report the damaged image")
		}
		time.Sleep(100 * time.Millisecond)
	}
	status, err := store.ScrubStatus(t.Context())
	if err != nil || status.Failing != 1 || status.Failures[0].ImageID != bad {
		t.Fatalf("status: %+v %v", status, err)
	}
}
