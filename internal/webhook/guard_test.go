package webhook

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
		err = a.check(tt.host, netip.MustParseAddr(tt.addr))
		if (err == nil) != tt.ok {
			t.Errorf("allow %q, %s at %s: %v, want allowed %v", tt.allow, tt.host, tt.addr, err, tt.ok)
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
		c, err := a.dial(ctx, "tcp", net.JoinHostPort("localhost", port))
		cancel()
		if err == nil {
			c.Close()
		}
		if (err == nil) != tt.ok || (err != nil && !strings.Contains(err.Error(), "not public")) {
			t.Errorf("allow %q: dial localhost: %v, want allowed %v", tt.allow, err, tt.ok)
		}
	}
}

// Redirects are answers, not followed: a receiver cannot send the request
// on to a host the operator did not allow.
func TestNoRedirects(t *testing.T) {
	var followed bool
	target := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { followed = true }))
	defer target.Close()
	srv := httptest.NewServer(http.RedirectHandler(target.URL, http.StatusTemporaryRedirect))
	defer srv.Close()
	allow, _ := ParseAllow("127.0.0.1")
	cfg := Config{Allow: allow}
	cfg.setDefaults()
	client := newClient(cfg)
	resp, err := client.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTemporaryRedirect || followed {
		t.Errorf("status %d, followed %v: want the 307 itself", resp.StatusCode, followed)
	}
}
