// Package netguard decides which addresses the servers' outgoing
// requests may reach (webhook deliveries, feed fetches): public unicast
// addresses, and the others only through an operator's allow list, judged
// on the address actually dialled.
package netguard

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// Allow is an operator's list of where outgoing requests may go
// (--webhook-allow, --feed-allow): CIDRs and host patterns. An address is allowed when
// it is in one of the CIDRs, or when it is a public address and the URL's
// host matches one of the patterns (any host, when there are none).
// Loopback, private, link-local and every other special-purpose address
// (notPublic) are therefore reached only through a CIDR the operator
// gave; an IPv6 address that carries an IPv4 one (NAT64, 6to4, IPv4-mapped
// or -compatible) is judged by the IPv4 address. The check is made on
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

// Check decides on one dialled address of host; flag names the allow
// list in its errors (--webhook-allow).
func (a *Allow) Check(flag, host string, addr netip.Addr) error {
	addr = addr.Unmap().WithZone("")
	for _, p := range a.prefixes {
		if p.Contains(addr) {
			return nil
		}
	}
	if why := notPublicBecause(addr); why != "" {
		return fmt.Errorf("host %s: address %s is not public and not in %s (%s)", host, addr, flag, why)
	}
	if !a.hostAllowed(host) {
		return fmt.Errorf("host %s: not in %s", host, flag)
	}
	return nil
}

// block is a range of addresses set aside for a purpose, with the
// document that sets it aside.
type block struct {
	prefix    netip.Prefix
	name, ref string
	// ipv4At is, for the blocks whose addresses carry an IPv4 address that
	// the packets reach in the end (through a translator, a tunnel or the
	// host's own stack), the byte where it starts; 0 for the others.
	ipv4At int
}

func newBlock(cidr, name, ref string) block {
	return block{prefix: netip.MustParsePrefix(cidr), name: name, ref: ref}
}

// carrier is a block whose addresses carry an IPv4 address at byte at.
func carrier(cidr string, at int, name, ref string) block {
	b := newBlock(cidr, name, ref)
	b.ipv4At = at
	return b
}

// notPublic is every block of IANA's IPv4 and IPv6 Special-Purpose
// Address Registries (iana-ipv4-special-registry, iana-ipv6-special-
// registry, as of 2025), and the multicast and deprecated blocks that are
// not in them. A webhook or a feed is an ordinary unicast host on the
// internet: even the registries' blocks marked globally reachable (anycast
// relays, AS112) are no place for one, so none is public. An address of a block that
// carries an IPv4 address is as public as that address. Not among those,
// so judged by their block alone: Teredo (2001::/32), whose client
// address is obfuscated and reached through relays, and the local-use
// NAT64 prefix (64:ff9b:1::/48), where the IPv4 address's place depends
// on the operator's prefix length.
var notPublic = []block{
	// IPv4.
	newBlock("0.0.0.0/8", "this network", "RFC 791"),
	newBlock("0.0.0.0/32", "this host on this network", "RFC 1122"),
	newBlock("10.0.0.0/8", "private use", "RFC 1918"),
	newBlock("100.64.0.0/10", "shared address space (carrier-grade NAT)", "RFC 6598"),
	newBlock("127.0.0.0/8", "loopback", "RFC 1122"),
	newBlock("169.254.0.0/16", "link local (cloud metadata)", "RFC 3927"),
	newBlock("172.16.0.0/12", "private use", "RFC 1918"),
	newBlock("192.0.0.0/24", "IETF protocol assignments", "RFC 6890"),
	newBlock("192.0.0.0/29", "IPv4 service continuity prefix", "RFC 7335"),
	newBlock("192.0.0.8/32", "IPv4 dummy address", "RFC 7600"),
	newBlock("192.0.0.9/32", "port control protocol anycast", "RFC 7723"),
	newBlock("192.0.0.10/32", "TURN anycast", "RFC 8155"),
	newBlock("192.0.0.170/31", "NAT64/DNS64 discovery", "RFC 8880"),
	newBlock("192.0.2.0/24", "documentation (TEST-NET-1)", "RFC 5737"),
	newBlock("192.31.196.0/24", "AS112-v4", "RFC 7535"),
	newBlock("192.52.193.0/24", "automatic multicast tunneling", "RFC 7450"),
	newBlock("192.88.99.0/24", "deprecated 6to4 relay anycast", "RFC 7526"),
	newBlock("192.168.0.0/16", "private use", "RFC 1918"),
	newBlock("192.175.48.0/24", "direct delegation AS112 service", "RFC 7534"),
	newBlock("198.18.0.0/15", "benchmarking", "RFC 2544"),
	newBlock("198.51.100.0/24", "documentation (TEST-NET-2)", "RFC 5737"),
	newBlock("203.0.113.0/24", "documentation (TEST-NET-3)", "RFC 5737"),
	newBlock("224.0.0.0/4", "multicast", "RFC 5771"),
	newBlock("240.0.0.0/4", "reserved", "RFC 1112"),
	newBlock("255.255.255.255/32", "limited broadcast", "RFC 919"),
	// IPv6.
	newBlock("::/128", "unspecified", "RFC 4291"),
	newBlock("::1/128", "loopback", "RFC 4291"),
	carrier("::/96", 12, "IPv4-compatible (deprecated)", "RFC 4291"),
	carrier("::ffff:0:0/96", 12, "IPv4-mapped", "RFC 4291"),
	carrier("64:ff9b::/96", 12, "NAT64", "RFC 6052"),
	newBlock("64:ff9b:1::/48", "local-use IPv4/IPv6 translation", "RFC 8215"),
	newBlock("100::/64", "discard only", "RFC 6666"),
	newBlock("100:0:0:1::/64", "dummy IPv6 prefix", "RFC 9780"),
	newBlock("2001::/23", "IETF protocol assignments", "RFC 2928"),
	newBlock("2001::/32", "Teredo", "RFC 4380"),
	newBlock("2001:1::1/128", "port control protocol anycast", "RFC 7723"),
	newBlock("2001:1::2/128", "TURN anycast", "RFC 8155"),
	newBlock("2001:1::3/128", "DNS-SD service registration protocol anycast", "RFC 9665"),
	newBlock("2001:2::/48", "benchmarking", "RFC 5180"),
	newBlock("2001:3::/32", "automatic multicast tunneling", "RFC 7450"),
	newBlock("2001:4:112::/48", "AS112-v6", "RFC 7535"),
	newBlock("2001:10::/28", "deprecated ORCHID", "RFC 4843"),
	newBlock("2001:20::/28", "ORCHIDv2", "RFC 7343"),
	newBlock("2001:30::/28", "drone remote ID entity tags", "RFC 9374"),
	newBlock("2001:db8::/32", "documentation", "RFC 3849"),
	carrier("2002::/16", 2, "6to4", "RFC 3056"),
	newBlock("2620:4f:8000::/48", "direct delegation AS112 service", "RFC 7534"),
	newBlock("3fff::/20", "documentation", "RFC 9637"),
	newBlock("5f00::/16", "segment routing (SRv6) SIDs", "RFC 9602"),
	newBlock("fc00::/7", "unique local", "RFC 4193"),
	newBlock("fe80::/10", "link-local unicast", "RFC 4291"),
	newBlock("fec0::/10", "site-local (deprecated)", "RFC 3879"),
	newBlock("ff00::/8", "multicast", "RFC 4291"),
}

// globalUnicast6 is the only IPv6 space IANA allocates for global unicast
// (RFC 4291, IANA's IPv6 Address Space registry): anything outside it is
// reserved, and so not public, whatever later registries assign there.
var globalUnicast6 = netip.MustParsePrefix("2000::/3")

// notPublicBecause says why addr is not a public unicast address, "" when
// it is: the narrowest block of notPublic it is in, or, when that block
// carries an IPv4 address, that address's.
func notPublicBecause(addr netip.Addr) string {
	// A zone is the host's own business; prefixes never contain a zoned
	// address.
	addr = addr.WithZone("")
	var in *block
	for i := range notPublic {
		if notPublic[i].prefix.Contains(addr) && (in == nil || notPublic[i].prefix.Bits() > in.prefix.Bits()) {
			in = &notPublic[i]
		}
	}
	switch {
	case in != nil && in.ipv4At > 0:
		b := addr.As16()
		v4 := netip.AddrFrom4([4]byte(b[in.ipv4At : in.ipv4At+4]))
		if why := notPublicBecause(v4); why != "" {
			return in.name + " form of " + v4.String() + ": " + why
		}
		return ""
	case in != nil:
		return in.name + ", " + in.ref
	case addr.Is6() && !globalUnicast6.Contains(addr):
		return "outside IPv6 global unicast " + globalUnicast6.String() + ", RFC 4291"
	}
	return ""
}

// Dialer returns a DialContext that connects to address (host:port) only
// if the address it resolves to is allowed, within timeout: the check runs
// in the dialer's Control, on the very address connected to. flag names
// the allow list in its errors.
func (a *Allow) Dialer(flag string, timeout time.Duration) func(ctx context.Context, network, address string) (net.Conn, error) {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return nil, fmt.Errorf("address %s: %w", address, err)
		}
		d := net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second, Control: func(_, addr string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(addr)
			if err != nil {
				return fmt.Errorf("address %s: %w", addr, err)
			}
			return a.Check(flag, host, ap.Addr())
		}}
		return d.DialContext(ctx, network, address)
	}
}

// NotPublicHost says why the host of a URL is not a public address, ""
// when it is public or a name (which only its resolution when dialled
// tells): for editors, who cannot see the replicas' --webhook-allow nor
// the followers' --feed-allow, to learn at once that they would refuse it
// unless allowed there.
func NotPublicHost(host string) string {
	if strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") {
		return notPublicBecause(netip.IPv6Loopback())
	}
	addr, err := netip.ParseAddr(strings.Trim(host, "[]"))
	if err != nil {
		return ""
	}
	return notPublicBecause(addr.Unmap())
}
