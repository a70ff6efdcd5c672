package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/medishare/medishare/internal/testutil/pgtest"
)

func newMasterKey(t *testing.T) string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b)
}

// TestKeyRotation uploads under one master key, re-wraps the file keys under
// a new one, and reads the file back with only the new key.
func TestKeyRotation(t *testing.T) {
	env := devEnv(t, pgtest.NewDatabase(t))
	oldKey, newKey := newMasterKey(t), newMasterKey(t)
	env["MEDISHARE_MASTER_KEY"] = oldKey
	base := "http://" + env["MEDISHARE_ADDR"]
	cmd := startProgram(t, env, io.Discard)
	waitStatus(t, base+"/readyz", http.StatusOK)
	token, patientID := signInDemoProvider(t, env, base)

	content := []byte("%PDF-1.4\n% rotation test\n%%EOF\n")
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	w.WriteField("caption", "rotation")
	w.WriteField("patientId", patientID)
	fw, _ := w.CreateFormFile("file", "r.pdf")
	fw.Write(content)
	w.Close()
	req, _ := http.NewRequest("POST", base+"/api/upload/image", &body)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", w.FormDataContentType())
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("upload: %v %v", resp, err)
	}
	var up struct{ Data struct{ ID string } }
	json.NewDecoder(resp.Body).Decode(&up)
	resp.Body.Close()
	cmd.Process.Kill()
	cmd.Wait()

	oldFile := filepath.Join(t.TempDir(), "old.key")
	os.WriteFile(oldFile, []byte(oldKey+"\n"), 0o600)
	env["MEDISHARE_MASTER_KEY"] = newKey
	getenv := func(k string) string { return env[k] }
	var out bytes.Buffer
	if err := run(context.Background(), []string{"keys", "rotate", "--old-key-file", oldFile}, getenv, &out, &out); err != nil ||
		!strings.Contains(out.String(), "re-wrapped 1 file keys") {
		t.Fatalf("rotate: %v %s", err, out.String())
	}
	out.Reset()
	if err := run(context.Background(), []string{"keys", "rotate", "--old-key-file", oldFile}, getenv, &out, &out); err != nil ||
		!strings.Contains(out.String(), "re-wrapped 0 file keys") {
		t.Fatalf("second rotate: %v %s", err, out.String())
	}

	startProgram(t, env, io.Discard)
	waitStatus(t, base+"/readyz", http.StatusOK)
	token, _ = signInDemoProvider(t, env, base)
	req, _ = http.NewRequest("GET", fmt.Sprintf("%s/api/upload/image/%s/content", base, up.Data.ID), nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Equal(got, content) {
		t.Fatalf("after rotation: %d %q", resp.StatusCode, got)
	}
}
