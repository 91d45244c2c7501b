//go:build !race

// The race detector's sync.Pool drops items at random, so these counts hold
// only without it.

package httpapi

import (
	"testing"

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
