package wire

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/internal/wire/wiretest"
)

// TestRawWritesAcrossAFullSocket: each way a response leaves by a raw
// system call (raw.go) — a write, the writev of held headers and a body,
// the sendfile of a body file after its headers — sends every byte in
// order when the peer reads only after the sockets have filled, so that
// the calls stop at EAGAIN, wait in Go's poller and go on; and a peer
// that has gone makes the write fail with the kernel's error, not spin.
func TestRawWritesAcrossAFullSocket(t *testing.T) {
	// More than both sockets' buffers hold.
	body := wiretest.Body(max(8<<20, wiretest.MaxTCPBuffer(t, "tcp_wmem")+wiretest.MaxTCPBuffer(t, "tcp_rmem")+1<<20))
	head := []byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
	tests := []struct {
		name string
		// send writes head and body on c, as a response's path does.
		send func(t *testing.T, c *lazyConn) error
	}{
		{"write", func(_ *testing.T, c *lazyConn) error {
			_, err := c.Write(append(append([]byte{}, head...), body...))
			return err
		}},
		{"writev", func(_ *testing.T, c *lazyConn) error {
			g := c.gather(body)
			bw := bufio.NewWriter(c)
			bw.Write(head)
			_, err := g.WriteTo(bw)
			return errors.Join(err, g.Close())
		}},
		{"sendfile", func(t *testing.T, c *lazyConn) error {
			e := NewEntry(200, body, maxAge10)
			if e.bodyFile(nil) < 0 {
				natstest.SkipMissing(t, "no memory file (memfd_create) on this system", "a Linux kernel with memfd_create")
			}
			bw := bufio.NewWriter(c)
			bw.Write(head)
			tc, wd := tcpConnOf(c)
			_, err := (&fileBody{e: e, conn: tc, wd: wd}).WriteTo(bw)
			return err
		}},
	}
	want := append(append([]byte{}, head...), body...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, client := lazyPair(t)
			received := make(chan []byte, 1)
			go func() {
				// The pause lets the sockets fill: the sender then
				// waits in the poller (this is not a wait for it).
				time.Sleep(200 * time.Millisecond)
				b, _ := io.ReadAll(io.LimitReader(client, int64(len(want))))
				received <- b
			}()
			if err := tt.send(t, c); err != nil {
				t.Fatal(err)
			}
			if got := <-received; !bytes.Equal(got, want) {
				t.Errorf("received %d bytes, not the %d sent in order", len(got), len(want))
			}
		})
		t.Run(tt.name+" to a peer gone", func(t *testing.T) {
			c, client := lazyPair(t)
			client.Close()
			// The first write may still be taken by the kernel; the
			// peer's reset fails one of the next.
			var err error
			for range 10 {
				if err = tt.send(t, c); err != nil {
					break
				}
			}
			if !errors.Is(err, syscall.EPIPE) && !errors.Is(err, syscall.ECONNRESET) {
				t.Errorf("writing to a closed peer: %v, want EPIPE or ECONNRESET", err)
			}
		})
	}
}
