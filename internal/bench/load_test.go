package bench

// Helpers of the load benchmarks (BenchmarkPeer, BenchmarkLists): the real
// binary, wrk, the CPU time of processes, seeding with SQL, medians.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/pgtest"
	"github.com/medishare/medishare/internal/testutil/proctest"
)

// startBenchBinary starts bin/medishare in development mode on a fresh
// database (log level warn) and waits until it is ready.
func startBenchBinary(b *testing.B, port int) (env map[string]string, base string, cmd *exec.Cmd) {
	env = proctest.Env(b, pgtest.NewDatabase(b))
	if port > 0 {
		env["MEDISHARE_ADDR"] = fmt.Sprintf("127.0.0.1:%d", port)
		env["MEDISHARE_PUBLIC_URL"] = "http://" + env["MEDISHARE_ADDR"]
	}
	env["MEDISHARE_LOG_LEVEL"] = "warn"
	// The seeded rows point at contents that do not exist: no scrub.
	env["MEDISHARE_SCRUB_EVERY"] = "0"
	base = "http://" + env["MEDISHARE_ADDR"]
	cmd = proctest.Start(b, proctest.Built(b), env, os.Stderr)
	proctest.WaitStatus(b, base+"/readyz", http.StatusOK)
	return env, base, cmd
}

// wrkTimeout is how long wrk waits for an answer.
const wrkTimeout = 5 * time.Second

// wrkResult is one wrk run. rps counts only 2xx answers; p99 is wrk's, of
// the answers that came, or the timeout when 1% or more of the requests
// timed out.
type wrkResult struct {
	rps, p99ms float64
	requests   int64  // answers, whatever their status
	bad        int64  // non-2xx answers, timeouts and other socket errors
	non2xx     int64  // of bad, the answers that came
	sample     string // when some answers were not 2xx: what one such request answers afterwards
}

// runWrk loads url with wrk: 2 threads, conns connections, for d, with the
// given header (an Authorization header, so every request is authenticated).
func runWrk(b *testing.B, url, header string, conns int, d time.Duration) wrkResult {
	b.Helper()
	args := []string{"-t2", fmt.Sprintf("-c%d", conns), fmt.Sprintf("-d%ds", int(d.Seconds())), "--latency", "--timeout", wrkTimeout.String()}
	if header != "" {
		args = append(args, "-H", header)
	}
	out, err := exec.Command("wrk", append(args, url)...).CombinedOutput()
	if err != nil {
		b.Fatalf("wrk %s: %v\n%s", url, err, out)
	}
	r, err := parseWrk(string(out))
	if err != nil {
		b.Fatalf("wrk %s: %v\n%s", url, err, out)
	}
	if r.non2xx > 0 {
		r.sample = sampleAnswer(url, header)
		b.Logf("wrk %s: %d answers not 2xx; one request now answers %s", url, r.non2xx, r.sample)
	}
	return r
}

// sampleAnswer sends one request, as wrk did, and says what came back.
func sampleAnswer(url, header string) string {
	req, _ := http.NewRequest("GET", url, nil)
	name, value, _ := strings.Cut(header, ": ")
	req.Header.Set(name, value)
	start := time.Now()
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 120))
	return fmt.Sprintf("%d after %s: %s", resp.StatusCode, time.Since(start).Round(time.Millisecond), strings.TrimSpace(string(body)))
}

func parseWrk(out string) (wrkResult, error) {
	var r wrkResult
	var seenRate, seenP99 bool
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 2 && f[0] == "Requests/sec:":
			r.rps, _ = strconv.ParseFloat(f[1], 64)
			seenRate = true
		case len(f) == 2 && f[0] == "99%":
			r.p99ms, seenP99 = wrkDuration(f[1])
		case len(f) >= 3 && f[1] == "requests" && f[2] == "in":
			r.requests, _ = strconv.ParseInt(f[0], 10, 64)
		case len(f) == 5 && f[0] == "Non-2xx":
			r.non2xx, _ = strconv.ParseInt(f[4], 10, 64)
			r.bad += r.non2xx
		case len(f) > 2 && f[0] == "Socket" && f[1] == "errors:":
			for i := 2; i+1 < len(f); i += 2 {
				n, _ := strconv.ParseInt(strings.TrimSuffix(f[i+1], ","), 10, 64)
				r.bad += n
			}
		}
	}
	if !seenRate || !seenP99 {
		return r, fmt.Errorf("no rate or 99th percentile in wrk's output")
	}
	if r.requests > 0 {
		r.rps *= float64(r.requests-r.non2xx) / float64(r.requests)
	}
	// wrk's latencies leave out the requests that timed out: when they are
	// 1% or more of those sent, the 99th percentile is at least the timeout.
	if timedOut := r.bad - r.non2xx; timedOut > 0 && 100*timedOut >= r.requests+timedOut {
		r.p99ms = wrkTimeout.Seconds() * 1000
	}
	return r, nil
}

// wrkDuration reads wrk's 1.23ms, 456.00us, 1.02s, in milliseconds.
func wrkDuration(s string) (float64, bool) {
	for _, u := range []struct {
		suffix string
		ms     float64
	}{{"us", 1e-3}, {"ms", 1}, {"m", 60e3}, {"s", 1e3}} {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			f, err := strconv.ParseFloat(v, 64)
			return f * u.ms, err == nil
		}
	}
	return 0, false
}

// cpuMillis is the user and system CPU time a process has used, in ms.
func cpuMillis(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name, in parentheses, may hold spaces: count from after it.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseFloat(f[11], 64) // field 14 of stat
	st, _ := strconv.ParseFloat(f[12], 64) // field 15
	return (ut + st) * 1000 / 100          // clock ticks (USER_HZ = 100 on Linux)
}

// clusterCPU is the CPU time, in ms, of a PostgreSQL server: the postmaster
// and every process it started (backends and background workers).
func clusterCPU(postmaster int) float64 {
	total := cpuMillis(postmaster)
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 && f[1] == strconv.Itoa(postmaster) {
			total += cpuMillis(pid)
		}
	}
	return total
}

// postmasterPID finds the server behind a database URL from its data folder.
func postmasterPID(b *testing.B, dbURL string) int {
	b.Helper()
	var dir string
	queryRow(b, dbURL, "SHOW data_directory", &dir)
	raw, err := os.ReadFile(filepath.Join(dir, "postmaster.pid"))
	if err != nil {
		b.Fatalf("the PostgreSQL server's pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.SplitN(string(raw), "\n", 2)[0])
	if err != nil {
		b.Fatal(err)
	}
	return pid
}

// queryRow runs a query with a one-row answer on a database.
func queryRow(b *testing.B, dbURL, sql string, dst ...any) {
	b.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = conn.Close(ctx) }() // read only
	if err := conn.QueryRow(ctx, sql).Scan(dst...); err != nil {
		b.Fatalf("%s: %v", sql, err)
	}
}

// execSQL runs statements on a database, reporting how long they took.
func execSQL(b *testing.B, dbURL string, stmts ...string) time.Duration {
	b.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = conn.Close(ctx) }() // each statement has finished
	start := time.Now()
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			b.Fatalf("%.80s: %v", s, err)
		}
	}
	return time.Since(start)
}

var (
	benchFirstNames = []string{"Emma", "Liam", "Olivia", "Noah", "Ava", "Elijah", "Sophia", "James", "Isabella", "Lucas",
		"Mia", "Mateo", "Amelia", "Benjamin", "Harper", "Henry", "Evelyn", "Theodore", "Abigail", "Samuel",
		"Fatima", "Mohammed", "Aisha", "Omar", "Mei", "Wei", "Priya", "Arjun", "Sofia", "Diego",
		"Chloe", "Louis", "Lea", "Hugo", "Anna", "Jonas", "Marta", "Pavel", "Ingrid", "Kenji"}
	benchLastNames = []string{"Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez",
		"Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson", "Martin",
		"Lee", "Perez", "Thompson", "White", "Harris", "Sanchez", "Clark", "Ramirez", "Lewis", "Robinson",
		"Walker", "Young", "Allen", "King", "Wright", "Scott", "Torres", "Nguyen", "Hill", "Flores",
		"Green", "Adams", "Nelson", "Baker", "Hall", "Rivera", "Campbell", "Mitchell", "Carter", "Henderson"}
)

// benchSearch is the directory search of the benchmarks: a fragment of a
// last name, as a person types it (Anderson, Henderson: 4% of the users).
const benchSearch = "nders"

// vacuumAfterSeeding brings a seeded database to the state a running one
// keeps: seeding adds 100,000 rows in one transaction, so every counter row
// it updates (migrations/00005_lists.sql) piles up dead versions that one
// transaction per upload, as in use, never leaves; the full vacuum of the
// small counter tables clears them, and the plain one sets the visibility
// map and statistics as autovacuum would.
var vacuumAfterSeeding = []string{"VACUUM FULL image_counts, user_counts, uploader_patients, share_counts, audit_head, audit_audience_counts, user_gram_counts", "VACUUM ANALYZE"}

func sqlTextArray(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	return "ARRAY[" + strings.Join(q, ",") + "]"
}

// seedUsersSQL adds users from..to (numbered), confirmed and active, with
// names from common first and last names: every tenth a provider, the rest
// patients. Their password hash is no hash, so nobody signs in as them.
func seedUsersSQL(from, to int) string {
	return fmt.Sprintf(`INSERT INTO users (email, username, password_hash, role, verified, firstname, lastname, city, country, created_at)
SELECT 'seed.' || g || '@clinic.example', 'seed' || g, '!', CASE WHEN g %% 10 = 0 THEN 'healthProvider' ELSE 'patient' END, true,
       (%s)[1 + g %% %d], (%s)[1 + (g / %d) %% %d], 'Springfield', 'US', now() - g * interval '1 minute'
FROM generate_series(%d, %d) g`,
		sqlTextArray(benchFirstNames), len(benchFirstNames), sqlTextArray(benchLastNames), len(benchFirstNames), len(benchLastNames), from, to)
}

// seedImagesSQL adds images from..to (numbered) copied from a real upload
// (the record the server wrote: its type, size, DICOM facts, wrapped key),
// each with its own id, caption, file name, contents key and time, for the
// seeded patients in turn (or the upload's patient when there are none),
// older than the upload. Their contents do not exist: a list never reads them.
func seedImagesSQL(templateID string, from, to int) string {
	return seedCopiesSQL(templateID, "seed/", from, to, "", "")
}

// seedStudyRoot is the root of the seeded studies' UIDs: study k is
// seedStudyRoot + k, in MediShare and in Orthanc alike.
const seedStudyRoot = "1.2.826.0.1.3680043.10.543.2."

// seedModalities are the seeded studies' modalities, study k the k-th in
// turn; their dates run over ten years from seedEpoch, study k on day
// k * 7919 modulo 3650 (a prime step: every day once in 3650 studies).
var (
	seedModalities = []string{"CT", "MR", "CR", "DX", "US"}
	seedEpoch      = time.Date(2016, 1, 1, 0, 0, 0, 0, time.UTC)
)

// seedStudiesSQL adds studies from..to (numbered) of one instance each, as
// seedImagesSQL adds images, with what a DICOMweb search reads of them: a
// StudyInstanceUID, and the study's facts (description, date, modality,
// counts) as seededStudy gives them to Orthanc. What the files say of the
// patient (study_sealed) and the instances' rows are left out: a study
// search reads neither.
func seedStudiesSQL(templateID string, from, to int) string {
	return seedCopiesSQL(templateID, "seed-study/", from, to, ", study_uid, study, study_joins",
		fmt.Sprintf(`, '%[1]s' || g, jsonb_build_object('studyInstanceUid', '%[1]s' || g, 'description', 'Seeded study ' || g,
       'date', to_char(date '%[2]s' + ((g::bigint * 7919) %% 3650)::int, 'YYYYMMDD'),
       'modalities', jsonb_build_array((%[3]s)[1 + g %% %[4]d]), 'series', 1, 'instances', 1, 'bytes', t.size), true`,
			seedStudyRoot, seedEpoch.Format(time.DateOnly), sqlTextArray(seedModalities), len(seedModalities)))
}

// seedStudyModalitiesSQL gives the seeded studies their rows in
// study_modalities, as the server does when an instance joins a study.
const seedStudyModalitiesSQL = `INSERT INTO study_modalities (image_id, modality, uploader_id, created_at)
SELECT i.id, m, i.uploader_id, i.created_at FROM images i, jsonb_array_elements_text(i.study->'modalities') m
WHERE i.study_uid IS NOT NULL
ON CONFLICT DO NOTHING`

// seedCopiesSQL is the statement of seedImagesSQL, the copies' contents
// keys under prefix, with more columns and their values (over t, the
// template, and g, the number).
func seedCopiesSQL(templateID, prefix string, from, to int, columns, values string) string {
	return fmt.Sprintf(`WITH t AS (SELECT * FROM images WHERE id = '%s'),
p AS (SELECT array_agg(id ORDER BY email) AS a FROM users WHERE role = 'patient' AND email LIKE 'seed.%%')
INSERT INTO images (id, uploader_id, patient_id, caption, content_type, file_name, size, sha256, blob_key,
                    wrapped_key, key_id, width, height, dicom, created_at%s)
SELECT gen_random_uuid(), t.uploader_id, coalesce(p.a[1 + g %% cardinality(p.a)], t.patient_id), 'Chest PA, follow-up ' || g,
       t.content_type, 'chest-' || g || '.dcm', t.size, sha256(convert_to('%s' || g, 'UTF8')), '%s' || g,
       t.wrapped_key, t.key_id, t.width, t.height, t.dicom, t.created_at - g * interval '1 minute'%s
FROM t, p, generate_series(%d, %d) g`, templateID, columns, prefix, prefix, values, from, to)
}

// seedAuditSQL is the statements that append entries from..to through the
// audience triggers, as the server writes them, chained onto the log's
// head (each entry hashed onto the previous one, and its readers derived
// from its image): a mix of sign-ins, views, previews, uploads and shares
// by the seeded people, about the seeded images. The server keys its hashes
// with a secret the database never holds, so the seed chains its entries
// the way entries were chained before the chain was keyed (a trigger of its
// own, dropped after): the same work per entry for the database, and a
// chain a check still accepts as long as no keyed entry comes before them.
// People and images are numbered in tables of their own first, so that each
// entry finds its own by key. The entries go in statements of a thousand:
// within one transaction every entry adds a version of the chain's head
// row, and reading the head walks them.
func seedAuditSQL(from, to int) []string {
	stmts := []string{
		"DROP TABLE IF EXISTS bench_actors, bench_images",
		"CREATE UNLOGGED TABLE bench_actors AS SELECT (row_number() OVER (ORDER BY email) - 1)::int AS n, id FROM users",
		"ALTER TABLE bench_actors ADD PRIMARY KEY (n)",
		"CREATE UNLOGGED TABLE bench_images AS SELECT (row_number() OVER (ORDER BY id) - 1)::int AS n, id FROM images",
		"ALTER TABLE bench_images ADD PRIMARY KEY (n)",
		"ANALYZE bench_actors, bench_images",
		`CREATE FUNCTION bench_audit_chain() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    SELECT n.id, n.created_at, n.prev_hash INTO NEW.id, NEW.created_at, NEW.prev_hash FROM audit_next() n;
    NEW.chain := 1;
    NEW.hash := ` + testutil.LegacyAuditDigestSQL("NEW.prev_hash", "NEW") + `;
    RETURN NEW;
END $$`,
		// Before the head's trigger (triggers of one kind fire in name order).
		"CREATE TRIGGER audit_log_0_bench BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION bench_audit_chain()",
	}
	for f := from; f <= to; f += 1000 {
		stmts = append(stmts, fmt.Sprintf(`INSERT INTO audit_log (id, actor_id, action, table_name, record_id, ip, user_agent, status, reason, chain, prev_hash, hash)
SELECT 0, a.id, (ARRAY['login','view','preview','upload','view','login','share','view'])[1 + g %% 8],
       CASE WHEN g %% 8 IN (0, 5) THEN '' ELSE 'images' END, CASE WHEN g %% 8 IN (0, 5) THEN '' ELSE i.id::text END,
       '10.0.' || (g %% 200) || '.' || (g %% 250), 'Mozilla/5.0 (benchmark)', CASE WHEN g %% 50 = 0 THEN 'failure' ELSE 'success' END,
       '', 1, '\x'::bytea, '\x'::bytea
FROM generate_series(%d, %d) g
JOIN bench_actors a ON a.n = g %% (SELECT max(n) + 1 FROM bench_actors)
JOIN bench_images i ON i.n = (g::bigint * 7919) %% (SELECT max(n) + 1 FROM bench_images)
ORDER BY g`, f, min(f+999, to)))
	}
	return append(stmts, "DROP TRIGGER audit_log_0_bench ON audit_log", "DROP FUNCTION bench_audit_chain()", "DROP TABLE bench_actors, bench_images")
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// loadAverage is the machine's 1-minute load average, to say how busy it was.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Fields(string(b))[0]
}

// dropPageCache empties the page cache (root only); it says whether it could.
func dropPageCache() bool {
	if err := exec.Command("sync").Run(); err != nil {
		return false
	}
	return os.WriteFile("/proc/sys/vm/drop_caches", []byte("3"), 0) == nil
}

// resetPeak resets a process's memory high-water mark (VmHWM).
func resetPeak(b *testing.B, pid int) {
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		b.Fatalf("reset the memory high-water mark: %v", err)
	}
}

// drainStatus reads an answer to the end and says its status and length.
func drainStatus(resp *http.Response) (int, int64) {
	defer resp.Body.Close()
	n, _ := io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, n
}
