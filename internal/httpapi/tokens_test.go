package httpapi

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/prometheus/client_golang/prometheus"
)

// lookupServer is a ready server whose read model never follows the
// stream (as a replica far behind), looking tokens up in a real store
// through src.
func lookupServer(t *testing.T, opts Options) (s *Server, addr string, reg *prometheus.Registry) {
	t.Helper()
	reg = prometheus.NewRegistry()
	opts.Registry, opts.AnonymousPerDay, opts.TokenLookupsPerMinute = reg, 1_000_000, 1_000_000
	s, _ = newTestServer(t, true, opts)
	return s, listen(t, s), reg
}

// counter reads one series of a counter family from reg; 0 when absent.
func counter(t *testing.T, reg *prometheus.Registry, name, label, value string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

func lookups(t *testing.T, reg *prometheus.Registry) float64 {
	t.Helper()
	n := 0.0
	for _, result := range []string{"found", "unknown", "error"} {
		n += counter(t, reg, "fd_token_lookups_total", "result", result)
	}
	return n
}

// getWithToken asks addr for the competitions with token, returning the status
// and the caller the replica took it for.
func getWithToken(t *testing.T, addr, token string) (int, string) {
	t.Helper()
	status, header, body := raw(t, addr, "GET /v1/competitions HTTP/1.1\r\nHost: a\r\nX-Auth-Token: "+token+"\r\n\r\n")
	if status != 200 && !jsonError(body) {
		t.Errorf("token %s: %d %q, want a JSON error", token, status, body)
	}
	return status, header.Get("X-Authenticated-Client")
}

// randomTokens returns n tokens of the spec's form that nobody holds.
func randomTokens(t *testing.T, n int) []string {
	t.Helper()
	tokens := make([]string, n)
	for i := range tokens {
		var err error
		if tokens[i], err = model.NewToken(); err != nil {
			t.Fatal(err)
		}
	}
	return tokens
}

// TestUnknownTokensCostOneLookupASecond: random tokens nobody holds are
// refused, each after one lookup of the stream's leader; within a second
// the same tokens are refused without one, and after it they are looked up
// again. The replica's clock is the test's.
func TestUnknownTokensCostOneLookupASecond(t *testing.T) {
	store := natstest.MustOpen(t, natstest.MustStart(t))
	s, addr, reg := lookupServer(t, Options{})
	s.LookUpTokens(store)
	var clock atomic.Pointer[time.Time]
	start := time.Now()
	clock.Store(&start)
	s.tokens.now = func() time.Time { return *clock.Load() }

	tokens := randomTokens(t, 1000)
	rounds := []struct {
		name          string
		at            time.Duration
		lookups, kept float64 // added by the round
	}{
		{"first", 0, 1000, 0},
		{"again within the second", 900 * time.Millisecond, 0, 1000},
		{"again after the second", 1100 * time.Millisecond, 1000, 0},
	}
	for _, r := range rounds {
		at := start.Add(r.at)
		clock.Store(&at)
		before, keptBefore := lookups(t, reg), counter(t, reg, "fd_token_lookups_skipped_total", "reason", "recent")
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Go(func() {
				for i := w; i < len(tokens); i += 8 {
					if status, _ := getWithToken(t, addr, tokens[i]); status != 400 {
						t.Errorf("%s round, token %d: %d, want 400", r.name, i, status)
					}
				}
			})
		}
		wg.Wait()
		if got, kept := lookups(t, reg)-before, counter(t, reg, "fd_token_lookups_skipped_total", "reason", "recent")-keptBefore; got != r.lookups || kept != r.kept {
			t.Errorf("%s round: %v lookups and %v refused as recent, want %v and %v", r.name, got, kept, r.lookups, r.kept)
		}
	}
}

// gate is a TokenSource that holds every lookup until it is opened,
// counting them, then asks the real store.
type gate struct {
	store   *events.Store
	calls   atomic.Int64
	waiting chan struct{} // receives a value as each lookup starts
	open    chan struct{}
}

func newGate(store *events.Store) *gate {
	return &gate{store: store, waiting: make(chan struct{}, 1000), open: make(chan struct{})}
}

func (g *gate) ClientByToken(ctx context.Context, hash string) (model.Client, uint64, error) {
	g.calls.Add(1)
	g.waiting <- struct{}{}
	select {
	case <-g.open:
	case <-ctx.Done():
		return model.Client{}, 0, ctx.Err()
	}
	return g.store.ClientByToken(ctx, hash)
}

// waitInFlight waits until the server answers n requests at once.
func waitInFlight(t *testing.T, s *Server, n int64) {
	t.Helper()
	natstest.CheckFor(t, 10*time.Second, time.Millisecond, func() error {
		if got := s.metrics.inFlight.Load(); got < n {
			return fmt.Errorf("%d requests in flight, want %d", got, n)
		}
		return nil
	})
}

// TestTokenLookupsAreSharedAndBounded: requests with the same new token at
// once share one lookup and are all let in, and the read model keeps the
// client found (no lookup for the next request); beyond maxTokenLookups
// in flight a token is refused without one.
func TestTokenLookupsAreSharedAndBounded(t *testing.T) {
	store := natstest.MustOpen(t, natstest.MustStart(t))
	token, _, err := natstest.Editor(t, store).AddClient(context.Background(), model.Client{Name: "acme", Tier: model.TierRegistered, PerMinute: 1000})
	if err != nil {
		t.Fatal(err)
	}
	s, addr, reg := lookupServer(t, Options{TokenLookupTimeout: 10 * time.Second})
	g := newGate(store)
	s.LookUpTokens(g)

	const same = 20
	var wg sync.WaitGroup
	for range same {
		wg.Go(func() {
			if status, who := getWithToken(t, addr, token); status != 200 || who != "acme" {
				t.Errorf("concurrent request: %d as %q, want 200 as acme", status, who)
			}
		})
	}
	<-g.waiting
	waitInFlight(t, s, same)
	close(g.open)
	wg.Wait()
	if n := g.calls.Load(); n != 1 {
		t.Errorf("%d concurrent requests with one token made %d lookups, want 1", same, n)
	}
	if status, who := getWithToken(t, addr, token); status != 200 || who != "acme" || g.calls.Load() != 1 {
		t.Errorf("the next request: %d as %q after %d lookups in all, want 200 as acme after 1", status, who, g.calls.Load())
	}

	// maxTokenLookups held lookups of tokens nobody has fill the replica's
	// share of the leader; one more token is refused at once.
	g = newGate(store)
	s.LookUpTokens(g)
	tokens := randomTokens(t, maxTokenLookups+1)
	for _, tok := range tokens[:maxTokenLookups] {
		wg.Go(func() {
			if status, _ := getWithToken(t, addr, tok); status != 400 {
				t.Errorf("held lookup: %d, want 400", status)
			}
		})
	}
	for range maxTokenLookups {
		<-g.waiting
	}
	if status, _ := getWithToken(t, addr, tokens[maxTokenLookups]); status != 400 || g.calls.Load() != maxTokenLookups ||
		counter(t, reg, "fd_token_lookups_skipped_total", "reason", "busy") != 1 {
		t.Errorf("one token beyond %d lookups in flight: %d after %d lookups, %v counted busy; want 400, no lookup, 1 busy", maxTokenLookups, status,
			g.calls.Load(), counter(t, reg, "fd_token_lookups_skipped_total", "reason", "busy"))
	}
	close(g.open)
	wg.Wait()
}

// TestTokenLookupIsBounded: with the stream out of reach, a request with a
// token the replica does not have is refused once the lookup's time is up,
// not held for the store's own retries.
func TestTokenLookupIsBounded(t *testing.T) {
	srv := natstest.MustStart(t)
	store := natstest.MustOpen(t, srv)
	s, addr, reg := lookupServer(t, Options{TokenLookupTimeout: 200 * time.Millisecond})
	s.LookUpTokens(store)
	srv.Stop()
	start := time.Now()
	if status, _ := getWithToken(t, addr, "unreachable"); status != 400 {
		t.Errorf("token lookup with NATS down: %d, want 400", status)
	}
	t.Logf("refused after %s", time.Since(start))
	if n := counter(t, reg, "fd_token_lookups_total", "result", "error"); n != 1 {
		t.Errorf("%v failed lookups counted, want 1", n)
	}
}
