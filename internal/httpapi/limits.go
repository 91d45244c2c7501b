package httpapi

import (
	"context"
	"fmt"
	"hash/maphash"
	"log/slog"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Budget is where the replicas share callers' budgets (events.Budgets): Take
// adds up to want to key's count, never beyond limit, and says how much it
// got and the count afterwards.
type Budget interface {
	Take(ctx context.Context, key string, limit, want int) (got, used int, err error)
}

// limiter counts requests in fixed windows aligned to their period (every
// replica's minute is the same minute) per caller: an anonymous address or
// a registered client. With a shared Budget, a replica lets requests
// through against leases it takes of the caller's budget: most requests
// spend a lease the replica holds, without a round trip, and the next lease
// is taken before this one runs out. The leases of all replicas never add
// up to more than the limit; what a replica holds but does not spend
// before the window ends (at most a lease each) is the margin by which a
// caller may be refused early. Without a Budget (one replica) the whole
// budget is local.
type limiter struct {
	// budget is set once the replica reaches NATS (ShareBudgets), before
	// it answers its first request.
	budget atomic.Pointer[sharedBudget]
	log    *slog.Logger
	// errors counts failed takes of the shared budget.
	errors atomic.Int64
	// aheads counts the takes ahead in flight (aheadsMax).
	aheads atomic.Int32
	seed   maphash.Seed
	shards [64]limitShard
}

type limitShard struct {
	mu sync.Mutex
	// counters holds a caller's windows, one per rule, chained under the
	// hash that chose the shard: the map hashes 64 bits, not the caller's
	// name or address again (that was a third of a take).
	counters map[uint64]*window
	writes   int
}

// subject is whom a request counts against: a registered client by name,
// else the caller's address. Comparable, so that it finds its counters
// without a string built per request.
type subject struct {
	client string // "" for an anonymous address
	addr   netip.Addr
}

// String names the subject in the shared budget's keys, as "client|name"
// or "ip|address".
func (s subject) String() string {
	if s.client != "" {
		return "client|" + s.client
	}
	return "ip|" + s.addr.String()
}

// hash spreads subjects over the shards, and keys their windows there.
func (s subject) hash(seed maphash.Seed) uint64 {
	if s.client != "" {
		return maphash.String(seed, s.client)
	}
	a := s.addr.As16()
	return maphash.Bytes(seed, a[:])
}

type window struct {
	caller subject
	period time.Duration
	// next is another window under the same hash: the caller's other
	// rule, or another caller's.
	next *window

	start   int64 // unix seconds, a multiple of the period
	served  int   // requests this replica let through
	granted int   // this replica's leases
	used    int   // every replica's leases, as of this replica's last take
	spent   bool  // the shared budget is taken up
	// taking is closed when a take in flight ends; nil when none is.
	taking chan struct{}
	// ahead is the caller's window of the next period, its first lease
	// taken before this one ends (aheadAt); nil until then.
	ahead *window
}

func (w *window) ended(now int64) bool { return now-w.start >= int64(w.period/time.Second) }

// aheadAt is when, in Unix nanoseconds, a request of the caller hashed h
// takes the first lease of its window after w: between takeAhead and a
// second before w ends, at a moment of the caller's own. Without it, the
// first request of every caller in a new window waited for a round trip
// to the shared budget, and at the turn of each minute every registered
// client's did at once: make bench's open loop, run across a minute's
// turn, had 9–11 thousand requests a second over 2 ms for the four
// seconds after it (max 97 ms), against 2–5 thousand in the seconds
// around them.
// Spread over the seconds before the turn, the takes cost the replica's
// processor a little each second instead of all of it for tens of
// milliseconds (a thousand takes on one core). Windows are a minute or
// longer.
func (w *window) aheadAt(h uint64) int64 {
	end := (w.start + int64(w.period/time.Second)) * int64(time.Second)
	return end - int64(time.Second) - int64(h%uint64(takeAhead-time.Second))
}

const takeAhead = 5 * time.Second

// aheadsMax bounds the takes ahead in flight on a replica. Every active
// caller's falls in the same seconds of the minute, and unbounded they
// would be a goroutine and a request to NATS each at once (a hundred
// thousand clients: a hundred thousand). Beyond it a caller's take ahead
// waits for its next request, and one that finds no room before the
// window ends takes its lease as it did without them. A take is one
// round trip, so 64 in flight take tens of thousands a second.
const aheadsMax = 64

// limit is one rule: at most max requests per period.
type limit struct {
	max    int
	period time.Duration
}

// verdict is the state of a caller's counters after a request.
type verdict struct {
	allowed   bool
	remaining int
	resetIn   int // seconds until the tightest counter resets
}

// budgetTimeout bounds a take of the shared budget. A replica that cannot
// reach it lets the request through against a lease of its own rather than
// refusing everybody: the limits are a fairness rule, not a fence.
const budgetTimeout = 2 * time.Second

type sharedBudget struct{ Budget }

func newLimiter(budget Budget, log *slog.Logger) *limiter {
	l := &limiter{log: log, seed: maphash.MakeSeed()}
	for i := range l.shards {
		l.shards[i].counters = map[uint64]*window{}
	}
	l.share(budget)
	return l
}

// share makes the limiter count against budget; nil keeps counts local.
func (l *limiter) share(budget Budget) {
	if budget != nil {
		l.budget.Store(&sharedBudget{budget})
	}
}

// Lease is how much of a budget of limit a replica takes at a time: small
// enough that the leases replicas hold unused are a small margin (a caller
// may be refused at most a lease per replica early), large enough that few
// requests wait for a take.
func Lease(limit int) int { return min(max(limit/16, 1), 1000) }

// take counts a request of caller at at against each rule (say per minute
// and per day) and reports the tightest: a request refused by any rule is
// refused and counts against none. at is the request's time on the
// service's one clock, its snapshot's: reading the clock is a measurable
// share of a cached response's cost.
func (l *limiter) take(caller subject, at time.Time, rules ...limit) verdict {
	now := at.Unix()
	h := caller.hash(l.seed)
	sh := &l.shards[h%uint64(len(l.shards))]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.sweep(now)
	// A caller has one or two rules: their windows stay on the stack.
	var held [2]*window
	ws := held[:0]
	for _, r := range rules {
		ws = append(ws, sh.window(h, caller, r.period, now))
	}
	// Take a lease where this replica has none left, one rule at a time.
	for i := 0; i < len(rules); {
		w := ws[i]
		switch {
		case w.served < w.granted || w.spent:
			i++
		case w.taking != nil:
			ch := w.taking
			sh.mu.Unlock()
			<-ch
			sh.mu.Lock()
		default:
			l.takeLease(sh, caller, rules[i], w, false, nil)
		}
	}
	v := verdict{allowed: true, remaining: -1}
	for i, r := range rules {
		w := ws[i]
		if w.served >= w.granted {
			v.allowed = false
		}
		remaining := r.max - w.used + (w.granted - w.served)
		reset := int(w.start + int64(r.period/time.Second) - now)
		if v.remaining < 0 || remaining < v.remaining || (remaining == v.remaining && reset > v.resetIn) {
			v.remaining, v.resetIn = remaining, reset
		}
	}
	if v.allowed {
		for i, r := range rules {
			w := ws[i]
			w.served++
			// Take the next lease before this one runs out.
			if !w.spent && w.taking == nil && w.granted-w.served <= Lease(r.max)/2 {
				l.takeLease(sh, caller, r, w, true, nil)
			}
		}
		v.remaining--
	}
	l.takeAhead(sh, caller, h, at, rules, ws)
	v.remaining = max(v.remaining, 0)
	return v
}

// takeAhead takes the first lease of the next window of each of ws
// (rules') whose moment has come (aheadAt), with the shard's lock held: a
// caller still here as its window ends then finds a lease there at its
// first request.
func (l *limiter) takeAhead(sh *limitShard, caller subject, h uint64, at time.Time, rules []limit, ws []*window) {
	if l.budget.Load() == nil {
		return
	}
	for i, r := range rules {
		w := ws[i]
		if w.ahead != nil || at.UnixNano() < w.aheadAt(h) {
			continue
		}
		if l.aheads.Add(1) > aheadsMax {
			l.aheads.Add(-1)
			continue
		}
		w.ahead = &window{caller: caller, period: r.period, start: w.start + int64(r.period/time.Second)}
		l.takeLease(sh, caller, r, w.ahead, true, func() { l.aheads.Add(-1) })
	}
}

// window returns the caller's current window for period, h being the
// caller's hash, a new one when the period has moved on.
func (sh *limitShard) window(h uint64, caller subject, period time.Duration, now int64) *window {
	secs := int64(period / time.Second)
	start := now - now%secs
	var prev *window
	w := sh.counters[h]
	for w != nil && (w.period != period || w.caller != caller) {
		prev, w = w, w.next
	}
	if w != nil && w.start == start {
		return w
	}
	fresh := &window{caller: caller, period: period, start: start}
	if w != nil && w.ahead != nil && w.ahead.start == start {
		fresh = w.ahead
	}
	switch {
	case w == nil: // the first for period: at the head
		fresh.next = sh.counters[h]
		sh.counters[h] = fresh
	case prev == nil: // in place of the head
		fresh.next = w.next
		sh.counters[h] = fresh
	default: // in place of w
		fresh.next = w.next
		prev.next = fresh
	}
	sh.writes++
	return fresh
}

// takeLease takes a lease of r's budget for w, with the shard's lock held
// on entry and exit but not during the take; async leaves the caller
// waiting for nothing, and calls done, if any, once the take has ended.
func (l *limiter) takeLease(sh *limitShard, caller subject, r limit, w *window, async bool, done func()) {
	budget := l.budget.Load()
	if budget == nil {
		w.granted, w.used, w.spent = r.max, r.max, true
		if done != nil {
			done()
		}
		return
	}
	ch := make(chan struct{})
	w.taking = ch
	key := budgetKey(caller.String(), r.period, w.start)
	fetch := func() (int, int, error) {
		ctx, cancel := context.WithTimeout(context.Background(), budgetTimeout)
		defer cancel()
		return budget.Take(ctx, key, r.max, Lease(r.max))
	}
	apply := func(got, used int, err error) {
		switch {
		case err != nil:
			// Never more than the whole limit on this replica alone. The
			// log says so at the first failure and every thousandth.
			if n := l.errors.Add(1); n%1000 == 1 {
				l.log.Warn("shared request budget unreachable: a local lease instead", "key", key, "failures", n, "err", err.Error())
			}
			w.granted = min(w.granted+Lease(r.max), r.max)
			w.used = max(w.used, w.granted)
			w.spent = w.granted == r.max
		case got == 0:
			w.spent, w.used = true, used
		default:
			w.granted += got
			w.used = max(w.used+got, used)
		}
		w.taking = nil
		close(ch)
	}
	if async {
		go func() {
			got, used, err := fetch()
			sh.mu.Lock()
			apply(got, used, err)
			sh.mu.Unlock()
			if done != nil {
				done()
			}
		}()
		return
	}
	sh.mu.Unlock()
	got, used, err := fetch()
	sh.mu.Lock()
	apply(got, used, err)
}

// budgetKey names a window of a caller's budget in the shared bucket, in
// the characters its keys allow.
func budgetKey(caller string, period time.Duration, start int64) string {
	safe := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, caller)
	return fmt.Sprintf("%s.%d.%d", safe, int64(period/time.Second), start)
}

// sweep drops expired windows now and then, so that a day of distinct
// anonymous addresses does not grow the map without bound.
func (sh *limitShard) sweep(now int64) {
	if sh.writes < 1024 {
		return
	}
	sh.writes = 0
	for h, head := range sh.counters {
		var kept, last *window
		for w := head; w != nil; {
			next := w.next
			// An ended window's successor, taken ahead, takes its place.
			if w.ended(now) && w.taking == nil && w.ahead != nil && !w.ahead.ended(now) {
				w = w.ahead
			}
			if !w.ended(now) || w.taking != nil {
				w.next = nil
				if last == nil {
					kept = w
				} else {
					last.next = w
				}
				last = w
			}
			w = next
		}
		switch {
		case kept == nil:
			delete(sh.counters, h)
		case kept != head:
			sh.counters[h] = kept
		}
	}
}
