package httpapi

import (
	"bufio"
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"
)

// logLines is a log the server writes while the test reads it.
type logLines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// records are the JSON log records whose msg is msg.
func (l *logLines) records(t *testing.T, msg string) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.buf.String()), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if r["msg"] == msg {
			out = append(out, r)
		}
	}
	return out
}

// TestHandlerPanicIs500: a handler's panic answers its request 500 in the
// error shape of its API version, is logged once with its stack and
// counted, and the replica goes on serving, on the same connection and on
// another; the same URL again is another 500, not a wait for a render
// that never ends; a panic in an event stream's writer ends the stream and
// nothing else.
func TestHandlerPanicIs500(t *testing.T) {
	var logs logLines
	reg := prometheus.NewRegistry()
	s, _ := newTestServer(t, true, Options{Registry: reg, Log: slog.New(slog.NewJSONHandler(&logs, nil)), AnonymousPerDay: 1000})
	// Test-only routes, added here: production builds have no handler
	// that panics on purpose.
	handlerBug := func(*fiber.Ctx) error { panic("handler bug") }
	s.App().Get("/v1/panics", handlerBug)
	s.App().Get("/v4/panics", handlerBug)
	s.App().Get("/v1/panics/render", func(c *fiber.Ctx) error {
		// A cacheable response whose render panics after its ETag and
		// Cache-Control would be set: none of them may reach the 500.
		c.Set(fiber.HeaderETag, `"stale"`)
		return s.respond(c, s.newKey(c, requestOf(c), "panics", competitionsPath, full), func() (any, int) { panic("render bug") })
	})
	s.App().Get("/v1/panics/stream", func(c *fiber.Ctx) error {
		c.Context().SetBodyStreamWriter(s.streamWriter(c, func(w *bufio.Writer) {
			_, _ = w.WriteString("data: first\n\n")
			_ = w.Flush()
			panic("stream bug")
		}))
		return nil
	})
	addr := listen(t, s)

	conn, br := dial(t, addr)
	other, otherBr := dial(t, addr)
	checks := []struct {
		conn    string
		path    string
		status  int
		message string // the error shape's message field; "" for a success
	}{
		{"first", "/v1/panics", 500, "error"},
		{"first", "/v1/competitions", 200, ""},
		{"other", "/v1/competitions", 200, ""},
		{"other", "/v4/panics", 500, "message"},
		{"other", "/v1/panics/render", 500, "error"},
		{"first", "/v1/panics/render", 500, "error"},
		{"first", "/v1/competitions", 200, ""},
	}
	for _, c := range checks {
		cn, r := conn, br
		if c.conn == "other" {
			cn, r = other, otherBr
		}
		resp, body := exchange(t, cn, r, "GET", c.path)
		if resp.StatusCode != c.status {
			t.Fatalf("%s connection, %s: %d %s, want %d", c.conn, c.path, resp.StatusCode, body, c.status)
		}
		if c.message == "" {
			continue
		}
		var shape map[string]any
		if err := json.Unmarshal(body, &shape); err != nil || shape[c.message] != "internal error; it has been logged" ||
			!strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") || resp.Header.Get("ETag") != "" ||
			resp.Header.Get("Cache-Control") != "no-store" || resp.Close {
			t.Errorf("%s: %q %s (ETag %q, Cache-Control %q, close %v), want the JSON error with %q, no ETag, no-store, kept alive",
				c.path, resp.Header.Get("Content-Type"), body, resp.Header.Get("ETag"), resp.Header.Get("Cache-Control"), resp.Close, c.message)
		}
		if bytes.Contains(body, []byte("bug")) {
			t.Errorf("%s: body %s shows the panic", c.path, body)
		}
	}

	resp, body := exchange(t, other, otherBr, "GET", "/v1/panics/stream")
	if resp.StatusCode != 200 || string(body) != "data: first\n\n" {
		t.Errorf("panicking stream: %d %q, want 200 with what it wrote before the panic", resp.StatusCode, body)
	}
	if resp, _ := exchange(t, other, otherBr, "GET", "/v1/competitions"); resp.StatusCode != 200 {
		t.Errorf("after the panicking stream: %d, want 200", resp.StatusCode)
	}

	// One record and one count per panic: the two renders of the same URL
	// panicked each.
	panics := []string{"handler bug", "handler bug", "render bug", "render bug", "stream bug"}
	recs := logs.records(t, "request panicked")
	if len(recs) != len(panics) {
		t.Fatalf("%d panics logged, want %d: %v", len(recs), len(panics), recs)
	}
	for i, r := range recs {
		stack, _ := r["stack"].(string)
		if r["panic"] != panics[i] || !strings.Contains(stack, "TestHandlerPanicIs500") || r["level"] != "ERROR" {
			t.Errorf("panic record %d: %v, want the panic %q at ERROR with a stack through the test's handler", i, r, panics[i])
		}
	}
	if n := len(logs.records(t, "request failed")); n != 0 {
		t.Errorf("%d panics logged again as failed requests, want each logged once", n)
	}
	if got := counter(t, reg, "fd_http_requests_total", "route", "/v1/panics"); got != 1 {
		t.Errorf("fd_http_requests_total{route=/v1/panics} = %v, want 1", got)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == "fd_http_panics_total" {
			if got := f.GetMetric()[0].GetCounter().GetValue(); got != float64(len(panics)) {
				t.Errorf("fd_http_panics_total = %v, want %d", got, len(panics))
			}
			return
		}
	}
	t.Error("no fd_http_panics_total")
}
