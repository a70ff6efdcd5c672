// Package orthanctest runs Debian's Orthanc, the open-source DICOM server,
// as a process of the test's own: installed through scripts/apt-ensure.sh
// when missing, a generated configuration (its own storage and index
// folders, HTTP port and generated user, the DICOM port disabled), start,
// readiness, restart and stop. The interoperability tests of
// internal/interop and the benchmarks of internal/bench share it.
package orthanctest

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/pgtest"
)

// Packages are the apt-ensure arguments (what must be there, and the
// Debian package that brings it) of Orthanc and of its plugins by package.
var Packages = map[string]string{
	"orthanc":            "Orthanc:orthanc",
	"orthanc-dicomweb":   "/usr/share/orthanc/plugins/libOrthancDicomWeb.so:orthanc-dicomweb",
	"orthanc-gdcm":       "/usr/share/orthanc/plugins/libOrthancGdcm.so:orthanc-gdcm",
	"orthanc-postgresql": "/usr/share/orthanc/plugins/libOrthancPostgreSQLIndex.so:orthanc-postgresql",
}

// Install makes sure Orthanc and the named plugin packages are installed,
// through scripts/apt-ensure.sh (which holds the repository's apt lock, so
// `make test`'s packages step and this never race).
func Install(t testing.TB, plugins ...string) {
	t.Helper()
	args := []string{Packages["orthanc"]}
	for _, p := range plugins {
		a, ok := Packages[p]
		if !ok {
			t.Fatalf("orthanctest: unknown package %s", p)
		}
		args = append(args, a)
	}
	cmd := exec.Command(filepath.Join(pgtest.RepoRoot(), "scripts", "apt-ensure.sh"), args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("apt-ensure %v: %v\n%s", args, err, out)
	}
}

// Plugin is the path of a plugin's shared library (named by its suffix,
// "/libOrthancDicomWeb.so") as its Debian package installs it.
func Plugin(t testing.TB, pkg, suffix string) string {
	t.Helper()
	out, err := exec.Command("dpkg", "-L", pkg).Output()
	if err != nil {
		t.Fatalf("dpkg -L %s: %v", pkg, err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasSuffix(line, suffix) {
			return line
		}
	}
	t.Fatalf("%s has no %s", pkg, suffix)
	return ""
}

// Server is an Orthanc process run by a test.
type Server struct {
	Base           string // http://127.0.0.1:PORT
	Dir            string // its folder: configuration, storage, index, log
	user, password string
	config         map[string]any
	cmd            *exec.Cmd
	exited         chan struct{} // closed when cmd has ended
}

// Start starts Orthanc on port with a generated configuration, to which
// config adds or overrides settings (plugins, their sections), and stops
// it when the test ends. Its HTTP API asks for a generated user (Auth).
func Start(t testing.TB, port int, config map[string]any) *Server {
	t.Helper()
	secret := make([]byte, 16)
	_, _ = rand.Read(secret)
	s := &Server{
		Base: fmt.Sprintf("http://127.0.0.1:%d", port), Dir: t.TempDir(),
		user: "test", password: hex.EncodeToString(secret),
	}
	s.config = map[string]any{
		"Name":                  "MediShare test peer",
		"StorageDirectory":      filepath.Join(s.Dir, "storage"),
		"IndexDirectory":        filepath.Join(s.Dir, "index"),
		"HttpPort":              port,
		"DicomServerEnabled":    false,
		"DicomPort":             port + 1,
		"RemoteAccessAllowed":   false,
		"AuthenticationEnabled": true,
		"RegisteredUsers":       map[string]string{s.user: s.password},
	}
	maps.Copy(s.config, config)
	s.Restart(t, nil)
	t.Cleanup(s.Stop)
	return s
}

// Auth authenticates a request to Orthanc as its generated user.
func (s *Server) Auth(req *http.Request) { req.SetBasicAuth(s.user, s.password) }

// Header is Auth as a header line, "Authorization: Basic ...".
func (s *Server) Header() string {
	return "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(s.user+":"+s.password))
}

// Log is what Orthanc has written to its log.
func (s *Server) Log() string {
	b, _ := os.ReadFile(filepath.Join(s.Dir, "orthanc.log"))
	return string(b)
}

// LogTail is the last n lines of its log.
func (s *Server) LogTail(n int) string {
	lines := strings.Split(strings.TrimSpace(s.Log()), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// PID is the running process's id.
func (s *Server) PID() int { return s.cmd.Process.Pid }

// Restart (re)starts Orthanc with its configuration, plus extra settings
// given in a second file of the same folder, and waits until it answers.
func (s *Server) Restart(t testing.TB, extra map[string]any) {
	t.Helper()
	s.Stop()
	confDir := filepath.Join(s.Dir, "conf")
	_ = os.RemoveAll(confDir)
	if err := os.MkdirAll(confDir, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(name string, v map[string]any) {
		raw, _ := json.MarshalIndent(v, "", "  ")
		if err := os.WriteFile(filepath.Join(confDir, name), raw, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("orthanc.json", s.config)
	if extra != nil {
		write("extra.json", extra)
	}
	log, err := os.Create(filepath.Join(s.Dir, "orthanc.log"))
	if err != nil {
		t.Fatal(err)
	}
	s.cmd = exec.Command("Orthanc", confDir) // a folder: Orthanc merges its JSON files
	// Its HTTP client (libcurl) would send even 127.0.0.1 through a proxy
	// named in the environment.
	s.cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + s.Dir}
	s.cmd.Stdout, s.cmd.Stderr = log, log
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = log.Close()
	exited := make(chan struct{})
	go func(cmd *exec.Cmd) { _ = cmd.Wait(); close(exited) }(s.cmd)
	s.exited = exited
	testutil.Eventually(t, "Orthanc to start", func() bool {
		select {
		case <-exited:
			t.Fatalf("Orthanc did not start:\n%s", s.Log())
		default:
		}
		req, _ := http.NewRequest("GET", s.Base+"/system", nil)
		s.Auth(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
}

// Stop ends Orthanc with SIGTERM, as its service does, and waits for it
// (killing it after 30 s).
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
	s.cmd = nil
}

// Store sends one DICOM file with POST /instances; answer is Orthanc's
// Status ("Success", or "AlreadyStored" for a known instance). Safe outside
// the test's goroutine.
func (s *Server) Store(file []byte) (id, answer string, status int, err error) {
	req, _ := http.NewRequest("POST", s.Base+"/instances", bytes.NewReader(file))
	s.Auth(req)
	req.Header.Set("Content-Type", "application/dicom")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", "", 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", "", resp.StatusCode, nil
	}
	var out struct{ ID, Status string }
	err = json.NewDecoder(resp.Body).Decode(&out)
	return out.ID, out.Status, resp.StatusCode, err
}

// MustStore stores one DICOM file and returns its Orthanc id.
func (s *Server) MustStore(t testing.TB, file []byte) string {
	t.Helper()
	id, answer, status, err := s.Store(file)
	if err != nil || status != http.StatusOK || answer != "Success" {
		t.Fatalf("Orthanc upload: %d %q %v\n%s", status, answer, err, s.LogTail(15))
	}
	return id
}

// Call calls Orthanc's REST API with a JSON body (none when nil) and
// returns the status and the answer.
func (s *Server) Call(t testing.TB, method, path string, body any) (int, []byte) {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, s.Base+path, r)
	s.Auth(req)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// JSON calls the REST API and decodes its answer into out, failing the
// test unless it answers 200.
func (s *Server) JSON(t testing.TB, method, path string, body, out any) {
	t.Helper()
	status, b := s.Call(t, method, path, body)
	if status != http.StatusOK {
		t.Fatalf("Orthanc %s %s: %d %s\nits log ends with:\n%s", method, path, status, b, s.LogTail(20))
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("Orthanc %s %s: %v %s", method, path, err, b)
		}
	}
}
