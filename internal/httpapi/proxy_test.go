package httpapi

import (
	"net"
	"net/netip"
	"testing"

	"github.com/valyala/fasthttp"
)

// TestClientAddrFromProxyHeader: behind trusted proxies the caller is the
// rightmost hop of the proxy header, over all its lines, that no trusted
// proxy added; a hop that is no address stops the search at the proxy's
// own address, and so does a header of trusted hops only.
func TestClientAddrFromProxyHeader(t *testing.T) {
	s, _ := newTestServer(t, true, Options{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("10.0.0.0/8")}})
	defer s.Close()
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{"none", nil, "127.0.0.1"},
		{"one", []string{"203.0.113.7"}, "203.0.113.7"},
		{"spaces", []string{" 203.0.113.7 "}, "203.0.113.7"},
		{"forged to the left", []string{"198.51.100.1, 203.0.113.7"}, "203.0.113.7"},
		{"trusted hops skipped", []string{"198.51.100.1,203.0.113.7, 10.0.0.2,127.0.0.9"}, "203.0.113.7"},
		{"lines in order", []string{"198.51.100.1", "203.0.113.7, 10.0.0.2"}, "203.0.113.7"},
		{"last line trusted", []string{"198.51.100.1, 203.0.113.7", "10.0.0.2"}, "203.0.113.7"},
		{"IPv6", []string{"2001:db8::1"}, "2001:db8::1"},
		{"mapped IPv4", []string{"::ffff:203.0.113.7"}, "203.0.113.7"},
		{"no address", []string{"198.51.100.1, unknown"}, "127.0.0.1"},
		{"empty hop", []string{"198.51.100.1,"}, "127.0.0.1"},
		{"empty", []string{""}, "127.0.0.1"},
		{"leading zero", []string{"203.0.113.07"}, "127.0.0.1"},
		{"only trusted", []string{"10.0.0.2, 127.0.0.3"}, "127.0.0.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rc fasthttp.RequestCtx
			rc.SetRemoteAddr(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
			for _, v := range tt.lines {
				rc.Request.Header.Add("X-Forwarded-For", v)
			}
			c := s.App().AcquireCtx(&rc)
			defer s.App().ReleaseCtx(c)
			if got := s.clientAddr(c); got != netip.MustParseAddr(tt.want) {
				t.Errorf("X-Forwarded-For %q: %s, want %s", tt.lines, got, tt.want)
			}
		})
	}
}

// FuzzParseAddr holds the in-place reading of a dotted quad to
// netip.ParseAddr's answers.
func FuzzParseAddr(f *testing.F) {
	for _, s := range []string{"203.0.113.7", "0.0.0.0", "255.255.255.255", "256.1.1.1", "01.2.3.4", "1.2.3", "1.2.3.4.5",
		"1..3.4", "1.2.3.4.", ".1.2.3", "2001:db8::1", "::ffff:1.2.3.4", "fe80::1%eth0", "", "1.2.3.-4", "1.2.3.4 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := netip.ParseAddr(s)
		if a, ok := parseIPv4([]byte(s)); ok && (err != nil || a != want) {
			t.Errorf("parseIPv4(%q) = %s, ParseAddr: %s, %v", s, a, want, err)
		}
		if a, ok := parseAddr([]byte(s)); ok != (err == nil) || a != want {
			t.Errorf("parseAddr(%q) = %s, %v; ParseAddr: %s, %v", s, a, ok, want, err)
		}
	})
}
