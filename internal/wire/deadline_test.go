package wire

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/internal/wire/wiretest"
)

// lazyPair is a loopback TCP connection: the server's end as the listener
// hands it to fasthttp, and the client's.
func lazyPair(t *testing.T) (*lazyConn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c, err := Listener{Listener: ln}.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(); client.Close() })
	lc, ok := c.(*lazyConn)
	if !ok {
		t.Fatalf("accepted a %T, want a *lazyConn", c)
	}
	return lc, client
}

// TestLazyReadDeadline: a read gets exactly the deadline last set, whether
// the poller's was moved for it or not.
func TestLazyReadDeadline(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	tests := []struct {
		name string
		// deadlines are set in this order, from now; 0 is none.
		deadlines []time.Duration
		// data arrives after this long (0: never).
		sendAfter time.Duration
		// the read times out after timeout (0: it reads the data).
		timeout time.Duration
		// moves of the poller's deadline the sets make.
		moves int
	}{
		{"times out at the deadline", []time.Duration{ms(100)}, 0, ms(100), 1},
		{"a later deadline outlives the poller's", []time.Duration{ms(50), ms(2000)}, ms(200), 0, 1},
		{"a later deadline still ends", []time.Duration{ms(50), ms(200)}, 0, ms(200), 1},
		{"an earlier deadline moves the poller's", []time.Duration{ms(5000), ms(100)}, 0, ms(100), 2},
		{"no deadline after one", []time.Duration{ms(50), 0}, ms(200), 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, client := lazyPair(t)
			moves := 0
			arm := c.rd.arm
			c.rd.arm = func(d time.Time) error { moves++; return arm(d) }
			start := time.Now()
			for _, d := range tt.deadlines {
				var at time.Time
				if d != 0 {
					at = start.Add(d)
				}
				if err := c.SetReadDeadline(at); err != nil {
					t.Fatal(err)
				}
			}
			if moves != tt.moves {
				t.Errorf("the deadlines moved the poller's %d times, want %d", moves, tt.moves)
			}
			if tt.sendAfter > 0 {
				time.AfterFunc(tt.sendAfter, func() { _, _ = client.Write([]byte("x")) })
			}
			buf := make([]byte, 8)
			n, err := c.Read(buf)
			took := time.Since(start)
			switch {
			case tt.timeout == 0 && (err != nil || n != 1):
				t.Errorf("read %d bytes, %v after %s; want the byte sent after %s", n, err, took, tt.sendAfter)
			case tt.timeout > 0 && !errors.Is(err, os.ErrDeadlineExceeded):
				t.Errorf("read %d bytes, %v; want a timeout", n, err)
			case tt.timeout > 0 && (took < tt.timeout || took > tt.timeout+time.Second):
				t.Errorf("timed out after %s, want %s", took, tt.timeout)
			}
		})
	}
}

// TestLazyWriteDeadline: a write blocked on a client that does not read
// goes on past the poller's deadline while a later one is set, also from
// another goroutine as an event stream sets it, and ends at the deadline
// once it stops moving.
func TestLazyWriteDeadline(t *testing.T) {
	c, client := lazyPair(t)
	// The poller's deadline is the first; the client reads after it.
	for _, d := range []time.Duration{50 * time.Millisecond, 2 * time.Second} {
		if err := c.SetWriteDeadline(time.Now().Add(d)); err != nil {
			t.Fatal(err)
		}
	}
	// Far more than the sockets' buffers hold.
	data := bytes.Repeat([]byte("0123456789abcdef"), 1<<20)
	stop := make(chan struct{})
	var pushing sync.WaitGroup
	pushing.Add(1)
	go func() {
		defer pushing.Done()
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				_ = c.SetWriteDeadline(time.Now().Add(2 * time.Second))
			}
		}
	}()
	received := make(chan int, 1)
	go func() {
		// The client reads nothing for 300 ms, well past the poller's
		// deadline, then everything: the pause under test, not a wait.
		time.Sleep(300 * time.Millisecond)
		n, _ := io.CopyN(io.Discard, client, int64(len(data)))
		received <- int(n)
	}()
	n, err := c.Write(data)
	close(stop)
	pushing.Wait()
	if err != nil || n != len(data) || <-received != len(data) {
		t.Fatalf("wrote %d of %d bytes: %v", n, len(data), err)
	}

	// The deadline no longer moves: a write the client does not read ends
	// there.
	deadline := time.Now().Add(150 * time.Millisecond)
	if err := c.SetWriteDeadline(deadline); err != nil {
		t.Fatal(err)
	}
	n, err = c.Write(data)
	if !errors.Is(err, os.ErrDeadlineExceeded) || n == len(data) {
		t.Fatalf("wrote %d of %d bytes to a client that reads nothing: %v; want a timeout", n, len(data), err)
	}
	if late := time.Since(deadline); late < 0 || late > time.Second {
		t.Errorf("timed out %s after the deadline", late)
	}
}

// TestLazyDeadlineSendfile: a body sent with sendfile(2) on a lazyConn's
// TCP connection goes on past the poller's deadline to the one asked for.
func TestLazyDeadlineSendfile(t *testing.T) {
	c, client := lazyPair(t)
	// More than both sockets' buffers may hold, so that the send must
	// wait for the client past the poller's deadline.
	body := wiretest.Body(max(8<<20, wiretest.MaxTCPBuffer(t, "tcp_wmem")+wiretest.MaxTCPBuffer(t, "tcp_rmem")+1<<20))
	e := NewEntry(200, body, maxAge10)
	if e.bodyFile(nil) < 0 {
		natstest.SkipMissing(t, "no memory file (memfd_create) on this system", "a Linux kernel with memfd_create")
	}
	if err := c.SetWriteDeadline(time.Now().Add(50 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if err := c.SetWriteDeadline(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatal(err)
	}
	received := make(chan []byte, 1)
	go func() {
		// As above, the client's pause under test: not a wait.
		time.Sleep(300 * time.Millisecond)
		b, _ := io.ReadAll(io.LimitReader(client, int64(len(body))))
		received <- b
	}()
	tc, wd := tcpConnOf(c)
	n, err := (&fileBody{e: e, conn: tc, wd: wd}).WriteTo(bufio.NewWriter(c))
	if err != nil || n != int64(len(body)) {
		t.Fatalf("sent %d of %d bytes: %v", n, len(body), err)
	}
	if got := <-received; !bytes.Equal(got, body) {
		t.Errorf("received %d bytes, not the body's %d", len(got), len(body))
	}
}
