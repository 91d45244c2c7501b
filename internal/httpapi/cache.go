package httpapi

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/cespare/xxhash/v2"
	"github.com/dgraph-io/ristretto/v2"
	"golang.org/x/sys/unix"
)

// entry is a rendered response: the body, its ETag and, made on the first
// request that accepts it, its gzip form. Nothing in it changes after that.
type entry struct {
	status int
	body   []byte
	etag   []byte
	// cacheControl is the Cache-Control value, max-age=N, shared by the
	// entries of the same lifetime.
	cacheControl []byte

	// pool, when set, lent the body's buffer, which goes back to it once
	// refs falls to 0; an entry without one leaves its body to the
	// collector and counts nothing.
	pool *bodyPool
	// refs counts the holders of a lent body: the cache while the entry
	// is in it, and each response until it is written. Once it is 0 it
	// stays 0 (acquire refuses), and the buffer is another body's.
	refs atomic.Int32

	gzOnce sync.Once
	gz     []byte // nil when the body is too small to be worth it

	fileOnce sync.Once
	// fd is a memory file holding the body, read by sendfile(2) at
	// offsets of each response's own; -1 when the body is small or there
	// is no memory file.
	fd int

	etagBuf [etagLen]byte
}

// gzipMin is the body size below which compression does not pay.
const gzipMin = 512

// etagLen is an ETag's length: 16 hexadecimal digits, quoted.
const etagLen = 18

// newEntry makes an entry of a body the collector owns. It hashes the
// body for its ETag with xxhash, ten times the speed of FNV-1a byte by
// byte (which was a tenth of a cache miss's cost); the ETag depends only
// on the bytes, so every replica gives the same one.
func newEntry(status int, body []byte, maxAge int) *entry {
	e := &entry{status: status, body: body, cacheControl: cacheControlOf(maxAge)}
	var sum [8]byte
	binary.BigEndian.PutUint64(sum[:], xxhash.Sum64(body))
	e.etagBuf[0], e.etagBuf[etagLen-1] = '"', '"'
	hex.Encode(e.etagBuf[1:etagLen-1], sum[:])
	e.etag = e.etagBuf[:]
	return e
}

// newLentEntry makes an entry of a copy of body, in a buffer of the pool's
// when the body is of a size it keeps. The entry starts held twice: by the
// cache it is meant for and by the response that rendered it.
func newLentEntry(p *bodyPool, status int, body []byte, maxAge int) *entry {
	if !pooled(len(body)) {
		return newEntry(status, bytes.Clone(body), maxAge)
	}
	b := p.take(len(body))
	copy(b, body)
	return newLentBody(p, status, b, maxAge)
}

// newLentBody makes an entry of body, a buffer the pool lent, held as
// newLentEntry's is.
func newLentBody(p *bodyPool, status int, body []byte, maxAge int) *entry {
	e := newEntry(status, body, maxAge)
	e.pool = p
	e.refs.Store(2)
	return e
}

// acquire takes a hold on the entry's body for a response, and reports
// false when the body has already gone back to the pool (the entry left
// the cache and its last response was written after the caller found it).
func (e *entry) acquire() bool {
	if e.pool == nil {
		return true
	}
	for {
		n := e.refs.Load()
		if n == 0 {
			return false
		}
		if e.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// release gives up a hold from acquire or newLentEntry; the last one gives
// the body's buffer back.
func (e *entry) release() {
	if e.pool == nil {
		return
	}
	switch n := e.refs.Add(-1); {
	case n == 0:
		e.pool.give(e.body)
	case n < 0:
		panic("httpapi: a cache entry released more often than it was held")
	}
}

// heldEntry is a response's hold on an entry, kept in the request's user
// values: fasthttp closes those once the response has been written (or
// the connection dropped), which releases the hold.
type heldEntry entry

func (h *heldEntry) Close() error {
	(*entry)(h).release()
	return nil
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

// gzipped returns the compressed body, compressing it once, or nil when
// the body is too small for compression to pay.
func (e *entry) gzipped() []byte {
	e.gzOnce.Do(func() {
		if len(e.body) < gzipMin {
			return
		}
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		zw.Write(e.body)
		zw.Close()
		e.gz = buf.Bytes()
	})
	return e.gz
}

// sendfileMin is the body size from which a response is sent with
// sendfile(2) from a memory file rather than copied from the heap into the
// socket: the copy was most of the CPU of a 345 KB season of fixtures. A
// body that fits fasthttp's write buffer with its headers (about 600
// bytes) leaves with them in one write(2) (a writev from gatherMin), which
// costs less than a write for the headers and a sendfile for the body
// (23.8 and 31.4 KB bodies: 23.0 and 25.4 µs of CPU against 27.5 and 28.2;
// 29 KB on the 1M world with sendfile from 16 KiB: 1.069 times the CPU
// of the copy); a larger one takes two
// writes or more, and then sendfile costs less (43.8 KB: 34.4 against
// 30.8 µs; 62.5 KB: 57 against 36).
const sendfileMin = writeBuffer - 1<<10

// bodyFile returns the descriptor of a memory file (memfd) holding the
// body, written once, or -1 when the body is small or no memory file could
// be made. Responses read it with sendfile(2) at explicit offsets, which
// leave the file's position alone, so they share the descriptor without
// opening one each. The file is closed once the entry is collected, so a
// response that keeps the entry keeps the descriptor valid.
func (e *entry) bodyFile() int {
	e.fileOnce.Do(func() {
		e.fd = -1
		if len(e.body) < sendfileMin {
			return
		}
		if memFiles.Add(1) > memFilesMax {
			memFiles.Add(-1)
			return
		}
		fd, err := unix.MemfdCreate("footballd-body", unix.MFD_CLOEXEC)
		if err != nil {
			memFiles.Add(-1)
			return
		}
		f := os.NewFile(uintptr(fd), "footballd-body")
		if _, err := f.Write(e.body); err != nil {
			closeMemFile(f)
			return
		}
		e.fd = fd
		runtime.AddCleanup(e, closeMemFile, f)
	})
	return e.fd
}

// memFiles counts the memory files open. Evicted entries keep theirs until
// the garbage collector finds them; beyond memFilesMax bodies are copied
// instead, so that cached bodies never take the descriptors the listener
// needs for connections, whatever the cache's budget.
var (
	memFiles    atomic.Int64
	memFilesMax = memFileBudget()
)

// memFileBudget is half of the limit on the process's open descriptors (Go
// raises the soft limit to the hard one at start).
func memFileBudget() int64 {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		return 0
	}
	return int64(min(lim.Cur/2, 1<<20))
}

func closeMemFile(f *os.File) {
	f.Close()
	memFiles.Add(-1)
}

// cost counts the body's buffer and room for its compressed form, which
// may be added after the entry is cached, and the body a third time from
// sendfileMin on: its memory file holds a copy too.
func (e *entry) cost() int64 {
	n := cap(e.body) + len(e.body)
	if len(e.body) >= sendfileMin {
		n += len(e.body)
	}
	return int64(n) + 128
}

// renderCache keeps rendered responses. Keys carry the version of the data
// a response depends on, so a change makes new keys and nothing is ever
// stale; old entries age out under the byte budget. Concurrent misses for
// one key render once. Ristretto keeps only hashes of keys, so a key is the
// request's own buffer: a hit builds no string. Bodies of the sizes bodies
// keeps are lent by it and go back when their entry has left the cache and
// been written for the last time.
type renderCache struct {
	c      *ristretto.Cache[[]byte, *entry]
	bodies *bodyPool
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
	e    *entry
	err  error
}

func newRenderCache(maxBytes int64) (*renderCache, error) {
	c, err := ristretto.NewCache(&ristretto.Config[[]byte, *entry]{
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
		OnExit: func(e *entry) {
			if e != nil {
				e.release()
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("render cache: %w", err)
	}
	// In steady state every miss's entry pushes one out, so little needs
	// to wait here; what is beyond the bound goes to the collector.
	return &renderCache{c: c, bodies: newBodyPool(int(min(maxBytes/16, 16<<20))), inflight: map[string]*call{}}, nil
}

// get returns the entry for key, rendering it on a miss, with a hold on
// it that the caller releases once the response is written. hit tells
// whether it came from the cache. Nothing keeps key after get returns.
func (rc *renderCache) get(key []byte, render func() (*entry, error)) (e *entry, hit bool, err error) {
	for {
		// An entry found may have left the cache and had its body
		// recycled since: that is a miss.
		if e, ok := rc.c.Get(key); ok && e.acquire() {
			return e, true, nil
		}
		rc.mu.Lock()
		if cl, ok := rc.inflight[string(key)]; ok {
			rc.mu.Unlock()
			cl.done.Wait()
			if cl.err != nil {
				return nil, true, cl.err
			}
			if cl.e.acquire() {
				return cl.e, true, nil
			}
			continue
		}
		cl := &call{}
		cl.done.Add(1)
		rc.inflight[string(key)] = cl
		rc.mu.Unlock()

		cl.e, cl.err = render()
		if cl.err == nil && !rc.c.Set(key, cl.e, cl.e.cost()) {
			// Dropped before the cache saw it: its hold is not the
			// cache's to give up.
			cl.e.release()
		}
		rc.mu.Lock()
		delete(rc.inflight, string(key))
		rc.mu.Unlock()
		cl.done.Done()
		return cl.e, false, cl.err
	}
}

func (rc *renderCache) close() { rc.c.Close() }
