package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/pgtest"
	"github.com/medishare/medishare/internal/testutil/proctest"
)

// pgTool finds a PostgreSQL client program as scripts/pg.sh finds the
// server's: the newest version installed.
func pgTool(t *testing.T, name string) string {
	t.Helper()
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/" + name)
	sort.Slice(found, func(i, j int) bool { return versionOf(found[i]) > versionOf(found[j]) })
	if len(found) > 0 {
		return found[0]
	}
	path, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s not found: scripts/pg.sh installs PostgreSQL", name)
	}
	return path
}

func versionOf(path string) int {
	v := 0
	for _, c := range filepath.Base(filepath.Dir(filepath.Dir(path))) {
		if c >= '0' && c <= '9' {
			v = v*10 + int(c-'0')
		}
	}
	return v
}

func runTool(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(pgTool(t, name), args...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, out)
	}
}

// TestBackupAndRestore follows docs/operations.md ("Backups", "Restore"): a
// dump of the database, a copy of the contents and the master key, restored
// into an empty database and a new folder, pass `migrate status`, `audit
// verify` and `contents verify`, and serve the same image and message; the
// same backup under another master key is refused.
func TestBackupAndRestore(t *testing.T) {
	testutil.Slow(t)
	env := proctest.Env(t, pgtest.NewDatabase(t))
	env["MEDISHARE_MASTER_KEY"] = newMasterKey(t)
	base := proctest.Base(env)
	cmd := startProgram(t, env, io.Discard)
	proctest.WaitStatus(t, base+"/readyz", http.StatusOK)
	token, patientID := proctest.SignInDemoProvider(t, env)
	content := proctest.ProbePNG(t, 40)
	image := proctest.MustUpload(t, base, token, patientID, "kept.png", content)
	const text = "Your results are in."
	sendMessage(t, base, token, patientID, text)
	if err := cmd.Process.Kill(); err != nil { // the backup does not need the server stopped; the test's checks do
		t.Fatal(err)
	}
	_ = cmd.Wait() // "signal: killed"

	// Backup: the dump first, then the contents.
	dump := filepath.Join(t.TempDir(), "medishare.dump")
	runTool(t, "pg_dump", "--format=custom", "--file="+dump, env["DATABASE_URL"])
	restored := map[string]string{}
	for k, v := range env {
		restored[k] = v
	}
	restored["MEDISHARE_DATA_DIR"] = t.TempDir()
	restored["DATABASE_URL"] = pgtest.NewEmptyDatabase(t)
	copyTree(t, filepath.Join(env["MEDISHARE_DATA_DIR"], "blobs"), filepath.Join(restored["MEDISHARE_DATA_DIR"], "blobs"))
	copyTree(t, filepath.Join(env["MEDISHARE_DATA_DIR"], "demo-accounts.json"), filepath.Join(restored["MEDISHARE_DATA_DIR"], "demo-accounts.json"))

	// Restore, then the three checks.
	runTool(t, "pg_restore", "--dbname="+restored["DATABASE_URL"], "--no-owner", "--exit-on-error", "--single-transaction", dump)
	getenv := func(k string) string { return restored[k] }
	for _, check := range []struct {
		args []string
		want string
	}{
		{[]string{"migrate", "status"}, "applied"},
		{[]string{"audit", "verify"}, "audit log intact"},
		{[]string{"contents", "verify"}, "all 1 images intact"},
	} {
		var out bytes.Buffer
		if err := run(context.Background(), check.args, getenv, &out, &out); err != nil || !strings.Contains(out.String(), check.want) {
			t.Fatalf("medishare %s: %v\n%s", strings.Join(check.args, " "), err, out.String())
		}
	}
	restoredBase := "http://" + restored["MEDISHARE_ADDR"]
	startProgram(t, restored, io.Discard)
	proctest.WaitStatus(t, restoredBase+"/readyz", http.StatusOK)
	token, _ = proctest.SignInDemoProvider(t, restored)
	proctest.Download(t, restoredBase, token, image, len(content))
	if status, body := proctest.APIJSON(t, "GET", restoredBase+"/api/message/chat/"+patientID, token, nil); status != http.StatusOK || !strings.Contains(body, text) {
		t.Fatalf("the message after the restore: %d %s", status, body)
	}

	// Without its master key the backup is unreadable: the program does
	// not start on it, and says why (the audit chain's key is sealed under
	// the master key, like every file's).
	restored["MEDISHARE_MASTER_KEY"] = newMasterKey(t)
	var out bytes.Buffer
	if err := run(context.Background(), []string{"contents", "verify"}, getenv, &out, &out); err == nil || !strings.Contains(err.Error(), "sealed under another master key") {
		t.Fatalf("contents verify under another master key: %v\n%s", err, out.String())
	}
}

// copyTree copies a file or a folder, as a bucket copy would.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.Walk(from, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		dst := filepath.Join(to, rel)
		if info.IsDir() {
			return os.MkdirAll(dst, 0o700)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}
