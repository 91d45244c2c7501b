package webhook

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/netguard"
)

// The webhook client dials none of the addresses: each is refused
// before any connection is tried, as not public.
func TestClientRefusesSpecialAddresses(t *testing.T) {
	cfg := Config{Timeout: 2 * time.Second}
	cfg.setDefaults()
	client := newClient(cfg)
	for _, host := range []string{"[64:ff9b::a9fe:a9fe]", "[64:ff9b::7f00:1]", "[2002:7f00:1::1]", "[::7f00:1]", "[fec0::1]", "198.18.0.1", "240.0.0.1"} {
		_, err := client.Get("http://" + host + "/")
		if err == nil || !strings.Contains(err.Error(), "not public") {
			t.Errorf("GET http://%s/: %v, want refused as not public", host, err)
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
	allow, _ := netguard.ParseAllow("127.0.0.1")
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
