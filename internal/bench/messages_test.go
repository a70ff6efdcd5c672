package bench

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/medishare/medishare/internal/secure"
	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/pgtest"
	"github.com/medishare/medishare/internal/testutil/proctest"
)

// Sizes of BenchmarkMessages.
const (
	benchDeliveries     = 1000
	benchMessages       = 1_000_000
	benchCorrespondents = 20000 // seeded people writing to each other
)

// BenchmarkMessages measures, against the real binary run as two instances
// on one database: the delivery latency of 1,000 messages sent through one
// instance to a stream open on the other (send to arrival, one at a time),
// and, with 1,000,000 messages stored, the chat list and a conversation
// page beside the bare /healthz of the same server in the same run (wrk, 50
// connections, three repetitions, medians). `make bench` writes its
// section of docs/performance.md (BENCH_REPORT).
func BenchmarkMessages(b *testing.B) {
	if _, err := exec.LookPath("wrk"); err != nil {
		b.Skip("wrk is missing: run make bench")
	}
	env, one, _ := startBenchBinary(b, 0)
	dbURL := env["DATABASE_URL"]
	env2 := map[string]string{}
	for k, v := range env {
		env2[k] = v
	}
	env2["MEDISHARE_ADDR"] = fmt.Sprintf("127.0.0.1:%d", pgtest.FreePort(b))
	two := "http://" + env2["MEDISHARE_ADDR"]
	proctest.Start(b, proctest.Built(b), env2, os.Stderr)
	proctest.WaitStatus(b, two+"/readyz", http.StatusOK)
	providerToken, providerID := proctest.SignInDemo(b, env, "healthProvider")
	// The patient signs in on two, whose stream is read: a token names the
	// instance that issued it (its public URL).
	patient := proctest.ReadDemoAccount(b, env, "patient")
	session := testutil.SignIn(b, http.DefaultClient, two, patient.Email, patient.Password, http.StatusOK)
	patientToken, patientID := session.Token, session.ID

	// Delivery: each message sent through one, timed until the patient's
	// stream on two has it.
	events := proctest.OpenStream(b, two, patientToken, "")
	var latencies []float64
	for i := range benchDeliveries {
		if i%25 == 0 { // the 30-a-minute limit of one sender is not what is measured here
			execSQL(b, dbURL, "DELETE FROM throttles WHERE key LIKE 'message:%'")
		}
		start := time.Now()
		id := benchSend(b, one, providerToken, patientID, fmt.Sprintf("delivery %d", i))
		for got := ""; got != id; {
			var open bool
			if got, open = <-events; !open {
				b.Fatal("the stream ended")
			}
		}
		latencies = append(latencies, float64(time.Since(start).Microseconds())/1000)
	}
	slices.Sort(latencies)
	p50, p99 := latencies[len(latencies)/2], latencies[len(latencies)*99/100]
	b.ReportMetric(p50, "delivery-p50-ms")
	b.ReportMetric(p99, "delivery-p99-ms")

	seedTook := seedBenchMessages(b, env, dbURL, providerID, patientID)

	auth := "Authorization: Bearer " + providerToken
	targets := []struct{ key, name, url, header string }{
		{"chats", "chat list (the provider's newest 100 of 1,001 conversations)", one + "/api/message/chat-list", auth},
		{"conversation", "a conversation page (50 of 1,000, newest)", one + "/api/message/chat/" + patientID + "?limit=50", auth},
		{"healthz", "bare GET /healthz", one + "/healthz", ""},
	}
	for _, t := range targets {
		runWrk(b, t.url, t.header, 50, 2*time.Second) // warm up
	}
	res := map[string][]float64{}
	var loads []string
	for range 3 {
		loads = append(loads, loadAverage())
		for _, t := range targets {
			r := runWrk(b, t.url, t.header, 50, 8*time.Second)
			res[t.key+"-rps"] = append(res[t.key+"-rps"], r.rps)
			res[t.key+"-p99"] = append(res[t.key+"-p99"], r.p99ms)
			res[t.key+"-bad"] = append(res[t.key+"-bad"], float64(r.bad))
		}
	}
	var rows strings.Builder
	for _, t := range targets {
		rps, p99 := median(res[t.key+"-rps"]), median(res[t.key+"-p99"])
		b.ReportMetric(rps, t.key+"-rps")
		b.ReportMetric(p99, t.key+"-p99-ms")
		share := "-"
		if t.key != "healthz" {
			share = fmt.Sprintf("%.0f%%", 100*rps/median(res["healthz-rps"]))
		}
		fmt.Fprintf(&rows, "| %s | %.0f | %.1f | %.0f | %s |\n", t.name, rps, p99, sum(res[t.key+"-bad"]), share)
	}
	if path := os.Getenv("BENCH_REPORT"); path != "" {
		section := fmt.Sprintf(`## Messages

Measured by `+"`make bench`"+` (BenchmarkMessages in internal/bench/messages_test.go) on
%s against the real binary (%s) run as two instances on one database, on
this machine (%s, 1-minute load average %s to %s).

**Delivery across instances.** The demo provider sends %s messages through
the first instance, one at a time; the demo patient's stream is open on the
second. Time from the start of the send request to the message's arrival
on the stream (the send's own answer included; the instances tell each
other through PostgreSQL LISTEN/NOTIFY): p50 %.1f ms, p99 %.1f ms.

**Reading, with %s messages stored** (seeded in %s with COPY through the
conversations trigger, sealed as the server seals them: the provider in
conversations of 200 with 1,000 seeded patients and of 1,000 with the demo
patient, the rest among %s seeded people; nine in ten read). wrk with 2 threads
and 50 connections, 8 s a run after a 2 s warm-up, each list and then
/healthz of the same server in the same repetition, three repetitions,
medians; "share" is the rate over /healthz's.

| request | req/s | p99 (ms) | failed | share of /healthz |
|---|---|---|---|---|
%s`, time.Now().UTC().Format("2006-01-02"), binaryVersion(), machine(), minLoad(loads), maxLoad(loads),
			grouped(benchDeliveries), p50, p99, grouped(benchMessages), seedTook.Round(time.Second), grouped(benchCorrespondents), rows.String())
		if err := updateReport(path, "messages", section); err != nil {
			b.Fatal(err)
		}
	}
}

// grouped writes n with thousands separated by commas, as the docs do.
func grouped(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func sum(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}

// benchSend sends a message and returns its id.
func benchSend(b *testing.B, base, token, to, text string) string {
	b.Helper()
	status, body := proctest.APIJSON(b, "POST", base+"/api/message/send", token, map[string]string{"recipientId": to, "content": text})
	var out struct{ Data struct{ ID string } }
	if err := json.Unmarshal([]byte(body), &out); err != nil || status != http.StatusCreated {
		b.Fatalf("send: %d %v", status, err)
	}
	return out.Data.ID
}

// seedBenchMessages stores benchMessages messages, sealed under the
// instances' master key (from their data folder), with COPY.
func seedBenchMessages(b *testing.B, env map[string]string, dbURL, providerID, patientID string) time.Duration {
	b.Helper()
	raw, err := os.ReadFile(filepath.Join(env["MEDISHARE_DATA_DIR"], "secrets", "master.key"))
	if err != nil {
		b.Fatal(err)
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(raw)))
	if err != nil {
		b.Fatal(err)
	}
	sealer, err := secure.NewTextSealer(key)
	if err != nil {
		b.Fatal(err)
	}
	execSQL(b, dbURL, seedUsersSQL(1, benchCorrespondents))
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = conn.Close(ctx) }() // the copy has finished
	var people []uuid.UUID
	rows, err := conn.Query(ctx, "SELECT id FROM users WHERE email LIKE 'seed.%' ORDER BY email")
	if err == nil {
		people, err = pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	}
	if err != nil {
		b.Fatal(err)
	}
	provider, patient := uuid.MustParse(providerID), uuid.MustParse(patientID)
	start, t0 := time.Now(), time.Now().Add(-benchMessages*time.Second)
	n := 0
	row := func() ([]any, error) {
		var from, to uuid.UUID
		switch {
		case n < 1000: // the demo patient's conversation
			from, to = provider, patient
		case n < 201000: // 200 with each of 1,000 seeded patients
			from, to = provider, people[(n-1000)%1000+1]
		default:
			from, to = people[n%len(people)], people[(n*7+13)%len(people)]
			if from == to {
				to = people[(n*7+14)%len(people)]
			}
		}
		if n%2 == 1 {
			from, to = to, from
		}
		id := uuid.New()
		at := t0.Add(time.Duration(n) * time.Second)
		var readAt any
		if n%10 != 0 {
			readAt = at.Add(time.Minute)
		}
		n++
		return []any{id, from, to, sealer.Seal(id.String(), fmt.Sprintf("seeded message %d", n)), at, readAt}, nil
	}
	src := pgx.CopyFromFunc(func() ([]any, error) {
		if n == benchMessages {
			return nil, nil
		}
		return row()
	})
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"messages"}, []string{"id", "sender_id", "recipient_id", "sealed", "created_at", "read_at"}, src); err != nil {
		b.Fatal(err)
	}
	execSQL(b, dbURL, "VACUUM ANALYZE messages", "VACUUM ANALYZE conversations")
	return time.Since(start)
}
