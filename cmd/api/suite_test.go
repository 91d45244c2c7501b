package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/footdata/footballd/pkg/model"
)

// apiSuite is what the one conformance suite needs to know of an API
// version: a world to ask, paths that answer each way, and the version's
// words for headers and errors. Each version runs the same suite
// (TestConformance); what only one version has stays in its own tests
// (TestEndpoints for v1's paths and goldens, TestV4Conformance for v4's
// recorded shapes).
type apiSuite struct {
	version string
	// world is the replica that serves the version's data, a registered
	// client's token and its name.
	world func(t *testing.T) (r *replica, token, client string)
	// Paths: a resource, a list large enough to compress, one that does
	// not exist, a malformed filter, one the client's tier may not see,
	// and a path no route has.
	ok, list, missing, badFilter, restricted, unknown string
	// headers are the version's on every answer, spelled as on the wire;
	// foreign are other versions' that it never sends.
	headers, foreign []string
	// available names the header that counts down the client's budget.
	available string
	// vary is the Vary of a cached answer.
	vary string
	// message reads an error body in the version's vocabulary: its
	// message, or why the body is not one.
	message func(body []byte, status int) (string, error)
}

func apiSuites() []apiSuite {
	return []apiSuite{{
		version: "v1",
		world: func(t *testing.T) (*replica, string, string) {
			w := theWorld(t)
			return w.r, w.acme, "acme"
		},
		ok: "/v1/competitions/398", list: "/v1/competitions/398/fixtures", missing: "/v1/competitions/999",
		badFilter: "/v1/competitions/398/leagueTable?matchday=0", restricted: "/v1/competitions/434/leagueTable", unknown: "/v1/players",
		headers: []string{"X-API-Version", "X-Authenticated-Client", "X-RequestCounter-Reset", "X-RequestsAvailable", "X-Requests-Available",
			"Access-Control-Allow-Origin", "ETag"},
		foreign:   []string{"X-Requests-Available-Minute"},
		available: "X-RequestsAvailable",
		vary:      "Accept-Encoding, X-Response-Control, X-Auth-Token",
		message: func(body []byte, _ int) (string, error) {
			var e map[string]string
			if err := json.Unmarshal(body, &e); err != nil || e["error"] == "" || len(e) != 1 {
				return "", fmt.Errorf("error body %s: want exactly {\"error\": hint}", body)
			}
			return e["error"], nil
		},
	}, {
		version: "v4",
		world: func(t *testing.T) (*replica, string, string) {
			w := theV4World(t)
			return w.r, w.token, "php-footballdata"
		},
		ok: "/v4/competitions/BL1", list: "/v4/competitions/BL1/matches", missing: "/v4/competitions/XYZ",
		badFilter: "/v4/competitions/BL1/standings?matchday=0", restricted: "/v4/competitions/DED", unknown: "/v4/nothing",
		headers: []string{"X-API-Version", "X-Authenticated-Client", "X-RequestCounter-Reset", "X-Requests-Available-Minute",
			"Access-Control-Allow-Origin", "ETag"},
		foreign:   []string{"X-RequestsAvailable", "X-Requests-Available", "X-Response-Control"},
		available: "X-Requests-Available-Minute",
		vary:      "Accept-Encoding, X-Auth-Token, X-Unfold-Goals",
		message: func(body []byte, status int) (string, error) {
			var e struct {
				Message   string `json:"message"`
				ErrorCode int    `json:"errorCode"`
			}
			if err := json.Unmarshal(body, &e); err != nil || e.Message == "" || e.ErrorCode != status || !bytes.HasPrefix(body, []byte(`{"message":`)) {
				return "", fmt.Errorf("error body %s: want {\"message\": hint, \"errorCode\": %d}", body, status)
			}
			return e.Message, nil
		},
	}}
}

// TestConformance runs one suite of API behaviour, paths, errors, headers,
// the HTTP protocol and limits, once per API version against the
// assembled server.
func TestConformance(t *testing.T) {
	for _, v := range apiSuites() {
		t.Run(v.version, func(t *testing.T) { v.run(t) })
	}
}

func (v apiSuite) run(t *testing.T) {
	r, token, client := v.world(t)
	auth := map[string]string{"X-Auth-Token": token}
	t.Run("paths", func(t *testing.T) {
		for _, path := range []string{v.ok, v.ok + "/", v.list} {
			resp := r.do("GET", path, auth)
			if resp.status != 200 || resp.header.Get("Content-Type") != "application/json;charset=UTF-8" || resp.header.Get("X-API-Version") != v.version {
				t.Errorf("GET %s: %d, Content-Type %q, X-API-Version %q", path, resp.status, resp.header.Get("Content-Type"), resp.header.Get("X-API-Version"))
			}
		}
	})
	t.Run("errors", func(t *testing.T) {
		for _, c := range []struct {
			path, token string
			status      int
		}{{v.missing, token, 404}, {v.unknown, token, 404}, {v.badFilter, token, 400}, {v.restricted, token, 403}, {v.ok, "0000notatoken", 400}} {
			resp := r.do("GET", c.path, map[string]string{"X-Auth-Token": c.token})
			if resp.status != c.status {
				t.Errorf("GET %s: %d, want %d: %s", c.path, resp.status, c.status, resp.body)
			}
			if _, err := v.message(resp.body, c.status); err != nil {
				t.Errorf("GET %s: %v", c.path, err)
			}
			if resp.header.Get("Content-Type") != "application/json;charset=UTF-8" || resp.header.Get("X-API-Version") != v.version {
				t.Errorf("GET %s: Content-Type %q, X-API-Version %q", c.path, resp.header.Get("Content-Type"), resp.header.Get("X-API-Version"))
			}
		}
	})
	t.Run("headers as spelled on the wire", func(t *testing.T) {
		names := rawHeaderNames(t, strings.TrimPrefix(r.base, "http://"), "GET "+v.ok+" HTTP/1.1\r\nHost: a\r\nX-Auth-Token: "+token+"\r\n\r\n")
		for _, want := range v.headers {
			if !slices.Contains(names, want) {
				t.Errorf("no %s among %v", want, names)
			}
		}
		for _, other := range v.foreign {
			if slices.Contains(names, other) {
				t.Errorf("another version's %s on a %s response", other, v.version)
			}
		}
	})
	t.Run("authenticated client", func(t *testing.T) {
		if got := r.do("GET", v.ok, auth).header.Get("X-Authenticated-Client"); got != client {
			t.Errorf("with a token: X-Authenticated-Client %q, want %q", got, client)
		}
		if got := r.do("GET", v.ok, nil).header.Get("X-Authenticated-Client"); got != "anonymous" {
			t.Errorf("without one: X-Authenticated-Client %q", got)
		}
	})
	v.protocol(t, r, auth)
	t.Run("429 after the client's limit", func(t *testing.T) { v.limit(t, r) })
}

// protocol is HTTP's part of the suite: methods, preflights, conditional
// requests and compression, through the one render cache.
func (v apiSuite) protocol(t *testing.T, r *replica, auth map[string]string) {
	t.Run("HEAD is GET without a body", func(t *testing.T) {
		get := r.do("GET", v.ok, auth)
		head := r.do("HEAD", v.ok, auth)
		if head.status != 200 || len(head.body) != 0 || head.header.Get("Content-Length") != fmt.Sprint(len(get.body)) || head.header.Get("ETag") != get.header.Get("ETag") {
			t.Errorf("HEAD: %d, %d bytes, Content-Length %s (GET %d), ETag %s/%s", head.status, len(head.body), head.header.Get("Content-Length"), len(get.body), head.header.Get("ETag"), get.header.Get("ETag"))
		}
	})
	t.Run("other methods are 405", func(t *testing.T) {
		for _, m := range []string{"POST", "PUT", "DELETE", "PATCH"} {
			resp := r.do(m, v.ok, auth)
			msg, err := v.message(resp.body, 405)
			if resp.status != 405 || err != nil || !strings.HasPrefix(msg, "method "+m) || resp.header.Get("Allow") == "" {
				t.Errorf("%s: %d %s (%v)", m, resp.status, resp.body, err)
			}
		}
	})
	t.Run("OPTIONS has exactly the spec's headers", func(t *testing.T) {
		conn, err := net.Dial("tcp", strings.TrimPrefix(r.base, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "OPTIONS %s HTTP/1.1\r\nHost: x\r\nOrigin: http://example.org\r\n\r\n", v.list)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"Access-Control-Allow-Methods": "GET", "Access-Control-Allow-Origin": "*",
			"Access-Control-Allow-Headers": "x-auth-token, x-response-control", "Content-Length": "0", "Content-Type": "text/plain"}
		if resp.StatusCode != 204 {
			t.Errorf("status %d", resp.StatusCode)
		}
		for k, w := range want {
			if got := resp.Header.Get(k); got != w {
				t.Errorf("%s: %q, want %q", k, got, w)
			}
		}
		for k := range resp.Header {
			if _, ok := want[k]; !ok && k != "Connection" {
				t.Errorf("extra header %s", k)
			}
		}
	})
	t.Run("ETag and If-None-Match", func(t *testing.T) {
		first := r.do("GET", v.list, auth)
		etag := first.header.Get("ETag")
		if etag == "" || first.header.Get("Vary") != v.vary {
			t.Errorf("ETag %q, Vary %q (want %q)", etag, first.header.Get("Vary"), v.vary)
		}
		again := r.do("GET", v.list, map[string]string{"X-Auth-Token": auth["X-Auth-Token"], "If-None-Match": etag})
		if again.status != 304 || len(again.body) != 0 {
			t.Errorf("conditional GET %d with %d bytes", again.status, len(again.body))
		}
		if other := r.do("GET", v.list, map[string]string{"X-Auth-Token": auth["X-Auth-Token"], "If-None-Match": `"stale"`}); other.status != 200 {
			t.Errorf("stale ETag: %d", other.status)
		}
	})
	t.Run("gzip from the same bytes", func(t *testing.T) {
		plain := r.do("GET", v.list, auth)
		gz := r.do("GET", v.list, map[string]string{"X-Auth-Token": auth["X-Auth-Token"], "Accept-Encoding": "gzip"})
		if gz.header.Get("Content-Encoding") != "gzip" || gz.header.Get("ETag") != plain.header.Get("ETag") {
			t.Fatalf("gzip response: encoding %q etag %q/%q", gz.header.Get("Content-Encoding"), gz.header.Get("ETag"), plain.header.Get("ETag"))
		}
		zr, err := gzip.NewReader(bytes.NewReader(gz.body))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(zr)
		if !bytes.Equal(body, plain.body) || len(gz.body) >= len(plain.body) {
			t.Errorf("gzip body (%d bytes) does not inflate to the plain one (%d bytes)", len(gz.body), len(plain.body))
		}
	})
}

// limited numbers the clients limit adds, so that every run of the suite
// (-count=n) meets a budget no run before it spent.
var limited atomic.Int32

// limit spends a new client's budget of 3 a minute: each answer counts
// down, and the fourth is 429 in the version's words, with the wait.
func (v apiSuite) limit(t *testing.T, r *replica) {
	s := r.store()
	token := addClient(t, s, fmt.Sprintf("limited-%s-%d", v.version, limited.Add(1)), model.TierRegistered, 3)
	r.waitApplied(s)
	var last response
	for i := range 4 {
		last = r.do("GET", v.ok, map[string]string{"X-Auth-Token": token})
		if i < 3 && (last.status != 200 || last.header.Get(v.available) != fmt.Sprint(2-i)) {
			t.Fatalf("request %d: %d, %s %q", i+1, last.status, v.available, last.header.Get(v.available))
		}
	}
	reset := last.header.Get("X-RequestCounter-Reset")
	msg, err := v.message(last.body, 429)
	if last.status != 429 || err != nil || msg != fmt.Sprintf("You reached your request limit. Wait %s seconds.", reset) || last.header.Get(v.available) != "0" {
		t.Errorf("fourth request: %d %s (reset %s, %v)", last.status, last.body, reset, err)
	}
}

// rawHeaderNames sends request and returns the response's header names
// exactly as they came on the wire.
func rawHeaderNames(t *testing.T, addr, request string) []string {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, request); err != nil {
		t.Fatal(err)
	}
	tp := textproto.NewReader(bufio.NewReader(conn))
	if _, err := tp.ReadLine(); err != nil {
		t.Fatal(err)
	}
	var names []string
	for {
		line, err := tp.ReadLine()
		if err != nil {
			t.Fatal(err)
		}
		if line == "" {
			return names
		}
		name, _, _ := strings.Cut(line, ":")
		names = append(names, name)
	}
}
