package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
)

// TestDocs checks the way in for people: the index at /, the reference
// page at /docs with the script it embeds, and the page as a real
// browser renders it.
func TestDocs(t *testing.T) {
	r := startReplica(t, "")

	t.Run("index links the reference", func(t *testing.T) {
		resp := r.do("GET", "/", nil)
		var index struct {
			Links map[string]struct {
				Href string `json:"href"`
			} `json:"_links"`
		}
		if err := json.Unmarshal(resp.body, &index); err != nil || resp.status != 200 {
			t.Fatalf("GET /: %d %s", resp.status, resp.body)
		}
		for name, want := range map[string]string{"docs": "/docs", "openapi": "/v1/openapi.json", "competitions": "/v1/competitions"} {
			if got := index.Links[name].Href; got != r.base+want {
				t.Errorf("_links.%s = %q, want %q", name, got, r.base+want)
			}
		}
		// The index is a route of its own in the metrics, apart from
		// requests no route took.
		r.do("GET", "/nothing", nil)
		_, metrics := get(t, r.admin+"/metrics")
		for _, want := range []string{`fd_http_requests_total{route="/",status="200"} 1`, `fd_http_requests_total{route="unmatched",status="404"} 1`} {
			if !strings.Contains(metrics, want) {
				t.Errorf("metrics lack %s", want)
			}
		}
	})

	t.Run("static responses", func(t *testing.T) {
		tests := []struct {
			path, contentType, starts string
			gzip                      bool // the page is too small to be worth it
		}{
			{"/docs", "text/html; charset=utf-8", "<!DOCTYPE html>", false},
			{"/docs/redoc.standalone.js", "text/javascript; charset=utf-8", "/*! For license information", true},
			{"/v1/openapi.json", "application/json;charset=UTF-8", "{", true},
			{"/docs/openapi.json", "application/json;charset=UTF-8", "{", true},
		}
		for _, tt := range tests {
			resp := r.do("GET", tt.path, map[string]string{"Accept-Encoding": "gzip"})
			if resp.status != 200 || resp.header.Get("Content-Type") != tt.contentType {
				t.Fatalf("GET %s: %d %q, want 200 %q", tt.path, resp.status, resp.header.Get("Content-Type"), tt.contentType)
			}
			if resp.header.Get("Cache-Control") != "max-age=3600" {
				t.Errorf("GET %s: Cache-Control %q, want max-age=3600", tt.path, resp.header.Get("Cache-Control"))
			}
			body := resp.body
			if zipped := resp.header.Get("Content-Encoding") == "gzip"; zipped != tt.gzip {
				t.Errorf("GET %s: gzipped %v, want %v", tt.path, zipped, tt.gzip)
			} else if zipped {
				zr, err := gzip.NewReader(bytes.NewReader(resp.body))
				if err != nil {
					t.Fatalf("GET %s: %v", tt.path, err)
				}
				if body, err = io.ReadAll(zr); err != nil {
					t.Fatalf("GET %s: %v", tt.path, err)
				}
			}
			if !bytes.HasPrefix(body, []byte(tt.starts)) {
				t.Errorf("GET %s: body starts %.40q, want %q", tt.path, body, tt.starts)
			}
			etag := resp.header.Get("ETag")
			if again := r.do("GET", tt.path, map[string]string{"If-None-Match": etag}); etag == "" || again.status != 304 {
				t.Errorf("GET %s with If-None-Match %s: %d, want 304", tt.path, etag, again.status)
			}
		}
	})

	t.Run("the page loads nothing from elsewhere", func(t *testing.T) {
		resp := r.do("GET", "/docs", nil)
		for _, m := range regexp.MustCompile(`(?:src|href|spec-url)="([^"]*)"`).FindAllSubmatch(resp.body, -1) {
			if u := string(m[1]); !strings.HasPrefix(u, "/") || strings.HasPrefix(u, "//") {
				t.Errorf("the page refers to %q: only this server's paths", u)
			}
		}
		// The document the page loads is the free one: a visitor with the
		// anonymous budget may open the reference as often as they like.
		if !bytes.Contains(resp.body, []byte(`spec-url="/docs/openapi.json"`)) {
			t.Error("the page does not load the free /docs/openapi.json")
		}
		if csp := resp.header.Get("Content-Security-Policy"); !strings.HasPrefix(csp, "default-src 'none'; script-src 'self';") {
			t.Errorf("Content-Security-Policy %q: want nothing but this server", csp)
		}
	})

	t.Run("the reference counts against no limit", func(t *testing.T) {
		before := r.do("GET", "/v1/openapi.json", nil).header.Get("X-RequestsAvailable")
		for _, p := range []string{"/", "/docs", "/docs/redoc.standalone.js", "/docs/openapi.json"} {
			if resp := r.do("GET", p, nil); resp.header.Get("X-RequestsAvailable") != "" {
				t.Errorf("GET %s has X-RequestsAvailable: it counted", p)
			}
		}
		if free, api := r.do("GET", "/docs/openapi.json", nil), r.do("GET", "/v1/openapi.json", nil); !bytes.Equal(free.body, api.body) {
			t.Error("/docs/openapi.json is not /v1/openapi.json's document")
		}
		after := r.do("GET", "/v1/openapi.json", nil).header.Get("X-RequestsAvailable")
		b, errB := strconv.Atoi(before)
		a, errA := strconv.Atoi(after)
		if errB != nil || errA != nil || a != b-2 {
			t.Errorf("requests available %q, then %q after the reference: want two less (the requests to /v1/openapi.json)", before, after)
		}
	})

	t.Run("browser", func(t *testing.T) {
		dom, console := renderInChromium(t, r.base+"/docs")
		var doc struct {
			Paths map[string]map[string]struct {
				OperationID string `json:"operationId"`
				Summary     string `json:"summary"`
			} `json:"paths"`
		}
		if err := json.Unmarshal(r.do("GET", "/v1/openapi.json", nil).body, &doc); err != nil {
			t.Fatal(err)
		}
		text := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
		for path, ops := range doc.Paths {
			for method, op := range ops {
				for _, want := range []string{`id="operation/` + op.OperationID + `"`, ">" + path + "<", ">" + text.Replace(op.Summary) + "<"} {
					if !strings.Contains(dom, want) {
						t.Errorf("%s %s: the rendered page lacks %s", method, path, want)
					}
				}
			}
		}
		if len(doc.Paths) < 12 {
			t.Errorf("the document has %d paths", len(doc.Paths))
		}
		// Redoc's menu tries its makers' logo, which the page's policy
		// blocks; anything else blocked or thrown is a broken page.
		for _, line := range strings.Split(console, "\n") {
			if strings.Contains(line, "CONSOLE") && !strings.Contains(line, "cdn.redoc.ly/redoc/logo-mini.svg") &&
				(strings.Contains(line, "Content Security Policy") || strings.Contains(line, "Uncaught") || strings.Contains(line, "Error")) {
				t.Errorf("browser console: %s", line)
			}
		}
	})
}

// renderInChromium loads url in headless Chromium and returns the DOM once
// the page's scripts have run, and what the browser logged. The test
// needs Chromium (Debian: apt-get install chromium; .ci/run installs it):
// under CI it fails without it, elsewhere it is skipped, saying so.
func renderInChromium(t *testing.T, url string) (dom, console string) {
	t.Helper()
	bin := ""
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		natstest.SkipMissing(t, "chromium is not installed, so /docs was not rendered in a browser", "apt-get install chromium")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// Virtual time runs the page's scripts to completion without waiting
	// in real time; a profile of its own lets runs go side by side.
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--enable-logging=stderr", "--v=0", "--virtual-time-budget=10000",
		"--dump-dom", url)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	t.Logf("chromium rendered %s in %v (%d bytes of DOM)", url, time.Since(start).Round(time.Millisecond), stdout.Len())
	return stdout.String(), stderr.String()
}
