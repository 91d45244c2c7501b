//go:build !race

// The race detector's sync.Pool drops items at random, so these counts hold
// only without it.

package httpapi

import (
	"bytes"
	"fmt"
	"net"
	"net/netip"
	"testing"

	"github.com/footdata/footballd/internal/wire"
	"github.com/footdata/footballd/internal/wire/wiretest"
	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
)

// TestCachedResponsesAllocateNothing: a cached response, with everything
// that comes with it (limits, per-caller headers, metrics, ETag, gzip,
// conditional requests), allocates nothing on the heap, so that a replica
// under load makes no garbage for the collector to stop for.
func TestCachedResponsesAllocateNothing(t *testing.T) {
	s, _ := newTestServer(t, true, Options{AnonymousPerDay: 1 << 30})
	defer s.Close()
	handler := s.App().Handler()
	tests := []struct {
		name    string
		path    string
		headers map[string]string
		status  int
	}{
		{"anonymous", "/v1/competitions", nil, fasthttp.StatusOK},
		{"index", "/", nil, fasthttp.StatusOK},
		{"gzip and minified", "/v1/competitions?season=2015", map[string]string{"Accept-Encoding": "gzip, br", "X-Response-Control": "Minified"}, fasthttp.StatusOK},
		{"not modified", "/alpha/soccerseasons", map[string]string{"If-None-Match": "*"}, fasthttp.StatusNotModified},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rc fasthttp.RequestCtx
			serve := func() {
				rc.Request.Reset()
				rc.Response.Reset()
				rc.Request.Header.SetMethod(fasthttp.MethodGet)
				rc.Request.SetRequestURI(tt.path)
				rc.Request.Header.SetHost("api.test:8080")
				for k, v := range tt.headers {
					rc.Request.Header.Set(k, v)
				}
				handler(&rc)
			}
			serve() // the miss that renders and caches
			s.cache.c.Wait()
			if allocs := testing.AllocsPerRun(100, serve); allocs != 0 || rc.Response.StatusCode() != tt.status {
				t.Errorf("%s: %d, %.1f allocations per request, want %d and none", tt.path, rc.Response.StatusCode(), allocs, tt.status)
			}
		})
	}
}

// TestAnonymousBehindProxyAllocatesNothing: an anonymous caller behind a
// trusted proxy is counted by the address the proxy names (its header read
// in place), still without allocating: the read rows of make bench send
// such requests from a thousand addresses (issue 38).
func TestAnonymousBehindProxyAllocatesNothing(t *testing.T) {
	s, _ := newTestServer(t, true, Options{AnonymousPerDay: 1 << 30, TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}})
	defer s.Close()
	handler := s.App().Handler()
	for _, xff := range []string{"203.0.113.7", "198.51.100.1, 203.0.113.7", "198.51.100.1,203.0.113.7, 127.0.0.2"} {
		t.Run(xff, func(t *testing.T) {
			var rc fasthttp.RequestCtx
			rc.SetRemoteAddr(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
			serve := getter(handler, &rc, "/v1/competitions", "X-Forwarded-For", xff)
			serve()
			s.cache.c.Wait()
			if allocs := testing.AllocsPerRun(100, serve); allocs != 0 || rc.Response.StatusCode() != fasthttp.StatusOK {
				t.Errorf("%d, %.1f allocations per request, want 200 and none", rc.Response.StatusCode(), allocs)
			}
		})
	}
}

// TestCachedV4ResponsesAllocateNothing: v4's cached answers too, which
// find their season among the league's without a list of them (before,
// every hit made one).
func TestCachedV4ResponsesAllocateNothing(t *testing.T) {
	w := newGeneratedWorld(t)
	handler := w.s.App().Handler()
	for _, path := range []string{
		fmt.Sprintf("/v4/competitions/%s/standings", w.league),
		fmt.Sprintf("/v4/competitions/%s/standings?season=%d", w.league, w.season),
		fmt.Sprintf("/v4/competitions/%s/matches?season=%d", w.league, w.season),
		fmt.Sprintf("/v4/competitions/%s", w.league),
	} {
		t.Run(path, func(t *testing.T) {
			var rc fasthttp.RequestCtx
			serve := getter(handler, &rc, path, "X-Auth-Token", w.token)
			serve()
			w.s.cache.c.Wait()
			if allocs := testing.AllocsPerRun(100, serve); allocs != 0 || rc.Response.StatusCode() != fasthttp.StatusOK {
				t.Errorf("%d, %.1f allocations per request, want 200 and none", rc.Response.StatusCode(), allocs)
			}
		})
	}
}

// TestCachedLentBodyAllocatesNothing: a hit on an entry whose body is lent
// by the pool takes and gives up its hold (a user value fasthttp closes
// after the write) without allocating.
func TestCachedLentBodyAllocatesNothing(t *testing.T) {
	s, _ := newTestServer(t, true, Options{})
	defer s.Close()
	body := wiretest.Body(5000)
	// The key is built in the request's buffer, as the API's routes do.
	s.App().Get("/lent", func(c *fiber.Ctx) error {
		return s.respond(c, s.newKey(c, requestOf(c), "lent", competitionsPath, full), func() (any, int) { return rawJSON(body), 10 })
	})
	handler := s.App().Handler()
	var rc fasthttp.RequestCtx
	serve := getter(handler, &rc, "/lent")
	serve()
	s.cache.c.Wait()
	if allocs := testing.AllocsPerRun(100, serve); allocs != 0 || rc.Response.StatusCode() != fasthttp.StatusOK {
		t.Errorf("%d, %.1f allocations per request, want 200 and none", rc.Response.StatusCode(), allocs)
	}
	if e := (*wire.Entry)(rc.UserValue(heldKey).(*wire.Held)); !e.Lent() || e.Holders() != 2 || !bytes.Equal(e.Body(), body) {
		t.Errorf("lent %v, %d holders; want a lent body of the rendered bytes held by the cache and the last response", e.Lent(), e.Holders())
	}
}

// getter returns a GET of path with the header (name and value pairs)
// served on rc, as fasthttp's server serves a request after another: the
// user values closed (a hold on a cache entry given up), request and
// response reset.
func getter(handler fasthttp.RequestHandler, rc *fasthttp.RequestCtx, path string, header ...string) func() {
	return func() {
		rc.ResetUserValues()
		rc.Request.Reset()
		rc.Response.Reset()
		rc.Request.Header.SetMethod(fasthttp.MethodGet)
		rc.Request.SetRequestURI(path)
		rc.Request.Header.SetHost("api.test")
		for i := 0; i+1 < len(header); i += 2 {
			rc.Request.Header.Set(header[i], header[i+1])
		}
		handler(rc)
	}
}
