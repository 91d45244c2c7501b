package httpapi

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/internal/wire"
	"github.com/footdata/footballd/pkg/push"
)

// BenchmarkEventStreamSlotFree measures the time from a client closing its
// event stream's connection to the stream's slot being free, at a
// keepalive of 100ms ("ns/free"): what an EventSource that reconnects at
// once waits for.
func BenchmarkEventStreamSlotFree(b *testing.B) {
	hub, err := push.NewHub(push.HubConfig{})
	if err != nil {
		b.Fatal(err)
	}
	defer hub.Close()
	s, _ := newTestServer(b, true, Options{Hub: hub, KeepAlive: 100 * time.Millisecond, AnonymousPerDay: 1 << 30})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go func() { _ = s.Serve(ln) }()
	defer func() { _ = s.App().Shutdown(); s.Close() }()
	held := func() int {
		s.streams.mu.Lock()
		defer s.streams.mu.Unlock()
		return s.streams.n["ip|127.0.0.1"]
	}
	var free time.Duration
	for b.Loop() {
		conn, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := conn.Write([]byte("GET /v1/events HTTP/1.1\r\nHost: a\r\nAccept: text/event-stream\r\n\r\n")); err != nil {
			b.Fatal(err)
		}
		br := bufio.NewReader(conn)
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				b.Fatal(err)
			}
			if strings.Contains(line, "footballd events") {
				break
			}
		}
		conn.Close()
		start := time.Now()
		natstest.CheckFor(b, 10*time.Second, 10*time.Microsecond, func() error {
			if n := held(); n > 0 {
				return fmt.Errorf("%d event streams of 127.0.0.1 still held after the client closed its connection", n)
			}
			return nil
		})
		free += time.Since(start)
	}
	b.ReportMetric(float64(free.Nanoseconds())/float64(b.N), "ns/free")
}

// TestWatchPeer: the watch of a stream's connection ends when the client
// closes it or sends anything, or when the stream stops it; the request's
// read timeout, which fasthttp set before the stream began, does not end
// it.
func TestWatchPeer(t *testing.T) {
	tests := []struct {
		name string
		// client acts on the client's end; stop says the stream ends the
		// watch itself.
		client func(net.Conn)
		stop   bool
	}{
		{"client closes", func(c net.Conn) { c.Close() }, false},
		{"client sends", func(c net.Conn) { _, _ = c.Write([]byte("GET / HTTP/1.1\r\n")) }, false},
		{"stream stops", func(net.Conn) {}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			client, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer client.Close()
			accepted, err := wire.Listener{Listener: ln}.Accept()
			if err != nil {
				t.Fatal(err)
			}
			defer accepted.Close()
			// As fasthttp does for the request.
			if err := accepted.SetReadDeadline(time.Now().Add(20 * time.Millisecond)); err != nil {
				t.Fatal(err)
			}
			gone, stop := watchPeer(accepted)
			select {
			case <-gone:
				t.Fatal("the watch ended with the request's read timeout")
			case <-time.After(100 * time.Millisecond):
			}
			tt.client(client)
			if tt.stop {
				stop()
			}
			select {
			case <-gone:
			case <-time.After(5 * time.Second):
				t.Fatal("the watch did not end")
			}
			stop()
		})
	}
}
