package httpapi

import (
	"bufio"
	"net"
	"net/netip"
	"strings"
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

// TestForwardedHeadersAsSent: the links' base comes from the first value
// of X-Forwarded-Proto and X-Forwarded-Host from a trusted proxy whatever
// the case of their names and however many lines they come in, as the
// request's bytes carry them (Go's client, which cmd/api's tests use,
// canonicalizes names before sending).
func TestForwardedHeadersAsSent(t *testing.T) {
	s, _ := newTestServer(t, true, Options{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}})
	defer s.Close()
	for _, tt := range []struct {
		name, headers, want string
	}{
		{"none", "", "http://api.test/v1/"},
		{"canonical", "X-Forwarded-Proto: https\r\nX-Forwarded-Host: api.example.org\r\n", "https://api.example.org/v1/"},
		{"lower case", "x-forwarded-proto: https\r\nx-forwarded-host: api.example.org\r\n", "https://api.example.org/v1/"},
		{"lists", "X-FORWARDED-PROTO: https , http\r\nX-Forwarded-Host:  api.example.org, inner.local\r\n", "https://api.example.org/v1/"},
		{"first line of several", "X-Forwarded-Host: api.example.org\r\nX-Forwarded-Host: inner.local\r\n", "http://api.example.org/v1/"},
		{"bad values", "X-Forwarded-Proto: javascript\r\nX-Forwarded-Host: a b\r\n", "http://api.test/v1/"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var rc fasthttp.RequestCtx
			rc.SetRemoteAddr(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
			raw := "GET /v1/nothing HTTP/1.1\r\nHost: api.test\r\n" + tt.headers + "\r\n"
			if err := rc.Request.Read(bufio.NewReader(strings.NewReader(raw))); err != nil {
				t.Fatal(err)
			}
			s.App().Handler()(&rc)
			if body := string(rc.Response.Body()); rc.Response.StatusCode() != fasthttp.StatusNotFound || !strings.Contains(body, tt.want) {
				t.Errorf("%q: %d %s, want 404 with links under %s", tt.headers, rc.Response.StatusCode(), body, tt.want)
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
