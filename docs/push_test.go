package docs_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOnePageForPush: the event stream and webhooks, what clients receive,
// are described on push.md alone (a replica's flags stay in api.md's
// table), and the page of the NATS stream says where they are.
func TestOnePageForPush(t *testing.T) {
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, "../README.md", "../deploy/README.md")
	// Words only a description of the pushes needs.
	details := []string{"webhook-signature", "fd_challenge", "event: reset", "EventSource", "## Webhooks"}
	for _, page := range pages {
		raw, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range details {
			if has := strings.Contains(string(raw), d); has != (page == "push.md") {
				t.Errorf("%s: has %q: %v; the event stream and webhooks are described on push.md alone", page, d, has)
			}
		}
	}
	events, err := os.ReadFile("events.md")
	if err != nil {
		t.Fatal(err)
	}
	intro, _, _ := strings.Cut(string(events), "\n|")
	if !strings.Contains(intro, "(push.md)") {
		t.Errorf("events.md does not say, before its table, that push.md describes what clients receive:\n%s", intro)
	}
}
