package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/store/postgres"
	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/pgtest"
	"github.com/medishare/medishare/internal/testutil/proctest"
)

// TestContentsVerifyAndTheScrub: `medishare contents verify` reads every
// stored file and names a damaged one (exit 1), and the server's periodic
// scrub finds and audits it too.
func TestContentsVerifyAndTheScrub(t *testing.T) {
	testutil.Slow(t)
	dbURL := pgtest.NewDatabase(t)
	env := proctest.Env(t, dbURL)
	env["MEDISHARE_SCRUB_EVERY"] = "0"
	base := proctest.Base(env)
	server := startProgram(t, env, io.Discard)
	proctest.WaitStatus(t, base+"/readyz", http.StatusOK)
	token, patientID := proctest.SignInDemoProvider(t, env)
	good := proctest.MustUpload(t, base, token, patientID, "good.pdf", []byte("%PDF-1.4\n"+strings.Repeat("good ", 30000)+"\n%%EOF\n"))
	bad := proctest.MustUpload(t, base, token, patientID, "bad.pdf", []byte("%PDF-1.4\n"+strings.Repeat("bad ", 30000)+"\n%%EOF\n"))
	if err := server.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = server.Wait() // "signal: killed", from the line above

	if out, errOut, code := proctest.Run(t, proctest.Self(), env, "contents", "verify"); code != 0 || out != "" || !strings.Contains(errOut, "all 2 images intact") {
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
	out, errOut, code := proctest.Run(t, proctest.Self(), env, "contents", "verify")
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
		return testutil.AuditCount(t, db.Pool, testutil.Audit{Action: string(domain.ActionIntegrityFailure), Table: string(domain.TableImages), Record: bad})
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
	proctest.WaitStatus(t, base+"/readyz", http.StatusOK)
	testutil.Eventually(t, "the server's scrub to report the damaged image", func() bool { return failures() == 2 })
	status, err := store.ScrubStatus(t.Context())
	if err != nil || status.Failing != 1 || status.Failures[0].ImageID != bad {
		t.Fatalf("status: %+v %v", status, err)
	}
}
