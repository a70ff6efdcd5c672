package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/pgtest"
	"github.com/medishare/medishare/internal/testutil/proctest"
	"github.com/medishare/medishare/internal/testutil/s3test"
)

// TestServeWithS3Storage runs the real program against a real S3 server.
func TestServeWithS3Storage(t *testing.T) {
	testutil.Slow(t)
	s3 := s3test.Start(t)
	env := proctest.Env(t, pgtest.NewDatabase(t))
	env["MEDISHARE_STORAGE"] = "s3"
	env["S3_ENDPOINT"], env["S3_REGION"], env["S3_BUCKET"] = s3.Endpoint, s3.Region, s3.Bucket
	env["S3_ACCESS_KEY_ID"], env["S3_SECRET_ACCESS_KEY"], env["S3_PATH_STYLE"] = s3.AccessKeyID, s3.SecretAccessKey, "true"
	var logs bytes.Buffer
	startProgram(t, env, &logs)
	proctest.WaitStatus(t, proctest.Base(env)+"/readyz", http.StatusOK)
}

// TestCrashBetweenContentsAndRecord kills the server while an upload's
// contents are stored but its record is not: no record points at missing
// contents, and the janitor removes the orphan (S24).
func TestCrashBetweenContentsAndRecord(t *testing.T) {
	testutil.Slow(t)
	dbURL := pgtest.NewDatabase(t)
	env := proctest.Env(t, dbURL)
	var logs bytes.Buffer
	cmd := startProgram(t, env, &logs)
	base := proctest.Base(env)
	proctest.WaitStatus(t, base+"/readyz", http.StatusOK)
	token, patientID := proctest.SignInDemoProvider(t, env)

	// The file goes first and the patient last, and the body stops there:
	// the server has stored the contents and waits for the rest of the form.
	conn, err := net.Dial("tcp", env["MEDISHARE_ADDR"])
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }() // the server is killed below: nothing to check
	const b = "crash-boundary"
	file := "%PDF-1.4\n" + strings.Repeat("x", 100<<10) + "\n%%EOF\n"
	part := fmt.Sprintf("--%s\r\nContent-Disposition: form-data; name=\"caption\"\r\n\r\ncrash\r\n--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=\"c.pdf\"\r\n\r\n%s\r\n--%s\r\nContent-Disposition: form-data; name=\"patientId\"\r\n\r\n",
		b, b, file, b)
	if _, err := fmt.Fprintf(conn, "POST /api/upload/image HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer %s\r\nContent-Type: multipart/form-data; boundary=%s\r\nContent-Length: %d\r\n\r\n%s",
		token, b, len(part)+len(patientID)+len(b)+10, part); err != nil {
		t.Fatal(err)
	}
	// Contents only: the store also holds the audit chain's checkpoint.
	blobs := filepath.Join(env["MEDISHARE_DATA_DIR"], "blobs", "images")
	testutil.Eventually(t, "the contents to be stored", func() bool { return countObjects(blobs) > 0 })
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	ctx := context.Background()
	db, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close(ctx) }() // read only: nothing to lose
	var records int
	if err := db.QueryRow(ctx, "SELECT count(*) FROM images").Scan(&records); err != nil || records != 0 {
		t.Fatalf("records after the crash: %d %v", records, err)
	}
	// An hour later the janitor, at the next start, removes the orphan.
	old := time.Now().Add(-2 * time.Hour)
	err = filepath.WalkDir(blobs, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return os.Chtimes(p, old, old)
	})
	if err != nil {
		t.Fatal(err)
	}
	startProgram(t, env, io.Discard)
	proctest.WaitStatus(t, base+"/readyz", http.StatusOK)
	testutil.Eventually(t, "the janitor to remove the orphan", func() bool { return countObjects(blobs) == 0 })
}

func countObjects(dir string) int {
	n := 0
	// Polled while the server writes: what cannot be read is not counted, so
	// the callback returns no error and neither does WalkDir.
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasPrefix(d.Name(), ".") {
			n++
		}
		return nil
	})
	return n
}
