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
	// cacheControl is the Cache-Control value, max-age=N.
	cacheControl []byte

	gzOnce sync.Once
	gz     []byte // nil when the body is too small to be worth it

	fileOnce sync.Once
	// fd is a memory file holding the body, read by sendfile(2) at
	// offsets of each response's own; -1 when the body is small or there
	// is no memory file.
	fd int
}

// gzipMin is the body size below which compression does not pay.
const gzipMin = 512

// newEntry hashes the body for its ETag with xxhash, ten times the speed of
// FNV-1a byte by byte (which was a tenth of a cache miss's cost); the ETag
// depends only on the bytes, so every replica gives the same one.
func newEntry(status int, body []byte, maxAge int) *entry {
	var sum [8]byte
	binary.BigEndian.PutUint64(sum[:], xxhash.Sum64(body))
	etag := make([]byte, 18) // "%016x", quoted
	etag[0], etag[17] = '"', '"'
	hex.Encode(etag[1:17], sum[:])
	return &entry{status: status, body: body, etag: etag,
		cacheControl: strconv.AppendInt([]byte("max-age="), int64(maxAge), 10)}
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
// bytes) leaves with them in one write(2), which costs less than a write
// for the headers and a sendfile for the body (23.8 and 31.4 KB bodies:
// 23.0 and 25.4 µs of CPU against 27.5 and 28.2); a larger one takes two
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

// cost counts the body twice, room for its compressed form, which may be
// added after the entry is cached, and three times from sendfileMin on:
// its memory file holds a copy too.
func (e *entry) cost() int64 {
	n := 2 * len(e.body)
	if len(e.body) >= sendfileMin {
		n += len(e.body)
	}
	return int64(n+len(e.etag)+len(e.cacheControl)) + 128
}

// renderCache keeps rendered responses. Keys carry the version of the data
// a response depends on, so a change makes new keys and nothing is ever
// stale; old entries age out under the byte budget. Concurrent misses for
// one key render once. Ristretto keeps only hashes of keys, so a key is the
// request's own buffer: a hit builds no string.
type renderCache struct {
	c *ristretto.Cache[[]byte, *entry]

	mu       sync.Mutex
	inflight map[string]*call
}

type call struct {
	done chan struct{}
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
	})
	if err != nil {
		return nil, fmt.Errorf("render cache: %w", err)
	}
	return &renderCache{c: c, inflight: map[string]*call{}}, nil
}

// get returns the entry for key, rendering it with render on a miss. hit
// tells whether it came from the cache. Nothing keeps key after get
// returns.
func (rc *renderCache) get(key []byte, render func() (*entry, error)) (e *entry, hit bool, err error) {
	if e, ok := rc.c.Get(key); ok {
		return e, true, nil
	}
	rc.mu.Lock()
	if cl, ok := rc.inflight[string(key)]; ok {
		rc.mu.Unlock()
		<-cl.done
		return cl.e, true, cl.err
	}
	cl := &call{done: make(chan struct{})}
	rc.inflight[string(key)] = cl
	rc.mu.Unlock()

	cl.e, cl.err = render()
	if cl.err == nil {
		rc.c.Set(key, cl.e, cl.e.cost())
	}
	rc.mu.Lock()
	delete(rc.inflight, string(key))
	rc.mu.Unlock()
	close(cl.done)
	return cl.e, false, cl.err
}

func (rc *renderCache) close() { rc.c.Close() }
