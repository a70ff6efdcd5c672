package mail

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	netmail "net/mail"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/medishare/medishare/internal/domain"
)

var emlName = regexp.MustCompile(`^\d{8}T\d{6}\.\d{9}Z-[0-9a-f]{8}\.eml$`)

// sendDev sends m with a DevMailer into a fresh directory and returns the
// directory and the JSON log lines.
func sendDev(t *testing.T, m Message) (string, []map[string]any, error) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "mail") // does not exist yet
	var logs bytes.Buffer
	d := NewDevMailer(dir, slog.New(slog.NewJSONHandler(&logs, nil)))
	err := d.Send(context.Background(), m)
	var lines []map[string]any
	for _, l := range bytes.Split(bytes.TrimSpace(logs.Bytes()), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal(l, &rec); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, rec)
	}
	return dir, lines, err
}

func emlFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestDevMailer(t *testing.T) {
	m := Templates{PublicURL: "http://127.0.0.1:8080"}.ResetCode("alice@example.com", "Alice", "042917", "tok-EN_9")
	dir, logs, err := sendDev(t, m)
	if err != nil {
		t.Fatal(err)
	}

	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("dir mode = %v (%v), want 0700", fi.Mode().Perm(), err)
	}
	names := emlFiles(t, dir)
	if len(names) != 1 || !emlName.MatchString(names[0]) {
		t.Fatalf("files = %q, want one <UTC time>-<hex>.eml and no leftovers", names)
	}
	path := filepath.Join(dir, names[0])
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode = %v (%v), want 0600", fi.Mode().Perm(), err)
	}

	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := netmail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("not an RFC 5322 message: %v\n%s", err, raw)
	}
	if rest := bytes.ReplaceAll(raw, []byte("\r\n"), nil); bytes.ContainsAny(rest, "\r\n") {
		t.Error("a line does not end with CRLF")
	}
	wantHeaders := map[string]string{
		"From":                      `"MediShare" <no-reply@localhost>`,
		"To":                        "<alice@example.com>",
		"Subject":                   "Your MediShare password reset code",
		"Mime-Version":              "1.0",
		"Content-Type":              "text/plain; charset=utf-8",
		"Content-Transfer-Encoding": "8bit",
	}
	for k, want := range wantHeaders {
		if got := msg.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if _, err := msg.Header.Date(); err != nil {
		t.Errorf("Date: %v", err)
	}
	if id := msg.Header.Get("Message-Id"); !regexp.MustCompile(`^<[0-9a-f]{32}@localhost>$`).MatchString(id) {
		t.Errorf("Message-ID = %q", id)
	}
	body, _ := io.ReadAll(msg.Body)
	text := strings.ReplaceAll(string(body), "\r\n", "\n")
	if strings.TrimRight(text, "\n") != strings.TrimRight(m.Text, "\n") {
		t.Errorf("body:\n%s\nwant as is:\n%s", text, m.Text)
	}
	// Greppable: the code and the link appear literally in the file.
	for _, s := range []string{"Your password reset code is 042917.", "http://127.0.0.1:8080/reset-password?token=tok-EN_9"} {
		if !bytes.Contains(raw, []byte(s)) {
			t.Errorf("file does not contain %q literally", s)
		}
	}

	if len(logs) != 1 {
		t.Fatalf("log lines = %v, want 1", logs)
	}
	rec := logs[0]
	if rec["level"] != "INFO" || rec["to"] != m.To || rec["subject"] != m.Subject || rec["text"] != m.Text {
		t.Errorf("log = %v", rec)
	}
}

func TestDevMailerHeaderInjection(t *testing.T) {
	tests := []struct {
		name    string
		msg     Message
		wantErr string // error kind; "" when the mail goes out with its headers intact
	}{
		{"bcc in subject", Message{To: "alice@example.com", Subject: "Hello\r\nBcc: mallory@example.com", Text: "x"}, ""},
		{"bare LF in subject", Message{To: "alice@example.com", Subject: "Hello\nX-Injected: yes", Text: "x"}, ""},
		{"body after CRLFCRLF in subject", Message{To: "alice@example.com", Subject: "Hello\r\n\r\nfake body", Text: "x"}, ""},
		{"bcc in recipient", Message{To: "alice@example.com\r\nBcc: mallory@example.com", Subject: "x", Text: "x"}, domain.EINVALID},
		{"two recipients", Message{To: "alice@example.com, mallory@example.com", Subject: "x", Text: "x"}, domain.EINVALID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, _, err := sendDev(t, tt.msg)
			if tt.wantErr != "" {
				if domain.ErrorKind(err) != tt.wantErr {
					t.Errorf("err = %v, want %s", err, tt.wantErr)
				}
				if names := emlFiles(t, dir); len(names) != 0 {
					t.Errorf("files written: %q", names)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			names := emlFiles(t, dir)
			if len(names) != 1 {
				t.Fatalf("files = %q", names)
			}
			f, err := os.Open(filepath.Join(dir, names[0]))
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = f.Close() }() // read only
			msg, err := netmail.ReadMessage(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range []string{"Bcc", "X-Injected"} {
				if v, ok := msg.Header[h]; ok {
					t.Errorf("injected header %s: %q", h, v)
				}
			}
			if len(msg.Header["To"]) != 1 || len(msg.Header["Subject"]) != 1 {
				t.Errorf("headers = %v", msg.Header)
			}
			if s := msg.Header.Get("Subject"); strings.ContainsAny(s, "\r\n") || !strings.HasPrefix(s, "Hello") {
				t.Errorf("Subject = %q", s)
			}
			if body, _ := io.ReadAll(msg.Body); strings.TrimSpace(string(body)) != "x" {
				t.Errorf("body = %q", body)
			}
		})
	}
}

// Messages sent at the same moment get distinct files.
func TestDevMailerConcurrent(t *testing.T) {
	dir := t.TempDir()
	d := NewDevMailer(dir, slog.New(slog.DiscardHandler))
	const n = 20
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			if err := d.Send(context.Background(), Message{To: "alice@example.com", Subject: "x", Text: "x"}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	names := emlFiles(t, dir)
	if len(names) != n {
		t.Fatalf("%d files, want %d", len(names), n)
	}
	for _, name := range names {
		if !emlName.MatchString(name) {
			t.Errorf("file %q", name)
		}
	}
}

func TestDevMailerUnwritableDir(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	d := NewDevMailer(filepath.Join(file, "mail"), slog.New(slog.DiscardHandler))
	err := d.Send(context.Background(), Message{To: "alice@example.com", Subject: "x", Text: "x"})
	if domain.ErrorKind(err) != domain.EUNAVAILABLE {
		t.Errorf("err = %v, want EUNAVAILABLE", err)
	}
}
