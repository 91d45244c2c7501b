package wire

import (
	"bufio"
	"fmt"
	"io"
	"net"
)

// gatherBody is the body stream of a cached response on a lazyConn whose
// body is from GatherMin up to SendfileMin, or whose gzip form (which has
// no body file) is from GatherMin. fasthttp would copy the body
// into the connection's write buffer behind the headers and write both;
// instead the connection holds the headers as fasthttp flushes them, and
// they leave with the body, read where the cache keeps it, in one
// writev(2): still one system call a response, without the copy.
//
// One response at a time is written on a connection, so each lazyConn has
// one gatherBody, set up by gather and used through fasthttp's calls: the
// flush of the headers (held), WriteTo (the writev) and Close (anything
// still held is written, and nothing more is held). A response that is
// never written, or a HEAD, whose headers fasthttp writes without calling
// WriteTo, leaves by Close and the ordinary write path.
type gatherBody struct {
	c    *lazyConn
	body []byte
	off  int
	// holding is set while the connection keeps what it is given to
	// write in held, for the writev.
	holding bool
	held    []byte
	// bufs is the writev's list, kept here so that it costs no
	// allocation.
	bufs net.Buffers
	vec  [2][]byte
}

// GatherMin is the body size from which a body is gathered with its
// headers rather than copied behind them. The copy of a smaller body stays
// in the core's first-level cache, where the kernel reads it again at
// once: on the 1M world's replica under wrk (10–12 interleaved rounds,
// medians of each round's ratio) gathering cost more below it, a 6.5 KB
// fixture 1.075 times the CPU a request and a 10 KB table 1.08 (kernel
// time 1.055 and 1.07), while a 29 KB team's fixtures cost 0.977 (user
// time 0.88: 4.58 against 5.65 µs).
const GatherMin = 16 << 10

// heldMax bounds what a connection holds: a response's headers, and any
// earlier pipelined response fasthttp had not flushed. Beyond it the bytes
// are written at once, in order, and the body follows on its own.
const heldMax = 4 << 10

// gather makes body the response's body stream on c.
func (c *lazyConn) gather(body []byte) *gatherBody {
	g := &c.out
	g.c, g.body, g.off, g.holding = c, body, 0, true
	return g
}

// hold takes b into what is held, and reports false (holding nothing more)
// when it does not fit.
func (g *gatherBody) hold(b []byte) bool {
	if len(g.held)+len(b) > heldMax {
		return false
	}
	if g.held == nil {
		g.held = make([]byte, 0, 1<<10)
	}
	g.held = append(g.held, b...)
	return true
}

// flushHeld writes what is held and holds nothing more.
func (g *gatherBody) flushHeld() error {
	g.holding = false
	if len(g.held) == 0 {
		return nil
	}
	_, err := g.c.writeThrough(g.held)
	g.held = g.held[:0]
	return err
}

// WriteTo sends the rest of the body to w. fasthttp's server writes a
// response through a bufio.Writer on the connection the handler saw, the
// only *bufio.Writer a body stream of ours is written to (fasthttp's Body
// and BodyWriteTo copy into byte buffers): its buffered headers are
// flushed into what the connection holds, and both leave in one writev.
// Any other writer gets the bytes from memory.
func (g *gatherBody) WriteTo(w io.Writer) (int64, error) {
	bw, ok := w.(*bufio.Writer)
	if !ok {
		n, err := w.Write(g.body[g.off:])
		g.off += n
		return int64(n), err
	}
	if err := bw.Flush(); err != nil {
		return 0, fmt.Errorf("response headers: %w", err)
	}
	g.holding = false
	held, rest := len(g.held), len(g.body)-g.off
	g.vec = [2][]byte{g.held, g.body[g.off:]}
	g.bufs = g.vec[:]
	var sent int64
	for {
		// Writev consumes the list as the kernel takes its bytes, and
		// waits in the poller while the socket is full.
		n, err := g.bufs.WriteTo(g.c.tc)
		sent += n
		if err == nil || !g.c.wd.early(err) {
			g.vec, g.bufs, g.held = [2][]byte{}, nil, g.held[:0]
			body := max(sent-int64(held), 0)
			g.off += int(body)
			if err != nil {
				return body, fmt.Errorf("response body, writev at %d of %d bytes: %w", body, rest, err)
			}
			return body, nil
		}
	}
}

// Read copies the body from memory, for a reader that does not use
// WriteTo.
func (g *gatherBody) Read(p []byte) (int, error) {
	if g.off >= len(g.body) {
		return 0, io.EOF
	}
	n := copy(p, g.body[g.off:])
	g.off += n
	return n, nil
}

// Close ends the response's use of the connection's gatherBody: what is
// still held is written (a HEAD's headers are not, fasthttp flushes them
// after Close), the body is let go.
func (g *gatherBody) Close() error {
	err := g.flushHeld()
	g.body = nil
	return err
}
