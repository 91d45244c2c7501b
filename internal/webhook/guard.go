package webhook

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// Allow is the operator's list of where webhooks may point
// (--webhook-allow): CIDRs and host patterns. An address is allowed when
// it is in one of the CIDRs, or when it is a public address and the URL's
// host matches one of the patterns (any host, when there are none).
// Loopback, private, link-local and other special addresses are therefore
// reached only through a CIDR the operator gave. The check is made on
// the address actually dialled, after name resolution, so a name that
// resolves to a forbidden address (DNS rebinding included) is refused.
type Allow struct {
	prefixes []netip.Prefix
	hosts    []string // "example.org" or "*.example.org"
}

// ParseAllow parses a comma-separated list of CIDRs, addresses and host
// patterns.
func ParseAllow(s string) (*Allow, error) {
	a := &Allow{}
	for _, p := range strings.Split(s, ",") {
		if p = strings.ToLower(strings.TrimSpace(p)); p == "" {
			continue
		}
		if prefix, err := netip.ParsePrefix(p); err == nil {
			a.prefixes = append(a.prefixes, prefix.Masked())
			continue
		}
		if addr, err := netip.ParseAddr(p); err == nil {
			addr = addr.Unmap()
			a.prefixes = append(a.prefixes, netip.PrefixFrom(addr, addr.BitLen()))
			continue
		}
		host := strings.TrimPrefix(p, "*.")
		if host == "" || strings.ContainsAny(host, "*/:[] ") {
			return nil, fmt.Errorf("%q is not a CIDR such as 10.0.0.0/8, an address, or a host pattern such as hooks.example.org or *.example.org", p)
		}
		a.hosts = append(a.hosts, p)
	}
	return a, nil
}

func (a *Allow) String() string {
	var parts []string
	for _, p := range a.prefixes {
		parts = append(parts, p.String())
	}
	return strings.Join(append(parts, a.hosts...), ",")
}

// hostAllowed reports whether host matches the patterns.
func (a *Allow) hostAllowed(host string) bool {
	if len(a.hosts) == 0 {
		return true
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	for _, h := range a.hosts {
		if suffix, ok := strings.CutPrefix(h, "*."); ok {
			if strings.HasSuffix(host, "."+suffix) {
				return true
			}
		} else if host == h {
			return true
		}
	}
	return false
}

// check decides on one dialled address of host.
func (a *Allow) check(host string, addr netip.Addr) error {
	addr = addr.Unmap()
	for _, p := range a.prefixes {
		if p.Contains(addr) {
			return nil
		}
	}
	if !public(addr) {
		return fmt.Errorf("webhook host %s: address %s is not public and not in --webhook-allow", host, addr)
	}
	if !a.hostAllowed(host) {
		return fmt.Errorf("webhook host %s: not in --webhook-allow", host)
	}
	return nil
}

// cgnat is the shared address space of carrier-grade NAT (RFC 6598).
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// public reports whether addr is a public unicast address.
func public(addr netip.Addr) bool {
	return addr.IsGlobalUnicast() && !addr.IsPrivate() && !cgnat.Contains(addr)
}

// dialTimeout bounds connecting to a webhook's host.
const dialTimeout = 5 * time.Second

// dial connects to address (host:port) only if the address it resolves
// to is allowed: the check runs in the dialer's Control, on the very
// address connected to.
func (a *Allow) dial(ctx context.Context, network, address string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return nil, fmt.Errorf("webhook address %s: %w", address, err)
	}
	d := net.Dialer{Timeout: dialTimeout, Control: func(_, addr string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(addr)
		if err != nil {
			return fmt.Errorf("webhook address %s: %w", addr, err)
		}
		return a.check(host, ap.Addr())
	}}
	return d.DialContext(ctx, network, address)
}
