package httpapi

import (
	"bufio"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// rawHeaderNames sends request and returns the status line and the header
// names of the response exactly as they came on the wire.
func rawHeaderNames(t *testing.T, addr, request string) (string, []string) {
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
	r := bufio.NewReader(conn)
	status, err := r.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			return strings.TrimSpace(status), names
		}
		name, _, _ := strings.Cut(line, ":")
		names = append(names, name)
	}
}

// specNames are the headers the spec names, spelled as it spells them.
var specNames = []string{"X-API-Version", "X-RequestCounter-Reset", "X-RequestsAvailable", "X-Requests-Available",
	"X-Authenticated-Client", "X-Response-Control", "ETag"}

// TestHeaderNamesAsSpecified: on the wire, every response of every kind
// spells the spec's headers as the spec does, byte for byte, and carries
// those its kind must.
func TestHeaderNamesAsSpecified(t *testing.T) {
	s, _ := newTestServer(t, true, Options{})
	addr := listen(t, s)
	spent, _ := newTestServer(t, true, Options{AnonymousPerDay: 1})
	spentAddr := listen(t, spent)
	starting, _ := newTestServer(t, false, Options{})
	startingAddr := listen(t, starting)
	_, names := rawHeaderNames(t, addr, "GET /v1/competitions HTTP/1.1\r\nHost: a\r\n\r\n")
	_, header, _ := raw(t, addr, "GET /v1/competitions HTTP/1.1\r\nHost: a\r\n\r\n")
	etag := header.Get("ETag")
	if etag == "" {
		t.Fatalf("no ETag on a 200: %v", names)
	}
	counted := []string{"X-API-Version", "X-Authenticated-Client", "X-RequestCounter-Reset", "X-RequestsAvailable", "X-Requests-Available"}
	tests := []struct {
		name, addr, request, status string
		want                        []string
	}{
		{"200", addr, "GET /v1/competitions HTTP/1.1\r\nHost: a\r\nX-Response-Control: minified\r\n\r\n", "200",
			append([]string{"ETag", "X-Response-Control"}, counted...)},
		{"304", addr, "GET /v1/competitions HTTP/1.1\r\nHost: a\r\nIf-None-Match: " + etag + "\r\n\r\n", "304", append([]string{"ETag"}, counted...)},
		{"400", addr, "GET /v1/competitions?season=abc HTTP/1.1\r\nHost: a\r\n\r\n", "400", counted},
		{"404", addr, "GET /v1/teams/999999 HTTP/1.1\r\nHost: a\r\n\r\n", "404", counted},
		{"405", addr, "POST /v1/competitions HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n", "405", []string{"X-API-Version"}},
		{"405, unknown method", addr, "BREW /v1/competitions HTTP/1.1\r\nHost: a\r\n\r\n", "405", []string{"X-API-Version"}},
		{"429", spentAddr, "GET /v1/competitions HTTP/1.1\r\nHost: a\r\n\r\n", "429", counted},
		{"503", startingAddr, "GET /v1/competitions HTTP/1.1\r\nHost: a\r\n\r\n", "503", []string{"X-API-Version"}},
		{"OPTIONS", addr, "OPTIONS /v1/competitions HTTP/1.1\r\nHost: a\r\n\r\n", "204", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.status == "429" {
				// Spend the anonymous day budget first.
				rawHeaderNames(t, tt.addr, tt.request)
			}
			status, names := rawHeaderNames(t, tt.addr, tt.request)
			if !strings.Contains(status, " "+tt.status+" ") {
				t.Fatalf("status %q, want %s", status, tt.status)
			}
			have := map[string]bool{}
			for _, n := range names {
				have[n] = true
				for _, spec := range specNames {
					if strings.EqualFold(n, spec) && n != spec {
						t.Errorf("header %q on the wire, the spec writes %q", n, spec)
					}
				}
			}
			for _, w := range tt.want {
				if !have[w] {
					t.Errorf("no %q header (spelled so) in %v", w, names)
				}
			}
		})
	}
}
