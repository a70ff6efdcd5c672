package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/apptest"
	"github.com/medishare/medishare/internal/testutil/pgtest"
	"github.com/medishare/medishare/internal/testutil/proctest"
)

func newMasterKey(t *testing.T) string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b)
}

// TestKeyRotation uploads and writes a message under one master key,
// re-wraps the file keys and re-seals the message under a new one, and
// reads both back with only the new key.
func TestKeyRotation(t *testing.T) {
	testutil.Slow(t)
	env := proctest.Env(t, pgtest.NewDatabase(t))
	oldKey, newKey := newMasterKey(t), newMasterKey(t)
	env["MEDISHARE_MASTER_KEY"] = oldKey
	// A relay that hangs, so a mail is still queued at the rotation.
	holePort, connected := blackHole(t)
	env["SMTP_HOST"], env["SMTP_PORT"], env["SMTP_TLS"] = "127.0.0.1", fmt.Sprint(holePort), "none"
	base := proctest.Base(env)
	cmd := startProgram(t, env, io.Discard)
	proctest.WaitStatus(t, base+"/readyz", http.StatusOK)
	token, patientID := proctest.SignInDemoProvider(t, env)

	content := []byte("%PDF-1.4\n% rotation test\n%%EOF\n")
	status, uploadedID := proctest.Upload(t, base, token, patientID, "rotation", "r.pdf", content)
	if status != http.StatusCreated {
		t.Fatalf("upload: %d", status)
	}
	// A PNG whose preview is stored, under a key of its own.
	pngID := proctest.MustUpload(t, base, token, patientID, "p.png", proctest.ProbePNG(t, 64))
	preview := proctest.Preview(t, base, token, pngID, http.StatusOK)
	// Its analysis, sealed like a message.
	status, analysed := proctest.APIJSON(t, "GET", base+"/api/analyze/"+pngID, token, nil)
	if status != http.StatusOK {
		t.Fatalf("analysis: %d %s", status, analysed)
	}
	const text = "Your scan is ready."
	if status, _ := proctest.APIJSON(t, "POST", base+"/api/message/send", token, map[string]string{"recipientId": patientID, "content": text}); status != http.StatusCreated {
		t.Fatalf("send: %d", status)
	}
	patient := proctest.ReadDemoAccount(t, env, "patient")
	if status, _ := proctest.APIJSON(t, "POST", base+"/api/auth/forgot-password", "", map[string]string{"email": patient.Email}); status != http.StatusOK {
		t.Fatalf("forgot-password: %d", status)
	}
	select {
	case <-connected:
	case <-time.After(testutil.EventuallyTimeout):
		t.Fatal("the reset mail was never sent")
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait() // "signal: killed", from the line above

	oldFile := filepath.Join(t.TempDir(), "old.key")
	if err := os.WriteFile(oldFile, []byte(oldKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env["MEDISHARE_MASTER_KEY"] = newKey
	getenv := func(k string) string { return env[k] }
	var out bytes.Buffer
	if err := run(context.Background(), []string{"keys", "rotate", "--old-key-file", oldFile}, getenv, &out, &out); err != nil ||
		!strings.Contains(out.String(), "re-wrapped 2 file keys, 0 study instance keys and 1 preview keys, and re-sealed 1 messages, 1 analyses, 1 queued mails, 0 studies' patient details and 0 authenticator secrets") {
		t.Fatalf("rotate: %v %s", err, out.String())
	}
	out.Reset()
	if err := run(context.Background(), []string{"keys", "rotate", "--old-key-file", oldFile}, getenv, &out, &out); err != nil ||
		!strings.Contains(out.String(), "re-wrapped 0 file keys, 0 study instance keys and 0 preview keys, and re-sealed 0 messages, 0 analyses, 0 queued mails, 0 studies' patient details and 0 authenticator secrets") {
		t.Fatalf("second rotate: %v %s", err, out.String())
	}

	box := apptest.StartMailbox(t)
	env["SMTP_PORT"] = fmt.Sprint(box.Port())
	startProgram(t, env, io.Discard)
	proctest.WaitStatus(t, base+"/readyz", http.StatusOK)
	box.Wait(t, patient.Email, "Your MediShare password reset code") // opened under the new key
	token, _ = proctest.SignInDemoProvider(t, env)
	got, status := proctest.Fetch(t, base+"/api/upload/image/"+uploadedID+"/content", token)
	if status != 200 || !bytes.Equal(got, content) {
		t.Fatalf("after rotation: %d %q", status, got)
	}
	if after := proctest.Preview(t, base, token, pngID, http.StatusOK); !bytes.Equal(after, preview) {
		t.Fatal("the stored preview changed with the rotation")
	}
	if status, body := proctest.APIJSON(t, "GET", base+"/api/message/chat/"+patientID, token, nil); status != http.StatusOK || !strings.Contains(body, text) {
		t.Fatalf("the message after rotation: %d %s", status, body)
	}
	if status, body := proctest.APIJSON(t, "GET", base+"/api/analyze/"+pngID, token, nil); status != http.StatusOK || body != analysed {
		t.Fatalf("the analysis after rotation: %d %s, want %s", status, body, analysed)
	}
}
