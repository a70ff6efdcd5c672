package main

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/pgtest"
	"github.com/medishare/medishare/internal/testutil/proctest"
)

// TestMessagesSurviveADatabaseRestart: the server's listening connection
// comes back by itself after PostgreSQL restarts, so a message sent after
// the restart reaches a stream opened after it, with nothing restarted but
// the database.
func TestMessagesSurviveADatabaseRestart(t *testing.T) {
	testutil.Slow(t)
	cluster := pgtest.StartCluster(t)
	env := proctest.Env(t, cluster.URL)
	base := proctest.Base(env)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve"}, func(k string) string { return env[k] }, io.Discard, io.Discard)
	}()
	proctest.WaitStatus(t, base+"/readyz", http.StatusOK)
	providerToken, patientID := proctest.SignInDemoProvider(t, env)
	patientToken, _ := proctest.SignInDemo(t, env, "patient")

	cluster.Stop(t)
	proctest.WaitStatus(t, base+"/readyz", http.StatusServiceUnavailable)
	cluster.Start(t)
	proctest.WaitStatus(t, base+"/readyz", http.StatusOK)

	// Until the listening connection is back, a message is stored but not
	// delivered live; once it is, one is.
	waitListening(t, cluster.URL)
	stream := proctest.OpenStream(t, base, patientToken, "")
	waitEvent(t, base, "", &stream, sendMessage(t, base, providerToken, patientID, "after the restart"), "")
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
}
