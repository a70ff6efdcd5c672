package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/service"
)

// Stream timing (api.md, Messages): a comment every keepAlive keeps
// proxies from closing an idle stream; the session is checked every
// sessionCheck, so a stream ends within 5 s of its session ending.
var (
	keepAlive    = 25 * time.Second
	sessionCheck = 4 * time.Second
)

// streamWriteTimeout bounds each write to a stream (the server's own write
// timeout would end every stream after it).
const streamWriteTimeout = 30 * time.Second

// messageStream is GET /api/message/stream: server-sent events of the
// caller's messages and read receipts, from whichever instance they came
// through (service.MessageService.Deliver).
func (a *api) messageStream(w http.ResponseWriter, r *http.Request) {
	p := principal(r)
	sub, err := a.Messages.Subscribe(r.Context(), p)
	if err != nil {
		writeError(w, r, err)
		return
	}
	defer sub.Close()
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx and others: pass each event on at once
	w.WriteHeader(http.StatusOK)
	write := func(text string) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
		if _, err := fmt.Fprint(w, text); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if !write(": connected\n\n") {
		return
	}
	token := bearerToken(r)
	last := r.Header.Get("Last-Event-ID")
	replay := func() bool {
		msgs, err := a.Messages.Replay(r.Context(), p, last)
		if err != nil {
			return false
		}
		for _, m := range msgs {
			if !write(messageEvent(m)) {
				return false
			}
			last = m.ID
		}
		return len(msgs) < service.ReplayMax // past that, the client reconnects for the rest
	}
	if !replay() {
		return
	}
	ping, check := time.NewTicker(keepAlive), time.NewTicker(sessionCheck)
	defer ping.Stop()
	defer check.Stop()
	for {
		select {
		case ev, ok := <-sub.Events:
			if !ok { // fell too far behind: the client reconnects and replays
				return
			}
			text := readEvent(ev)
			if ev.Kind == "message" {
				text, last = messageEvent(ev.Message), ev.Message.ID
			}
			if !write(text) {
				return
			}
		case <-sub.Resync:
			if !replay() {
				return
			}
		case <-ping.C:
			if !write(": keep-alive\n\n") {
				return
			}
		case <-check.C:
			if _, err := a.Sessions.Authenticate(r.Context(), token); err != nil {
				return // signed out, password changed, deactivated, role changed, or the token expired
			}
		case <-a.draining:
			return
		case <-r.Context().Done():
			return
		}
	}
}

func messageEvent(m domain.Message) string {
	b, _ := json.Marshal(toMessageJSON(m)) // plain data: cannot fail
	return "event: message\nid: " + m.ID + "\ndata: " + string(b) + "\n\n"
}

func readEvent(ev service.StreamEvent) string {
	b, _ := json.Marshal(map[string]any{"userId": ev.Reader, "senderId": ev.Sender, "readAt": ev.ReadAt.UTC()}) // plain data
	return "event: read\ndata: " + string(b) + "\n\n"
}
