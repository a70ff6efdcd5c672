package httpapi

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Check is one dependency that must answer for the server to be ready.
type Check struct {
	Name string
	Ping func(ctx context.Context) error
}

// Readiness tells load balancers whether to send traffic here. It turns
// false for good when the server starts draining (S26).
type Readiness struct {
	checks   []Check
	draining atomic.Bool
	drained  chan struct{}
	once     sync.Once
}

// NewReadiness returns a readiness probe over the given checks.
func NewReadiness(checks ...Check) *Readiness {
	return &Readiness{checks: checks, drained: make(chan struct{})}
}

// Drain makes every later readiness check fail, and ends the open event
// streams (they would otherwise hold the shutdown for its whole grace).
func (rd *Readiness) Drain() {
	rd.draining.Store(true)
	rd.once.Do(func() { close(rd.drained) })
}

// Draining is closed once Drain was called.
func (rd *Readiness) Draining() <-chan struct{} { return rd.drained }

func (rd *Readiness) healthz(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// readyz answers 200 when every dependency answers within two seconds, else
// 503 naming the ones that did not (never their error text, which can hold
// addresses).
func (rd *Readiness) readyz(w http.ResponseWriter, r *http.Request) {
	if rd.draining.Load() {
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "draining"})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	results := make(map[string]string, len(rd.checks))
	ok := true
	for _, c := range rd.checks {
		if err := c.Ping(ctx); err != nil {
			results[c.Name] = "unavailable"
			ok = false
		} else {
			results[c.Name] = "ok"
		}
	}
	if !ok {
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "unavailable", "checks": results})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "checks": results})
}
