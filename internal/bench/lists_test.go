package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/testutil/pgtest"
	"github.com/medishare/medishare/internal/testutil/proctest"
)

// listsBefore are the medians of this benchmark on the code before the list
// queries were rewritten per access path (bin/medishare eba43db, this
// machine, 2026-11-23), by list and size: req/s, p99, failed answers, share
// of the trivial endpoint's rate.
var listsBefore = map[string]string{
	"images-small":  "640 req/s, 111.8 ms, 0 failed, 6%",
	"images-large":  "6 req/s, 5000.0 ms, 117 failed, 0%",
	"users-small":   "1354 req/s, 59.9 ms, 0 failed, 12%",
	"users-large":   "21 req/s, 3920.0 ms, 0 failed, 0%",
	"search-small":  "1442 req/s, 56.4 ms, 0 failed, 13%",
	"search-large":  "23 req/s, 2780.0 ms, 0 failed, 0%",
	"trivial-small": "11146 req/s, 10.4 ms, 0 failed",
	"trivial-large": "10999 req/s, 13.0 ms, 0 failed",
}

// listEndpoints are the lists of BenchmarkLists, each as the demo account
// of role asks for it, and the trivial authenticated endpoint measured
// beside them. The audit log is measured at 1,000 and 1,000,000 entries,
// the others at 1,000 and 100,000 records.
var listEndpoints = []struct{ key, name, path, role string }{
	{"images", "images: my uploads, page 1 of 10", "/api/upload/my-images?page=1&limit=10", "healthProvider"},
	{"users", "user directory, page 1 of 10", "/api/users?page=1&limit=10", "healthProvider"},
	{"search", "user directory, search \"" + benchSearch + "\", page 1 of 10", "/api/users?search=" + benchSearch + "&page=1&limit=10", "healthProvider"},
	{"audit", "audit log, all (admin), page 1 of 20", "/api/audit/logs?page=1&limit=20", "admin"},
	{"auditScoped", "audit log, a provider's images and actions, page 1 of 20", "/api/audit/logs?page=1&limit=20", "healthProvider"},
	{"trivial", "trivial: GET /api/users/profile", "/api/users/profile", "healthProvider"},
}

// measuresAudit says whether endpoints include the audit log (which then needs its entries).
func measuresAudit(endpoints []struct{ key, name, path, role string }) bool {
	for _, e := range endpoints {
		if strings.HasPrefix(e.key, "audit") {
			return true
		}
	}
	return false
}

// listRecords says how many records a list was measured at.
func listRecords(key, size string) string {
	if strings.HasPrefix(key, "audit") {
		return map[string]string{"small": "1,000 entries", "large": "1,000,000 entries"}[size]
	}
	return map[string]string{"small": "1,000", "large": "100,000"}[size]
}

// BenchmarkLists measures, against the real binary, page 1 of the lists at
// 1,000 and at 100,000 records (images of one provider, people in the
// directory), each beside the trivial authenticated endpoint in the same
// repetition, with wrk at 50 connections, three repetitions, medians. The
// records are seeded with SQL, and the audit log, read by an admin and by
// the provider, at 1,000 and 1,000,000 entries. `make bench` runs
// it once and writes its section of docs/performance.md (BENCH_REPORT).
func BenchmarkLists(b *testing.B) {
	if _, err := exec.LookPath("wrk"); err != nil {
		b.Skip("wrk is missing: run make bench")
	}
	endpoints := listEndpoints
	if only := os.Getenv("BENCH_LISTS"); only != "" { // e.g. BENCH_LISTS=images,trivial, to look at one list
		endpoints = nil
		for _, e := range listEndpoints {
			if strings.Contains(","+only+",", ","+e.key+",") {
				endpoints = append(endpoints, e)
			}
		}
	}
	env, base, _ := startBenchBinary(b, 0)
	dbURL := env["DATABASE_URL"]
	headers := func() map[string]string {
		out := map[string]string{}
		for _, role := range []string{"healthProvider", "admin"} {
			token, _ := proctest.SignInDemo(b, env, role)
			out[role] = "Authorization: Bearer " + token
		}
		return out
	}
	// The record the seeded images are copied from: a real upload.
	token, patientID := proctest.SignInDemoProvider(b, env)
	template := proctest.MustUpload(b, base, token, patientID, "chest.dcm", newBenchDICOM(64, 64).File(newUIDs("TEMPLATE", 1)))

	results := map[string][]float64{}
	samples := map[string]string{} // what a failing list answered, by list and size
	seedTime := map[string]time.Duration{}
	var loads []string
	sizes := []struct {
		name          string
		n, auditUntil int
	}{{"small", 1000, 1000}, {"large", 100000, 1_000_000}}
	users, images, entries := 0, 1, 0
	for _, size := range sizes {
		start := time.Now()
		execSQL(b, dbURL, seedUsersSQL(users+1, size.n), seedImagesSQL(template, images, size.n-1))
		seedTime[size.name] = time.Since(start)
		// The audit log, through the chaining and audience triggers as the
		// server writes it, to auditUntil entries in all.
		start = time.Now()
		queryRow(b, dbURL, "SELECT count(*) FROM audit_log", &entries)
		if !measuresAudit(endpoints) {
			size.auditUntil = entries
		}
		execSQL(b, dbURL, append(seedAuditSQL(entries+1, size.auditUntil), vacuumAfterSeeding...)...)
		seedTime["audit-"+size.name] = time.Since(start)
		queryRow(b, dbURL, "SELECT count(*) FROM audit_log", &entries)
		users, images = size.n, size.n
		auth := headers()
		for _, e := range endpoints {
			runWrk(b, base+e.path, auth[e.role], 50, 2*time.Second) // warm up
		}
		for rep := 0; rep < 3; rep++ {
			loads = append(loads, loadAverage())
			for _, e := range endpoints {
				r := runWrk(b, base+e.path, auth[e.role], 50, 8*time.Second)
				if r.requests == 0 && r.bad == 0 {
					b.Fatalf("%s: wrk sent nothing", e.path)
				}
				if r.sample != "" {
					samples[e.key+"-"+size.name] = r.sample
				}
				results[e.key+"-rps-"+size.name] = append(results[e.key+"-rps-"+size.name], r.rps)
				results[e.key+"-p99-"+size.name] = append(results[e.key+"-p99-"+size.name], r.p99ms)
				results[e.key+"-bad-"+size.name] = append(results[e.key+"-bad-"+size.name], float64(r.bad))
			}
		}
	}

	for k, v := range results {
		b.ReportMetric(median(v), k)
	}
	if path := os.Getenv("BENCH_REPORT"); path != "" && len(endpoints) == len(listEndpoints) {
		if err := updateReport(path, "lists", listsReport(results, samples, seedTime, entries, loads)); err != nil {
			b.Fatal(err)
		}
	}
}

// listsReport is the section of docs/performance.md.
func listsReport(res map[string][]float64, samples map[string]string, seedTime map[string]time.Duration, entries int, loads []string) string {
	med := func(k string) float64 { return median(res[k]) }
	var rows strings.Builder
	for _, e := range listEndpoints {
		for _, size := range []string{"small", "large"} {
			rps, p99 := med(e.key+"-rps-"+size), med(e.key+"-p99-"+size)
			count := listRecords(e.key, size)
			share := "-"
			if e.key != "trivial" {
				share = fmt.Sprintf("%.0f%%", 100*shareOfTrivial(res, e.key, size))
			}
			before := listsBefore[e.key+"-"+size]
			if before == "" {
				before = "-"
			}
			bad := 0.0
			for _, x := range res[e.key+"-bad-"+size] {
				bad += x
			}
			fmt.Fprintf(&rows, "| %s | %s | %.0f | %.1f | %.0f | %s | %s |\n", e.name, count, rps, p99, bad, share, before)
		}
	}
	var failures strings.Builder
	for _, e := range listEndpoints {
		for _, size := range []string{"small", "large"} {
			if sample := samples[e.key+"-"+size]; sample != "" {
				fmt.Fprintf(&failures, "- %s at %s records: some answers were not 2xx; the same request sent alone afterwards answered %s\n",
					e.name, listRecords(e.key, size), "`"+strings.ReplaceAll(sample, "`", "'")+"`")
			}
		}
	}
	if failures.Len() > 0 {
		failures.WriteString("\n")
	}
	verdict := func(key string) string {
		return scaleVerdict(shareOfTrivial(res, key, "large"), med(key+"-p99-large"),
			med(key+"-rps-large")/med(key+"-rps-small"), listRecords(key, "small"))
	}
	return fmt.Sprintf(`## Lists at scale

Measured by `+"`make bench`"+` (BenchmarkLists in internal/bench/lists_test.go) on
%s against the real binary (%s), on this machine (%s, 1-minute load
average %s to %s: shared with other test runs). The demo provider signed in; wrk with 2
threads and 50 connections, 8 s a run after a 2 s warm-up, each list and then the
trivial authenticated endpoint in the same repetition, three repetitions,
medians. The rate counts 2xx answers only; "failed" counts, over the three
runs, answers that were not 2xx or did not come within wrk's 5 s (p99 is
wrk's, of the answers that came, or 5000 ms when 1%% or more of a run's
requests timed out). "Share" is the list's rate over the trivial
endpoint's, repetition by repetition. "Before" is this benchmark on the code before the list queries
were rewritten per access path.

Seeded with SQL (internal/bench/load_test.go): people with common first
and last names (every tenth a provider, the rest patients), and images copied
from the record of a real upload, all the provider's, for the seeded patients
in turn (%s to 1,000 of each, %s more to 100,000); and audit entries
through the chaining and audience triggers, as the server writes them
(sign-ins, views, previews, uploads and shares by the seeded people, about
the seeded images; %s to 1,000, %s more to %d), so the provider's scope
holds about three in four of them.

| list | records | req/s | p99 (ms) | failed | share | before (req/s, p99, failed, share) |
|---|---|---|---|---|---|---|
%s
%sTargets: page 1 at 100,000 records (the audit log: a million
entries) at least 30%% of the trivial endpoint's rate in the same run, p99
under 50 ms at 50 connections, and flat from 1,000 to 100,000 (here: the
rate at the larger size at least 80%% of the rate at 1,000).

- images, my uploads: %s
- user directory search: %s
- user directory without a search: %s
- audit log, admin: %s
- audit log, provider's scope: %s
`, time.Now().UTC().Format("2006-01-02"), binaryVersion(), machine(), minLoad(loads), maxLoad(loads),
		seedTime["small"].Round(time.Millisecond), seedTime["large"].Round(time.Millisecond),
		seedTime["audit-small"].Round(time.Millisecond), seedTime["audit-large"].Round(time.Second), entries,
		rows.String(), failures.String(), verdict("images"), verdict("search"), verdict("users"),
		verdict("audit"), verdict("auditScoped"))
}

// scaleVerdict says whether a list at its larger size holds the targets
// of lists at scale: at least 30% of the trivial endpoint's rate (share),
// p99 under 50 ms, and at least 80% of its rate at the smaller size, named
// small (flat); or which it missed.
func scaleVerdict(share, p99, flat float64, small string) string {
	var missed []string
	if share < 0.3 {
		missed = append(missed, fmt.Sprintf("%.0f%% of the trivial endpoint", 100*share))
	}
	if p99 >= 50 {
		missed = append(missed, fmt.Sprintf("p99 %.0f ms", p99))
	}
	if flat < 0.8 {
		missed = append(missed, fmt.Sprintf("%.0f%% of its rate at %s", 100*flat, small))
	}
	if len(missed) == 0 {
		return "holds"
	}
	return "missed: " + strings.Join(missed, ", ")
}

// shareOfTrivial is a list's rate over the trivial endpoint's, repetition
// by repetition, the median of those.
func shareOfTrivial(res map[string][]float64, key, size string) float64 {
	var share []float64
	lists, trivial := res[key+"-rps-"+size], res["trivial-rps-"+size]
	for i := range lists {
		share = append(share, lists[i]/trivial[i])
	}
	return median(share)
}

// binaryVersion is what bin/medishare says it is (git describe at build).
func binaryVersion() string {
	out, err := exec.Command(filepath.Join(pgtest.RepoRoot(), "bin", "medishare"), "version").Output()
	if err != nil {
		return "bin/medishare, version unknown"
	}
	return "bin/medishare " + strings.TrimSpace(string(out))
}
