package wire

import (
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// fasthttp sets three deadlines on a connection for every request it
// serves: the idle timeout before it waits for the next request, the read
// timeout once one has come, the write timeout before it writes the
// response. Each moves a timer of Go's poller (a lock and a heap
// operation), 2 % of a cached response's CPU on the replica, where the
// bare server sets none. A lazyConn gives every operation exactly the
// deadline last set, without moving the poller's timer for each: the
// poller keeps a deadline no later than the one asked for, and an
// operation that the poller times out before the deadline asked for sets
// the poller's to that one and goes on. On a busy connection the poller's
// timer then moves a few times a minute instead of three times a request.

// Listener hands out its TCP connections as lazyConns.
type Listener struct {
	net.Listener
	// Admit, if set, says whether a TCP connection from the peer at addr
	// is served: one it refuses is closed at once, before the server sees
	// it; one it admits calls release once its socket is closed.
	Admit func(addr net.Addr) (release func(), ok bool)
}

// Accept waits for the next connection Admit lets in; a TCP one comes as a
// lazyConn.
func (l Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		tc, ok := c.(*net.TCPConn)
		if !ok {
			return c, err
		}
		var release func()
		if l.Admit != nil {
			if release, ok = l.Admit(tc.RemoteAddr()); !ok {
				_ = tc.Close()
				continue
			}
		}
		lc := newLazyConn(tc)
		lc.released = release
		return lc, nil
	}
}

// lazyConn is a TCP connection with lazily moved deadlines. It implements
// net.Conn and nothing more, so that every read and write, io.Copy's
// included, passes through the retries below.
type lazyConn struct {
	tc     *net.TCPConn
	rd, wd lazyDeadline
	// eof is set once the peer has closed its side; reading counts the
	// reads in progress; closing is set by the first Close (closeConn).
	eof      atomic.Bool
	reading  atomic.Int32
	closing  atomic.Bool
	released func() // Listener.Admit's, called once the socket is closed
	// out is the body stream of a cached response gathered with its
	// headers into one write (gatherBody).
	out gatherBody
}

func newLazyConn(tc *net.TCPConn) *lazyConn {
	return &lazyConn{tc: tc, rd: lazyDeadline{arm: tc.SetReadDeadline}, wd: lazyDeadline{arm: tc.SetWriteDeadline}}
}

func (c *lazyConn) Read(b []byte) (int, error) {
	c.reading.Add(1)
	defer c.reading.Add(-1)
	for {
		n, err := c.tc.Read(b)
		if err == io.EOF {
			c.eof.Store(true)
		}
		if n > 0 || !c.rd.early(err) {
			return n, err
		}
	}
}

func (c *lazyConn) Write(b []byte) (int, error) {
	if c.out.holding {
		if c.out.hold(b) {
			return len(b), nil
		}
		if err := c.out.flushHeld(); err != nil {
			return 0, err
		}
	}
	return c.writeThrough(b)
}

func (c *lazyConn) writeThrough(b []byte) (int, error) {
	written := 0
	for {
		n, err := c.tc.Write(b[written:])
		written += n
		if err == nil || !c.wd.early(err) {
			return written, err
		}
	}
}

func (c *lazyConn) LocalAddr() net.Addr                { return c.tc.LocalAddr() }
func (c *lazyConn) RemoteAddr() net.Addr               { return c.tc.RemoteAddr() }
func (c *lazyConn) SetReadDeadline(t time.Time) error  { return c.rd.set(t) }
func (c *lazyConn) SetWriteDeadline(t time.Time) error { return c.wd.set(t) }

func (c *lazyConn) SetDeadline(t time.Time) error {
	if err := c.rd.set(t); err != nil {
		return err
	}
	return c.wd.set(t)
}

// tcpConnOf is the TCP connection under a connection the server handed a
// request on, for sendfile(2), and the write deadline of the lazyConn
// around it (nil if none), which a write on the TCP connection itself must
// honour.
func tcpConnOf(c net.Conn) (*net.TCPConn, *lazyDeadline) {
	switch c := c.(type) {
	case *lazyConn:
		return c.tc, &c.wd
	case *net.TCPConn:
		return c, nil
	}
	return nil, nil
}

// clockBase is where lazyDeadline counts from: deadlines are kept as
// durations since, on the monotonic clock as Go's own deadlines are.
var clockBase = time.Now()

// lazyDeadline is one direction's deadline of a lazyConn, in nanoseconds
// since clockBase, 0 for none.
type lazyDeadline struct {
	// want is the deadline last set.
	want atomic.Int64
	// armed is the poller's, never later than want (with 0 as the
	// latest).
	armed atomic.Int64
	// mu orders the moves of the poller's deadline; an event stream sets
	// its write deadline from a goroutine of its own while the server's
	// writes it.
	mu  sync.Mutex
	arm func(time.Time) error
}

func (d *lazyDeadline) set(t time.Time) error {
	var want int64
	if !t.IsZero() {
		want = max(int64(t.Sub(clockBase)), 1)
	}
	d.want.Store(want)
	// The poller's deadline comes first: an operation it times out goes
	// on to want (early).
	if a := d.armed.Load(); a != 0 && (want == 0 || a <= want) {
		return nil
	}
	return d.move()
}

// move sets the poller's deadline to want. It checks want again once the
// poller has it: a set that saw the deadline before this move and let it
// be has stored its want by then, and the move follows it.
func (d *lazyDeadline) move() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for {
		want := d.want.Load()
		t := time.Time{}
		if want != 0 {
			t = clockBase.Add(time.Duration(want))
		}
		if err := d.arm(t); err != nil {
			return err
		}
		d.armed.Store(want)
		if d.want.Load() == want {
			return nil
		}
	}
}

// early reports whether err is the poller's timeout before the deadline
// asked for, having moved the poller's deadline to that one: the
// operation is then to go on.
func (d *lazyDeadline) early(err error) bool {
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		return false
	}
	if want := d.want.Load(); want != 0 && int64(time.Since(clockBase)) >= want {
		return false
	}
	return d.move() == nil
}
