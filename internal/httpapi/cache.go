package httpapi

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/dgraph-io/ristretto/v2"
	"github.com/footdata/footballd/internal/wire"
)

// newEntry makes an entry of a body the collector owns, which clients may
// keep for maxAge seconds.
func newEntry(status int, body []byte, maxAge int) *wire.Entry {
	return wire.NewEntry(status, body, cacheControlOf(maxAge))
}

// cacheControls are the Cache-Control values of the lifetimes in use,
// made once instead of once an entry.
var cacheControls = func() map[int][]byte {
	m := map[int][]byte{}
	for _, age := range []int{maxAgeLive, maxAgeFinished, maxAgeTeams, maxAgeStatic} {
		m[age] = strconv.AppendInt([]byte("max-age="), int64(age), 10)
	}
	return m
}()

func cacheControlOf(maxAge int) []byte {
	if v, ok := cacheControls[maxAge]; ok {
		return v
	}
	return strconv.AppendInt([]byte("max-age="), int64(maxAge), 10)
}

// renderCache keeps rendered responses. Keys carry the version of the data
// a response depends on, so a change makes new keys and nothing is ever
// stale; old entries age out under the byte budget. Concurrent misses for
// one key render once. Ristretto keeps only hashes of keys, so a key is the
// request's own buffer: a hit builds no string. Bodies of the sizes bodies
// keeps are lent by it and go back when their entry has left the cache and
// been written for the last time (package wire states the holds).
type renderCache struct {
	c      *ristretto.Cache[[]byte, *wire.Entry]
	bodies *wire.Pool
	// lastJSON is the length of the last body a jsonAppender wrote, the
	// size of the buffer the next one is written into.
	lastJSON atomic.Int64

	mu       sync.Mutex
	inflight map[string]*call
}

// call is a render in progress; the requests for its key that arrive
// meanwhile wait on done (a WaitGroup, unlike a channel, costs no
// allocation of its own).
type call struct {
	done sync.WaitGroup
	e    *wire.Entry
	err  error
}

func newRenderCache(maxBytes int64) (*renderCache, error) {
	c, err := ristretto.NewCache(&ristretto.Config[[]byte, *wire.Entry]{
		// About ten counters per entry expected; entries average a few KiB.
		NumCounters: max(maxBytes/256, 1<<12),
		MaxCost:     maxBytes,
		// Every hit records its key in a buffer that is handed to the
		// admission policy's goroutine when full, waking it: with 64 keys
		// a buffer (the suggested size) the wake-ups were 6 % of a cached
		// response's time in BenchmarkHandler; with 1024 the policy sees
		// the same keys in fewer, larger batches.
		BufferItems: 1024,
		// An entry leaving the cache, evicted, rejected or replaced, gives
		// up the cache's hold on its body. ristretto may hand a nil value
		// for a victim it no longer stores.
		OnExit: func(e *wire.Entry) {
			if e != nil {
				e.Release()
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("render cache: %w", err)
	}
	// In steady state every miss's entry pushes one out, so little needs
	// to wait here; what is beyond the bound goes to the collector.
	return &renderCache{c: c, bodies: wire.NewPool(int(min(maxBytes/16, 16<<20))), inflight: map[string]*call{}}, nil
}

// get returns the entry for key, rendering it on a miss, with a hold on
// it that the caller releases once the response is written. hit tells
// whether it came from the cache. Nothing keeps key after get returns.
func (rc *renderCache) get(key []byte, render func() (*wire.Entry, error)) (e *wire.Entry, hit bool, err error) {
	for {
		// An entry found may have left the cache and had its body
		// recycled since: that is a miss.
		if e, ok := rc.c.Get(key); ok && e.Acquire() {
			return e, true, nil
		}
		rc.mu.Lock()
		if cl, ok := rc.inflight[string(key)]; ok {
			rc.mu.Unlock()
			cl.done.Wait()
			if cl.err != nil {
				return nil, true, cl.err
			}
			if cl.e.Acquire() {
				return cl.e, true, nil
			}
			continue
		}
		cl := &call{}
		cl.done.Add(1)
		rc.inflight[string(key)] = cl
		rc.mu.Unlock()

		rc.fill(key, cl, render)
		return cl.e, false, cl.err
	}
}

// errRenderPanicked is what the requests waiting for a render get when it
// panicked (the panic itself goes up the renderer's request).
var errRenderPanicked = errors.New("render cache: the render this request waited for panicked")

// fill renders key's entry for cl and ends cl, also when render panics:
// the key left in flight would keep the requests waiting for it, and
// every later request for it, waiting for ever.
func (rc *renderCache) fill(key []byte, cl *call, render func() (*wire.Entry, error)) {
	defer func() {
		rc.mu.Lock()
		delete(rc.inflight, string(key))
		rc.mu.Unlock()
		cl.done.Done()
	}()
	cl.err = errRenderPanicked
	cl.e, cl.err = render()
	if cl.err == nil && !rc.c.Set(key, cl.e, cl.e.Cost()) {
		// Dropped before the cache saw it: its hold is not the cache's
		// to give up.
		cl.e.Release()
	}
}

func (rc *renderCache) close() { rc.c.Close() }
