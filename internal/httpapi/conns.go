package httpapi

import (
	"net"
	"net/netip"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// DefaultConnsPerIP is how many connections one address may hold open on
// a replica (Options.ConnsPerIP): far more than a browser (6) or a client
// library's pool uses, far fewer than the thousands of idle connections,
// each a goroutine and its buffers, that one address could hold before.
const DefaultConnsPerIP = 256

// connLimit counts the open connections of each peer address and refuses
// one beyond max (wire.Listener.Admit). A trusted proxy's connections are
// not limited: they carry many clients, each bounded by its address's
// limits (clientAddr). It counts TCP peers, the only address a connection
// has before its first request.
type connLimit struct {
	max     int
	exempt  func(netip.Addr) bool
	open    atomic.Int64
	refused prometheus.Counter

	mu sync.Mutex
	n  map[netip.Addr]int
}

func newConnLimit(reg prometheus.Registerer, max int, exempt func(netip.Addr) bool) *connLimit {
	l := &connLimit{max: max, exempt: exempt, n: map[netip.Addr]int{},
		refused: prometheus.NewCounter(prometheus.CounterOpts{Name: "fd_http_connections_refused_total",
			Help: "Connections closed as they were accepted because their address held as many open as it may (--conns-per-ip)."})}
	reg.MustRegister(l.refused, prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "fd_http_connections_open",
		Help: "Connections open on the API port, a trusted proxy's included."}, func() float64 { return float64(l.open.Load()) }))
	return l
}

// admit counts a connection from addr in, if its address may open one.
func (l *connLimit) admit(addr net.Addr) (func(), bool) {
	ta, ok := addr.(*net.TCPAddr)
	if !ok {
		return nil, true
	}
	a := ta.AddrPort().Addr().Unmap()
	if l.exempt(a) {
		l.open.Add(1)
		return func() { l.open.Add(-1) }, true
	}
	l.mu.Lock()
	if l.n[a] >= l.max {
		l.mu.Unlock()
		l.refused.Inc()
		return nil, false
	}
	l.n[a]++
	l.mu.Unlock()
	l.open.Add(1)
	return func() {
		l.open.Add(-1)
		l.mu.Lock()
		if l.n[a]--; l.n[a] == 0 {
			delete(l.n, a)
		}
		l.mu.Unlock()
	}, true
}
