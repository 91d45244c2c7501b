// Package wire puts the bytes of a rendered response on the wire: the
// rendered entry (body, ETag, gzip form, body file), the pool that lends
// bodies their buffers, and the three ways a body leaves on a connection
// (SetBody): sendfile(2) from the entry's body file, one writev(2) with
// its headers, or fasthttp's copy. It also hands the server its
// connections (Listener), whose deadlines move lazily. The HTTP API
// (internal/httpapi) decides what to send; this package decides how, and
// owns the buffers and descriptors that takes.
//
// # Entries
//
// An Entry never changes once made, but for its gzip form and its memory
// file, each made once (sync.Once) by the first response that wants it.
// Its Body is read by any number of responses at once and written by
// nobody. NewEntry's body and the gzip form belong to the collector.
//
// # Lent bodies
//
// A body of a size Pooled accepts is held in a buffer the Pool lent (Lend,
// Adopt); Lent reports it. Such a buffer has holders, counted in the
// entry:
//
//   - the cache, from Lend or Adopt until the entry leaves it (ristretto's
//     OnExit, eviction, replacement or rejection, calls Release), or at
//     once if the cache never took it;
//   - the response that rendered it, from Lend or Adopt, and each response
//     that found it, from a successful Acquire; a response hands its hold
//     to the request's user values as a Held, and fasthttp closes those
//     once it has written the response or dropped the connection, which
//     releases it. Body streams (SetBody) read the body until then and no
//     longer.
//
// The Release that brings the count to 0 gives the buffer back to the
// pool, and the count stays 0: Acquire refuses from then on, and the
// buffer is the next body's. That is why an entry the cache still returns
// may fail Acquire: the cache let it go (its hold released) and its last
// response was written between the lookup and the Acquire. The caller
// takes that as a miss. An entry the collector owns has no holders to
// count: Acquire always succeeds and Release does nothing. Whoever reads
// Body of a lent entry without a hold may read another body.
//
// The pool keeps at most its bound of free buffers; past it a buffer
// given back is left to the collector. A taken buffer's bytes are
// whatever the last body left.
//
// # Body files
//
// A body of SendfileMin bytes or more (never a lent one: Pooled stops
// below it) is copied into a file the first time a response goes out on a
// TCP connection: an unnamed file (O_TMPFILE) in the server's body
// directory (Bodies), or a memory file (memfd) when it has none or the
// directory refuses the file. The file lives as long as its
// entry: a cleanup closes it once the collector finds the entry
// unreachable, so no response needs to close or count anything. A
// response's body stream keeps its entry reachable, and the sendfile path
// calls runtime.KeepAlive on the entry after the kernel's last read, so
// that the file is not closed under it however long a slow client takes,
// even after the entry has left the cache.
//
// The number of body files open is bounded for the whole process, half
// its limit of open descriptors, because descriptors are the process's,
// not a cache's: every cache and server in the process draws from one
// table, and evicted entries keep their files until the collector runs.
// Beyond the bound a large body is copied instead, so that cached bodies
// never take the descriptors the listener needs for connections.
//
// # Connections
//
// Listener wraps each TCP connection in a lazyConn. fasthttp writes one
// response at a time on a connection, so each lazyConn has one gatherBody,
// reused by every gathered response on it: SetBody or SetBytes sets it
// up, fasthttp's flush of the headers, WriteTo and Close use it, and Close
// leaves it holding nothing. The body it writes is the entry's, or its
// gzip form, under the response's hold.
//
// A lazyConn's deadlines are lazy: every read and write gets exactly the
// deadline last set, but the poller's timer moves only when a deadline is
// set earlier than the one it has; an operation the poller times out
// before the deadline asked for moves the timer to that deadline and goes
// on. Anything that writes on the TCP connection underneath (sendfile,
// writev) must do the same with the connection's lazyDeadline, which is
// why tcpConnOf returns it with the connection. Deadlines may be set from
// another goroutine while an operation waits (an event stream pushes its
// write deadline on as it goes); the moves of the timer are ordered by a
// lock.
//
// Listener.Admit, when set, decides at accept whether a connection is
// served; the release it returns is called once, when the lazyConn's
// socket is closed (after any lingering below).
//
// A lazyConn closed while its peer may still be sending lingers (close.go):
// its writing side closes at once, and a goroutine of its own reads and
// drops what comes until the peer closes, for at most lingerTime, before
// it closes the socket; so the answers written before a close (those of a
// pipeline up to a refused request) reach the peer instead of being lost
// to a reset. That goroutine owns the connection from the first Close on.
package wire
