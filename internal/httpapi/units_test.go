package httpapi

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
)

func TestLimiterWindows(t *testing.T) {
	// Windows are aligned to their period: this minute, this UTC day.
	now := time.Date(2026, 3, 13, 12, 0, 0, 0, time.UTC)
	l := newLimiter(func() time.Time { return now }, nil, slog.Default())
	perMinute := limit{max: 3, period: time.Minute}
	perDay := limit{max: 5, period: 24 * time.Hour}
	tests := []struct {
		advance   time.Duration
		allowed   bool
		remaining int
		reset     int
	}{
		{0, true, 2, 60},
		{10 * time.Second, true, 1, 50},
		{10 * time.Second, true, 0, 40},
		{10 * time.Second, false, 0, 30}, // fourth in the minute: refused, not counted
		// The next minute; the day has 3 used and is now the tighter rule.
		{31 * time.Second, true, 1, 43139},
		{time.Second, true, 0, 43138},
		{time.Second, false, 0, 43137}, // the day's five are used
		{24 * time.Hour, true, 2, 57},
	}
	for i, tt := range tests {
		now = now.Add(tt.advance)
		v := l.take("client|acme", perMinute, perDay)
		if v.allowed != tt.allowed || v.remaining != tt.remaining || v.resetIn != tt.reset {
			t.Errorf("request %d: %+v, want allowed=%v remaining=%d reset=%d", i+1, v, tt.allowed, tt.remaining, tt.reset)
		}
	}
	if v := l.take("ip|10.0.0.1", limit{max: defaultAnonymousPerDay, period: 24 * time.Hour}); !v.allowed || v.remaining != 99 {
		t.Errorf("another caller shares a counter: %+v", v)
	}
}

// TestLimiterLeasesHoldAcrossReplicas: limiters of several replicas take
// leases of one shared budget (a real JetStream bucket): together they
// never let more than the limit through, and refuse none while the budget
// has room beyond the leases they hold.
func TestLimiterLeasesHoldAcrossReplicas(t *testing.T) {
	store := natstest.MustOpen(t, natstest.MustStart(t))
	budgets, err := store.Budgets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 13, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	replicas := []*limiter{newLimiter(clock, budgets, slog.Default()), newLimiter(clock, budgets, slog.Default()), newLimiter(clock, budgets, slog.Default())}
	rule := limit{max: 50, period: time.Minute}
	allowed := 0
	for i := range 80 {
		if v := replicas[i%len(replicas)].take("client|acme", rule); v.allowed {
			allowed++
		}
	}
	margin := len(replicas) * lease(rule.max)
	if allowed > rule.max || allowed < rule.max-margin {
		t.Errorf("%d of 80 requests through three replicas, want at most %d and at least %d", allowed, rule.max, rule.max-margin)
	}
	// The next minute has a new budget.
	now = now.Add(time.Minute)
	if v := replicas[0].take("client|acme", rule); !v.allowed {
		t.Errorf("first request of the next minute refused: %+v", v)
	}
}

func TestRenderCacheRendersOnceForConcurrentMisses(t *testing.T) {
	rc, err := newRenderCache(8 << 20)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.close()
	var renders atomic.Int32
	release := make(chan struct{})
	render := func() (*entry, error) {
		renders.Add(1)
		<-release
		return newEntry(200, []byte(`{"a":1}`), 10), nil
	}
	var wg sync.WaitGroup
	bodies := make([]string, 20)
	for i := range bodies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e, _, err := rc.get("k", render)
			if err != nil {
				t.Error(err)
				return
			}
			bodies[i] = string(e.body)
		}()
	}
	time.Sleep(50 * time.Millisecond)
	close(release)
	wg.Wait()
	if n := renders.Load(); n != 1 {
		t.Errorf("%d renders for one key, want 1", n)
	}
	for _, b := range bodies {
		if b != `{"a":1}` {
			t.Fatalf("body %q", b)
		}
	}
}

func TestEntryCompressesLargeBodies(t *testing.T) {
	small := newEntry(200, []byte(`{"a":1}`), 10)
	large := newEntry(200, make([]byte, 4096), 10)
	if small.gzipped() != nil || large.gzipped() == nil || len(large.gzipped()) >= 4096 || bytes.Equal(small.etag, large.etag) {
		t.Errorf("small gz %v, large gz %d bytes, etags %s %s", small.gzipped() != nil, len(large.gzipped()), small.etag, large.etag)
	}
}

func TestConditionalHeaders(t *testing.T) {
	tests := []struct {
		header string
		etag   string
		match  bool
	}{
		{`"abc"`, `"abc"`, true},
		{`W/"abc"`, `"abc"`, true},
		{`"x", "abc"`, `"abc"`, true},
		{`*`, `"abc"`, true},
		{`"abd"`, `"abc"`, false},
		{``, `"abc"`, false},
	}
	for _, tt := range tests {
		if got := matchesETag([]byte(tt.header), []byte(tt.etag)); got != tt.match {
			t.Errorf("If-None-Match %q vs %s: %v", tt.header, tt.etag, got)
		}
	}
	for header, want := range map[string]bool{"gzip": true, "gzip, deflate, br": true, "br;q=1, gzip;q=0.8": true, "gzip;q=0": false, "deflate": false, "": false} {
		if got := acceptsGzip([]byte(header)); got != want {
			t.Errorf("Accept-Encoding %q: %v", header, got)
		}
	}
}
