package httpapi

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/prometheus/client_golang/prometheus"
)

// gauge reads a gauge without labels from reg; -1 when absent.
func gauge(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name && len(f.GetMetric()) == 1 {
			m := f.GetMetric()[0]
			if m.GetGauge() != nil {
				return m.GetGauge().GetValue()
			}
			return m.GetCounter().GetValue()
		}
	}
	return -1
}

// served opens n connections from the address from and has each answer a
// request, which they all must.
func served(t *testing.T, addr, from string, n int) []*keepAlive {
	t.Helper()
	conns := make([]*keepAlive, n)
	for i := range conns {
		conns[i] = dialFrom(t, from, addr)
		if status, _, err := conns[i].get("/v1/competitions", ""); err != nil || status != 200 {
			t.Fatalf("connection %d from %s: %d %v, want 200", i+1, from, status, err)
		}
	}
	return conns
}

// TestConnectionsPerAddressAreCapped: an address holds at most ConnsPerIP
// connections; the next is closed as it is accepted and counted, while
// another address is served, and a connection closed makes room again.
func TestConnectionsPerAddressAreCapped(t *testing.T) {
	const most = 3
	reg := prometheus.NewRegistry()
	s, _ := newTestServer(t, true, Options{ConnsPerIP: most, Registry: reg, AnonymousPerDay: 1_000_000})
	addr := listen(t, s)
	conns := served(t, addr, "127.0.0.1", most)

	extra := dialFrom(t, "127.0.0.1", addr)
	if status, _, err := extra.get("/v1/competitions", ""); err == nil {
		t.Errorf("connection %d from one address: %d, want it closed unanswered", most+1, status)
	}
	if n := gauge(t, reg, "fd_http_connections_refused_total"); n != 1 {
		t.Errorf("fd_http_connections_refused_total = %v, want 1", n)
	}
	if n := gauge(t, reg, "fd_http_connections_open"); n != most {
		t.Errorf("fd_http_connections_open = %v, want %d", n, most)
	}
	served(t, addr, "127.0.0.2", most)

	conns[0].conn.Close()
	natstest.CheckFor(t, 10*time.Second, 10*time.Millisecond, func() error {
		k := dialFrom(t, "127.0.0.1", addr)
		defer k.conn.Close()
		if status, _, err := k.get("/v1/competitions", ""); err != nil || status != 200 {
			return fmt.Errorf("a new connection once one of %d closed: %d %v", most, status, err)
		}
		return nil
	})
}

// TestTrustedProxyIsNotCapped: a trusted proxy's connections carry many
// clients and are not capped; the clients behind it are bounded by their
// forwarded addresses, their token lookups among the bounds.
func TestTrustedProxyIsNotCapped(t *testing.T) {
	const most, budget = 2, 2
	r := newFloodReplica(t, Options{ConnsPerIP: most, TokenLookupsPerMinute: budget, AnonymousPerDay: 1_000_000,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	served(t, r.addr, "127.0.0.1", 3*most)
	if n := gauge(t, r.reg, "fd_http_connections_refused_total"); n != 0 {
		t.Errorf("fd_http_connections_refused_total = %v after a trusted proxy's %d connections, want 0", n, 3*most)
	}

	proxy := dialFrom(t, "127.0.0.1", r.addr)
	forwarded := func(client string) int {
		t.Helper()
		_ = proxy.conn.SetDeadline(time.Now().Add(10 * time.Second))
		status, _, err := proxy.getHeaders("/v1/competitions", "X-Auth-Token: "+randomTokens(t, 1)[0]+"\r\nX-Forwarded-For: "+client+"\r\n")
		if err != nil {
			t.Fatal(err)
		}
		return status
	}
	start := time.Now()
	var statuses []int
	for range budget + 1 {
		statuses = append(statuses, forwarded("203.0.113.7"))
	}
	if minuteWindows(start, time.Now()) == 1 && statuses[budget] != 429 {
		t.Errorf("fresh tokens from one client behind the proxy: %v, want 429 after %d", statuses, budget)
	}
	if status := forwarded("203.0.113.8"); status != 400 {
		t.Errorf("a fresh token from another client behind the proxy: %d, want 400 after its lookup", status)
	}
}
