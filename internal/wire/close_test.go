package wire

import (
	"errors"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
)

// accepted is a connection the Listener handed out, its peer, and how
// many times Admit's release has been called.
type accepted struct {
	conn     net.Conn
	peer     net.Conn
	released *atomic.Int32
}

// acceptOne dials a Listener whose Admit refuses the first refused
// connections, and returns the first it admits, with the peers of those it
// refused.
func acceptOne(t *testing.T, refused int) (accepted, []net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var released, asked atomic.Int32
	l := Listener{Listener: ln, Admit: func(net.Addr) (func(), bool) {
		return func() { released.Add(1) }, asked.Add(1) > int32(refused)
	}}
	var peers []net.Conn
	for range refused + 1 {
		peer, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { peer.Close() })
		peers = append(peers, peer)
	}
	c, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return accepted{conn: c, peer: peers[refused], released: &released}, peers[:refused]
}

// TestCloseLingers: a connection closed while its peer still sends
// delivers what was written, then its end (not a reset), drains the
// peer's bytes, and releases its address once the socket is closed: at
// once when the peer closes, within lingerTime when it never does.
func TestCloseLingers(t *testing.T) {
	for _, peerCloses := range []bool{true, false} {
		a, _ := acceptOne(t, 0)
		// Unread bytes of the peer's in the socket: a close now would be a
		// reset.
		if _, err := io.WriteString(a.peer, strings.Repeat("GET / HTTP/1.1\r\n\r\n", 1000)); err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(a.conn, "answer"); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if err := a.conn.Close(); err != nil || time.Since(start) > 100*time.Millisecond {
			t.Fatalf("Close: %v after %s, want nil at once", err, time.Since(start))
		}
		_ = a.peer.SetReadDeadline(time.Now().Add(10 * time.Second))
		got, err := io.ReadAll(a.peer)
		if err != nil || string(got) != "answer" {
			t.Fatalf("peer read %q, %v; want the answer, then the end", got, err)
		}
		if peerCloses {
			a.peer.Close()
		}
		natstest.CheckFor(t, lingerTime+5*time.Second, 10*time.Millisecond, func() error {
			if a.released.Load() == 0 {
				return errors.New("not released yet")
			}
			return nil
		})
		took := time.Since(start)
		if n := a.released.Load(); n != 1 {
			t.Fatalf("peer closes %v: released %d times after %s, want once", peerCloses, n, took)
		}
		if peerCloses && took >= lingerTime {
			t.Errorf("peer closed: released after %s, want before the linger's %s", took, lingerTime)
		}
		if err := a.conn.Close(); err != nil || a.released.Load() != 1 {
			t.Errorf("second Close: %v, released %d times; want nil, once", err, a.released.Load())
		}
	}
}

// TestAdmitRefuses: a connection Admit refuses is closed before anyone
// reads from it, and never released; Accept hands out the next one.
func TestAdmitRefuses(t *testing.T) {
	a, refused := acceptOne(t, 1)
	_ = refused[0].SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := refused[0].Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Errorf("refused connection: read %v, want the end", err)
	}
	if n := a.released.Load(); n != 0 {
		t.Errorf("a release called %d times, want never: the admitted connection is open", n)
	}
}
