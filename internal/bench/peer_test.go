package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/medimg/synth"
	"github.com/medishare/medishare/internal/testutil/orthanctest"
	"github.com/medishare/medishare/internal/testutil/proctest"
)

// BenchmarkPeer measures MediShare beside Orthanc, the open-source DICOM
// server a clinic would pick instead (Debian's orthanc with the
// orthanc-postgresql index plugin), on the same machine, the same PostgreSQL
// cluster and the same 10 MiB DICOM files, and then the same DICOM study
// stored (STOW-RS) and retrieved (WADO-RS) and studies searched (QIDO-RS)
// over DICOMweb, alternating the two over three repetitions and keeping the
// medians. `make bench-peer`
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
	perRun := 16
	if peerQuick {
		perRun = 5
	}
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
	// Then, at the same size, the DICOMweb study searches, each system
	// holding that many studies.
	seedTime := map[string]time.Duration{}
	for _, ps := range peerSizes() {
		size, n := ps.name, ps.n
		fillAll(b, systems, n, "records", size, seedTime, func(s *peerSystem) (func(int), func() int) { return s.fill, s.count })
		for _, s := range systems {
			s.checkRows(b, s.listPath, 10, 10)
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

		fillAll(b, systems, n, "studies", "studies-"+size, seedTime, func(s *peerSystem) (func(int), func() int) { return s.fillStudies, s.studies })
		for _, s := range systems {
			for _, q := range qidoQueries {
				s.checkRows(b, s.qidoPath(q.query), 1, 10)
				runWrk(b, s.base+s.qidoPath(q.query), s.auth(), 50, 2*time.Second) // warm up
			}
		}
		for rep := 0; rep < 3; rep++ {
			for k := range systems {
				s := systems[(rep+k)%2]
				load()
				for _, q := range qidoQueries {
					r := s.wrk(b, s.qidoPath(q.query))
					s.add(q.key+"-"+size, r.rps)
					s.add(q.key+"-p99-"+size, r.p99ms)
					s.add(q.key+"-bad-"+size, float64(r.bad))
				}
				t := s.wrk(b, s.trivialPath)
				s.add("qido-trivial-"+size, t.rps)
			}
		}
	}

	// Studies last, once the searches are measured (their instances would
	// count among Orthanc's records): a study of 300 CT instances stored
	// with fresh UIDs for each way of sending it, then the first one
	// retrieved whole, taking turns.
	studyPixels := newBenchDICOM(512, 512)
	studyFiles := func() (uid string, files [][]byte) {
		per := peerStudyInstances / 3
		for _, in := range synth.Study("Bench^Study", "BENCH-STUDY", "CT chest (benchmark)", "CT", per, per, per) {
			uid, files = in.Study, append(files, studyPixels.File(in))
		}
		return uid, files
	}
	_, files := studyFiles()
	instanceSize := len(files[0])
	for rep := 0; rep < 3; rep++ {
		for k := range systems {
			s := systems[(rep+k)%2]
			load()
			var firstUID string
			var first [][]byte
			for _, way := range s.studyWays {
				for _, c := range []int{1, 4} {
					uid, files := studyFiles()
					if first == nil {
						firstUID, first = uid, files
					}
					s.add(fmt.Sprintf("%s-%d", way.key, c), storeStudy(c, way.per, files, way.store))
				}
			}
			s.add("study-down", s.retrieveStudy(b, firstUID, first))
		}
	}

	for _, s := range systems {
		for _, k := range []string{"up1", "up8", "down1", "down8", "cpu", "list-small", "list-large", "p99-large", "trivial-large", "peak",
			"stow1-1", "stow1-4", "study-down", "qido-all-large", "qido-date-large", "qido-mr-large"} {
			b.ReportMetric(median(s.results[k]), s.name+"-"+k)
		}
		b.Logf("%s: %v", s.name, s.results)
	}
	if path := os.Getenv("BENCH_REPORT"); path != "" {
		section := peerReport(ms, or, fileSize, instanceSize, seedTime, dropped, loads, time.Since(started))
		if err := updateReport(path, "peer", section); err != nil {
			b.Fatal(err)
		}
	}
}

// fillAll brings each system to n of what (records, studies) with the fill
// and count of what, keeping how long it took in seedTime under its name
// and key, and checks the count.
func fillAll(b *testing.B, systems []*peerSystem, n int, what, key string, seedTime map[string]time.Duration, of func(*peerSystem) (fill func(int), count func() int)) {
	for _, s := range systems {
		fill, count := of(s)
		start := time.Now()
		fill(n)
		seedTime[s.name+"-"+key] = time.Since(start)
		if got := count(); got != n {
			b.Fatalf("%s holds %d %s, not %d", s.name, got, what, n)
		}
	}
}

// peerQuick (BENCH_PEER_QUICK=1) shrinks every size, to try the benchmark
// out in a minute or two: its numbers mean nothing.
var peerQuick = os.Getenv("BENCH_PEER_QUICK") == "1"

// peerSizes are the record counts of the list and study search measures.
func peerSizes() []struct {
	name string
	n    int
} {
	if peerQuick {
		return []struct {
			name string
			n    int
		}{{"small", 200}, {"large", 2000}}
	}
	return []struct {
		name string
		n    int
	}{{"small", 1000}, {"large", 100000}}
}

// peerStudyInstances is the size of the stored and retrieved study.
var peerStudyInstances = map[bool]int{false: 300, true: 30}[peerQuick]

// peerWrkTime is how long each wrk run lasts.
var peerWrkTime = map[bool]time.Duration{false: 8 * time.Second, true: 2 * time.Second}[peerQuick]

// qidoQueries are the QIDO-RS study searches measured, each at most ten
// studies: every study, a month of study dates (about 1 in 120 of the
// seeded studies), and a modality (1 in 5).
var qidoQueries = []struct{ key, name, query string }{
	{"qido-all", "`limit=10`", "limit=10"},
	{"qido-date", "`StudyDate=20210101-20210131&limit=10`", "StudyDate=20210101-20210131&limit=10"},
	{"qido-mr", "`ModalitiesInStudy=MR&limit=10`", "ModalitiesInStudy=MR&limit=10"},
}

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
	dicomweb              string      // the DICOMweb root, "/dicomweb"
	fillStudies           func(n int) // bring the studies to n
	studies               func() int
	studyWays             []studyWay // the ways of storing a study, each measured
	restart               func()     // restarts the server, dropping requests in progress (nil: it drops those of clients gone)
	slow                  []string   // wrk runs where answers did not come in time
	ids                   []string   // uploads, in order
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

// authorize adds the system's Authorization header to a request.
func (s *peerSystem) authorize(req *http.Request) {
	name, value, _ := strings.Cut(s.auth(), ": ")
	req.Header.Set(name, value)
}

// qidoPath is the QIDO-RS study search with query.
func (s *peerSystem) qidoPath(query string) string { return s.dicomweb + "/studies?" + query }

// studyWay is one way of storing a study: per instances a request, each
// request sent by store (safe outside the test's goroutine).
type studyWay struct {
	key   string
	per   int
	store func(files [][]byte)
}

// storeStudy stores a study's files, per of them a request, with c clients
// at once, and returns instances per second.
func storeStudy(c, per int, files [][]byte, store func([][]byte)) float64 {
	var requests [][][]byte
	for i := 0; i < len(files); i += per {
		requests = append(requests, files[i:min(i+per, len(files))])
	}
	return float64(len(files)) / parallel(c, requests, store).Seconds()
}

// stowWay is storing with STOW-RS, per instances a request, to path (under
// the DICOMweb root, with any query): every instance must be stored.
func (s *peerSystem) stowWay(b *testing.B, key string, per int, path string) studyWay {
	return studyWay{key: key, per: per, store: func(files [][]byte) {
		var body bytes.Buffer
		w := multipart.NewWriter(&body)
		for _, f := range files {
			part, _ := w.CreatePart(textproto.MIMEHeader{"Content-Type": {"application/dicom"}})
			_, _ = part.Write(f) // into memory
		}
		_ = w.Close()
		req, _ := http.NewRequest("POST", s.base+s.dicomweb+path, &body)
		s.authorize(req)
		req.Header.Set("Content-Type", `multipart/related; type="application/dicom"; boundary=`+w.Boundary())
		req.Header.Set("Accept", "application/dicom+json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatalf("%s STOW-RS: %v", s.name, err)
		}
		answer, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var out map[string]struct{ Value []any }
		_ = json.Unmarshal(answer, &out)
		if resp.StatusCode != http.StatusOK || len(out["00081199"].Value) != len(files) {
			b.Fatalf("%s STOW-RS of %d instances: %d %.300s", s.name, len(files), resp.StatusCode, answer)
		}
	}}
}

// retrieveStudy reads a stored study whole with WADO-RS, one client, and
// returns MB/s; every instance must come back, at its size.
func (s *peerSystem) retrieveStudy(b *testing.B, uid string, files [][]byte) float64 {
	req, _ := http.NewRequest("GET", s.base+s.dicomweb+"/studies/"+uid, nil)
	s.authorize(req)
	req.Header.Set("Accept", `multipart/related; type="application/dicom"`)
	req.Header.Set("Accept-Encoding", "identity")
	var want, got int64
	for _, f := range files {
		want += int64(len(f))
	}
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatalf("%s WADO-RS: %v", s.name, err)
	}
	defer resp.Body.Close()
	_, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("%s WADO-RS: %d %s %v", s.name, resp.StatusCode, resp.Header.Get("Content-Type"), err)
	}
	mr := multipart.NewReader(resp.Body, params["boundary"])
	parts := 0
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			b.Fatalf("%s WADO-RS: %v", s.name, err)
		}
		n, err := io.Copy(io.Discard, part)
		if err != nil {
			b.Fatalf("%s WADO-RS: %v", s.name, err)
		}
		got += n
		parts++
	}
	d := time.Since(start)
	if parts != len(files) || got != want {
		b.Fatalf("%s WADO-RS: %d instances, %d bytes; sent %d, %d bytes", s.name, parts, got, len(files), want)
	}
	return float64(got) / (1 << 20) / d.Seconds()
}

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

// checkRows fetches a list (or a QIDO-RS search) once and checks that it
// holds from least to most records.
func (s *peerSystem) checkRows(b *testing.B, path string, least, most int) {
	req, _ := http.NewRequest("GET", s.base+path, nil)
	s.authorize(req)
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
	if err != nil || resp.StatusCode != 200 || len(rows) < least || len(rows) > most {
		b.Fatalf("%s %s: %d, %d records, %v", s.name, path, resp.StatusCode, len(rows), err)
	}
}

// wrk loads path for peerWrkTime. When some answers did not come in time
// (or none came during the run), what one request alone answers is kept for
// the report, and a system that keeps working on requests its clients gave
// up on (restart is set) is restarted, so that work does not weigh on the
// next measures: the run counts as all failed.
func (s *peerSystem) wrk(b *testing.B, path string) wrkResult {
	r := runWrk(b, s.base+path, s.auth(), 50, peerWrkTime)
	if timedOut := r.bad - r.non2xx; timedOut > 0 || r.requests == 0 {
		if r.requests == 0 && r.bad == 0 {
			r.bad, r.p99ms = 50, wrkTimeout.Seconds()*1000 // every connection's request
		}
		answer := sampleAnswer(s.base+path, s.auth())
		sample, _, _ := strings.Cut(answer, ": ") // its status and time
		if answer == "" || answer[0] < '0' || answer[0] > '9' {
			sample = "nothing within 30 s" // sampleAnswer's client gave up
		}
		b.Logf("%s %s: %d answers in time, %d not; one request alone answers %s", s.name, path, r.requests, r.bad, sample)
		s.mu.Lock()
		s.slow = append(s.slow, fmt.Sprintf("`%s`: %d answers within wrk's timeout, %d not; one request alone then answered %s", path, r.requests, r.bad, sample))
		s.mu.Unlock()
		if s.restart != nil {
			s.restart()
		}
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
	m.dicomweb = "/dicomweb"
	m.studies = func() int {
		var n int
		queryRow(b, m.dbURL, "SELECT count(*) FROM images WHERE study_uid IS NOT NULL", &n)
		return n
	}
	seededStudies := 0
	m.fillStudies = func(n int) {
		have := m.studies()
		execSQL(b, m.dbURL, append([]string{seedStudiesSQL(m.ids[0], seededStudies+1, seededStudies+n-have), seedStudyModalitiesSQL}, vacuumAfterSeeding...)...)
		seededStudies += n - have
	}
	m.studyWays = []studyWay{
		m.stowWay(b, "stow1", 1, "/studies?patient="+patientID),
		m.stowWay(b, "stow10", 10, "/studies?patient="+patientID),
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

// peerOrthanc is Orthanc, run here with a generated configuration
// (orthanctest): its own storage folder and HTTP port, HTTP basic
// authentication with a generated user, and the PostgreSQL index plugin on
// its own database in the same cluster as MediShare's.
type peerOrthanc struct {
	peerSystem
	srv      *orthanctest.Server
	seedNext int
	resent   atomic.Int64 // seeding uploads sent again after a 503
}

func newPeerOrthanc(b *testing.B, msURL string, port int) *peerOrthanc {
	plugin := orthanctest.Plugin(b, "orthanc-postgresql", "/libOrthancPostgreSQLIndex.so")
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
	o := &peerOrthanc{}
	o.srv = orthanctest.Start(b, port, map[string]any{
		"Name":     "MediShare bench peer",
		"Plugins":  []string{plugin, orthanctest.Plugin(b, "orthanc-dicomweb", "/libOrthancDicomWeb.so")},
		"DicomWeb": map[string]any{"Enable": true, "Root": "/dicom-web/"},
		"PostgreSQL": map[string]any{
			"EnableIndex": true, "EnableStorage": false,
			"Host": u.Hostname(), "Port": pgPort, "Database": "orthanc_bench",
			"Username": u.User.Username(), "Password": pgPassword,
			"Lock": false, "IndexConnectionsCount": 10, // MediShare's pool holds 10 connections too
		},
	})
	srv := o.srv
	base := srv.Base
	o.peerSystem = peerSystem{
		name: "Orthanc", base: base,
		listPath: "/instances?expand&limit=10&since=0", trivialPath: "/system",
		pid:  srv.PID,
		auth: srv.Header,
		upload: func(file []byte) string {
			return srv.MustStore(b, file)
		},
		download: func(id string) {
			req, _ := http.NewRequest("GET", base+"/instances/"+id+"/file", nil)
			srv.Auth(req)
			peerGet(b, req, "download")
		},
		preview: func(id string) {
			req, _ := http.NewRequest("GET", base+"/instances/"+id+"/preview", nil)
			srv.Auth(req)
			peerGet(b, req, "preview")
		},
	}
	statistics := func() (st struct{ CountInstances, CountStudies int }) {
		srv.JSON(b, "GET", "/statistics", nil, &st)
		return st
	}
	o.restart = func() { srv.Restart(b, nil) }
	o.count = func() int { return statistics().CountInstances }
	o.studies = func() int { return statistics().CountStudies }
	o.dicomweb = "/dicom-web"
	o.studyWays = []studyWay{
		o.stowWay(b, "stow1", 1, "/studies"),
		o.stowWay(b, "stow10", 10, "/studies"),
		{key: "native", per: 1, store: func(files [][]byte) { srv.MustStore(b, files[0]) }},
	}
	// Seeding goes through Orthanc's own REST API, as a clinic fills it:
	// studies of one small CT-like instance, each its own patient's, from
	// 16 clients at once, so its instances and its studies are as many, and
	// the study searches find the same dates and modalities as in MediShare
	// (seededStudy). Orthanc runs meanwhile with SyncStorageArea off (no
	// fsync per file), which changes nothing that is stored, and is
	// restarted with its defaults before the measures.
	seedStudies := func(count int) {
		if count <= 0 {
			return
		}
		small := newBenchDICOM(64, 64)
		studies := make([]int, count)
		for i := range studies {
			studies[i] = o.seedNext + i
		}
		srv.Restart(b, map[string]any{"SyncStorageArea": false})
		var failed atomic.Bool
		parallel(16, studies, func(k int) {
			if failed.Load() {
				return
			}
			if err := o.seed(small.File(seededStudy(k))); err != nil {
				failed.Store(true)
				b.Error(err)
			}
		})
		if b.Failed() {
			b.FailNow()
		}
		o.seedNext += count
		srv.Restart(b, nil)
	}
	o.fill = func(n int) { seedStudies(n - o.count()) }
	o.fillStudies = func(n int) { seedStudies(n - o.studies()) }
	return o
}

// seededStudy is the one instance of seeded study k, with the date and
// modality seedStudiesSQL gives MediShare's study k.
func seededStudy(k int) synth.Instance {
	uid := seedStudyRoot + strconv.Itoa(k)
	in := benchInstance(fmt.Sprintf("SEED-%d", k), uid, uid+".1", 1)
	in.StudyDescription = fmt.Sprintf("Seeded study %d", k)
	in.StudyDate = seedEpoch.AddDate(0, 0, k*7919%3650).Format("20060102")
	in.Modality = seedModalities[k%len(seedModalities)]
	return in
}

// seed stores one file while Orthanc is being filled. A 503 (a transaction
// Orthanc could not serialize after its own retries) or a 500 is sent again,
// as a sender does, up to ten times; a file Orthanc already has counts as
// stored.
func (o *peerOrthanc) seed(file []byte) error {
	for try := 1; ; try++ {
		_, answer, status, err := o.srv.Store(file)
		if err == nil && status == http.StatusOK && (answer == "Success" || answer == "AlreadyStored") {
			return nil
		}
		if err != nil || (status != http.StatusServiceUnavailable && status != http.StatusInternalServerError) || try == 10 {
			return fmt.Errorf("Orthanc seeding: %d, %v; its log ends with:\n%s", status, err, o.srv.LogTail(15))
		}
		o.resent.Add(1)
		// A sender's backoff before it sends again (the workload), not a
		// wait for an effect.
		time.Sleep(time.Duration(try) * 50 * time.Millisecond)
	}
}

// peerReport is the section of docs/performance.md.
func peerReport(ms *peerMediShare, or *peerOrthanc, fileSize, instanceSize int, seedTime map[string]time.Duration, dropped bool, loads []string, took time.Duration) string {
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
	var rows, studyRows strings.Builder
	to := &rows // the table being written
	row := func(name, key, f string) {
		mv, ov := m.med(key), o.med(key)
		ratio := "-"
		if ov != 0 && mv != 0 {
			ratio = fmt.Sprintf("%.2f", mv/ov)
		}
		fmt.Fprintf(to, "| %s | %s | %s | %s |\n", name, spread(m.results[key], f), spread(o.results[key], f), ratio)
	}
	// failed counts a list's answers that were not 2xx or did not come
	// within wrk's 5 s, over the three runs (the rates count only 2xx).
	failed := func(key string) {
		sum := func(xs []float64) (t float64) {
			for _, x := range xs {
				t += x
			}
			return t
		}
		fmt.Fprintf(to, "| same, failed or timed-out answers (three runs) | %.0f | %.0f | - |\n",
			sum(m.results[key]), sum(o.results[key]))
	}
	row("upload 10 MiB, 1 client (MB/s)", "up1", "%.0f")
	row("upload, 8 clients (MB/s)", "up8", "%.0f")
	row("download 10 MiB, 1 client (MB/s)", "down1", "%.0f")
	row("download, 8 clients (MB/s)", "down8", "%.0f")
	row("server CPU per 10 MiB download (ms)", "cpu", "%.1f")
	row("list page 1 (limit 10) of 1,000 images, 50 connections (req/s)", "list-small", "%.0f")
	row("same, p99 (ms)", "p99-small", "%.1f")
	failed("bad-small")
	row("PostgreSQL CPU per list request, 1,000 images (ms)", "pgcpu-small", "%.2f")
	row("trivial authenticated endpoint, same run (req/s)", "trivial-small", "%.0f")
	row("list page 1 (limit 10) of 100,000 images, 50 connections (req/s)", "list-large", "%.0f")
	row("same, p99 (ms)", "p99-large", "%.1f")
	failed("bad-large")
	row("PostgreSQL CPU per list request, 100,000 images (ms)", "pgcpu-large", "%.2f")
	row("trivial authenticated endpoint, same run (req/s)", "trivial-large", "%.0f")
	row("peak memory during 8 concurrent uploads, VmHWM (MiB)", "peak", "%.0f")
	row("a page of 10 DICOM previews, first view (ms)", "preview1", "%.0f")
	row("the same page again (ms)", "preview2", "%.0f")

	to = &studyRows
	mb := float64(peerStudyInstances*instanceSize) / 1e6
	for _, way := range []struct{ key, name string }{
		{"stow1", "STOW-RS, one instance a request"},
		{"stow10", "STOW-RS, 10 instances a request"},
		{"native", "Orthanc's own `POST /instances`, one a request"},
	} {
		row(fmt.Sprintf("store a study of %d CT instances (%.0f MB), %s, 1 client (instances/s)", peerStudyInstances, mb, way.name), way.key+"-1", "%.0f")
		row("same, 4 clients (instances/s)", way.key+"-4", "%.0f")
	}
	row(fmt.Sprintf("retrieve the study whole (%d instances), WADO-RS, 1 client (MB/s)", peerStudyInstances), "study-down", "%.0f")
	for _, ps := range peerSizes() {
		for _, q := range qidoQueries {
			row(fmt.Sprintf("QIDO-RS study search %s, %s studies, 50 connections (req/s)", q.name, listRecords("studies", ps.name)), q.key+"-"+ps.name, "%.0f")
			row("same, p99 (ms)", q.key+"-p99-"+ps.name, "%.1f")
			failed(q.key + "-bad-" + ps.name)
		}
		row("trivial authenticated endpoint, same run (req/s)", "qido-trivial-"+ps.name, "%.0f")
	}

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
	store1, store4, studyDown := m.med("stow1-1")/o.med("stow1-1"), m.med("stow1-4")/o.med("stow1-4"), m.med("study-down")/o.med("study-down")
	var searches strings.Builder
	for _, q := range qidoQueries {
		var share []float64
		for i := range m.results[q.key+"-large"] {
			share = append(share, m.results[q.key+"-large"][i]/m.results["qido-trivial-large"][i])
		}
		p99, flat := m.med(q.key+"-p99-large"), m.med(q.key+"-large")/m.med(q.key+"-small")
		fmt.Fprintf(&searches, "| QIDO-RS study search %s at 100,000 studies: at least 30%% of the trivial endpoint's rate in the same run; p99 under 50 ms; at least 80%% of its rate at 1,000 | %.0f%%; %.1f ms; %.0f%% | %s |\n",
			q.name, 100*median(share), p99, 100*flat, scaleVerdict(median(share), p99, flat, "1,000"))
	}
	targets := fmt.Sprintf(`| target | this run | verdict |
|---|---|---|
| list page 1 of 100,000 images at least 30%% of the trivial endpoint's rate in the same run | %.0f%% | %s |
| its p99 under 50 ms at 50 connections | %.1f ms | %s |
| flat from 1,000 to 100,000 images (here: the rate at 100,000 at least 80%% of the rate at 1,000) | %.0f%% | %s |
| the user directory search at 100,000 users, likewise | see "Lists at scale" (make bench) | - |
| download throughput at least 0.8x Orthanc's (1 client; 8 clients) | %.2fx; %.2fx | %s |
| server CPU per 10 MiB download under 8 ms | %.1f ms | %s |
| a page of 10 DICOM previews under 100 ms after the first view | %.0f ms | %s |
| storing a study at least at Orthanc's rate, encrypted (STOW-RS, one instance a request, against Orthanc's STOW-RS; 1 client; 4 clients) | %.2fx; %.2fx | %s |
| retrieving a whole study at least at Orthanc's rate, decrypting (WADO-RS, 1 client) | %.2fx | %s |
%s`,
		100*median(share), check(median(share) >= 0.3),
		m.med("p99-large"), check(m.med("p99-large") < 50),
		100*flat, check(flat >= 0.8),
		downRatio1, downRatio8, check(downRatio1 >= 0.8 && downRatio8 >= 0.8),
		m.med("cpu"), check(m.med("cpu") < 8),
		m.med("preview2"), check(m.med("preview2") < 100),
		store1, store4, check(store1 >= 1 && store4 >= 1),
		studyDown, check(studyDown >= 1),
		searches.String())

	var slow strings.Builder
	for _, sys := range []*peerSystem{m, o} {
		for _, line := range sys.slow {
			fmt.Fprintf(&slow, "- %s, %s\n", sys.name, line)
		}
	}
	if slow.Len() > 0 {
		slow.WriteString(`
Runs above where answers did not come within wrk's timeout (5 s); after
each, a system that keeps working on requests its clients gave up on
(Orthanc) was restarted, so that work did not weigh on the next measures.

`)
	}
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
### Studies (DICOMweb)

| measure | MediShare | Orthanc | MediShare / Orthanc |
|---|---|---|---|
%s
%s### Targets

%s
### Method

- **The systems.** MediShare is the real binary (`+"`bin/medishare`, `make build`"+`) in
  development mode (local disk store, contents encrypted, fsync before the
  record commits), on its own database, with the demo provider signed in
  (a bearer token). Orthanc is Debian's %s with the orthanc-postgresql
  index plugin %s and the orthanc-dicomweb plugin %s (DICOMweb under
  `+"`/dicom-web/`"+`, its defaults otherwise), run by the benchmark (not Debian's service) with a
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
- **Studies.** A synthetic CT study of %d instances in three series
  (explicit VR little endian, 512 x 512 pixels of 16 bits, %d bytes an
  instance), sent with fresh UIDs for each measure (Orthanc keeps one copy
  per SOP Instance UID, MediShare does not store an instance twice), the
  same bytes to both. Each repetition stores one such study for each way
  and number of clients: STOW-RS (MediShare:
  `+"`POST /dicomweb/studies?patient={demo patient}`"+`; Orthanc:
  `+"`POST /dicom-web/studies`"+`) with one instance a request (as the app sends
  them) and with 10 a request, and Orthanc's own `+"`POST /instances`"+`, each with
  1 and with 4 clients sending the requests of the one study; the rate is
  instances per second over the whole study, and every request must answer
  200 with all its instances stored. STOW-RS one instance a request is the
  like-for-like measure. Then the repetition's first study (stored one
  instance a request, 1 client) is retrieved whole with WADO-RS
  (`+"`GET /dicomweb/studies/{uid}`, `GET /dicom-web/studies/{uid}`"+`, Accept
  `+"`multipart/related; type=\"application/dicom\"`"+`, no compression), one
  client reading every part to the end: every instance must come back at its
  size; MB/s counts MiB of instances per second. It was just stored, so
  its files are in the page cache: the measure is the servers' work, MediShare's
  decryption included.
- **Study searches.** At each size, after the lists, each system is
  filled to exactly that many studies (counted back: MediShare's images
  with a StudyInstanceUID, Orthanc's /statistics CountStudies), then wrk (as
  for the lists) loads the three QIDO-RS searches (MediShare:
  `+"`GET /dicomweb/studies?...`; Orthanc: `GET /dicom-web/studies?...`"+`, each
  answer at most ten studies, newest first in MediShare, Orthanc's own order
  in Orthanc) and then the trivial endpoint, in the same repetition. The
  seeded studies' dates run over ten years, 2016 to 2025 (study k on day
  k x 7919 modulo 3650), so January 2021 holds about 1 in 120 of them, and
  their modalities are CT, MR, CR, DX and US in turn (MR: 1 in 5), the
  same in both systems. The demo provider searches its own studies
  (MediShare also looks through those shared with it: none).
- **Seeding.** MediShare: SQL, a thousand people first (every tenth a
  provider), then images copied from the record of a real upload (type,
  size, DICOM facts, wrapped key) with their own ids, captions, file names,
  contents keys and older times, for the seeded patients in turn; their
  contents do not exist, which a list never notices (%s to 1,000, %s to
  100,000). The studies likewise, each with a StudyInstanceUID and its
  facts (description, date, modality, one series, one instance), without
  the sealed patient facts or instance rows, which a study search does not
  read (%s to 1,000, %s more to 100,000). Orthanc: its own REST API (`+"`POST /instances`"+`), as a clinic fills it,
  from 16 clients: small CT-like instances (64 x 64 pixels), each its own
  patient's, study and series, so its instances and its studies are as
  many and one seeding serves both the list and the study searches (%s to
  1,000, %s to 100,000; Orthanc answered 500 or 503, a
  transaction it could not serialize after its own retries, %d times, and
  those files were sent again, as a sender does); meanwhile Orthanc
  runs with SyncStorageArea off (no fsync per file), which changes nothing
  stored, and is restarted with its defaults before the measures.
`, time.Now().UTC().Format("2006-01-02"), binaryVersion(), machine(), took.Round(time.Second),
		minLoad(loads), maxLoad(loads), rows.String(), studyRows.String(), slow.String(), targets,
		packageVersion("orthanc"), packageVersion("orthanc-postgresql"), packageVersion("orthanc-dicomweb"), fileSize, cache,
		peerStudyInstances, instanceSize,
		seedTime["MediShare-small"].Round(time.Millisecond), seedTime["MediShare-large"].Round(time.Millisecond),
		seedTime["MediShare-studies-small"].Round(time.Millisecond), seedTime["MediShare-studies-large"].Round(time.Millisecond),
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
