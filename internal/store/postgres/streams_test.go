package postgres_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/medishare/medishare/internal/domain"
)

// TestOpenStreamLimit: twenty openings of one person's streams at once,
// each on a connection of its own (as from several instances), open
// exactly the limit, round after round; leases that ran out do not count.
func TestOpenStreamLimit(t *testing.T) {
	ctx := context.Background()
	_, store := auditStore(t)
	user := newUser(t, store, domain.RolePatient)
	now := time.Now()
	for round := range 10 {
		start := make(chan struct{})
		var mu sync.Mutex
		var opened []string
		var wg sync.WaitGroup
		for range 20 {
			wg.Go(func() {
				id := uuid.NewString()
				<-start
				ok, err := store.OpenStream(ctx, id, user.ID, now, now.Add(time.Minute), 5)
				if err != nil {
					t.Error(err)
					return
				}
				if ok {
					mu.Lock()
					opened = append(opened, id)
					mu.Unlock()
				}
			})
		}
		close(start)
		wg.Wait()
		if len(opened) != 5 {
			t.Fatalf("round %d: %d streams opened at once, want 5", round, len(opened))
		}
		for _, id := range opened {
			if err := store.CloseStream(ctx, id); err != nil {
				t.Fatal(err)
			}
		}
	}

	// Five leases that ran out by now leave every place free.
	for range 5 {
		if ok, err := store.OpenStream(ctx, uuid.NewString(), user.ID, now.Add(-2*time.Minute), now.Add(-time.Minute), 5); err != nil || !ok {
			t.Fatalf("an earlier lease: %v %v", ok, err)
		}
	}
	for i := range 5 {
		if ok, err := store.OpenStream(ctx, uuid.NewString(), user.ID, now, now.Add(time.Minute), 5); err != nil || !ok {
			t.Fatalf("stream %d beside leases that ran out: %v %v", i+1, ok, err)
		}
	}
	if ok, err := store.OpenStream(ctx, uuid.NewString(), user.ID, now, now.Add(time.Minute), 5); err != nil || ok {
		t.Fatalf("a sixth stream: %v %v", ok, err)
	}
}
