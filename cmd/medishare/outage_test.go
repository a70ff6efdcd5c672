package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/pgtest"
	"github.com/medishare/medishare/internal/testutil/proctest"
	"github.com/medishare/medishare/internal/testutil/s3test"
)

// waitEvent waits for the event of message id on *stream; a stream the
// server ended is opened again from lastSeen, as a browser's EventSource
// does, unless token is empty.
func waitEvent(t *testing.T, base, token string, stream *<-chan string, id, lastSeen string) {
	t.Helper()
	deadline := time.After(testutil.EventuallyTimeout)
	for {
		select {
		case got, open := <-*stream:
			if !open {
				if token == "" {
					t.Fatalf("the stream ended before message %s came", id)
				}
				*stream = proctest.OpenStream(t, base, token, lastSeen)
				continue
			}
			if got == id {
				return
			}
			lastSeen = got
		case <-deadline:
			t.Fatalf("no event for message %s within %s", id, testutil.EventuallyTimeout)
		}
	}
}

// waitListening waits until an instance listens for events on the
// database at dbURL again (after a restart: its LISTEN connection comes
// back by itself, after 1 s and then longer, up to 10 s): a backend whose
// last statement, LISTEN, has finished.
func waitListening(t *testing.T, dbURL string) {
	t.Helper()
	testutil.Eventually(t, "the server's LISTEN connection", func() bool {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, dbURL)
		if err != nil {
			return false
		}
		defer func() { _ = conn.Close(ctx) }() // read only
		var n int
		err = conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%' AND state = 'idle'`).Scan(&n)
		return err == nil && n > 0
	})
}

// The answers while the database or the file store is down.
const (
	databaseDown = "The service is temporarily unavailable."
	storageDown  = "The file store is temporarily unavailable."
)

// expectUnavailable: the call answers 503 with the product's message
// (S27). That it fails fast rests on what the stores do with a dependency
// that is down, tested beside them (internal/blob TestS3Unavailable and
// internal/store/postgres).
func expectUnavailable(t *testing.T, want, what, method, url, token string, body io.Reader, contentType string) {
	t.Helper()
	status, message := call(t, method, url, token, body, contentType)
	if status != http.StatusServiceUnavailable || message != want {
		t.Errorf("%s while a dependency is down: %d %q, want 503 %q", what, status, message, want)
	}
}

// call makes one API call and returns its status and its message.
func call(t *testing.T, method, url, token string, body io.Reader, contentType string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, body)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	var out struct{ Message string }
	_ = json.NewDecoder(resp.Body).Decode(&out) // a download has no message
	return resp.StatusCode, out.Message
}

func sendMessage(t *testing.T, base, token, to, text string) string {
	t.Helper()
	status, body := proctest.APIJSON(t, "POST", base+"/api/message/send", token, map[string]string{"recipientId": to, "content": text})
	var out struct{ Data struct{ ID string } }
	if status != http.StatusCreated || json.Unmarshal([]byte(body), &out) != nil {
		t.Fatalf("send: %d %s", status, body)
	}
	return out.Data.ID
}

// TestDatabaseOutage stops PostgreSQL under a running server with a
// message stream open: calls answer 503, /healthz stays 200, and when
// PostgreSQL returns, service resumes by itself, the stream's events and
// the instance's LISTEN connection included (S27).
func TestDatabaseOutage(t *testing.T) {
	testutil.Slow(t)
	cluster := pgtest.StartCluster(t)
	env := proctest.Env(t, cluster.URL)
	base := proctest.Base(env)
	startProgram(t, env, io.Discard)
	proctest.WaitStatus(t, base+"/readyz", http.StatusOK)
	provider, patientID := proctest.SignInDemoProvider(t, env)
	patient, _ := proctest.SignInDemo(t, env, "patient")
	stream := proctest.OpenStream(t, base, patient, "")
	before := sendMessage(t, base, provider, patientID, "Before the outage")
	waitEvent(t, base, patient, &stream, before, "")

	cluster.Stop(t)
	proctest.WaitStatus(t, base+"/readyz", http.StatusServiceUnavailable)
	proctest.WaitStatus(t, base+"/healthz", http.StatusOK)
	expectUnavailable(t, databaseDown, "the image list", "GET", base+"/api/upload/my-images", provider, nil, "")
	expectUnavailable(t, databaseDown, "a sign-in", "POST", base+"/api/auth/login", "",
		strings.NewReader(`{"email":"someone@clinic.test","password":"whatever it is"}`), "application/json")
	expectUnavailable(t, databaseDown, "a message", "POST", base+"/api/message/send", provider,
		strings.NewReader(fmt.Sprintf(`{"recipientId":%q,"content":"lost?"}`, patientID)), "application/json")

	cluster.Start(t)
	proctest.WaitStatus(t, base+"/readyz", http.StatusOK)
	after := sendMessage(t, base, provider, patientID, "After the outage")
	waitEvent(t, base, patient, &stream, after, before)
	// A new stream gets a new message live, which only the instance's
	// LISTEN connection brings: no replay.
	waitListening(t, cluster.URL)
	live := proctest.OpenStream(t, base, patient, "")
	waitEvent(t, base, "", &live, sendMessage(t, base, provider, patientID, "Live again"), "")
}

// TestStorageOutage stops the S3 server under a running server: readiness
// fails, uploads and downloads answer 503, and both work again by
// themselves when it returns (S27).
func TestStorageOutage(t *testing.T) {
	testutil.Slow(t)
	s3 := s3test.StartServer(t)
	env := proctest.Env(t, pgtest.NewDatabase(t))
	env["MEDISHARE_STORAGE"] = "s3"
	env["S3_ENDPOINT"], env["S3_REGION"], env["S3_BUCKET"] = s3.Config.Endpoint, s3.Config.Region, s3.Config.Bucket
	env["S3_ACCESS_KEY_ID"], env["S3_SECRET_ACCESS_KEY"], env["S3_PATH_STYLE"] = s3.Config.AccessKeyID, s3.Config.SecretAccessKey, "true"
	base := proctest.Base(env)
	startProgram(t, env, io.Discard)
	proctest.WaitStatus(t, base+"/readyz", http.StatusOK)
	token, patientID := proctest.SignInDemoProvider(t, env)
	content := proctest.ProbePNG(t, 48)
	id := proctest.MustUpload(t, base, token, patientID, "before.png", content)

	s3.Stop(t)
	proctest.WaitStatus(t, base+"/readyz", http.StatusServiceUnavailable)
	expectUnavailable(t, storageDown, "a download", "GET", base+"/api/upload/image/"+id+"/content", token, nil, "")
	body, contentType := proctest.UploadForm("outage", patientID, "during.png", content)
	expectUnavailable(t, storageDown, "an upload", "POST", base+"/api/upload/image", token, body, contentType)
	if status, _ := call(t, "GET", base+"/api/upload/my-images", token, nil, ""); status != http.StatusOK {
		t.Errorf("the image list (no contents needed) while the storage is down: %d", status)
	}

	s3.Start(t)
	proctest.WaitStatus(t, base+"/readyz", http.StatusOK)
	proctest.Download(t, base, token, id, len(content))
	proctest.MustUpload(t, base, token, patientID, "after.png", content)
}

// TestSIGTERMWithUploadsAndStreams sends SIGTERM while an upload's body is
// still arriving and a message stream is open: the rest of the body comes
// once the listener has closed, and the upload finishes (201); the stream
// ends; the process exits 0 (S26).
func TestSIGTERMWithUploadsAndStreams(t *testing.T) {
	testutil.Slow(t)
	env := proctest.Env(t, pgtest.NewDatabase(t))
	env["MEDISHARE_DRAIN_DELAY"] = "200ms"
	env["MEDISHARE_TEST_TRACE_REQUESTS"] = "1"
	base := proctest.Base(env)
	var logs proctest.Buffer
	cmd := startProgram(t, env, &logs)
	proctest.WaitStatus(t, base+"/readyz", http.StatusOK)
	token, patientID := proctest.SignInDemoProvider(t, env)
	stream := proctest.OpenStream(t, base, token, "")

	body, contentType := proctest.UploadForm("outage", patientID, "slow.png", proctest.ProbePNG(t, 256))
	whole, _ := io.ReadAll(body)
	pr, pw := io.Pipe()
	rest := make(chan struct{})
	go func() {
		_, _ = pw.Write(whole[:len(whole)/2])
		<-rest
		_, _ = pw.Write(whole[len(whole)/2:])
		_ = pw.Close()
	}()
	uploaded := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest("POST", base+"/api/upload/image", pr)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", contentType)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			uploaded <- 0
			return
		}
		resp.Body.Close()
		uploaded <- resp.StatusCode
	}()
	testutil.Eventually(t, "the upload to reach the server's handlers", func() bool {
		return strings.Contains(logs.String(), reachedMark+"POST /api/upload/image\n")
	})
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the listener to close", func() bool { return strings.Contains(logs.String(), shutdownMark) })
	close(rest)
	waitEnded(t, stream)
	if status := <-uploaded; status != http.StatusCreated {
		t.Errorf("the upload in flight at SIGTERM answered %d, want 201\n%s", status, logs.String())
	}
	waitExit(t, cmd, &logs)
}
