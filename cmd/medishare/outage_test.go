package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/testutil/pgtest"
	"github.com/medishare/medishare/internal/testutil/s3test"
)

// eventStream is an open GET /api/message/stream: the ids of the events
// it received, and a channel closed when the server ends it.
type eventStream struct {
	ids   chan string
	ended chan struct{}
	body  io.Closer
}

func openStream(t *testing.T, base, token, lastEventID string) *eventStream {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/api/message/stream", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("stream: %v %v", resp, err)
	}
	s := &eventStream{ids: make(chan string, 100), ended: make(chan struct{}), body: resp.Body}
	t.Cleanup(func() { resp.Body.Close() })
	go func() {
		defer close(s.ended)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if id, ok := strings.CutPrefix(sc.Text(), "id: "); ok {
				s.ids <- id
			}
		}
	}()
	return s
}

// waitEvent waits for the event of message id; a stream the server ended
// is opened again from lastSeen, as a browser's EventSource does, unless
// token is empty.
func (s *eventStream) waitEvent(t *testing.T, base, token, id, lastSeen string, within time.Duration) {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case got := <-s.ids:
			if got == id {
				return
			}
			lastSeen = got
		case <-s.ended:
			if token == "" {
				t.Fatalf("the stream ended before message %s came", id)
			}
			*s = *openStream(t, base, token, lastSeen)
		case <-deadline:
			t.Fatalf("no event for message %s within %s", id, within)
		}
	}
}

// timedCall makes one API call and returns its status, its message and how
// long the answer took.
func timedCall(t *testing.T, method, url, token string, body io.Reader, contentType string) (int, string, time.Duration) {
	t.Helper()
	req, _ := http.NewRequest(method, url, body)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	took := time.Since(start)
	var out struct{ Message string }
	_ = json.NewDecoder(resp.Body).Decode(&out) // a download has no message
	return resp.StatusCode, out.Message, took
}

// The answers while the database or the file store is down.
const (
	databaseDown = "The service is temporarily unavailable."
	storageDown  = "The file store is temporarily unavailable."
)

// expectUnavailable: the call answers 503 with the product's message within
// two seconds (S27).
func expectUnavailable(t *testing.T, want, what, method, url, token string, body io.Reader, contentType string) {
	t.Helper()
	status, message, took := timedCall(t, method, url, token, body, contentType)
	if status != http.StatusServiceUnavailable || message != want || took > 2*time.Second {
		t.Errorf("%s while a dependency is down: %d %q after %s, want 503 %q within 2 s", what, status, message, took, want)
	}
}

func sendMessage(t *testing.T, base, token, to, text string) string {
	t.Helper()
	status, body := apiJSON(t, "POST", base+"/api/message/send", token, map[string]string{"recipientId": to, "content": text})
	var out struct{ Data struct{ ID string } }
	if status != http.StatusCreated || json.Unmarshal([]byte(body), &out) != nil {
		t.Fatalf("send: %d %s", status, body)
	}
	return out.Data.ID
}

// TestDatabaseOutage stops PostgreSQL under a running server with a
// message stream open: calls answer 503 within 2 s, /healthz stays 200,
// and when PostgreSQL returns, service resumes by itself, the stream's
// events and the instance's LISTEN connection included (S27).
func TestDatabaseOutage(t *testing.T) {
	cluster := pgtest.StartCluster(t)
	env := devEnv(t, cluster.URL)
	base := "http://" + env["MEDISHARE_ADDR"]
	startProgram(t, env, io.Discard)
	waitStatus(t, base+"/readyz", http.StatusOK)
	provider, patientID := signInDemoProvider(t, env, base)
	patient, _ := signInDemo(t, env, base, "patient")
	stream := openStream(t, base, patient, "")
	before := sendMessage(t, base, provider, patientID, "Before the outage")
	stream.waitEvent(t, base, patient, before, "", 10*time.Second)

	cluster.Stop(t)
	waitStatus(t, base+"/readyz", http.StatusServiceUnavailable)
	waitStatus(t, base+"/healthz", http.StatusOK)
	expectUnavailable(t, databaseDown, "the image list", "GET", base+"/api/upload/my-images", provider, nil, "")
	expectUnavailable(t, databaseDown, "a sign-in", "POST", base+"/api/auth/login", "",
		strings.NewReader(`{"email":"someone@clinic.test","password":"whatever it is"}`), "application/json")
	expectUnavailable(t, databaseDown, "a message", "POST", base+"/api/message/send", provider,
		strings.NewReader(fmt.Sprintf(`{"recipientId":%q,"content":"lost?"}`, patientID)), "application/json")

	cluster.Start(t)
	returned := time.Now()
	waitStatus(t, base+"/readyz", http.StatusOK)
	after := sendMessage(t, base, provider, patientID, "After the outage")
	stream.waitEvent(t, base, patient, after, before, 20*time.Second)
	// A new stream gets a new message live, which only the instance's
	// LISTEN connection brings (it reconnects within 10 s): no replay.
	live := openStream(t, base, patient, "")
	deadline := time.Now().Add(20 * time.Second)
	sent := map[string]bool{}
	for {
		sent[sendMessage(t, base, provider, patientID, "Live again")] = true
		select {
		case got := <-live.ids:
			if !sent[got] {
				t.Fatalf("event %s, not one of the messages sent", got)
			}
		case <-live.ended:
			t.Fatal("the new stream ended")
		case <-time.After(time.Second):
			if time.Now().Before(deadline) {
				continue // LISTEN is not back yet
			}
			t.Fatal("no live event 20 s after the database returned")
		}
		break
	}
	t.Logf("service and events back %s after the database", time.Since(returned).Round(100*time.Millisecond))
}

// TestStorageOutage stops the S3 server under a running server: readiness
// fails, uploads and downloads answer 503 within 2 s, and both work again
// by themselves when it returns (S27).
func TestStorageOutage(t *testing.T) {
	s3 := s3test.StartServer(t)
	env := devEnv(t, pgtest.NewDatabase(t))
	env["MEDISHARE_STORAGE"] = "s3"
	env["S3_ENDPOINT"], env["S3_REGION"], env["S3_BUCKET"] = s3.Config.Endpoint, s3.Config.Region, s3.Config.Bucket
	env["S3_ACCESS_KEY_ID"], env["S3_SECRET_ACCESS_KEY"], env["S3_PATH_STYLE"] = s3.Config.AccessKeyID, s3.Config.SecretAccessKey, "true"
	base := "http://" + env["MEDISHARE_ADDR"]
	startProgram(t, env, io.Discard)
	waitStatus(t, base+"/readyz", http.StatusOK)
	token, patientID := signInDemoProvider(t, env, base)
	content := probePNGOf(t, 48)
	id := benchUpload(t, base, token, patientID, "before.png", content)

	s3.Stop(t)
	waitStatus(t, base+"/readyz", http.StatusServiceUnavailable)
	expectUnavailable(t, storageDown, "a download", "GET", base+"/api/upload/image/"+id+"/content", token, nil, "")
	body, contentType := uploadForm("outage", patientID, "during.png", content)
	expectUnavailable(t, storageDown, "an upload", "POST", base+"/api/upload/image", token, body, contentType)
	if status, _, _ := timedCall(t, "GET", base+"/api/upload/my-images", token, nil, ""); status != http.StatusOK {
		t.Errorf("the image list (no contents needed) while the storage is down: %d", status)
	}

	s3.Start(t)
	waitStatus(t, base+"/readyz", http.StatusOK)
	benchDownload(t, base, token, id, len(content))
	benchUpload(t, base, token, patientID, "after.png", content)
}

// TestSIGTERMWithUploadsAndStreams sends SIGTERM while an upload's body is
// still arriving and a message stream is open: the upload finishes (201),
// the stream ends, and the process exits 0 (S26).
func TestSIGTERMWithUploadsAndStreams(t *testing.T) {
	env := devEnv(t, pgtest.NewDatabase(t))
	env["MEDISHARE_DRAIN_DELAY"] = "200ms"
	base := "http://" + env["MEDISHARE_ADDR"]
	var logs syncBuffer
	cmd := startProgram(t, env, &logs)
	waitStatus(t, base+"/readyz", http.StatusOK)
	token, patientID := signInDemoProvider(t, env, base)
	stream := openStream(t, base, token, "")

	body, contentType := uploadForm("outage", patientID, "slow.png", probePNGOf(t, 256))
	whole, _ := io.ReadAll(body)
	pr, pw := io.Pipe()
	half := len(whole) / 2
	sentHalf := make(chan struct{})
	go func() {
		_, _ = pw.Write(whole[:half])
		close(sentHalf)
		time.Sleep(1500 * time.Millisecond) // the rest arrives after SIGTERM
		_, _ = pw.Write(whole[half:])
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
	<-sentHalf
	time.Sleep(200 * time.Millisecond) // the server is reading the body
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-stream.ended:
	case <-time.After(10 * time.Second):
		t.Error("the stream was still open 10 s after SIGTERM")
	}
	if status := <-uploaded; status != http.StatusCreated {
		t.Errorf("the upload in flight at SIGTERM answered %d, want 201\n%s", status, logs.String())
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("process exit: %v\n%s", err, logs.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("process did not exit after SIGTERM")
	}
}
