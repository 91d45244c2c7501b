package netguard

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestAllowCheck(t *testing.T) {
	tests := []struct {
		allow, host, addr string
		ok                bool
	}{
		{"", "hooks.example.org", "93.184.215.14", true},
		{"", "hooks.example.org", "2606:2800:21f:cb07:6820:80da:af6b:8b2c", true},
		{"", "localhost", "127.0.0.1", false},
		{"", "x", "::1", false},
		{"", "x", "::ffff:127.0.0.1", false},
		{"", "x", "10.1.2.3", false},
		{"", "x", "192.168.1.1", false},
		{"", "x", "169.254.169.254", false}, // cloud metadata
		{"", "x", "100.64.0.1", false},
		{"", "x", "fc00::1", false},
		{"", "x", "0.0.0.0", false},
		{"127.0.0.0/8", "localhost", "127.0.0.1", true},
		{"127.0.0.1", "x", "127.0.0.1", true},
		{"127.0.0.1", "x", "127.0.0.2", false},
		{"hooks.example.org", "hooks.example.org", "93.184.215.14", true},
		{"hooks.example.org", "HOOKS.example.org.", "93.184.215.14", true},
		{"hooks.example.org", "evil.example.org", "93.184.215.14", false},
		// A name that is allowed but resolves to a private address, as a
		// rebinding attack would make it, is refused.
		{"hooks.example.org", "hooks.example.org", "10.0.0.1", false},
		{"*.example.org", "a.b.example.org", "93.184.215.14", true},
		{"*.example.org", "example.org", "93.184.215.14", false},
		{"*.example.org,10.0.0.0/8", "intranet", "10.0.0.1", true},
	}
	for _, tt := range tests {
		a, err := ParseAllow(tt.allow)
		if err != nil {
			t.Fatal(err)
		}
		err = a.Check("--x-allow", tt.host, netip.MustParseAddr(tt.addr))
		if (err == nil) != tt.ok {
			t.Errorf("allow %q, %s at %s: %v, want allowed %v", tt.allow, tt.host, tt.addr, err, tt.ok)
		}
	}
}

// TestPublic: one address in every block of IANA's special-purpose
// registries (the block's last address, where a block's first is
// usually what a careless check tries), the blocks outside them, the
// addresses that carry an IPv4 address, and public neighbours of the
// blocks.
func TestPublic(t *testing.T) {
	tests := []struct {
		addr   string
		public bool
		why    string // in the reason, when not public
	}{
		// IPv4 special-purpose registry.
		{"0.255.255.255", false, "RFC 791"},
		{"0.0.0.0", false, "RFC 1122"},
		{"10.255.255.255", false, "RFC 1918"},
		{"100.127.255.255", false, "RFC 6598"},
		{"127.255.255.254", false, "loopback"},
		{"169.254.169.254", false, "RFC 3927"},
		{"172.31.255.255", false, "RFC 1918"},
		{"192.0.0.255", false, "RFC 6890"},
		{"192.0.0.7", false, "RFC 7335"},
		{"192.0.0.8", false, "RFC 7600"},
		{"192.0.0.9", false, "RFC 7723"},
		{"192.0.0.10", false, "RFC 8155"},
		{"192.0.0.170", false, "RFC 8880"},
		{"192.0.0.171", false, "RFC 8880"},
		{"192.0.2.255", false, "RFC 5737"},
		{"192.31.196.255", false, "RFC 7535"},
		{"192.52.193.255", false, "RFC 7450"},
		{"192.88.99.2", false, "RFC 7526"},
		{"192.168.255.255", false, "RFC 1918"},
		{"192.175.48.255", false, "RFC 7534"},
		{"198.18.0.1", false, "RFC 2544"},
		{"198.19.255.255", false, "RFC 2544"},
		{"198.51.100.255", false, "RFC 5737"},
		{"203.0.113.255", false, "RFC 5737"},
		{"240.0.0.1", false, "RFC 1112"},
		{"255.255.255.254", false, "RFC 1112"},
		{"255.255.255.255", false, "RFC 919"},
		// Multicast, not in the registry.
		{"224.0.0.1", false, "multicast"},
		{"239.255.255.255", false, "multicast"},
		// Public neighbours.
		{"1.0.0.0", true, ""},
		{"9.255.255.255", true, ""},
		{"11.0.0.0", true, ""},
		{"100.63.255.255", true, ""},
		{"100.128.0.0", true, ""},
		{"172.32.0.0", true, ""},
		{"192.0.1.0", true, ""},
		{"198.17.255.255", true, ""},
		{"198.20.0.0", true, ""},
		{"223.255.255.255", true, ""},
		// IPv6 special-purpose registry.
		{"::", false, "unspecified"},
		{"::1", false, "loopback"},
		{"64:ff9b:1:ffff::1", false, "RFC 8215"},
		{"100::ffff", false, "RFC 6666"},
		{"100:0:0:1::1", false, "RFC 9780"},
		{"2001:1ff:ffff::1", false, "RFC 2928"},
		{"2001:0:ffff::1", false, "RFC 4380"},
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", false, "RFC 4380"}, // RFC 4380's own example
		{"2001:1::1", false, "RFC 7723"},
		{"2001:1::2", false, "RFC 8155"},
		{"2001:1::3", false, "RFC 9665"},
		{"2001:2:0:ffff::1", false, "RFC 5180"},
		{"2001:3:ffff::1", false, "RFC 7450"},
		{"2001:4:112:ffff::1", false, "RFC 7535"},
		{"2001:1f:ffff::1", false, "RFC 4843"},
		{"2001:2f:ffff::1", false, "RFC 7343"},
		{"2001:3f:ffff::1", false, "RFC 9374"},
		{"2001:db8:ffff::1", false, "RFC 3849"},
		{"2620:4f:8000:ffff::1", false, "RFC 7534"},
		{"3fff:fff::1", false, "RFC 9637"},
		{"5f00:ffff::1", false, "RFC 9602"},
		{"fdff:ffff::1", false, "RFC 4193"},
		{"febf:ffff::1", false, "RFC 4291"},
		{"fe80::1%eth0", false, "RFC 4291"},
		// Deprecated or outside global unicast, not in the registry.
		{"fec0::1", false, "RFC 3879"},
		{"ff02::1", false, "multicast"},
		{"4000::1", false, "global unicast"},
		{"::ffff:0:7f00:1", false, "global unicast"}, // IPv4-translated, RFC 6145
		// Addresses that carry an IPv4 address are judged by it.
		{"64:ff9b::a9fe:a9fe", false, "169.254.169.254: link local"},
		{"64:ff9b::7f00:1", false, "127.0.0.1: loopback"},
		{"64:ff9b::a00:1", false, "10.0.0.1"},
		{"64:ff9b::808:808", true, ""},
		{"2002:7f00:1::1", false, "6to4 form of 127.0.0.1"},
		{"2002:a9fe:a9fe::", false, "169.254.169.254"},
		{"2002:808:808::1", true, ""},
		{"::7f00:1", false, "IPv4-compatible (deprecated) form of 127.0.0.1"},
		{"::a9fe:a9fe", false, "169.254.169.254"},
		{"::808:808", true, ""},
		{"::ffff:127.0.0.1", false, "127.0.0.1"},
		{"::ffff:8.8.8.8", true, ""},
		// Public IPv6 neighbours.
		{"2001:200::1", true, ""},
		{"2001:db9::1", true, ""},
		{"2003::1", true, ""},
		{"2606:2800:21f:cb07:6820:80da:af6b:8b2c", true, ""},
		{"2620:4f:8001::1", true, ""},
		{"3ffe:ffff::1", true, ""},
	}
	for _, tt := range tests {
		why := notPublicBecause(netip.MustParseAddr(tt.addr))
		if (why == "") != tt.public || !strings.Contains(why, tt.why) {
			t.Errorf("%s: not public because %q; want public %v, reason with %q", tt.addr, why, tt.public, tt.why)
		}
	}
}

// Every block's first and last address is not public, whatever the
// address it carries.
func TestNotPublicBlocksWhole(t *testing.T) {
	for _, b := range notPublic {
		first := b.prefix.Masked().Addr()
		last := first.As16()
		bits := b.prefix.Bits()
		if first.Is4() {
			bits += 96
		}
		for i := bits; i < 128; i++ {
			last[i/8] |= 1 << (7 - i%8)
		}
		lastAddr := netip.AddrFrom16(last)
		if first.Is4() {
			lastAddr = lastAddr.Unmap()
		}
		for _, a := range []netip.Addr{first, lastAddr} {
			if notPublicBecause(a) == "" && b.ipv4At == 0 {
				t.Errorf("%s of %s (%s, %s) is public", a, b.prefix, b.name, b.ref)
			}
		}
	}
}

func TestParseAllowRefuses(t *testing.T) {
	for _, s := range []string{"10.0.0.0/33", "*", "*.", "a b", "http://x"} {
		if _, err := ParseAllow(s); err == nil {
			t.Errorf("ParseAllow(%q) accepted", s)
		}
	}
}

// The check is made on the address dialled: "localhost" is resolved, and
// its loopback address refused unless a CIDR allows it, even when the name
// itself is allowed.
func TestDialChecksResolvedAddress(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	tests := []struct {
		allow string
		ok    bool
	}{
		{"localhost", false},
		{"", false},
		{"127.0.0.0/8", true},
	}
	for _, tt := range tests {
		a, _ := ParseAllow(tt.allow)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		c, err := a.Dialer("--x-allow", 5*time.Second)(ctx, "tcp", net.JoinHostPort("localhost", port))
		cancel()
		if err == nil {
			c.Close()
		}
		if (err == nil) != tt.ok || (err != nil && !strings.Contains(err.Error(), "not public")) {
			t.Errorf("allow %q: dial localhost: %v, want allowed %v", tt.allow, err, tt.ok)
		}
	}
}
