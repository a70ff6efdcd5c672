package postgres

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"
)

// gramCountsAge is how old the store's copy of user_gram_counts may grow
// before a search refreshes it (in the background, meanwhile using the old
// one).
const gramCountsAge = time.Minute

// gramCounts is a recent copy of user_gram_counts for the trigrams a
// search can walk (three ASCII letters or digits: at most 36³ of them),
// from which a search picks the rarest of its trigrams without asking the
// database. A stale count only makes a walk longer, never its result
// different: every trigram of the fragment is held by everyone who matches.
type gramCounts struct {
	mu      sync.Mutex
	counts  map[string]int32
	at      time.Time
	loading bool
}

// rarest is the gram of grams that the fewest people hold.
func (s *Store) rarest(ctx context.Context, grams []string) (string, error) {
	counts, err := s.gramCounts(ctx)
	if err != nil {
		return "", err
	}
	return slices.MinFunc(grams, func(a, b string) int { return int(counts[a]) - int(counts[b]) }), nil
}

// gramCounts returns the copy, loading it on first use and refreshing it
// in the background once it is older than gramCountsAge.
func (s *Store) gramCounts(ctx context.Context) (map[string]int32, error) {
	g := &s.grams
	g.mu.Lock()
	counts, stale := g.counts, time.Since(g.at) > gramCountsAge && !g.loading
	if counts != nil && stale {
		g.loading = true
	}
	g.mu.Unlock()
	switch {
	case counts == nil:
		return s.loadGramCounts(ctx)
	case stale:
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if _, err := s.loadGramCounts(ctx); err != nil {
				slog.Warn("refreshing the directory search's trigram counts", "err", err)
			}
		}()
	}
	return counts, nil
}

func (s *Store) loadGramCounts(ctx context.Context) (map[string]int32, error) {
	rows, err := s.q(ctx).SearchGramCounts(ctx)
	g := &s.grams
	g.mu.Lock()
	defer g.mu.Unlock()
	g.loading = false
	if err != nil {
		return nil, translate(err)
	}
	counts := make(map[string]int32, len(rows))
	for _, r := range rows {
		counts[r.Gram] = r.Users
	}
	g.counts, g.at = counts, time.Now()
	return counts, nil
}
