package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestForwardedHeadersOnlyFromTrustedProxies: links come from --public-url
// or the request's own Host; X-Forwarded-Host and -Proto are believed only
// from a trusted proxy, and only when well formed.
func TestForwardedHeadersOnlyFromTrustedProxies(t *testing.T) {
	evil := map[string]string{"X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "javascript"}
	open := startReplica(t, "")
	// The 404 hint names the link base.
	if resp := open.do("GET", "/v1/nothing", evil); strings.Contains(string(resp.body), "evil.example") || !strings.Contains(string(resp.body), open.base+"/v1/") {
		t.Errorf("forwarded headers from an untrusted client shape links: %s", resp.body)
	}

	proxied := startReplica(t, "", "--trusted-proxies", "127.0.0.0/8")
	for _, tt := range []struct {
		header map[string]string
		want   string
	}{
		{map[string]string{"X-Forwarded-Host": "api.example.org", "X-Forwarded-Proto": "https"}, "https://api.example.org/v1/"},
		{map[string]string{"X-Forwarded-Host": "api.example.org:8443", "X-Forwarded-Proto": "javascript"}, "http://api.example.org:8443/v1/"},
		{map[string]string{"X-Forwarded-Host": "x:y:z"}, proxied.base + "/v1/"},
		{map[string]string{"X-Forwarded-Host": `evil.example"><script>`}, proxied.base + "/v1/"},
		// A chain of proxies lists values: the first is the client's.
		{map[string]string{"X-Forwarded-Host": " api.example.org , inner.local", "X-Forwarded-Proto": "https, http"}, "https://api.example.org/v1/"},
	} {
		resp := proxied.do("GET", "/v1/nothing", tt.header)
		if !strings.Contains(string(resp.body), tt.want) {
			t.Errorf("%v from a trusted proxy: %s, want links under %s", tt.header, resp.body, tt.want)
		}
	}
}

// TestClientAddressIsTheRightmostUntrusted: behind a trusted proxy the
// client is the rightmost address of X-Forwarded-For that no trusted proxy
// added; the addresses to its left are the client's own writing and do not
// let it dodge the anonymous limit.
func TestClientAddressIsTheRightmostUntrusted(t *testing.T) {
	r := startReplica(t, "", "--trusted-proxies", "127.0.0.0/8,10.0.0.0/8")
	allowed := 0
	for i := range 150 {
		// The client forges a leftmost address; the proxy (10.0.0.2)
		// appended the client's real one, and we see the proxy.
		hdr := map[string]string{"X-Forwarded-For": fmt.Sprintf("203.0.113.%d, 198.51.100.9, 10.0.0.2", i)}
		if resp := r.do("GET", "/v1/competitions", hdr); resp.status == 200 {
			allowed++
		}
	}
	if allowed != 100 {
		t.Errorf("%d of 150 anonymous requests allowed, want the limit of 100", allowed)
	}
	// Another client behind the same proxy has its own count.
	if resp := r.do("GET", "/v1/competitions", map[string]string{"X-Forwarded-For": "198.51.100.10"}); resp.header.Get("X-RequestsAvailable") != "99" {
		t.Errorf("another client: %d, available %s", resp.status, resp.header.Get("X-RequestsAvailable"))
	}
	// Without trusted proxies the header is nobody's: every request counts
	// against the connection's address.
	plain := startReplica(t, "")
	for i := range 3 {
		plain.do("GET", "/v1/competitions", map[string]string{"X-Forwarded-For": fmt.Sprintf("203.0.113.%d", i)})
	}
	if resp := plain.do("GET", "/v1/competitions", nil); resp.header.Get("X-RequestsAvailable") != "96" {
		t.Errorf("untrusted X-Forwarded-For changed the count: available %s", resp.header.Get("X-RequestsAvailable"))
	}
}
