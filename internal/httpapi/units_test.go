package httpapi

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/internal/wire"
)

func TestLimiterWindows(t *testing.T) {
	// Windows are aligned to their period: this minute, this UTC day.
	now := time.Date(2026, 3, 13, 12, 0, 0, 0, time.UTC)
	l := newLimiter(nil, slog.Default())
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
		v := l.take(subject{client: "acme"}, now, perMinute, perDay)
		if v.allowed != tt.allowed || v.remaining != tt.remaining || v.resetIn != tt.reset {
			t.Errorf("request %d: %+v, want allowed=%v remaining=%d reset=%d", i+1, v, tt.allowed, tt.remaining, tt.reset)
		}
	}
	if v := l.take(subject{addr: netip.MustParseAddr("10.0.0.1")}, now, limit{max: DefaultAnonymousPerDay, period: 24 * time.Hour}); !v.allowed || v.remaining != 99 {
		t.Errorf("another caller shares a counter: %+v", v)
	}
}

// TestLimitShardChains: windows chained under one hash (a caller's two
// rules, and another caller whose hash collides) stay apart, a new period
// replaces only its own window (at the head of the chain or after it), and
// a sweep drops the expired windows and keeps the others chained.
func TestLimitShardChains(t *testing.T) {
	sh := limitShard{counters: map[uint64]*window{}}
	noon := time.Date(2026, 3, 13, 12, 0, 0, 0, time.UTC).Unix()
	const day = 24 * 60 * 60
	acme, other := subject{client: "acme"}, subject{addr: netip.MustParseAddr("10.0.0.1")}
	const h = 42
	// The chain is other's day, acme's day, acme's minute.
	acmeMinute, acmeDay := sh.window(h, acme, time.Minute, noon), sh.window(h, acme, 24*time.Hour, noon)
	otherDay := sh.window(h, other, 24*time.Hour, noon)
	acmeMinute.served, acmeDay.served, otherDay.served = 1, 2, 3
	tests := []struct {
		name   string
		caller subject
		period time.Duration
		at     int64
		want   *window // nil: a new window
	}{
		{"acme's minute", acme, time.Minute, noon + 59, acmeMinute},
		{"acme's day", acme, 24 * time.Hour, noon + 59, acmeDay},
		{"other's day", other, 24 * time.Hour, noon + 59, otherDay},
		{"acme's next minute, at the chain's end", acme, time.Minute, noon + 60, nil},
		{"acme's day after the minute moved on", acme, 24 * time.Hour, noon + 60, acmeDay},
		{"other's next day, at the chain's head", other, 24 * time.Hour, noon + day, nil},
		{"acme's day after the head moved on", acme, 24 * time.Hour, noon + 60, acmeDay},
	}
	for _, tt := range tests {
		got := sh.window(h, tt.caller, tt.period, tt.at)
		if tt.want != nil && got != tt.want {
			t.Errorf("%s: another window (served %d), want the one that served %d", tt.name, got.served, tt.want.served)
		}
		if tt.want == nil && (got.served != 0 || got.caller != tt.caller || got.period != tt.period) {
			t.Errorf("%s: %+v, want a new window", tt.name, got)
		}
	}
	var chain []*window
	for w := sh.counters[h]; w != nil; w = w.next {
		chain = append(chain, w)
	}
	if len(chain) != 3 || chain[1] != acmeDay {
		t.Fatalf("%d windows under the hash, want 3 with acme's day second", len(chain))
	}
	otherNext := chain[0]
	// A day after noon acme's windows have expired, other's next day has not.
	sh.writes = 1024
	sh.sweep(noon + day)
	if w := sh.counters[h]; w != otherNext || w.next != nil {
		t.Errorf("after the first sweep: %+v, want only other's next day", w)
	}
	// Expired, but waiting for a lease: it stays until the take is over.
	otherNext.taking = make(chan struct{})
	sh.writes = 1024
	sh.sweep(noon + 2*day)
	if w := sh.counters[h]; w != otherNext {
		t.Errorf("after the second sweep: %+v, want the window waiting for a lease", w)
	}
	otherNext.taking = nil
	sh.writes = 1024
	sh.sweep(noon + 2*day)
	if len(sh.counters) != 0 {
		t.Errorf("after the last sweep: %d hashes left, want 0", len(sh.counters))
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
	replicas := []*limiter{newLimiter(budgets, slog.Default()), newLimiter(budgets, slog.Default()), newLimiter(budgets, slog.Default())}
	rule := limit{max: 50, period: time.Minute}
	allowed := 0
	for i := range 80 {
		if v := replicas[i%len(replicas)].take(subject{client: "acme"}, now, rule); v.allowed {
			allowed++
		}
	}
	margin := len(replicas) * Lease(rule.max)
	if allowed > rule.max || allowed < rule.max-margin {
		t.Errorf("%d of 80 requests through three replicas, want at most %d and at least %d", allowed, rule.max, rule.max-margin)
	}
	// The next minute has a new budget.
	now = now.Add(time.Minute)
	if v := replicas[0].take(subject{client: "acme"}, now, rule); !v.allowed {
		t.Errorf("first request of the next minute refused: %+v", v)
	}
}

// takesBudget is a shared budget that records the takes asked of it: the
// keys of those that returned, and those asked while during is set. While
// hold is set, a take waits for it to be closed.
type takesBudget struct {
	Budget
	during   atomic.Bool
	hold     atomic.Pointer[chan struct{}]
	entered  atomic.Int32
	mu       sync.Mutex
	returned map[string]int
	asked    []string // while during
}

func (b *takesBudget) Take(ctx context.Context, key string, limit, want int) (int, int, error) {
	b.entered.Add(1)
	if b.during.Load() {
		b.mu.Lock()
		b.asked = append(b.asked, key)
		b.mu.Unlock()
	}
	if h := b.hold.Load(); h != nil {
		<-*h
	}
	got, used, err := b.Budget.Take(ctx, key, limit, want)
	b.mu.Lock()
	b.returned[key]++
	b.mu.Unlock()
	return got, used, err
}

// TestLimiterTakesTheNextWindowAhead: a caller still making requests in
// the last seconds of its window has the next window's first lease taken
// then, so that its first request in the next window waits for no round
// trip to the shared budget (at the turn of a minute every active
// registered client's did, at once); a caller silent then, or back only
// a window later, takes its lease as before.
func TestLimiterTakesTheNextWindowAhead(t *testing.T) {
	store := natstest.MustOpen(t, natstest.MustStart(t))
	shared, err := store.Budgets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	noon := time.Date(2026, 3, 13, 12, 0, 0, 0, time.UTC)
	rule := limit{max: 1000, period: time.Minute}
	tests := []struct {
		name   string
		before []time.Duration // requests before the next minute, from noon
		sweep  bool            // the shard sweeps as the next minute starts
		at     time.Duration   // the request that must not wait, from noon
		waits  bool            // it takes its lease itself
	}{
		{"active as the minute ends", []time.Duration{10 * time.Second, 59 * time.Second}, false, time.Minute, false},
		{"active as it ends, swept before coming back", []time.Duration{59500 * time.Millisecond}, true, time.Minute + time.Second, false},
		{"silent as it ends", []time.Duration{10 * time.Second, 54 * time.Second}, false, time.Minute, true},
		{"back a minute later", []time.Duration{59 * time.Second}, false, 2 * time.Minute, true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &takesBudget{Budget: shared, returned: map[string]int{}}
			l := newLimiter(b, slog.Default())
			caller := subject{client: fmt.Sprintf("acme-%d", i)}
			for _, d := range tt.before {
				if v := l.take(caller, noon.Add(d), rule); !v.allowed {
					t.Fatalf("request at +%s refused: %+v", d, v)
				}
			}
			next := budgetKey(caller.String(), rule.period, noon.Add(time.Minute).Unix())
			if !tt.waits {
				natstest.CheckFor(t, 10*time.Second, time.Millisecond, func() error {
					b.mu.Lock()
					defer b.mu.Unlock()
					if b.returned[next] == 0 {
						return fmt.Errorf("no lease of %s taken before that minute", next)
					}
					return nil
				})
			}
			if tt.sweep {
				sh := &l.shards[caller.hash(l.seed)%uint64(len(l.shards))]
				sh.mu.Lock()
				sh.writes = 1024
				sh.sweep(noon.Add(time.Minute).Unix())
				sh.mu.Unlock()
			}
			b.during.Store(true)
			v := l.take(caller, noon.Add(tt.at), rule)
			b.during.Store(false)
			if !v.allowed || v.remaining < rule.max-2*Lease(rule.max) {
				t.Errorf("request at +%s: %+v, want allowed with most of the minute's %d left", tt.at, v, rule.max)
			}
			b.mu.Lock()
			defer b.mu.Unlock()
			// Its own window's take, not one ahead still in flight.
			own := budgetKey(caller.String(), rule.period, noon.Add(tt.at).Truncate(rule.period).Unix())
			if waited := slices.Contains(b.asked, own); waited != tt.waits {
				t.Errorf("request at +%s: takes %q while it waited, want a take of %s: %v", tt.at, b.asked, own, tt.waits)
			}
		})
	}
}

// TestLimiterBoundsTakesAhead: every active caller's take ahead falls in
// the same seconds, so at most aheadsMax are in flight; a caller that
// finds no room has its take ahead at a later request of the window.
func TestLimiterBoundsTakesAhead(t *testing.T) {
	store := natstest.MustOpen(t, natstest.MustStart(t))
	shared, err := store.Budgets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b := &takesBudget{Budget: shared, returned: map[string]int{}}
	l := newLimiter(b, slog.Default())
	noon := time.Date(2026, 3, 13, 12, 0, 0, 0, time.UTC)
	rule := limit{max: 1000, period: time.Minute}
	callers := make([]subject, aheadsMax+1)
	for i := range callers {
		callers[i] = subject{client: fmt.Sprintf("client-%d", i)}
		l.take(callers[i], noon.Add(10*time.Second), rule)
	}
	hold := make(chan struct{})
	b.hold.Store(&hold)
	b.entered.Store(0)
	for _, c := range callers[:aheadsMax] {
		l.take(c, noon.Add(59*time.Second), rule)
	}
	natstest.CheckFor(t, 10*time.Second, time.Millisecond, func() error {
		if n := b.entered.Load(); n != aheadsMax {
			return fmt.Errorf("%d takes ahead asked, want %d", n, aheadsMax)
		}
		return nil
	})
	last := callers[aheadsMax]
	ahead := func() *window {
		sh := &l.shards[last.hash(l.seed)%uint64(len(l.shards))]
		sh.mu.Lock()
		defer sh.mu.Unlock()
		return sh.window(last.hash(l.seed), last, rule.period, noon.Add(59*time.Second).Unix()).ahead
	}
	l.take(last, noon.Add(59*time.Second), rule)
	if ahead() != nil {
		t.Fatalf("a take ahead beyond the %d in flight", aheadsMax)
	}
	close(hold)
	natstest.CheckFor(t, 10*time.Second, time.Millisecond, func() error {
		if n := l.aheads.Load(); n != 0 {
			return fmt.Errorf("%d takes ahead still in flight", n)
		}
		return nil
	})
	l.take(last, noon.Add(59500*time.Millisecond), rule)
	if ahead() == nil {
		t.Fatal("no take ahead at the next request once there was room")
	}
}

// TestTakesAheadAreSpread: callers take their next window's lease at
// moments of their own between takeAhead and a second before the window
// ends, not all at once.
func TestTakesAheadAreSpread(t *testing.T) {
	l := newLimiter(nil, slog.Default())
	noon := time.Date(2026, 3, 13, 12, 0, 0, 0, time.UTC)
	for _, period := range []time.Duration{time.Minute, 24 * time.Hour} {
		w := &window{period: period, start: noon.Unix()}
		end := noon.Add(period).UnixNano()
		first, last := end, int64(0)
		for i := range 1000 {
			at := w.aheadAt(subject{client: fmt.Sprintf("client-%d", i)}.hash(l.seed))
			if at <= end-int64(takeAhead) || at > end-int64(time.Second) {
				t.Fatalf("%s window: a take ahead %s before its end, want between %s and 1s", period, time.Duration(end-at), takeAhead)
			}
			first, last = min(first, at), max(last, at)
		}
		if spread := time.Duration(last - first); spread < 3*time.Second {
			t.Errorf("%s window: a thousand callers' takes ahead within %s, want them spread over the last %s but one", period, spread, takeAhead)
		}
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
	render := func() (*wire.Entry, error) {
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
			e, _, err := rc.get([]byte("k"), render)
			if err != nil {
				t.Error(err)
				return
			}
			bodies[i] = string(e.Body())
		}()
	}
	// The first request renders; the others must be waiting for its
	// render before it ends, or they would render again.
	natstest.CheckFor(t, 10*time.Second, time.Millisecond, func() error {
		if n, waiting := renders.Load(), len(stacksWith("sync.(*WaitGroup).Wait", "httpapi.(*renderCache).get")); n != 1 || waiting != len(bodies)-1 {
			return fmt.Errorf("%d renders and %d requests waiting for one, want 1 and %d", n, waiting, len(bodies)-1)
		}
		return nil
	})
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

// TestRenderCacheKeysAreRequestBuffers: a request's key buffer is reused
// by the next request, so the cache must keep nothing of it; a key is
// found again by its bytes, whatever buffer holds them.
func TestRenderCacheKeysAreRequestBuffers(t *testing.T) {
	rc, err := newRenderCache(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.close()
	buf := make([]byte, 0, 16)
	steps := []struct {
		key, body string
		hit       bool
	}{
		{"k1", "one", false},
		{"k2", "two", false}, // k1's buffer, overwritten
		{"k1", "one", true},
		{"k2", "two", true},
	}
	for i, st := range steps {
		buf = append(buf[:0], st.key...)
		e, hit, err := rc.get(buf, func() (*wire.Entry, error) { return newEntry(200, []byte(st.body), 10), nil })
		rc.c.Wait()
		if err != nil || hit != st.hit || string(e.Body()) != st.body {
			t.Errorf("step %d, key %s: %q hit=%v err=%v, want %q hit=%v", i, st.key, e.Body(), hit, err, st.body, st.hit)
		}
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

func TestValidHost(t *testing.T) {
	tests := []struct {
		host string
		want bool
	}{
		{"api.example.org", true},
		{"api.example.org:8443", true},
		{"localhost", true},
		{"my_host-1", true},
		{"10.0.0.1", true},
		{"10.0.0.1:80", true},
		{"host:", true},
		{"[::1]", true},
		{"[::1]:8080", true},
		{"[2001:db8::1]:443", true},
		{"", false},
		{"x:y:z", false},
		{"host:8o", false},
		{"::1", false},
		{"[::1", false},
		{"[::1]x", false},
		{"[::1]:x", false},
		{"[not-an-address]:80", false},
		{"a..b", false},
		{".a", false},
		{"a.", false},
		{"evil.example\"><script>", false},
		{"ex ample", false},
		{strings.Repeat("a", 64) + ".org", false},
		{strings.Repeat("a", 63) + ".org", true},
		{strings.Repeat("a.", 127) + "aa", false}, // 256 bytes
	}
	for _, tt := range tests {
		if got, gotBytes := validHost(tt.host), validHost([]byte(tt.host)); got != tt.want || gotBytes != tt.want {
			t.Errorf("validHost(%q) = %v (string), %v (bytes), want %v", tt.host, got, gotBytes, tt.want)
		}
	}
}

func TestNumber(t *testing.T) {
	tests := []struct {
		in   string
		most int
		want int
		ok   bool
	}{
		{"5", 99, 5, true},
		{"99", 99, 99, true},
		{"100", 99, 0, false},
		{"0", 1000, 0, true},
		{"0000000000001000", 1000, 1000, true},
		{"99999999999999999999999", 1000, 0, false},
		{"", 99, 0, false},
		{"+5", 99, 0, false},
		{"-1", 99, 0, false},
		{"1a", 99, 0, false},
	}
	for _, tt := range tests {
		n, ok := number([]byte(tt.in), tt.most)
		if ok != tt.ok || (ok && n != tt.want) {
			t.Errorf("number(%q, %d) = %d, %v, want %d, %v", tt.in, tt.most, n, ok, tt.want, tt.ok)
		}
	}
}

// TestLentBodyGoesBackAfterLastHolder: a lent body goes back to the pool
// only once the cache has let its entry go and every response holding it
// has been written, whatever the order; after that the entry can no
// longer be acquired, and the buffer is the next body's.
func TestLentBodyGoesBackAfterLastHolder(t *testing.T) {
	// Steps: "hit" is a response finding the entry in the cache, "done"
	// the end of the oldest response still holding it, "evict" the cache
	// letting it go. The first response is the miss that rendered it.
	tests := []struct {
		name  string
		steps []string
	}{
		{"written, then evicted", []string{"done", "evict"}},
		{"evicted while written", []string{"evict", "done"}},
		{"hit, evicted, both written", []string{"hit", "evict", "done", "done"}},
		{"two hits written, then evicted", []string{"hit", "hit", "done", "done", "done", "evict"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc, err := newRenderCache(1 << 20)
			if err != nil {
				t.Fatal(err)
			}
			defer rc.close()
			body := bytes.Repeat([]byte("x"), 3000)
			key := []byte("k")
			e, hit, err := rc.get(key, func() (*wire.Entry, error) { return rc.bodies.Lend(200, body, cacheControlOf(10)), nil })
			if err != nil || hit || !e.Lent() {
				t.Fatalf("render: hit=%v err=%v pooled=%v", hit, err, e.Lent())
			}
			rc.c.Wait()
			held := 1
			for i, st := range tt.steps {
				if back := rc.bodies.Free() > 0; back {
					t.Fatalf("step %d (%s): body back in the pool with %d responses holding it", i, st, held)
				}
				switch st {
				case "hit":
					got, hit, _ := rc.get(key, nil)
					if !hit || got != e {
						t.Fatalf("step %d: hit=%v, another entry=%v", i, hit, got != e)
					}
					held++
				case "done":
					e.Release()
					held--
				case "evict":
					rc.c.Del(key)
				}
			}
			if free := rc.bodies.Free(); free != cap(e.Body()) {
				t.Fatalf("%d bytes back in the pool, want the body's %d", free, cap(e.Body()))
			}
			if e.Acquire() {
				t.Fatal("an entry whose body went back could still be acquired")
			}
			if next := rc.bodies.Take(len(body)); &next[0] != &e.Body()[0] {
				t.Error("the next body of the same class got a new buffer, not the one given back")
			}
		})
	}
}

// TestEncodeWritesIntoLentBuffers: a jsonAppender's body is written into a
// buffer of the last body's class; whatever the next body's size (the same
// class, smaller, larger, beyond the pooled sizes, below them) it comes
// out whole in a buffer of its own class, and a buffer it was not written
// into goes back to the pool.
func TestEncodeWritesIntoLentBuffers(t *testing.T) {
	rc, err := newRenderCache(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.close()
	for i, n := range []int{300, 5000, 5100, 2000, 9000, 9000, wire.SendfileMin + 100, 700, 100, 4000} {
		body := bytes.Repeat([]byte{byte('a' + i)}, n)
		free := rc.bodies.Free()
		e, err := rc.encode(rawJSON(body), maxAgeLive)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(e.Body(), body) {
			t.Fatalf("body %d (%d bytes): got %d bytes, not the body", i, n, len(e.Body()))
		}
		if lent := e.Lent(); lent != wire.Pooled(n) {
			t.Fatalf("body %d (%d bytes): lent=%v", i, n, lent)
		}
		// A new pool's buffer is of its class's size (TestBodyPoolClasses).
		if wire.Pooled(n) {
			if class := cap(wire.NewPool(0).Take(n)); cap(e.Body()) != class {
				t.Errorf("body %d (%d bytes): buffer of %d bytes, want its class's %d", i, n, cap(e.Body()), class)
			}
		}
		if after := rc.bodies.Free(); after < free {
			t.Errorf("body %d (%d bytes): %d bytes free in the pool before, %d after: a buffer was lost", i, n, free, after)
		}
	}
}
