package wire

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/hex"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/cespare/xxhash/v2"
	"golang.org/x/sys/unix"
)

// Entry is a rendered response: the body, its ETag and, made on the first
// request that accepts it, its gzip form. Nothing in it changes after that.
type Entry struct {
	status int
	body   []byte
	etag   []byte
	// cacheControl is the Cache-Control value, max-age=N, shared by the
	// entries of the same lifetime.
	cacheControl []byte

	// pool, when set, lent the body's buffer, which goes back to it once
	// refs falls to 0; an entry without one leaves its body to the
	// collector and counts nothing.
	pool *Pool
	// refs counts the holders of a lent body: the cache while the entry
	// is in it, and each response until it is written. Once it is 0 it
	// stays 0 (Acquire refuses), and the buffer is another body's.
	refs atomic.Int32

	gzOnce sync.Once
	gz     []byte // nil when the body is too small to be worth it

	fileOnce sync.Once
	// fd is a file holding the body (Bodies), read by sendfile(2) at
	// offsets of each response's own; -1 when the body is small or there
	// is no file.
	fd int

	etagBuf [etagLen]byte
}

// gzipMin is the body size below which compression does not pay.
const gzipMin = 512

// etagLen is an ETag's length: 16 hexadecimal digits, quoted.
const etagLen = 18

// NewEntry makes an entry of a body the collector owns, with the
// Cache-Control value cacheControl, which it keeps and never changes. It
// hashes the body for its ETag with xxhash, ten times the speed of FNV-1a
// byte by byte (which was a tenth of a cache miss's cost); the ETag
// depends only on the bytes, so every replica gives the same one.
func NewEntry(status int, body, cacheControl []byte) *Entry {
	e := &Entry{status: status, body: body, cacheControl: cacheControl}
	var sum [8]byte
	binary.BigEndian.PutUint64(sum[:], xxhash.Sum64(body))
	e.etagBuf[0], e.etagBuf[etagLen-1] = '"', '"'
	hex.Encode(e.etagBuf[1:etagLen-1], sum[:])
	e.etag = e.etagBuf[:]
	return e
}

// Lend makes an entry of a copy of body, in a buffer of the pool's when
// the body is of a size it keeps. The entry starts held twice: by the
// cache it is meant for and by the response that rendered it.
func (p *Pool) Lend(status int, body, cacheControl []byte) *Entry {
	if !Pooled(len(body)) {
		return NewEntry(status, bytes.Clone(body), cacheControl)
	}
	b := p.Take(len(body))
	copy(b, body)
	return p.lent(status, b, cacheControl)
}

// Adopt makes an entry of body, written over buf, a buffer Take gave:
// of body itself when it is still in buf and of buf's class, held as
// Lend's is; otherwise of a copy (Lend), and buf goes back to the pool.
func (p *Pool) Adopt(status int, buf, body, cacheControl []byte) *Entry {
	if len(body) <= cap(buf) && Pooled(len(body)) && class(len(body)) == class(cap(buf)) {
		return p.lent(status, body, cacheControl)
	}
	e := p.Lend(status, body, cacheControl)
	p.give(buf)
	return e
}

// lent makes an entry of body, a buffer the pool lent, held as Lend's is.
func (p *Pool) lent(status int, body, cacheControl []byte) *Entry {
	e := NewEntry(status, body, cacheControl)
	e.pool = p
	e.refs.Store(2)
	return e
}

// Status is the response's status code.
func (e *Entry) Status() int { return e.status }

// Body is the response's body; nobody may write to it.
func (e *Entry) Body() []byte { return e.body }

// ETag is the body's entity tag, quoted.
func (e *Entry) ETag() []byte { return e.etag }

// CacheControl is the Cache-Control value NewEntry or Lend was given.
func (e *Entry) CacheControl() []byte { return e.cacheControl }

// Lent reports whether a pool lent the body's buffer: the entry is then
// used only under a hold (Acquire, Release).
func (e *Entry) Lent() bool { return e.pool != nil }

// Holders is the number of holds on a lent body, 0 once it went back to
// the pool (and for a body the collector owns).
func (e *Entry) Holders() int { return int(e.refs.Load()) }

// Acquire takes a hold on the entry's body for a response, and reports
// false when the body has already gone back to the pool (the entry left
// the cache and its last response was written after the caller found it).
func (e *Entry) Acquire() bool {
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

// Release gives up a hold from Acquire, Lend or Adopt; the last one gives
// the body's buffer back.
func (e *Entry) Release() {
	if e.pool == nil {
		return
	}
	switch n := e.refs.Add(-1); {
	case n == 0:
		e.pool.give(e.body)
	case n < 0:
		panic("wire: an entry released more often than it was held")
	}
}

// Held is a response's hold on an entry, kept in the request's user
// values: fasthttp closes those once the response has been written (or
// the connection dropped), which releases the hold.
type Held Entry

// Close releases the hold.
func (h *Held) Close() error {
	(*Entry)(h).Release()
	return nil
}

// Gzipped returns the compressed body, compressing it once, or nil when
// the body is too small for compression to pay.
func (e *Entry) Gzipped() []byte {
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

// SendfileMin is the body size from which a response is sent with
// sendfile(2) from a file (Bodies) rather than copied from the heap into the
// socket: the copy was most of the CPU of a 345 KB season of fixtures. A
// body that fits fasthttp's write buffer with its headers (about 600
// bytes) leaves with them in one write(2) (a writev from GatherMin), which
// costs less than a write for the headers and a sendfile for the body
// (23.8 and 31.4 KB bodies: 23.0 and 25.4 µs of CPU against 27.5 and 28.2;
// 29 KB on the 1M world with sendfile from 16 KiB: 1.069 times the CPU
// of the copy); a larger one takes two
// writes or more, and then sendfile costs less (43.8 KB: 34.4 against
// 30.8 µs; 62.5 KB: 57 against 36).
const SendfileMin = WriteBuffer - 1<<10

// InFile reports whether the body is in a file, made in b on the first
// call (bodyFile).
func (e *Entry) InFile(b *Bodies) bool { return e.bodyFile(b) >= 0 }

// bodyFile returns the descriptor of a file in b holding the body, written
// once, or -1 when the body is small or no file could be made. Responses
// read it with sendfile(2) at explicit offsets, which leave the file's
// position alone, so they share the descriptor without opening one each.
// The file is closed once the entry is collected, so a response that keeps
// the entry keeps the descriptor valid. An entry is one server's, so b is
// the same on every call.
func (e *Entry) bodyFile(b *Bodies) int {
	e.fileOnce.Do(func() {
		e.fd = -1
		if len(e.body) < SendfileMin {
			return
		}
		if bodyFiles.Add(1) > bodyFilesMax {
			bodyFiles.Add(-1)
			return
		}
		fd, err := b.file(e.body)
		if err != nil {
			bodyFiles.Add(-1)
			return
		}
		e.fd = fd
		runtime.AddCleanup(e, closeBodyFile, os.NewFile(uintptr(fd), "footballd-body"))
	})
	return e.fd
}

// bodyFiles counts the body files open. Evicted entries keep theirs until
// the garbage collector finds them; beyond bodyFilesMax bodies are copied
// instead, so that cached bodies never take the descriptors the listener
// needs for connections, whatever the cache's budget.
var (
	bodyFiles    atomic.Int64
	bodyFilesMax = bodyFileBudget()
)

// bodyFileBudget is half of the limit on the process's open descriptors (Go
// raises the soft limit to the hard one at start).
func bodyFileBudget() int64 {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		return 0
	}
	return int64(min(lim.Cur/2, 1<<20))
}

func closeBodyFile(f *os.File) {
	f.Close()
	bodyFiles.Add(-1)
}

// Cost counts the body's buffer and room for its compressed form, which
// may be added after the entry is cached, and the body a third time from
// SendfileMin on: its file holds a copy too, in memory or the page cache.
func (e *Entry) Cost() int64 {
	n := cap(e.body) + len(e.body)
	if len(e.body) >= SendfileMin {
		n += len(e.body)
	}
	return int64(n) + 128
}
