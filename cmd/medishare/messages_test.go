package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/testutil/pgtest"
)

// TestMessagesSurviveADatabaseRestart: the server's listening connection
// comes back by itself after PostgreSQL restarts, so a message sent after
// the restart reaches a stream opened after it, with nothing restarted but
// the database.
func TestMessagesSurviveADatabaseRestart(t *testing.T) {
	cluster := pgtest.StartCluster(t)
	env := devEnv(t, cluster.URL)
	base := "http://" + env["MEDISHARE_ADDR"]
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve"}, func(k string) string { return env[k] }, io.Discard, io.Discard)
	}()
	waitStatus(t, base+"/readyz", http.StatusOK)
	providerToken, patientID := signInDemoProvider(t, env, base)
	patientToken, _ := signInDemo(t, env, base, "patient")

	cluster.Stop(t)
	waitStatus(t, base+"/readyz", http.StatusServiceUnavailable)
	cluster.Start(t)
	waitStatus(t, base+"/readyz", http.StatusOK)

	ids := streamIDs(t, base, patientToken)
	deadline := time.Now().Add(20 * time.Second)
	for attempt := 0; ; attempt++ {
		// Until the listening connection is back (it waits 1 s, then longer,
		// between tries), a message is stored but not yet delivered live.
		status, body := apiJSON(t, "POST", base+"/api/message/send", providerToken, map[string]string{"recipientId": patientID, "content": "after the restart"})
		if status != http.StatusCreated {
			t.Fatalf("send: %d %s", status, body)
		}
		select {
		case id, open := <-ids:
			if !open {
				t.Fatal("the stream ended")
			}
			if !strings.Contains(body, id) {
				t.Fatalf("got message %s, sent %s", id, body)
			}
			cancel()
			if err := <-done; err != nil {
				t.Fatalf("serve: %v", err)
			}
			return
		case <-time.After(2 * time.Second):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no message reached a stream %d tries after the database restarted", attempt+1)
		}
	}
}

// streamIDs opens a message stream and gives the ids of its message events;
// the channel closes when the stream ends.
func streamIDs(t testing.TB, base, token string) <-chan string {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/api/message/stream", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("stream: %v %v", resp, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	ids := make(chan string, 16)
	go func() {
		defer close(ids) // the stream ended
		lines := bufio.NewScanner(resp.Body)
		for lines.Scan() {
			if id, ok := strings.CutPrefix(lines.Text(), "id: "); ok {
				ids <- id
			}
		}
	}()
	return ids
}
