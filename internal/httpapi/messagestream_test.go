package httpapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/httpapi"
	"github.com/medishare/medishare/internal/service"
	"github.com/medishare/medishare/internal/testutil"
	"github.com/medishare/medishare/internal/testutil/apptest"
)

// sseEvent is one server-sent event.
type sseEvent struct {
	Name, ID string
	Data     map[string]any
}

// openStream opens p's message stream (with lastID as Last-Event-ID when
// set); its events arrive on the channel, which closes when the stream ends.
func openStream(t *testing.T, app *apptest.App, p *apptest.Person, lastID string) (*http.Response, <-chan sseEvent) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", app.URL+"/api/message/stream", nil)
	req.Header.Set("Authorization", "Bearer "+p.Token)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	events := make(chan sseEvent, 100)
	go func() {
		defer close(events)
		defer resp.Body.Close()
		var ev sseEvent
		lines := bufio.NewScanner(resp.Body)
		for lines.Scan() {
			line := lines.Text()
			switch {
			case line == "":
				if ev.Name != "" {
					events <- ev
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, "event: "):
				ev.Name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "id: "):
				ev.ID = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "data: "):
				_ = json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev.Data)
			}
		}
	}()
	return resp, events
}

// next waits for the next event named name (skipping others).
func next(t *testing.T, events <-chan sseEvent, name string) sseEvent {
	t.Helper()
	timeout := time.After(testutil.EventuallyTimeout)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatalf("the stream ended before a %q event", name)
			}
			if ev.Name == name {
				return ev
			}
		case <-timeout:
			t.Fatalf("no %q event within %s", name, testutil.EventuallyTimeout)
		}
	}
}

// waitEnded waits for the server to end a stream, skipping its events.
func waitEnded(t *testing.T, events <-chan sseEvent, what string) {
	t.Helper()
	timeout := time.After(testutil.EventuallyTimeout)
	for {
		select {
		case _, ok := <-events:
			if !ok {
				return
			}
		case <-timeout:
			t.Fatalf("%s: the stream outlived the session by %s", what, testutil.EventuallyTimeout)
		}
	}
}

// quickSessionChecks makes the streams of the test's servers check their
// session often, so that a test sees one end soon after its session;
// TestStreamSessionCheckInterval holds the interval the server uses to
// its promise. Call it before the servers start. The timing is the
// package's, read by every stream: a test that changes it does not run in
// parallel (Go runs such tests one by one, before the parallel ones).
func quickSessionChecks(t *testing.T) {
	ping, _ := httpapi.StreamTiming()
	httpapi.SetStreamTiming(t, ping, 50*time.Millisecond)
}

// TestStreamSessionCheckInterval: a stream checks its session often enough
// to end within 5 s of the session's end (api.md, Messages), the check's
// own round trip included.
func TestStreamSessionCheckInterval(t *testing.T) {
	t.Parallel()
	if _, check := httpapi.StreamTiming(); check <= 0 || check > 4*time.Second {
		t.Errorf("a stream checks its session every %s; it must end within 5 s of the session", check)
	}
}

// TestMessageStream: a message reaches the streams of both people as it is
// sent; reading it sends a read receipt to its sender; a reconnect with
// Last-Event-ID replays what was missed; signing out ends the stream.
func TestMessageStream(t *testing.T) {
	quickSessionChecks(t)
	app := apptest.New(t)
	provider, patient := app.SignUp(t, domain.RoleProvider), app.SignUp(t, domain.RolePatient)
	resp, patientEvents := openStream(t, app, patient, "")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" || resp.Header.Get("X-Accel-Buffering") != "no" {
		t.Fatalf("stream: %d %v", resp.StatusCode, resp.Header)
	}
	_, providerEvents := openStream(t, app, provider, "")

	first := mustSend(t, provider, patient.ID, "your scan is ready")
	got := next(t, patientEvents, "message")
	if got.ID != first["id"] || got.Data["content"] != "your scan is ready" || got.Data["senderId"] != provider.ID {
		t.Errorf("the patient's event: %+v", got)
	}
	if mine := next(t, providerEvents, "message"); mine.ID != first["id"] {
		t.Errorf("the sender's own event: %+v", mine)
	}

	patient.Do(t, "GET", "/api/message/chat/"+provider.ID, nil)
	read := next(t, providerEvents, "read")
	if read.Data["userId"] != patient.ID || read.Data["senderId"] != provider.ID || read.Data["readAt"] == nil {
		t.Errorf("read receipt: %+v", read)
	}

	// Missed while away: replayed on reconnecting, in order.
	second := mustSend(t, provider, patient.ID, "second")["id"]
	third := mustSend(t, provider, patient.ID, "third")["id"]
	_, again := openStream(t, app, patient, first["id"].(string))
	var replayed []string
	for len(replayed) < 2 {
		ev := next(t, again, "message")
		if ev.ID != first["id"] {
			replayed = append(replayed, ev.ID)
		}
	}
	if replayed[0] != second || replayed[1] != third {
		t.Errorf("replayed %v, want %v %v", replayed, second, third)
	}

	// Signing out ends the stream (at its next session check).
	patient.Do(t, "POST", "/api/auth/logout", nil)
	waitEnded(t, patientEvents, "sign-out")
	if r, _ := patient.Get(t, "/api/message/stream", nil); r.StatusCode != 401 {
		t.Errorf("a stream after signing out: %d", r.StatusCode)
	}
}

// TestMessageStreamBounds: a person may hold five streams at once; a sixth
// is refused until one closes.
func TestMessageStreamBounds(t *testing.T) {
	t.Parallel()
	app := apptest.New(t)
	patient := app.SignUp(t, domain.RolePatient)
	for i := range 5 {
		if resp, _ := openStream(t, app, patient, ""); resp.StatusCode != 200 {
			t.Fatalf("stream %d: %d", i+1, resp.StatusCode)
		}
	}
	r, body := patient.Get(t, "/api/message/stream", nil)
	if r.StatusCode != http.StatusTooManyRequests || !strings.Contains(string(body), "Too many open message streams.") || r.Header.Get("Retry-After") == "" {
		t.Errorf("a sixth stream: %d %s", r.StatusCode, body)
	}
}

// TestMessagesAcrossInstances: two server instances on one database, as a
// deployment runs them. A message sent through one reaches a stream on the
// other (only NOTIFY carries it there: a stream replays only when it
// connects); signing out through one ends the stream on the other; and when an instance loses its listening connection (as in a
// database restart), it reconnects by itself and its streams catch up on
// what was sent meanwhile.
func TestMessagesAcrossInstances(t *testing.T) {
	quickSessionChecks(t)
	one := apptest.New(t)
	two := one.Twin(t)
	provider, patient := one.SignUp(t, domain.RoleProvider), one.SignUp(t, domain.RolePatient)
	_, events := openStream(t, two, two.As(patient), "")

	sent := mustSend(t, provider, patient.ID, "through the first instance")
	got := next(t, events, "message")
	if got.ID != sent["id"] {
		t.Fatalf("got %+v", got)
	}

	// The second instance's listening connection is cut (a database
	// restart does this to every connection). What is sent before it is
	// back arrives all the same.
	ctx := context.Background()
	var cut int
	if err := one.DB.Pool.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()`).Scan(&cut); err != nil || cut != 2 {
		t.Fatalf("cut %d listening connections (%v), want both instances'", cut, err)
	}
	during := mustSend(t, provider, patient.ID, "while the listener was away")
	for { // the catching up may repeat what the stream sent already (the app drops repeats by id)
		ev := next(t, events, "message")
		if ev.ID == during["id"] {
			break
		}
		if ev.ID != sent["id"] {
			t.Fatalf("after reconnecting: %+v", ev)
		}
	}

	// Signing out through the first instance ends the stream on the second.
	patient.Do(t, "POST", "/api/auth/logout", nil)
	waitEnded(t, events, "sign-out on the other instance")
}

// TestMessageStreamKeepAlive: an idle stream carries a comment line at the
// keep-alive interval (25 s in the server; shortened here), so that proxies
// do not close it.
func TestMessageStreamKeepAlive(t *testing.T) {
	httpapi.SetStreamTiming(t, 100*time.Millisecond, 4*time.Second)
	app := apptest.New(t)
	patient := app.SignUp(t, domain.RolePatient)
	// The stream never ends by itself: a test that finds no comment fails
	// when the request's time is up.
	ctx, cancel := context.WithTimeout(context.Background(), testutil.EventuallyTimeout)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", app.URL+"/api/message/stream", nil)
	req.Header.Set("Authorization", "Bearer "+patient.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	for lines.Scan() {
		if lines.Text() == ": keep-alive" {
			return
		}
	}
	t.Fatal("no keep-alive comment on an idle stream")
}

// TestMessageStreamEndsWithTheSession: deactivation, a role change and a
// password change (for the other sessions) end the streams they concern
// (at their next session check).
func TestMessageStreamEndsWithTheSession(t *testing.T) {
	quickSessionChecks(t)
	app := apptest.New(t)
	admin := app.SignUp(t, domain.RoleAdmin)
	patient, provider, other := app.SignUp(t, domain.RolePatient), app.SignUp(t, domain.RoleProvider), app.SignUp(t, domain.RolePatient)
	otherBrowser := app.As(other) // the first session, in another browser
	other.SignIn(t)               // a second session, which changes the password
	for name, c := range map[string]struct {
		stream *apptest.Person
		end    func()
	}{
		"deactivation": {patient, func() { admin.Do(t, "PATCH", "/api/users/"+patient.ID, map[string]any{"active": false}) }},
		"role change":  {provider, func() { admin.Do(t, "PATCH", "/api/users/"+provider.ID, map[string]any{"role": "patient"}) }},
		"password change, in another session": {otherBrowser, func() {
			if r := other.Do(t, "POST", "/api/auth/change-password", map[string]string{"currentPassword": other.Password, "newPassword": "Another-Long-Password-42"}); r.Status != 200 {
				t.Fatalf("change password: %d %s", r.Status, r.Raw)
			}
		}},
	} {
		_, events := openStream(t, app, c.stream, "")
		c.end()
		waitEnded(t, events, name)
	}
}

// streamRefused checks that p's stream on app is refused as one too many
// of p's (api.md, Messages: 429, the message, Retry-After: 5).
func streamRefused(t *testing.T, app *apptest.App, p *apptest.Person, what string) {
	t.Helper()
	if status, header, message := tryStream(t, app, p); status != http.StatusTooManyRequests ||
		message != "Too many open message streams. Please close other MediShare windows." || header.Get("Retry-After") != "5" {
		t.Fatalf("%s: %d %q, Retry-After %q", what, status, message, header.Get("Retry-After"))
	}
}

// tryStream opens p's stream on app; one that opens stays open until the
// test ends, and a refusal's message is read.
func tryStream(t *testing.T, app *apptest.App, p *apptest.Person) (status int, header http.Header, message string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", app.URL+"/api/message/stream", nil)
	req.Header.Set("Authorization", "Bearer "+p.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode == http.StatusOK {
		return resp.StatusCode, resp.Header, ""
	}
	defer resp.Body.Close()
	var body struct{ Message string }
	_ = json.NewDecoder(resp.Body).Decode(&body)
	return resp.StatusCode, resp.Header, body.Message
}

// TestMessageStreamCapAcrossInstances: a person holds at most five streams
// over every instance together (each instance once allowed five of its
// own); a place is free again, on every instance, as soon as a stream
// ends, whether its client went away or the server ended it.
func TestMessageStreamCapAcrossInstances(t *testing.T) {
	quickSessionChecks(t)
	one := apptest.New(t)
	two := one.Twin(t)
	patient := one.SignUp(t, domain.RolePatient)
	onTwo := two.As(patient)
	one.Clock.Shift(5 * time.Minute)
	two.Clock.Shift(5 * time.Minute)
	var first *http.Response
	var streams []<-chan sseEvent
	for i := range 5 {
		resp, events := openStream(t, one, patient, "")
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("stream %d: %d", i+1, resp.StatusCode)
		}
		if i == 0 {
			first = resp
		}
		streams = append(streams, events)
	}
	streamRefused(t, two, onTwo, "a sixth stream, on the other instance")
	// The streams were opened five minutes ahead of the time both
	// instances now keep, so their leases run five minutes longer: a place
	// that comes free below was given up by its stream, not lost with its
	// lease.
	one.Clock.Shift(-5 * time.Minute)
	two.Clock.Shift(-5 * time.Minute)

	// The client of a stream on the first instance goes away: the other
	// instance opens one in its place, and then no more.
	first.Body.Close()
	testutil.Eventually(t, "the closed stream's place to be free", func() bool {
		status, _, _ := tryStream(t, two, onTwo)
		return status == http.StatusOK
	})
	streamRefused(t, one, patient, "a sixth stream, after one was replaced")

	// The server ends every stream (signing out ends the session): all
	// five places are free again for the next session.
	patient.Do(t, "POST", "/api/auth/logout", nil)
	for _, events := range streams[1:] {
		waitEnded(t, events, "sign-out")
	}
	patient.SignIn(t)
	onTwo = two.As(patient)
	opened := 0
	testutil.Eventually(t, "the ended streams' places to be free", func() bool {
		if status, _, _ := tryStream(t, two, onTwo); status == http.StatusOK {
			opened++
		}
		return opened == 5
	})
	streamRefused(t, one, patient, "a sixth stream of the new session")
}

// TestMessageStreamLeases: a stream's place is a lease in the database
// that its instance renews while the stream is open, so it keeps counting
// on every instance; the places of an instance that died, which renews
// nothing, are free again once their leases run out (service.StreamLease).
func TestMessageStreamLeases(t *testing.T) {
	t.Parallel()
	one := apptest.New(t)
	two := one.Twin(t)
	patient := one.SignUp(t, domain.RolePatient)
	onTwo := two.As(patient)
	for i := range 5 {
		if status, _, _ := tryStream(t, two, onTwo); status != http.StatusOK {
			t.Fatalf("stream %d: %d", i+1, status)
		}
	}
	streamRefused(t, one, patient, "a sixth stream")

	// The second instance renews its leases two thirds of a lease later:
	// past the first leases, the renewed ones still count.
	two.Clock.Shift(service.StreamLease * 2 / 3)
	if err := two.Services.Messages.RenewStreams(t.Context()); err != nil {
		t.Fatal(err)
	}
	one.Clock.Shift(service.StreamLease + time.Second)
	streamRefused(t, one, patient, "a sixth stream, after the first leases ran out but were renewed")

	// Then the second instance dies and renews nothing more (here it is
	// the first instance's clock that passes the renewed leases, as it
	// would a lease after the renewing instance's last beat): its five
	// places are free.
	one.Clock.Shift(service.StreamLease * 2 / 3)
	for i := range 5 {
		if status, _, message := tryStream(t, one, patient); status != http.StatusOK {
			t.Fatalf("stream %d after the other instance's leases ran out: %d %s", i+1, status, message)
		}
	}
	streamRefused(t, one, patient, "a sixth stream on the surviving instance")
}
