package httpapi

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// conversation is what a raw client got for the bytes it wrote on one
// connection: every response, in order, and how the connection ended.
type conversation struct {
	statuses []int
	bodies   []string
	closes   []bool // the response said Connection: close
	raw      string // the bytes read
	end      error  // io.EOF: the server closed it cleanly
}

// converse writes request on a new connection (from a goroutine, so that a
// long pipeline never waits on the responses it causes) and reads
// responses until the server closes the connection or idle passes without
// one (end is then a timeout).
func converse(t *testing.T, addr, request string, idle time.Duration) conversation {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	go func() { _, _ = io.WriteString(conn, request) }()
	var got strings.Builder
	br := bufio.NewReader(io.TeeReader(conn, &got))
	var x conversation
	for {
		_ = conn.SetReadDeadline(time.Now().Add(idle))
		if _, err := br.Peek(1); err != nil {
			x.end = err
			break
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			x.end = err
			break
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			x.end = err
			break
		}
		x.statuses, x.bodies, x.closes = append(x.statuses, resp.StatusCode), append(x.bodies, string(body)), append(x.closes, resp.Close)
	}
	x.raw = got.String()
	return x
}

// TestAmbiguousFramingIsRefused: a request whose end is in doubt gets 400
// and the connection closes after it, so that nothing hidden in it is
// served; one without Host, or with two, gets 400.
func TestAmbiguousFramingIsRefused(t *testing.T) {
	s, _ := newTestServer(t, true, Options{})
	addr := listen(t, s)
	hidden := "GET /v1/competitions/404 HTTP/1.1\r\nHost: a\r\n\r\n"
	tests := []struct {
		name, request string
		status        int
		closes        bool
	}{
		{"Content-Length and Transfer-Encoding", "GET /v1/competitions HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + hidden, 400, true},
		{"Transfer-Encoding and Content-Length", "GET /v1/competitions HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: " +
			fmt.Sprint(5+len(hidden)) + "\r\n\r\n0\r\n\r\n" + hidden, 400, true},
		{"two Content-Lengths", "GET /v1/competitions HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\nContent-Length: " + fmt.Sprint(len(hidden)) + "\r\n\r\n" + hidden, 400, true},
		{"a coding other than chunked", "GET /v1/competitions HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n" + hidden, 400, true},
		{"two codings", "GET /v1/competitions HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + hidden, 400, true},
		{"no Host", "GET /v1/competitions HTTP/1.1\r\n\r\n", 400, false},
		{"Host missing among others", "GET /v1/competitions HTTP/1.1\r\nX-A: b\r\n\r\n", 400, false},
		{"two Hosts", "GET /v1/competitions HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, false},
		{"empty Host", "GET /v1/competitions HTTP/1.1\r\nHost: \r\n\r\n", 400, false},
		{"same Content-Length twice", "GET /v1/competitions HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n" + hidden, 200, false},
	}
	// The connection stays open after a 400 that leaves no doubt where
	// the request ended: this request then closes it.
	const closer = "GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"
	for _, tt := range tests {
		request := tt.request
		if !tt.closes {
			request += closer
		}
		x := converse(t, addr, request, 5*time.Second)
		if len(x.statuses) == 0 || x.statuses[0] != tt.status || !jsonError(x.bodies[0]) && tt.status != 200 {
			t.Errorf("%s: %v %q, want %d in the error shape first", tt.name, x.statuses, x.bodies, tt.status)
			continue
		}
		if tt.closes && (len(x.statuses) != 1 || !x.closes[0] || x.end != io.EOF) {
			t.Errorf("%s: responses %v (Connection: close %v), then %v; want the 400 alone, then the close", tt.name, x.statuses, x.closes, x.end)
		}
		if !tt.closes && (len(x.statuses) < 2 || x.statuses[len(x.statuses)-1] != 200 || x.end != io.EOF) {
			t.Errorf("%s: responses %v, then %v; want the next request answered on the same connection", tt.name, x.statuses, x.end)
		}
	}
}

// TestHTTP10WithoutHostLinksToTheReplica: an HTTP/1.0 request may come
// without Host; its links name the address the client reached, never
// "http:///".
func TestHTTP10WithoutHostLinksToTheReplica(t *testing.T) {
	s, _ := newTestServer(t, true, Options{})
	addr := listen(t, s)
	x := converse(t, addr, "GET / HTTP/1.0\r\n\r\n", 2*time.Second)
	if len(x.statuses) != 1 || x.statuses[0] != 200 {
		t.Fatalf("HTTP/1.0 without Host: %v %q", x.statuses, x.bodies)
	}
	var index struct {
		Links map[string]struct {
			Href string `json:"href"`
		} `json:"_links"`
	}
	if err := json.Unmarshal([]byte(x.bodies[0]), &index); err != nil {
		t.Fatal(err)
	}
	if got, want := index.Links["competitions"].Href, "http://"+addr+"/v1/competitions"; got != want {
		t.Errorf("link %q, want %q", got, want)
	}
}

// TestErrorsNeverRepeatTheRequest: whatever fasthttp cannot parse is
// answered in the error shape without a byte of the request's head: not its
// token, not its cookies.
func TestErrorsNeverRepeatTheRequest(t *testing.T) {
	s, _ := newTestServer(t, true, Options{})
	addr := listen(t, s)
	const token, cookie = "t0psecrettoken", "c00kiemonster"
	secrets := "X-Auth-Token: " + token + "\r\nCookie: session=" + cookie + "\r\n"
	tests := []struct{ name, request string }{
		{"space in a header name", "GET /v1/competitions HTTP/1.1\r\nHost: a\r\n" + secrets + "Bad Header: x\r\n\r\n"},
		{"Content-Length not a number", "GET /v1/competitions HTTP/1.1\r\nHost: a\r\n" + secrets + "Content-Length: x1\r\n\r\n"},
		{"bad chunk", "POST /v1/competitions HTTP/1.1\r\nHost: a\r\n" + secrets + "Transfer-Encoding: chunked\r\n\r\nzz\r\n\r\n"},
		{"no version", "GET /v1/competitions\r\nHost: a\r\n" + secrets + "\r\n"},
		{"framing", "GET /v1/competitions HTTP/1.1\r\nHost: a\r\n" + secrets + "Content-Length: 1\r\nContent-Length: 2\r\n\r\nxx"},
	}
	for _, tt := range tests {
		x := converse(t, addr, tt.request, 2*time.Second)
		if len(x.statuses) != 1 || x.statuses[0] < 400 || x.statuses[0] > 499 || !jsonError(x.bodies[0]) {
			t.Errorf("%s: %v %q, want one 4xx in the error shape", tt.name, x.statuses, x.raw)
		}
		if strings.Contains(x.raw, token) || strings.Contains(x.raw, cookie) {
			t.Errorf("%s: the answer repeats the request's secrets:\n%s", tt.name, x.raw)
		}
		if x.end != io.EOF {
			t.Errorf("%s: the connection ended with %v, want closed after the 400", tt.name, x.end)
		}
	}
}

// BenchmarkFraming measures the check of a typical request's framing
// headers, which every request passes.
func BenchmarkFraming(b *testing.B) {
	var h fasthttp.RequestHeader
	if err := h.Read(bufio.NewReader(strings.NewReader("GET /v1/competitions/398/fixtures HTTP/1.1\r\nHost: api.example.org\r\n" +
		"User-Agent: curl/8.5.0\r\nAccept: */*\r\nX-Auth-Token: 0123456789abcdef0123456789abcdef\r\nAccept-Encoding: gzip\r\n\r\n"))); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if p := framing(&h); p.msg != "" {
			b.Fatal(p.msg)
		}
	}
}
