package httpapi

import (
	"hash/maphash"
	"sync"
	"time"
)

// limiter counts requests in fixed windows per caller (an anonymous IP or
// a registered client). Counters live in this replica only.
type limiter struct {
	now    func() time.Time
	seed   maphash.Seed
	shards [64]limitShard
}

type limitShard struct {
	mu       sync.Mutex
	counters map[windowKey]*window
	writes   int
}

// windowKey names one caller's counter for one rule, without building a
// string per request.
type windowKey struct {
	caller string
	period time.Duration
}

type window struct {
	start int64 // unix seconds
	n     int
}

// limit is one rule: at most max requests per period.
type limit struct {
	max    int
	period time.Duration
}

// verdict is the state of a caller's counter after a request.
type verdict struct {
	allowed   bool
	remaining int
	resetIn   int // seconds until the counter resets
}

func newLimiter(now func() time.Time) *limiter {
	l := &limiter{now: now, seed: maphash.MakeSeed()}
	for i := range l.shards {
		l.shards[i].counters = map[windowKey]*window{}
	}
	return l
}

// take counts a request of key against each rule (e.g. per minute and per
// day) and reports the tightest: a request refused by any rule is refused
// and counts against none.
func (l *limiter) take(key string, rules ...limit) verdict {
	now := l.now().Unix()
	sh := &l.shards[maphash.String(l.seed, key)%uint64(len(l.shards))]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.sweep(now)
	v := verdict{allowed: true, remaining: -1}
	ws := make([]*window, len(rules))
	for i, r := range rules {
		k := windowKey{key, r.period}
		w := sh.counters[k]
		period := int64(r.period / time.Second)
		if w == nil || now-w.start >= period {
			w = &window{start: now}
			sh.counters[k] = w
			sh.writes++
		}
		ws[i] = w
		remaining := r.max - w.n
		reset := int(w.start + period - now)
		if remaining <= 0 {
			v.allowed = false
		}
		if v.remaining < 0 || remaining < v.remaining || (remaining == v.remaining && reset > v.resetIn) {
			v.remaining, v.resetIn = remaining, reset
		}
	}
	if v.allowed {
		for _, w := range ws {
			w.n++
		}
		v.remaining--
	}
	v.remaining = max(v.remaining, 0)
	return v
}

// sweep drops expired windows now and then, so that a day of distinct
// anonymous IPs does not grow the map without bound.
func (sh *limitShard) sweep(now int64) {
	if sh.writes < 1024 {
		return
	}
	sh.writes = 0
	for k, w := range sh.counters {
		if now-w.start >= int64(24*time.Hour/time.Second) {
			delete(sh.counters, k)
		}
	}
}
