package httpapi

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/readmodel"
	"github.com/prometheus/client_golang/prometheus"
)

// TokenSource finds the active client a token's hash was issued to in the
// stream itself, and the stream sequence of the client's revision read:
// events.Store.ClientByToken. An error with code model.NotFound says that
// no active client holds it.
type TokenSource interface {
	ClientByToken(ctx context.Context, tokenHash string) (model.Client, uint64, error)
}

const (
	// tokenMissTTL is how long a token found unknown (or whose lookup
	// failed) is refused without another lookup.
	tokenMissTTL = time.Second
	// tokenMissesKept bounds the tokens remembered as unknown, per
	// generation of tokenMissTTL (two are kept): about 2 MB each, however
	// many random tokens callers send. Beyond it a token is looked up
	// every time, within maxTokenLookups.
	tokenMissesKept = 1 << 14
	// maxTokenLookups bounds the lookups in flight on one replica, so that
	// a flood of random tokens costs the stream's leader no more than this
	// many reads at a time; a token beyond it is refused without one.
	maxTokenLookups = 64
	// DefaultTokenLookupsPerMinute is each client address's budget of lookups
	// a minute on one replica (Options.TokenLookupsPerMinute): a new
	// client needs one, on a replica behind; a flood of random tokens from
	// one address gets no more.
	DefaultTokenLookupsPerMinute = 30
)

// lookupResult is what resolve learnt of a token.
type lookupResult int

const (
	tokenUnknown lookupResult = iota
	tokenFound
	// tokenLimited: the caller's address has spent its lookups, and the
	// token was not looked up.
	tokenLimited
)

// tokenLookups finds the clients of tokens that a replica's read model does
// not have yet (a client just added, while the replica applies an import)
// by reading the stream's leader, and hands them to the read model as a
// cache (readmodel.Model.LearnClient). Concurrent requests with the same
// token share one lookup; a token found unknown is remembered for
// tokenMissTTL, so that each token costs at most one lookup a second; and
// each client address has a budget of lookups a minute, so that a flood of
// fresh random tokens from one address costs the leader no more than that.
type tokenLookups struct {
	src   atomic.Pointer[TokenSource] // nil until the replica reaches NATS
	model *readmodel.Model
	log   *slog.Logger
	now   func() time.Time
	// timeout bounds how long requests with a token wait for its lookup
	// (Options.TokenLookupTimeout).
	timeout time.Duration

	found, unknown, failed, recent, busy, limited prometheus.Counter

	mu       sync.Mutex
	inflight map[string]*tokenLookup
	misses   missCache
}

// tokenLookup is one lookup in flight; done is closed when c and ok are set.
type tokenLookup struct {
	done chan struct{}
	c    model.Client
	ok   bool
}

func newTokenLookups(m *readmodel.Model, log *slog.Logger, reg prometheus.Registerer, timeout time.Duration) *tokenLookups {
	lookups := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "fd_token_lookups_total",
		Help: "Reads of the stream's leader for a token the replica had not applied, by result (found, unknown, error)."}, []string{"result"})
	skipped := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "fd_token_lookups_skipped_total",
		Help: "Unknown tokens refused without a lookup, by reason (recent: found unknown within the last second; busy: too many lookups in flight; " +
			"address: the client address has spent its lookups of the minute)."}, []string{"reason"})
	reg.MustRegister(lookups, skipped)
	return &tokenLookups{model: m, log: log, now: time.Now, timeout: timeout,
		found: lookups.WithLabelValues("found"), unknown: lookups.WithLabelValues("unknown"), failed: lookups.WithLabelValues("error"),
		recent: skipped.WithLabelValues("recent"), busy: skipped.WithLabelValues("busy"), limited: skipped.WithLabelValues("address"),
		inflight: map[string]*tokenLookup{}, misses: missCache{ttl: tokenMissTTL, max: tokenMissesKept}}
}

// resolve returns the client of a token's hash that the read model did not
// have, looking it up in the stream when it may: never before a source is
// set, not again within tokenMissTTL of finding it unknown, not beyond
// maxTokenLookups in flight, and only if allow, asked last, agrees (the
// caller's address has lookups left). A request that joins a lookup in
// flight, or finds the token recently unknown, spends none. allow runs
// under t.mu and must not block: it is a take of a local limiter.
func (t *tokenLookups) resolve(hash string, allow func() bool) (model.Client, lookupResult) {
	src := t.src.Load()
	if src == nil {
		return model.Client{}, tokenUnknown
	}
	l, leader, result := t.start(hash, allow)
	if l == nil {
		return model.Client{}, result
	}
	if !leader {
		<-l.done
		return l.c, resultOf(l.ok)
	}

	// Not the request's context: the lookup is shared by every request
	// with the token, and bounded on its own.
	ctx, cancel := context.WithTimeout(context.Background(), t.timeout)
	c, seq, err := (*src).ClientByToken(ctx, hash)
	cancel()
	switch {
	case err == nil:
		t.found.Inc()
		t.model.LearnClient(c, seq)
		// The model decides: it may have applied a later revision (a
		// rotation, a revocation) meanwhile.
		l.c, l.ok = t.model.Snapshot().Client(hash)
	case model.ErrorCode(err) == model.NotFound:
		t.unknown.Inc()
	default:
		t.failed.Inc()
		t.log.Warn("token lookup failed: the token is refused as unknown for a second", "err", err.Error())
	}
	t.mu.Lock()
	delete(t.inflight, hash)
	if !l.ok {
		t.misses.add(hash, t.now())
	}
	t.mu.Unlock()
	close(l.done)
	return l.c, resultOf(l.ok)
}

// start finds the lookup of hash in flight, or starts one (leader: the
// caller makes it) if it may; nil and why not otherwise.
func (t *tokenLookups) start(hash string, allow func() bool) (l *tokenLookup, leader bool, why lookupResult) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if shared, ok := t.inflight[hash]; ok {
		return shared, false, tokenUnknown
	}
	if t.misses.has(hash, t.now()) {
		t.recent.Inc()
		return nil, false, tokenUnknown
	}
	if len(t.inflight) >= maxTokenLookups {
		t.busy.Inc()
		return nil, false, tokenUnknown
	}
	if !allow() {
		t.limited.Inc()
		return nil, false, tokenLimited
	}
	l = &tokenLookup{done: make(chan struct{})}
	t.inflight[hash] = l
	return l, true, tokenUnknown
}

// resultOf is the result of a lookup that found the client (ok) or not.
func resultOf(ok bool) lookupResult {
	if ok {
		return tokenFound
	}
	return tokenUnknown
}

// missCache remembers tokens found unknown for ttl, in two generations of
// at most max entries each: the current one takes new entries, and each
// ttl it becomes the previous one and the previous one is dropped whole, so
// memory stays bounded without a sweep.
type missCache struct {
	ttl       time.Duration
	max       int
	cur, prev map[string]time.Time // token hash → when it was found unknown
	started   time.Time            // of cur
}

func (c *missCache) rotate(now time.Time) {
	switch age := now.Sub(c.started); {
	case c.cur == nil || age >= 2*c.ttl:
		c.cur, c.prev, c.started = make(map[string]time.Time), nil, now
	case age >= c.ttl:
		c.cur, c.prev, c.started = make(map[string]time.Time), c.cur, now
	}
}

func (c *missCache) has(hash string, now time.Time) bool {
	c.rotate(now)
	for _, g := range [2]map[string]time.Time{c.cur, c.prev} {
		if at, ok := g[hash]; ok && now.Sub(at) < c.ttl {
			return true
		}
	}
	return false
}

func (c *missCache) add(hash string, now time.Time) {
	c.rotate(now)
	if len(c.cur) < c.max {
		c.cur[hash] = now
	}
}
