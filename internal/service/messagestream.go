package service

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/medishare/medishare/internal/domain"
)

// A stream's place among its person's is a lease in the database, so that
// the cap per person holds across instances: the instance that holds the
// stream renews it every StreamRenewEvery and deletes it when the stream
// ends, so the places of an instance that died are free again within
// StreamLease. Leases are timed by each instance's clock, so the
// instances' clocks must agree to well within the 20 s between the two.
const (
	StreamLease      = 30 * time.Second
	StreamRenewEvery = 10 * time.Second
)

// Bounds on open message streams (api.md, Messages): a person's browsers
// share one stream between their tabs, so a few per person is plenty.
const (
	streamsPerUser     = 5 // over every instance
	streamsPerInstance = 2000
	// streamBuffer is how many events a stream may fall behind before it
	// is ended (its client reconnects and replays what it missed).
	streamBuffer = 64
	// replayWindow reaches back this many places before a reconnecting
	// client's last message: a message written earlier (a lower place) may
	// commit later, after the client saw the newer one; no more than the
	// connections of every instance can be writing at once. The client
	// drops repeats by id.
	replayWindow = 100
	// ReplayMax is the most a stream replays at once; a stream that
	// replayed that many ends, and its client reconnects for the rest.
	ReplayMax = 500
)

// StreamEvent is one event of a person's message stream.
type StreamEvent struct {
	Kind    string // "message" or "read"
	Message domain.Message
	// For "read": Reader read what Sender wrote to them, at ReadAt.
	Reader, Sender string
	ReadAt         time.Time
}

// Subscription is one open stream of a person.
type Subscription struct {
	id     string // its lease's
	userID string
	// reader is who opened the stream: what its events may show them.
	reader *domain.Principal
	hub    *hub
	// release gives up the lease; nil until the lease is held.
	release func()
	// Events are the person's events; closed when the stream fell too far
	// behind, so that it ends.
	Events chan StreamEvent
	// Resync says the instance may have missed events (its database
	// connection for them was lost): the stream should replay.
	Resync chan struct{}
	once   sync.Once
}

// Close ends the subscription and frees its place at once.
func (s *Subscription) Close() {
	s.once.Do(func() {
		s.hub.remove(s)
		if s.release != nil {
			s.release()
		}
	})
}

// hub holds the open streams of this instance by person.
type hub struct {
	mu    sync.Mutex
	subs  map[string]map[*Subscription]bool
	total int
}

func newHub() *hub { return &hub{subs: map[string]map[*Subscription]bool{}} }

var (
	errTooManyStreams = &domain.Error{Kind: domain.ETHROTTLED, Message: "Too many open message streams. Please close other MediShare windows.", RetryAfterSeconds: 5}
	errStreamsBusy    = &domain.Error{Kind: domain.EUNAVAILABLE, Message: "The server is busy. Please try again shortly."}
)

func (h *hub) add(reader *domain.Principal) (*Subscription, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	userID := reader.User.ID
	if len(h.subs[userID]) >= streamsPerUser {
		return nil, errTooManyStreams
	}
	if h.total >= streamsPerInstance {
		return nil, errStreamsBusy
	}
	s := &Subscription{id: uuid.NewString(), userID: userID, reader: reader, hub: h, Events: make(chan StreamEvent, streamBuffer), Resync: make(chan struct{}, 1)}
	if h.subs[userID] == nil {
		h.subs[userID] = map[*Subscription]bool{}
	}
	h.subs[userID][s] = true
	h.total++
	return s, nil
}

func (h *hub) remove(s *Subscription) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.subs[s.userID][s] {
		delete(h.subs[s.userID], s)
		h.total--
		if len(h.subs[s.userID]) == 0 {
			delete(h.subs, s.userID)
		}
	}
}

// reader returns who holds the streams of userID on this instance (nil
// when none is open here).
func (h *hub) reader(userID string) *domain.Principal {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs[userID] {
		return s.reader
	}
	return nil
}

// send gives ev to every stream of userID; a stream whose buffer is full
// is dropped (its Events closed).
func (h *hub) send(userID string, ev StreamEvent) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs[userID] {
		select {
		case s.Events <- ev:
		default:
			delete(h.subs[userID], s)
			h.total--
			close(s.Events)
		}
	}
}

// ids are the lease ids of the streams open on this instance.
func (h *hub) ids() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	ids := make([]string, 0, h.total)
	for _, subs := range h.subs {
		for s := range subs {
			ids = append(ids, s.id)
		}
	}
	return ids
}

func (h *hub) resync() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, subs := range h.subs {
		for s := range subs {
			select {
			case s.Resync <- struct{}{}:
			default: // already told
			}
		}
	}
}

// Notification payloads on the events channel: ids and times only.
func messageNotice(id string) string { return "message:" + id }

func readNotice(reader, sender string, at time.Time) string {
	return "read:" + reader + ":" + sender + ":" + strconv.FormatInt(at.UnixNano(), 10)
}

// Subscribe opens a stream of the caller's messages and read receipts,
// taking one of the caller's places, counted over every instance.
// Errors: ETHROTTLED (too many of the caller's), EUNAVAILABLE (too many
// on this instance, or the database is down).
func (s *MessageService) Subscribe(ctx context.Context, p *domain.Principal) (*Subscription, error) {
	sub, err := s.hub.add(p)
	if err != nil {
		return nil, err
	}
	now := s.now()
	opened, err := s.store.OpenStream(ctx, sub.id, p.User.ID, now, now.Add(StreamLease), streamsPerUser)
	if err != nil || !opened {
		s.hub.remove(sub)
		if err == nil {
			err = errTooManyStreams
		}
		return nil, err
	}
	sub.release = func() {
		// Not the request's context: it has ended when the client went away.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.store.CloseStream(ctx, sub.id); err != nil {
			slog.Warn("closing a message stream's lease (it runs out by itself)", "err", err)
		}
	}
	return sub, nil
}

// RenewStreams renews the leases of the streams open on this instance,
// and forgets those of every instance whose leases ran out (an instance
// that died could not close its own). The stack runs it every
// StreamRenewEvery. Errors: EUNAVAILABLE.
func (s *MessageService) RenewStreams(ctx context.Context) error {
	now := s.now()
	return s.store.RenewStreams(ctx, s.hub.ids(), now, now.Add(StreamLease))
}

// OpenStreams is how many message streams are open on this instance.
func (s *MessageService) OpenStreams() int {
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	return s.hub.total
}

// Deliver hands a notification from the events channel (from any
// instance) to the streams it concerns on this one.
func (s *MessageService) Deliver(payload string) {
	kind, rest, _ := strings.Cut(payload, ":")
	switch kind {
	case "message":
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		m, err := s.store.Message(ctx, rest)
		if err == nil {
			err = s.open(&m)
		}
		if err != nil {
			slog.Warn("delivering a message event", "message", rest, "err", err)
			return
		}
		// Each of the two gets what they may see of its image (showAttachments).
		for _, userID := range []string{m.SenderID, m.RecipientID} {
			reader := s.hub.reader(userID)
			if reader == nil {
				continue
			}
			shown := []domain.Message{m}
			if err := s.showAttachments(ctx, reader, shown); err != nil {
				slog.Warn("delivering a message event", "message", rest, "err", err)
				continue
			}
			s.hub.send(userID, StreamEvent{Kind: "message", Message: shown[0]})
		}
	case "read":
		parts := strings.Split(rest, ":")
		if len(parts) != 3 {
			return
		}
		nanos, err := strconv.ParseInt(parts[2], 10, 64)
		if err != nil {
			return
		}
		ev := StreamEvent{Kind: "read", Reader: parts[0], Sender: parts[1], ReadAt: time.Unix(0, nanos).UTC()}
		s.hub.send(ev.Sender, ev)
		s.hub.send(ev.Reader, ev)
	}
}

// Resync tells every stream of this instance that events may have been
// missed.
func (s *MessageService) Resync() { s.hub.resync() }

// Replay returns the caller's messages, sent and received, after the one
// with id after (from a little before it: see replayWindow), oldest first.
// An unknown after replays nothing. Errors: none of the caller's making.
func (s *MessageService) Replay(ctx context.Context, p *domain.Principal, after string) ([]domain.Message, error) {
	if after == "" {
		return nil, nil
	}
	msgs, err := s.store.MessagesSince(ctx, p.User.ID, after, replayWindow, ReplayMax)
	if domain.ErrorKind(err) == domain.ENOTFOUND {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	for i := range msgs {
		if err := s.open(&msgs[i]); err != nil {
			return nil, err
		}
	}
	if err := s.showAttachments(ctx, p, msgs); err != nil {
		return nil, err
	}
	return msgs, nil
}
