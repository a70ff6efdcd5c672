package bench

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/proctest"
)

// BenchmarkPeer measures MediShare beside Orthanc, the open-source DICOM
// server a clinic would pick instead (Debian's orthanc with the
// orthanc-postgresql index plugin), on the same machine, the same PostgreSQL
// cluster and the same 10 MiB DICOM files, alternating the two over three
// repetitions and keeping the medians. `make bench-peer`
// (scripts/bench-peer.sh) installs Orthanc and wrk, builds bin/medishare and
// runs it once; it writes its section of docs/performance.md (BENCH_REPORT).
func BenchmarkPeer(b *testing.B) {
	if _, err := exec.LookPath("wrk"); err != nil {
		b.Skip("wrk is missing: run make bench-peer")
	}
	if _, err := exec.LookPath("Orthanc"); err != nil {
		b.Skip("Orthanc is missing: run make bench-peer")
	}
	started := time.Now()
	// Keep connections alive for every client at once (Go keeps two by default).
	http.DefaultTransport.(*http.Transport).MaxIdleConnsPerHost = 64
	ms := newPeerMediShare(b, envPort("BENCH_MEDISHARE_PORT", 18200))
	or := newPeerOrthanc(b, ms.dbURL, envPort("BENCH_ORTHANC_PORT", 18201))
	systems := []*peerSystem{&ms.peerSystem, &or.peerSystem}
	pgPID := postmasterPID(b, ms.dbURL)
	var loads []string
	load := func() { loads = append(loads, loadAverage()) }

	// Transfers, three repetitions, the two systems taking turns to go first.
	big := largeBenchDICOM()
	fileSize := len(big.File(newUIDs("X", 0)))
	const perRun = 16
	dropped := true
	for rep := 0; rep < 3; rep++ {
		for k := range systems {
			s := systems[(rep+k)%2]
			load()
			files := func() [][]byte {
				out := make([][]byte, perRun)
				for i := range out {
					out[i] = big.File(newUIDs("BENCH-LARGE", i+1))
				}
				return out
			}
			dropped = dropPageCache() && dropped
			up1 := s.uploads(1, files())
			resetPeak(b, s.pid())
			up8 := s.uploads(8, files())
			s.add("peak", float64(procStatus(s.pid(), "VmHWM"))/1024)
			s.add("up1", up1)
			s.add("up8", up8)
			ids := s.ids[len(s.ids)-2*perRun:]
			cpu := cpuMillis(s.pid())
			s.add("down1", s.downloads(1, ids[:perRun], fileSize))
			s.add("down8", s.downloads(8, ids[perRun:], fileSize))
			s.add("cpu", (cpuMillis(s.pid())-cpu)/float64(2*perRun))
		}
	}
	// Previews after all the transfers: rendering takes memory that the
	// processes keep, which would otherwise count as the uploads' peak.
	for rep := 0; rep < 3; rep++ {
		for k := range systems {
			s := systems[(rep+k)%2]
			ids := s.ids[rep*2*perRun:]
			first, again := s.previews(ids[:10])
			s.add("preview1", first)
			s.add("preview2", again)
		}
	}

	// Lists, at 1,000 and at 100,000 records, each system filled to the same
	// count its own honest way, then the list and the trivial endpoint under
	// wrk, taking turns; PostgreSQL's CPU is counted during each list run.
	seedTime := map[string]time.Duration{}
	for _, ps := range peerSizes {
		size, n := ps.name, ps.n
		for _, s := range systems {
			start := time.Now()
			s.fill(n)
			seedTime[s.name+"-"+size] = time.Since(start)
			if got := s.count(); got != n {
				b.Fatalf("%s holds %d records, not %d", s.name, got, n)
			}
		}
		for _, s := range systems {
			s.checkList(b)
			runWrk(b, s.base+s.listPath, s.auth(), 50, 2*time.Second) // warm up
		}
		for rep := 0; rep < 3; rep++ {
			for k := range systems {
				s := systems[(rep+k)%2]
				load()
				cpu := clusterCPU(pgPID)
				r := s.wrk(b, s.listPath)
				s.add("pgcpu-"+size, (clusterCPU(pgPID)-cpu)/float64(max(r.requests, 1)))
				s.add("list-"+size, r.rps)
				s.add("p99-"+size, r.p99ms)
				s.add("bad-"+size, float64(r.bad))
				t := s.wrk(b, s.trivialPath)
				s.add("trivial-"+size, t.rps)
			}
		}
	}

	for _, s := range systems {
		for _, k := range []string{"up1", "up8", "down1", "down8", "cpu", "list-small", "list-large", "p99-large", "trivial-large", "peak"} {
			b.ReportMetric(median(s.results[k]), s.name+"-"+k)
		}
		b.Logf("%s: %v", s.name, s.results)
	}
	if path := os.Getenv("BENCH_REPORT"); path != "" {
		section := peerReport(ms, or, fileSize, seedTime, dropped, loads, time.Since(started))
		if err := updateReport(path, "peer", section); err != nil {
			b.Fatal(err)
		}
	}
}

// peerSizes are the record counts of the list measures.
var peerSizes = []struct {
	name string
	n    int
}{{"small", 1000}, {"large", 100000}}

func envPort(name string, fallback int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return fallback
}

// peerSystem is one of the two servers under test and what was measured.
type peerSystem struct {
	name                  string
	base                  string
	listPath, trivialPath string
	pid                   func() int
	auth                  func() string // the Authorization header, "Authorization: ..."
	upload                func(file []byte) string
	download              func(id string)
	preview               func(id string)
	fill                  func(n int) // bring the records to n
	count                 func() int
	ids                   []string // uploads, in order
	mu                    sync.Mutex
	results               map[string][]float64
}

func (s *peerSystem) add(key string, v float64) {
	if s.results == nil {
		s.results = map[string][]float64{}
	}
	s.results[key] = append(s.results[key], v)
}

func (s *peerSystem) med(key string) float64 { return median(s.results[key]) }

// parallel runs do over items with c clients at once and returns how long
// it took.
func parallel[T any](c int, items []T, do func(T)) time.Duration {
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < c; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(items) {
					return
				}
				do(items[i])
			}
		}()
	}
	wg.Wait()
	return time.Since(start)
}

// uploads stores files with c clients at once, keeping their ids, and
// returns MB/s.
func (s *peerSystem) uploads(c int, files [][]byte) float64 {
	d := parallel(c, files, func(f []byte) {
		id := s.upload(f)
		s.mu.Lock()
		s.ids = append(s.ids, id)
		s.mu.Unlock()
	})
	return float64(len(files)*len(files[0])) / (1 << 20) / d.Seconds()
}

// downloads reads stored files with c clients at once and returns MB/s.
func (s *peerSystem) downloads(c int, ids []string, size int) float64 {
	return float64(len(ids)*size) / (1 << 20) / parallel(c, ids, s.download).Seconds()
}

// previews fetches the previews of ten images as a browser shows a page of
// them (six connections at once), twice: the first view and the next one.
func (s *peerSystem) previews(ids []string) (first, again float64) {
	page := func() float64 { return float64(parallel(6, ids, s.preview).Microseconds()) / 1000 }
	return page(), page()
}

// checkList fetches the list once and checks that it holds ten records.
func (s *peerSystem) checkList(b *testing.B) {
	req, _ := http.NewRequest("GET", s.base+s.listPath, nil)
	req.Header.Set("Authorization", strings.TrimPrefix(s.auth(), "Authorization: "))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var page struct{ Data []json.RawMessage }
	var raw json.RawMessage
	err = json.NewDecoder(resp.Body).Decode(&raw)
	if err == nil && !bytes.HasPrefix(raw, []byte("[")) {
		err = json.Unmarshal(raw, &page)
		raw, _ = json.Marshal(page.Data)
	}
	var rows []json.RawMessage
	if err == nil {
		err = json.Unmarshal(raw, &rows)
	}
	if err != nil || resp.StatusCode != 200 || len(rows) != 10 {
		b.Fatalf("%s %s: %d, %d records, %v", s.name, s.listPath, resp.StatusCode, len(rows), err)
	}
}

func (s *peerSystem) wrk(b *testing.B, path string) wrkResult {
	r := runWrk(b, s.base+path, s.auth(), 50, 8*time.Second)
	if r.requests == 0 && r.bad == 0 {
		b.Fatalf("%s %s: wrk sent nothing", s.name, path)
	}
	return r
}

// peerMediShare is bin/medishare in development mode on its own database in
// the test cluster, with the demo provider signed in.
type peerMediShare struct {
	peerSystem
	dbURL string
}

func newPeerMediShare(b *testing.B, port int) *peerMediShare {
	env, base, cmd := startBenchBinary(b, port)
	m := &peerMediShare{dbURL: env["DATABASE_URL"]}
	var token, patientID string
	var signedAt time.Time
	var mu sync.Mutex
	bearer := func() string {
		mu.Lock()
		defer mu.Unlock()
		if time.Since(signedAt) > 5*time.Minute { // access tokens live 15 minutes
			token, patientID = proctest.SignInDemoProvider(b, env)
			signedAt = time.Now()
		}
		return token
	}
	bearer()
	// A thousand people, as a clinic's directory has: the seeded images
	// belong to its patients in turn.
	execSQL(b, m.dbURL, seedUsersSQL(1, 1000))
	seeded := 0
	m.peerSystem = peerSystem{
		name: "MediShare", base: base,
		listPath: "/api/upload/my-images?page=1&limit=10", trivialPath: "/api/users/profile",
		pid:  func() int { return cmd.Process.Pid },
		auth: func() string { return "Authorization: Bearer " + bearer() },
		upload: func(file []byte) string {
			return proctest.MustUpload(b, base, bearer(), patientID, "chest.dcm", file)
		},
		download: func(id string) {
			req, _ := http.NewRequest("GET", base+"/api/upload/image/"+id+"/content", nil)
			req.Header.Set("Authorization", "Bearer "+bearer())
			peerGet(b, req, "download")
		},
		preview: func(id string) {
			req, _ := http.NewRequest("GET", base+"/api/upload/image/"+id+"/preview", nil)
			req.Header.Set("Authorization", "Bearer "+bearer())
			peerGet(b, req, "preview")
		},
	}
	m.count = func() int {
		var n int
		queryRow(b, m.dbURL, "SELECT count(*) FROM images", &n)
		return n
	}
	m.fill = func(n int) {
		have := m.count()
		execSQL(b, m.dbURL, append([]string{seedImagesSQL(m.ids[0], seeded+1, seeded+n-have)}, vacuumAfterSeeding...)...)
		seeded += n - have
	}
	return m
}

// peerGet sends a GET and checks it answered 200 with a body.
func peerGet(b *testing.B, req *http.Request, what string) {
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatalf("%s: %v", what, err)
	}
	if status, n := drainStatus(resp); status != 200 || n == 0 {
		b.Fatalf("%s %s: %d, %d bytes", what, req.URL.Path, status, n)
	}
}

// peerOrthanc is Orthanc, run here with a generated configuration: its own
// storage folder and HTTP port, HTTP basic authentication with a generated
// user, and the PostgreSQL index plugin on its own database in the same
// cluster as MediShare's.
type peerOrthanc struct {
	peerSystem
	dir, config string
	cmd         *exec.Cmd
	exited      chan struct{} // closed when cmd has ended
	seedNext    int
	resent      atomic.Int64 // seeding uploads sent again after a 503
}

func newPeerOrthanc(b *testing.B, msURL string, port int) *peerOrthanc {
	plugin := orthancIndexPlugin(b)
	u, err := url.Parse(msURL)
	if err != nil {
		b.Fatal(err)
	}
	admin := *u
	admin.Path = "/postgres"
	execSQL(b, admin.String(), "DROP DATABASE IF EXISTS orthanc_bench WITH (FORCE)", "CREATE DATABASE orthanc_bench")
	b.Cleanup(func() { execSQL(b, admin.String(), "DROP DATABASE IF EXISTS orthanc_bench WITH (FORCE)") })
	pgPassword, _ := u.User.Password()
	pgPort, _ := strconv.Atoi(u.Port())
	secret := make([]byte, 16)
	_, _ = rand.Read(secret)
	user, password := "bench", hex.EncodeToString(secret)
	o := &peerOrthanc{dir: b.TempDir()}
	config := map[string]any{
		"Name":                  "MediShare bench peer",
		"StorageDirectory":      filepath.Join(o.dir, "storage"),
		"IndexDirectory":        filepath.Join(o.dir, "index"),
		"HttpPort":              port,
		"DicomServerEnabled":    false,
		"DicomPort":             port + 1,
		"RemoteAccessAllowed":   false,
		"AuthenticationEnabled": true,
		"RegisteredUsers":       map[string]string{user: password},
		"Plugins":               []string{plugin},
		"PostgreSQL": map[string]any{
			"EnableIndex": true, "EnableStorage": false,
			"Host": u.Hostname(), "Port": pgPort, "Database": "orthanc_bench",
			"Username": u.User.Username(), "Password": pgPassword,
			"Lock": false, "IndexConnectionsCount": 10, // MediShare's pool holds 10 connections too
		},
	}
	o.config = filepath.Join(o.dir, "orthanc.json")
	o.writeConfig(b, config)
	basic := "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))
	setAuth := func(req *http.Request) { req.SetBasicAuth(user, password) }
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	o.peerSystem = peerSystem{
		name: "Orthanc", base: base,
		listPath: "/instances?expand&limit=10&since=0", trivialPath: "/system",
		pid:  func() int { return o.cmd.Process.Pid },
		auth: func() string { return basic },
		upload: func(file []byte) string {
			return orthancPost(b, base, setAuth, file)
		},
		download: func(id string) {
			req, _ := http.NewRequest("GET", base+"/instances/"+id+"/file", nil)
			setAuth(req)
			peerGet(b, req, "download")
		},
		preview: func(id string) {
			req, _ := http.NewRequest("GET", base+"/instances/"+id+"/preview", nil)
			setAuth(req)
			peerGet(b, req, "preview")
		},
	}
	o.count = func() int {
		req, _ := http.NewRequest("GET", base+"/statistics", nil)
		setAuth(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		var st struct{ CountInstances int }
		if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
			b.Fatal(err)
		}
		return st.CountInstances
	}
	// Seeding goes through Orthanc's own REST API, as a clinic fills it:
	// small CT-like instances, a hundred to a study and a series, a study to
	// a patient, from 16 clients at once. Orthanc runs meanwhile with
	// SyncStorageArea off (no fsync per file), which changes nothing that is
	// stored, and is restarted with its defaults before the measures.
	o.fill = func(n int) {
		small := newBenchDICOM(64, 64)
		from, to := o.seedNext, o.seedNext+n-o.count() // instance numbers to store
		o.restart(b, map[string]any{"SyncStorageArea": false})
		// Each client sends whole studies, one instance after the other, as
		// a modality does, so no two clients write into the same study.
		var nextStudy atomic.Int64
		nextStudy.Store(int64(from / 100))
		var wg sync.WaitGroup
		for w := 0; w < 16; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					study := int(nextStudy.Add(1)) - 1
					if study*100 >= to {
						return
					}
					uid := fmt.Sprintf("1.2.826.0.1.3680043.10.543.2.%d", study)
					for k := max(from, study*100); k < min(to, study*100+100); k++ {
						file := small.File(benchInstance(fmt.Sprintf("SEED-%d", study), uid, uid+".1", k%100+1))
						if err := o.seed(base, setAuth, file); err != nil {
							b.Error(err)
							return
						}
					}
				}
			}()
		}
		wg.Wait()
		if b.Failed() {
			b.FailNow()
		}
		o.seedNext = to
		o.restart(b, nil)
	}
	o.restart(b, nil)
	b.Cleanup(func() { o.stop() })
	return o
}

func (o *peerOrthanc) writeConfig(b *testing.B, config map[string]any) {
	raw, err := json.MarshalIndent(config, "", "  ")
	if err == nil {
		err = os.WriteFile(o.config, raw, 0o600)
	}
	if err != nil {
		b.Fatal(err)
	}
}

// restart (re)starts Orthanc with its configuration, plus extra settings
// given in a second file of the same folder.
func (o *peerOrthanc) restart(b *testing.B, extra map[string]any) {
	o.stop()
	confDir := filepath.Join(o.dir, "conf")
	_ = os.RemoveAll(confDir)
	if err := os.MkdirAll(confDir, 0o700); err != nil {
		b.Fatal(err)
	}
	raw, _ := os.ReadFile(o.config)
	if err := os.WriteFile(filepath.Join(confDir, "orthanc.json"), raw, 0o600); err != nil {
		b.Fatal(err)
	}
	if extra != nil {
		raw, _ := json.Marshal(extra)
		if err := os.WriteFile(filepath.Join(confDir, "seeding.json"), raw, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	log, err := os.Create(filepath.Join(o.dir, "orthanc.log"))
	if err != nil {
		b.Fatal(err)
	}
	o.cmd = exec.Command("Orthanc", confDir) // a folder: Orthanc merges its JSON files
	o.cmd.Stdout, o.cmd.Stderr = log, log
	if err := o.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	_ = log.Close()
	exited := make(chan struct{})
	go func(cmd *exec.Cmd) { _ = cmd.Wait(); close(exited) }(o.cmd)
	o.exited = exited
	testutil.Eventually(b, "Orthanc to start", func() bool {
		select {
		case <-exited:
			out, _ := os.ReadFile(filepath.Join(o.dir, "orthanc.log"))
			b.Fatalf("Orthanc did not start:\n%s", out)
		default:
		}
		req, _ := http.NewRequest("GET", o.base+"/system", nil)
		req.Header.Set("Authorization", strings.TrimPrefix(o.auth(), "Authorization: "))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false
		}
		status, _ := drainStatus(resp)
		return status == http.StatusOK
	})
}

// stop ends Orthanc with SIGTERM, as its service does, and waits for it.
func (o *peerOrthanc) stop() {
	if o.cmd == nil {
		return
	}
	_ = o.cmd.Process.Signal(os.Interrupt)
	select {
	case <-o.exited:
	case <-time.After(30 * time.Second):
		_ = o.cmd.Process.Kill()
		<-o.exited
	}
	o.cmd = nil
}

// seed stores one file while Orthanc is being filled. A 503 (a transaction
// Orthanc could not serialize after its own retries) or a 500 is sent again,
// as a sender does, up to ten times; a file Orthanc already has counts as
// stored.
func (o *peerOrthanc) seed(base string, auth func(*http.Request), file []byte) error {
	for try := 1; ; try++ {
		_, answer, status, err := orthancStore(base, auth, file)
		if err == nil && status == http.StatusOK && (answer == "Success" || answer == "AlreadyStored") {
			return nil
		}
		if err != nil || (status != http.StatusServiceUnavailable && status != http.StatusInternalServerError) || try == 10 {
			logs, _ := os.ReadFile(filepath.Join(o.dir, "orthanc.log"))
			lines := strings.Split(strings.TrimSpace(string(logs)), "\n")
			return fmt.Errorf("Orthanc seeding: %d, %v; its log ends with:\n%s", status, err, strings.Join(lines[max(0, len(lines)-15):], "\n"))
		}
		o.resent.Add(1)
		// A sender's backoff before it sends again (the workload), not a
		// wait for an effect.
		time.Sleep(time.Duration(try) * 50 * time.Millisecond)
	}
}

// orthancIndexPlugin is the index plugin's shared library, as its Debian
// package installs it.
func orthancIndexPlugin(b *testing.B) string {
	out, err := exec.Command("dpkg", "-L", "orthanc-postgresql").Output()
	if err != nil {
		b.Fatalf("dpkg -L orthanc-postgresql: %v", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasSuffix(line, "/libOrthancPostgreSQLIndex.so") {
			return line
		}
	}
	b.Fatal("orthanc-postgresql has no libOrthancPostgreSQLIndex.so")
	return ""
}

// orthancPost stores one DICOM file with POST /instances and returns its id.
func orthancPost(b *testing.B, base string, auth func(*http.Request), file []byte) string {
	id, answer, status, err := orthancStore(base, auth, file)
	if err != nil || status != http.StatusOK || answer != "Success" {
		b.Fatalf("Orthanc upload: %d %q %v", status, answer, err)
	}
	return id
}

// orthancStore sends one DICOM file with POST /instances; answer is
// Orthanc's Status ("Success", or "AlreadyStored" for a known instance).
func orthancStore(base string, auth func(*http.Request), file []byte) (id, answer string, status int, err error) {
	req, _ := http.NewRequest("POST", base+"/instances", bytes.NewReader(file))
	auth(req)
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

// peerReport is the section of docs/performance.md.
func peerReport(ms *peerMediShare, or *peerOrthanc, fileSize int, seedTime map[string]time.Duration, dropped bool, loads []string, took time.Duration) string {
	m, o := &ms.peerSystem, &or.peerSystem
	spread := func(xs []float64, f string) string {
		if len(xs) == 0 {
			return "-"
		}
		lo, hi := xs[0], xs[0]
		for _, x := range xs {
			lo, hi = min(lo, x), max(hi, x)
		}
		return fmt.Sprintf(f+" ("+f+" to "+f+")", median(xs), lo, hi)
	}
	var rows strings.Builder
	row := func(name, key, f string) {
		mv, ov := m.med(key), o.med(key)
		ratio := "-"
		if ov != 0 {
			ratio = fmt.Sprintf("%.2f", mv/ov)
		}
		fmt.Fprintf(&rows, "| %s | %s | %s | %s |\n", name, spread(m.results[key], f), spread(o.results[key], f), ratio)
	}
	// failed counts the list's answers that were not 2xx or did not come
	// within wrk's 5 s, over the three runs (the rates count only 2xx).
	failed := func(size string) {
		sum := func(xs []float64) (t float64) {
			for _, x := range xs {
				t += x
			}
			return t
		}
		fmt.Fprintf(&rows, "| same, failed or timed-out answers (three runs) | %.0f | %.0f | - |\n",
			sum(m.results["bad-"+size]), sum(o.results["bad-"+size]))
	}
	row("upload 10 MiB, 1 client (MB/s)", "up1", "%.0f")
	row("upload, 8 clients (MB/s)", "up8", "%.0f")
	row("download 10 MiB, 1 client (MB/s)", "down1", "%.0f")
	row("download, 8 clients (MB/s)", "down8", "%.0f")
	row("server CPU per 10 MiB download (ms)", "cpu", "%.1f")
	row("list page 1 (limit 10) of 1,000 images, 50 connections (req/s)", "list-small", "%.0f")
	row("same, p99 (ms)", "p99-small", "%.1f")
	failed("small")
	row("PostgreSQL CPU per list request, 1,000 images (ms)", "pgcpu-small", "%.2f")
	row("trivial authenticated endpoint, same run (req/s)", "trivial-small", "%.0f")
	row("list page 1 (limit 10) of 100,000 images, 50 connections (req/s)", "list-large", "%.0f")
	row("same, p99 (ms)", "p99-large", "%.1f")
	failed("large")
	row("PostgreSQL CPU per list request, 100,000 images (ms)", "pgcpu-large", "%.2f")
	row("trivial authenticated endpoint, same run (req/s)", "trivial-large", "%.0f")
	row("peak memory during 8 concurrent uploads, VmHWM (MiB)", "peak", "%.0f")
	row("a page of 10 DICOM previews, first view (ms)", "preview1", "%.0f")
	row("the same page again (ms)", "preview2", "%.0f")

	// The targets against Orthanc, from this run's numbers. "In the same run":
	// the list's rate over the trivial endpoint's, repetition by repetition.
	var share []float64
	for i := range m.results["list-large"] {
		share = append(share, m.results["list-large"][i]/m.results["trivial-large"][i])
	}
	flat := m.med("list-large") / m.med("list-small")
	check := func(ok bool) string {
		if ok {
			return "holds"
		}
		return "missed"
	}
	downRatio1, downRatio8 := m.med("down1")/o.med("down1"), m.med("down8")/o.med("down8")
	targets := fmt.Sprintf(`| target | this run | verdict |
|---|---|---|
| list page 1 of 100,000 images at least 30%% of the trivial endpoint's rate in the same run | %.0f%% | %s |
| its p99 under 50 ms at 50 connections | %.1f ms | %s |
| flat from 1,000 to 100,000 images (here: the rate at 100,000 at least 80%% of the rate at 1,000) | %.0f%% | %s |
| the user directory search at 100,000 users, likewise | see "Lists at scale" (make bench) | - |
| download throughput at least 0.8x Orthanc's (1 client; 8 clients) | %.2fx; %.2fx | %s |
| server CPU per 10 MiB download under 8 ms | %.1f ms | %s |
| a page of 10 DICOM previews under 100 ms after the first view | %.0f ms | %s |
`,
		100*median(share), check(median(share) >= 0.3),
		m.med("p99-large"), check(m.med("p99-large") < 50),
		100*flat, check(flat >= 0.8),
		downRatio1, downRatio8, check(downRatio1 >= 0.8 && downRatio8 >= 0.8),
		m.med("cpu"), check(m.med("cpu") < 8),
		m.med("preview2"), check(m.med("preview2") < 100))

	cache := "The page cache was dropped before each system's upload runs."
	if !dropped {
		cache = "The page cache could NOT be dropped (not root, or /proc/sys read-only): upload numbers may be skewed by its size."
	}
	return fmt.Sprintf(`## MediShare beside Orthanc

Measured by `+"`make bench-peer`"+` (BenchmarkPeer in internal/bench/peer_test.go,
run by scripts/bench-peer.sh) on %s, against %s, on this machine (%s), in %s.
The machine is shared with other test runs: its 1-minute load average went
from %s to %s during the run, so every number is the median of three
repetitions (the range in parentheses), the two systems taking turns to go first.

| measure | MediShare | Orthanc | MediShare / Orthanc |
|---|---|---|---|
%s
### Targets

%s
### Method

- **The systems.** MediShare is the real binary (`+"`bin/medishare`, `make build`"+`) in
  development mode (local disk store, contents encrypted, fsync before the
  record commits), on its own database, with the demo provider signed in
  (a bearer token). Orthanc is Debian's %s with the orthanc-postgresql
  index plugin %s, run by the benchmark (not Debian's service) with a
  generated configuration: its own storage folder (files on disk,
  unencrypted, uncompressed: its defaults), its own HTTP port, HTTP basic
  authentication with a generated user and password (so its requests are
  authenticated too), the DICOM port disabled, and the index plugin on its own
  database `+"`orthanc_bench`"+` with 10 connections (MediShare's pool size).
  Everything else is Orthanc's default (among them SyncStorageArea, fsync of
  each stored file, and its 128 MB storage cache). Both databases live in the
  same PostgreSQL cluster, the repository's private test cluster
  (scripts/pg.sh, fsync off), so both pay the same for SQL.
- **The file.** One generated DICOM Part 10 file (CR, explicit VR little
  endian, 2047 x 2560 pixels of 16 bits, %d bytes), sent to both; every
  upload gets fresh Study, Series and SOP Instance UIDs, so Orthanc, which
  keeps one copy per SOP Instance UID, stores each one.
- **Transfers.** Each repetition uploads 16 files one at a time, then 16 with
  8 clients at once (MediShare: `+"`POST /api/upload/image`"+`, multipart, for the
  demo patient; Orthanc: `+"`POST /instances`"+`), then downloads the first 16 one
  at a time and the other 16 with 8 clients (MediShare:
  `+"`GET /api/upload/image/{id}/content`; Orthanc: `GET /instances/{id}/file`"+`),
  asking for no compression. MB/s counts MiB of file per second. %s
  Server CPU per download is the server process's user + system time
  (/proc/PID/stat) over the 32 downloads, divided by 32. Peak memory is the
  server's VmHWM after the 8-client uploads, reset (clear_refs) just before.
- **Previews.** After all the transfers (rendering takes memory the
  processes keep, which would otherwise show as the uploads' peak), in each
  repetition ten of that repetition's uploaded files' previews (MediShare:
  `+"`/api/upload/image/{id}/preview`; Orthanc: `/instances/{id}/preview`"+`), six at
  a time as a browser fetches a page, twice: the first view, then the page
  again. Neither system's answer may be cached by the client.
- **Lists.** Each system is filled to exactly 1,000 and then 100,000 records
  (counted back: MediShare's images, Orthanc's /statistics
  CountInstances), then wrk (2 threads, 50 connections, 8 s, after a 2 s
  warm-up of each system; rates count 2xx answers only; p99 is wrk's, of
  the answers that came, or 5000 ms, wrk's timeout, when 1%% or more of a
  run's requests timed out) loads the list and then the trivial authenticated
  endpoint (MediShare: `+"`GET /api/users/profile`; Orthanc: `GET /system`"+`) in the same
  repetition. MediShare's list is the provider's own uploads, page 1 of 10
  (`+"`GET /api/upload/my-images?page=1&limit=10`"+`: newest first, with the
  uploader's and patient's names, shares, signed links and the total count).
  Orthanc's equivalent is `+"`GET /instances?expand&limit=10&since=0`"+`: Orthanc
  1.10 has no sort order to ask for, and this is its paged listing of stored
  instances with their main DICOM tags (the expanded form is what a viewer
  needs to show a row, as MediShare's objects are); it returns no total
  count. PostgreSQL CPU per list request is the CPU time of all the
  cluster's processes (/proc) during the list run, divided by its requests;
  it includes the cluster's background processes and the sign-in checks.
- **Seeding.** MediShare: SQL, a thousand people first (every tenth a
  provider), then images copied from the record of a real upload (type,
  size, DICOM facts, wrapped key) with their own ids, captions, file names,
  contents keys and older times, for the seeded patients in turn; their
  contents do not exist, which a list never notices (%s to 1,000, %s to
  100,000). Orthanc: its own REST API (`+"`POST /instances`"+`), as a clinic fills it,
  from 16 clients, each sending whole studies as a modality does: small
  CT-like instances (64 x 64 pixels), a hundred to a patient, study and
  series (%s to 1,000, %s to 100,000; Orthanc answered 500 or 503, a
  transaction it could not serialize after its own retries, %d times, and
  those files were sent again, as a sender does); meanwhile Orthanc
  runs with SyncStorageArea off (no fsync per file), which changes nothing
  stored, and is restarted with its defaults before the measures.
`, time.Now().UTC().Format("2006-01-02"), binaryVersion(), machine(), took.Round(time.Second),
		minLoad(loads), maxLoad(loads), rows.String(), targets,
		packageVersion("orthanc"), packageVersion("orthanc-postgresql"), fileSize, cache,
		seedTime["MediShare-small"].Round(time.Millisecond), seedTime["MediShare-large"].Round(time.Millisecond),
		seedTime["Orthanc-small"].Round(time.Second), seedTime["Orthanc-large"].Round(time.Second), or.resent.Load())
}

func minLoad(loads []string) string { return pickLoad(loads, func(a, b float64) bool { return a < b }) }
func maxLoad(loads []string) string { return pickLoad(loads, func(a, b float64) bool { return a > b }) }

func pickLoad(loads []string, better func(a, b float64) bool) string {
	best, out := 0.0, "unknown"
	for i, l := range loads {
		v, err := strconv.ParseFloat(l, 64)
		if err == nil && (i == 0 || better(v, best)) {
			best, out = v, l
		}
	}
	return out
}

// packageVersion is an installed Debian package's version.
func packageVersion(name string) string {
	out, err := exec.Command("dpkg-query", "-W", "-f=${Version}", name).Output()
	if err != nil {
		return "(version unknown)"
	}
	return string(out)
}
