package httpapi

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/readmodel"
	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"
)

// listen serves s on a real loopback listener for the test.
func listen(t *testing.T, s *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.Serve(ln) }()
	t.Cleanup(func() { _ = s.App().Shutdown(); s.Close() })
	return ln.Addr().String()
}

func newTestServer(t testing.TB, ready bool, opts Options) (*Server, *readmodel.Model) {
	t.Helper()
	m, err := readmodel.New(readmodel.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if ready {
		m.MarkReady()
	}
	opts.Model = m
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s, m
}

// raw sends a request as written, and reads the response's status, headers
// and body.
func raw(t *testing.T, addr, request string) (int, http.Header, string) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, request); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("%.60q: %v", request, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(body)
}

// jsonError reports whether body is the API's error shape.
func jsonError(body string) bool {
	var e struct {
		Error string `json:"error"`
	}
	return json.Unmarshal([]byte(body), &e) == nil && e.Error != ""
}

// TestEveryErrorIsJSON: whatever the server refuses, it answers in the
// JSON error shape, with X-API-Version where the request reached the API.
func TestEveryErrorIsJSON(t *testing.T) {
	s, _ := newTestServer(t, true, Options{})
	addr := listen(t, s)
	tests := []struct {
		name, request string
		status        int
		version       string
	}{
		{"unknown method", "GETX /v1/competitions HTTP/1.1\r\nHost: a\r\n\r\n", 405, "v1"},
		{"lower-case method", "get /v1/competitions HTTP/1.1\r\nHost: a\r\n\r\n", 405, "v1"},
		{"WebDAV method", "PROPFIND /alpha/fixtures HTTP/1.1\r\nHost: a\r\n\r\n", 405, "alpha"},
		{"known method not allowed", "POST /v1/competitions HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n", 405, "v1"},
		{"long URL", "GET /v1/competitions?x=" + strings.Repeat("a", 5000) + " HTTP/1.1\r\nHost: a\r\n\r\n", 414, "v1"},
		{"bad Host", "GET /v1/competitions HTTP/1.1\r\nHost: x:y:z\r\n\r\n", 400, "v1"},
		{"unknown path", "GET /nothing HTTP/1.1\r\nHost: a\r\n\r\n", 404, ""},
	}
	for _, tt := range tests {
		status, header, body := raw(t, addr, tt.request)
		if status != tt.status || !jsonError(body) || header.Get("X-API-Version") != tt.version ||
			!strings.HasPrefix(header.Get("Content-Type"), "application/json") {
			t.Errorf("%s: %d %q %q, X-API-Version %q; want %d JSON with version %q", tt.name, status, header.Get("Content-Type"), body,
				header.Get("X-API-Version"), tt.status, tt.version)
		}
		if status == 405 && header.Get("Allow") != "GET, HEAD, OPTIONS" {
			t.Errorf("%s: Allow %q", tt.name, header.Get("Allow"))
		}
	}
}

// TestNotReadyIs503: until the replica has replayed the stream, /v1 and
// /alpha answer 503 with Retry-After, not an unknown token or a 404.
func TestNotReadyIs503(t *testing.T) {
	s, m := newTestServer(t, false, Options{})
	addr := listen(t, s)
	for _, path := range []string{"/v1/competitions", "/v1/teams/1", "/alpha/fixtures"} {
		status, header, body := raw(t, addr, "GET "+path+" HTTP/1.1\r\nHost: a\r\nX-Auth-Token: unknown\r\n\r\n")
		if status != 503 || header.Get("Retry-After") == "" || !jsonError(body) {
			t.Errorf("%s before ready: %d Retry-After %q %s", path, status, header.Get("Retry-After"), body)
		}
	}
	if status, _, _ := raw(t, addr, "GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n"); status != 200 {
		t.Errorf("/healthz before ready: %d", status)
	}
	m.MarkReady()
	if status, _, body := raw(t, addr, "GET /v1/competitions HTTP/1.1\r\nHost: a\r\n\r\n"); status != 200 {
		t.Errorf("after ready: %d %s", status, body)
	}
}

// Test429HasRetryAfter: a refused request says when to come back, in the
// header clients and proxies read.
func Test429HasRetryAfter(t *testing.T) {
	s, _ := newTestServer(t, true, Options{AnonymousPerDay: 2})
	addr := listen(t, s)
	var status int
	var header http.Header
	for range 3 {
		status, header, _ = raw(t, addr, "GET /v1/competitions HTTP/1.1\r\nHost: a\r\n\r\n")
	}
	if status != 429 || header.Get("Retry-After") == "" || header.Get("Retry-After") != header.Get("X-RequestCounter-Reset") {
		t.Errorf("third request: %d, Retry-After %q, reset %q", status, header.Get("Retry-After"), header.Get("X-RequestCounter-Reset"))
	}

}

// servedWithClient serves a replica of a real stream holding one registered
// client, and returns the address and the client's token.
func servedWithClient(t *testing.T) (string, string) {
	t.Helper()
	store := natstest.MustOpen(t, natstest.MustStart(t))
	// The replica stops following the stream before the store closes, so
	// that nothing of this test runs on into the next.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	following := make(chan struct{})
	t.Cleanup(func() { cancel(); <-following })
	ed := &editor.Editor{Store: store, Meta: events.Meta{Editor: "test", Source: "test"}}
	token, _, err := ed.AddClient(ctx, model.Client{Name: "acme", Tier: model.TierDonating, PerMinute: 1000})
	if err != nil {
		close(following)
		t.Fatal(err)
	}
	m, err := readmodel.New(readmodel.Config{})
	if err != nil {
		close(following)
		t.Fatal(err)
	}
	go func() {
		defer close(following)
		_ = m.Run(ctx, store)
	}()
	if err := m.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Model: m})
	if err != nil {
		t.Fatal(err)
	}
	return listen(t, s), token
}

// TestRequestHeadersAsSent: the request headers the API reads (the token,
// X-Response-Control, If-None-Match, Accept-Encoding) are found whatever
// the case of their names, and the first of a repeated one counts.
func TestRequestHeadersAsSent(t *testing.T) {
	addr, token := servedWithClient(t)
	_, header, _ := raw(t, addr, "GET /v1/openapi.json HTTP/1.1\r\nHost: a\r\n\r\n")
	etag := header.Get("ETag")
	if etag == "" {
		t.Fatal("/v1/openapi.json has no ETag")
	}
	tests := []struct {
		name, path, headers string
		status              int
		want                map[string]string
	}{
		{"token, lower case", "/v1/competitions", "x-auth-token: " + token + "\r\n", 200,
			map[string]string{"X-Authenticated-Client": "acme"}},
		{"token, upper case", "/v1/competitions", "X-AUTH-TOKEN: " + token + "\r\n", 200,
			map[string]string{"X-Authenticated-Client": "acme"}},
		{"first token counts", "/v1/competitions", "X-Auth-Token: " + token + "\r\nX-Auth-Token: nosuchtoken\r\n", 200,
			map[string]string{"X-Authenticated-Client": "acme"}},
		{"first token counts, unknown", "/v1/competitions", "X-Auth-Token: nosuchtoken\r\nX-Auth-Token: " + token + "\r\n", 400,
			map[string]string{"X-Authenticated-Client": "anonymous"}},
		{"no token", "/v1/competitions", "", 200, map[string]string{"X-Authenticated-Client": "anonymous"}},
		{"representation, lower case", "/v1/competitions", "x-response-control: Minified\r\n", 200,
			map[string]string{"X-Response-Control": "minified"}},
		{"first representation counts", "/v1/fixtures", "X-Response-Control: compressed\r\nX-Response-Control: full\r\n", 200,
			map[string]string{"X-Response-Control": "compressed"}},
		{"bad representation", "/v1/competitions", "x-response-control: tiny\r\n", 400, map[string]string{}},
		{"gzip, lower case", "/v1/openapi.json", "accept-encoding: br, gzip\r\n", 200,
			map[string]string{"Content-Encoding": "gzip", "ETag": etag}},
		{"gzip refused", "/v1/openapi.json", "Accept-Encoding: gzip;q=0\r\n", 200,
			map[string]string{"Content-Encoding": "", "ETag": etag}},
		{"conditional, lower case", "/v1/openapi.json", "if-none-match: " + etag + "\r\n", 304, map[string]string{"ETag": etag}},
		{"conditional, other tag", "/v1/openapi.json", "If-None-Match: \"other\"\r\n", 200, map[string]string{"ETag": etag}},
	}
	for _, tt := range tests {
		status, header, body := raw(t, addr, "GET "+tt.path+" HTTP/1.1\r\nHost: a\r\n"+tt.headers+"\r\n")
		if status != tt.status {
			t.Errorf("%s: %d %.80s, want %d", tt.name, status, body, tt.status)
		}
		for k, v := range tt.want {
			if got := header.Get(k); got != v {
				t.Errorf("%s: %s %q, want %q", tt.name, k, got, v)
			}
		}
	}
}

// TestMetricsByRoute: every request is counted under the route that took
// it (unmatched when none did) and its status, and none is in flight once
// answered.
func TestMetricsByRoute(t *testing.T) {
	reg := prometheus.NewRegistry()
	s, _ := newTestServer(t, true, Options{Registry: reg})
	addr := listen(t, s)
	for _, path := range []string{"/v1/competitions", "/v1/competitions", "/v1/competitions/7", "/nothing", "/"} {
		raw(t, addr, "GET "+path+" HTTP/1.1\r\nHost: a\r\n\r\n")
	}
	want := map[string]float64{
		`fd_http_requests_total{route="/v1/competitions",status="200"}`:     2,
		`fd_http_requests_total{route="/v1/competitions/:id",status="404"}`: 1,
		`fd_http_requests_total{route="unmatched",status="404"}`:            1,
		`fd_http_requests_total{route="/",status="200"}`:                    1,
		`fd_http_in_flight_requests`:                                        0,
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			name := f.GetName()
			if len(m.GetLabel()) > 0 {
				var labels []string
				for _, l := range m.GetLabel() {
					labels = append(labels, l.GetName()+`="`+l.GetValue()+`"`)
				}
				name += "{" + strings.Join(labels, ",") + "}"
			}
			switch {
			case m.Counter != nil:
				got[name] = m.Counter.GetValue()
			case m.Gauge != nil:
				got[name] = m.Gauge.GetValue()
			}
		}
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s = %v (present %v), want %v", k, g, ok, v)
		}
	}
}

// TestUnmappedErrorCodeIs500: a domain error whose code has no status
// (a code added without one) is a 500 in the error shape, logged, never
// the status 0 that fasthttp sends as 200.
func TestUnmappedErrorCodeIs500(t *testing.T) {
	s, _ := newTestServer(t, true, Options{})
	s.App().Get("/v1/unmapped", func(*fiber.Ctx) error { return &model.Error{Code: "teapot", Message: "short and stout"} })
	resp, err := s.App().Test(httptest.NewRequest("GET", "/v1/unmapped", nil))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 500 || !jsonError(string(body)) || strings.Contains(string(body), "stout") || resp.Header.Get("X-API-Version") != "v1" {
		t.Errorf("unmapped code: %d %s (X-API-Version %q), want 500 with the internal error's message", resp.StatusCode, body, resp.Header.Get("X-API-Version"))
	}
}
