package service

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// maxBackground bounds the work waiting to run after its response: past it,
// a new request waits for a place, so a flood slows down its sender instead
// of filling memory.
const maxBackground = 64

// backgroundTimeout bounds one piece of background work.
const backgroundTimeout = 30 * time.Second

// Background runs work after the response of the request that caused it:
// mail, and the account lookups that must not show in a response's timing
// (S2). Failures are logged; the person can ask again. Wait lets shutdown
// finish what was started.
type Background struct {
	logger *slog.Logger
	places chan struct{}
	wg     sync.WaitGroup

	mu      sync.Mutex
	holding bool
	held    []func()
}

// NewBackground returns a runner that logs failures to logger.
func NewBackground(logger *slog.Logger) *Background {
	return &Background{logger: logger, places: make(chan struct{}, maxBackground)}
}

// Go runs fn soon, on a context of its own (the request's ends with its response).
func (b *Background) Go(what string, fn func(ctx context.Context) error) {
	b.wg.Add(1)
	b.places <- struct{}{}
	run := func() {
		defer func() { <-b.places; b.wg.Done() }()
		ctx, cancel := context.WithTimeout(context.Background(), backgroundTimeout)
		defer cancel()
		if err := fn(ctx); err != nil {
			b.logger.Error("background work failed", "what", what, "err", err)
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.holding {
		b.held = append(b.held, run)
		return
	}
	go run()
}

// Wait blocks until everything started has finished.
func (b *Background) Wait() { b.wg.Wait() }

// Hold keeps new work from starting until Release, so a test can look at
// what a request did before its background work ran.
func (b *Background) Hold() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.holding = true
}

// Release starts the held work and stops holding.
func (b *Background) Release() {
	b.mu.Lock()
	held := b.held
	b.held, b.holding = nil, false
	b.mu.Unlock()
	for _, run := range held {
		go run()
	}
}
