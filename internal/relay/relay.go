// Package relay is the tests' TCP relay: an address a test holds, bound
// on a port the relay took itself, for a server that starts later. It
// depends on nothing of footballd, so that any package's tests, those
// natstest cannot serve among them, may use it.
package relay

import (
	"io"
	"net"
	"strings"
	"sync"
	"testing"
)

// Relay is an address a test holds for a server it starts later: a
// listener on a port the relay bound itself, which closes every connection
// until Forward names the server behind it, and then copies both ways. A
// test of a client started before its server (a replica waiting for NATS)
// needs an address nobody serves yet that no one else can take, which a
// port picked free and handed to the server later is not.
type Relay struct {
	ln    net.Listener
	mu    sync.Mutex
	to    string
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// Start starts a relay on a loopback port, closed when the test ends.
func Start(tb testing.TB) *Relay {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("relay: %v", err)
	}
	r := &Relay{ln: ln, conns: map[net.Conn]struct{}{}}
	r.wg.Add(1)
	go r.accept()
	tb.Cleanup(r.close)
	return r
}

// Addr is the relay's host:port.
func (r *Relay) Addr() string { return r.ln.Addr().String() }

// Forward relays the connections made from now on to addr: host:port, or
// the path of a unix socket (a server that cannot take a port of its own
// and report it, as nginx, listens there).
func (r *Relay) Forward(addr string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.to = addr
}

func (r *Relay) accept() {
	defer r.wg.Done()
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return // closed
		}
		r.mu.Lock()
		to := r.to
		r.mu.Unlock()
		if to == "" {
			c.Close()
			continue
		}
		r.wg.Add(1)
		go r.relay(c, to)
	}
}

// relay copies between c and a new connection to to until either ends.
func (r *Relay) relay(c net.Conn, to string) {
	defer r.wg.Done()
	network := "tcp"
	if strings.HasPrefix(to, "/") {
		network = "unix"
	}
	up, err := net.Dial(network, to)
	if err != nil {
		c.Close()
		return
	}
	if !r.track(c, up) {
		return
	}
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		done <- struct{}{}
	}
	go pipe(up, c)
	go pipe(c, up)
	<-done
	r.untrack(c, up)
	<-done
}

// track registers the pair for close, or closes it when the relay is
// closed already.
func (r *Relay) track(cs ...net.Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.conns == nil {
		for _, c := range cs {
			c.Close()
		}
		return false
	}
	for _, c := range cs {
		r.conns[c] = struct{}{}
	}
	return true
}

func (r *Relay) untrack(cs ...net.Conn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range cs {
		c.Close()
		delete(r.conns, c)
	}
}

// close stops accepting, ends the connections relayed and waits for the
// relay's goroutines.
func (r *Relay) close() {
	r.ln.Close()
	r.mu.Lock()
	for c := range r.conns {
		c.Close()
	}
	r.conns = nil
	r.mu.Unlock()
	r.wg.Wait()
}
