package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/apptest"
	"github.com/medishare/medishare/internal/testutil/pgtest"
	"github.com/medishare/medishare/internal/testutil/proctest"
)

// blackHole accepts SMTP connections and never answers, like a relay that
// hangs: a sender holds its mail's row until it is killed.
func blackHole(t *testing.T) (port int, connected <-chan struct{}) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() }) // the test is over
	got := make(chan struct{}, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { _ = c.Close() }) // the test is over
			got <- struct{}{}
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port, got
}

// The process is killed (SIGKILL) while its mail relay hangs, with a
// confirmation code, a password reset code and a share code queued: none is
// lost; the next start sends each once, and each code works.
func TestOutboxSurvivesSIGKILL(t *testing.T) {
	testutil.Slow(t)
	dbURL := pgtest.NewDatabase(t)
	env := proctest.Env(t, dbURL)
	base := proctest.Base(env)
	holePort, connected := blackHole(t)
	env["SMTP_HOST"], env["SMTP_PORT"], env["SMTP_TLS"] = "127.0.0.1", fmt.Sprint(holePort), "none"
	var stderr bytes.Buffer
	cmd := startProgram(t, env, &stderr)
	proctest.WaitStatus(t, base+"/readyz", http.StatusOK)
	patient := proctest.ReadDemoAccount(t, env, "patient")
	provider, patientID := proctest.SignInDemoProvider(t, env)

	const newEmail = "new.patient@clinic.test"
	registration := map[string]string{"email": newEmail, "username": "newpatient", "password": "Tulip-Harbour-7-Quartz",
		"role": "patient", "firstname": "New", "lastname": "Patient", "gender": "Other"}
	if status, body := proctest.APIJSON(t, "POST", base+"/api/auth/register", "", registration); status != http.StatusCreated {
		t.Fatalf("register: %d %s", status, body)
	}
	if status, body := proctest.APIJSON(t, "POST", base+"/api/auth/forgot-password", "", map[string]string{"email": patient.Email}); status != http.StatusOK {
		t.Fatalf("forgot-password: %d %s", status, body)
	}
	image := proctest.MustUpload(t, base, provider, patientID, "shared.png", proctest.ProbePNG(t, 32))
	status, body := proctest.APIJSON(t, "POST", base+"/api/sharing/request", provider,
		map[string]any{"imagemetadataId": image, "createdfor": patientID, "expiresInHours": 24})
	var share struct{ Data struct{ ID string } }
	if status != http.StatusCreated || json.Unmarshal([]byte(body), &share) != nil {
		t.Fatalf("share: %d %s", status, body)
	}
	select {
	case <-connected: // a sender holds a mail, the relay never answers
	case <-time.After(testutil.EventuallyTimeout):
		t.Fatalf("no mail was being sent\n%s", stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	box := apptest.StartMailbox(t)
	env["SMTP_PORT"] = fmt.Sprint(box.Port())
	startProgram(t, env, io.Discard)
	proctest.WaitStatus(t, base+"/readyz", http.StatusOK)
	mails := []struct{ to, subject, pattern string }{
		{newEmail, "Your MediShare confirmation code", `confirmation code is (\d{4})`},
		{patient.Email, "Your MediShare password reset code", `reset code is (\d{6})`},
		{patient.Email, "A medical image was shared with you", `Code: (\d{6})`},
	}
	codes := make([]string, len(mails))
	for i, m := range mails {
		codes[i] = box.Code(t, m.to, m.subject, m.pattern)
	}
	// A mail is deleted in the transaction that holds it while it is
	// sent: once the outbox is empty, no copy can follow.
	db, err := pgx.Connect(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close(context.Background()) }() // read only
	testutil.Eventually(t, "the outbox to empty", func() bool {
		var n int
		err := db.QueryRow(context.Background(), "SELECT count(*) FROM mail_outbox").Scan(&n)
		return err == nil && n == 0
	})
	for _, m := range mails {
		if n := box.Count(m.to, m.subject); n != 1 {
			t.Errorf("%d mails %q after the restart, want 1", n, m.subject)
		}
	}
	if status, body := proctest.APIJSON(t, "POST", base+"/api/auth/confirm", "", map[string]string{"email": newEmail, "code": codes[0]}); status != http.StatusOK {
		t.Errorf("confirm with the mailed code: %d %s", status, body)
	}
	patientToken, _ := proctest.SignInDemo(t, env, "patient")
	if status, body := proctest.APIJSON(t, "POST", base+"/api/sharing/verify", patientToken,
		map[string]string{"sharingRequestId": share.Data.ID, "verificationCode": codes[2]}); status != http.StatusOK {
		t.Errorf("verify the share with the mailed code: %d %s", status, body)
	}
	if status, body := proctest.APIJSON(t, "POST", base+"/api/auth/reset-password", "", map[string]string{
		"email": patient.Email, "otp": codes[1], "newPassword": "A new passphrase after a crash 42"}); status != http.StatusOK {
		t.Errorf("reset with the mailed code: %d %s", status, body)
	}
}
