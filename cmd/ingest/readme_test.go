package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/footdata/footballd/internal/natstest"
)

// readmeBlock returns the first sh block of README.md after heading,
// its continued lines joined and comments dropped.
func readmeBlock(t *testing.T, heading string) []string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no %q", heading)
	}
	_, rest, ok = strings.Cut(rest, "```sh\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatalf("README.md: no sh block under %q", heading)
	}
	block = strings.ReplaceAll(block, "\\\n", " ")
	var lines []string
	for _, line := range strings.Split(block, "\n") {
		line, _, _ = strings.Cut(line, "#")
		if line = strings.TrimSpace(line); line != "" {
			lines = append(lines, line)
		}
	}
	return lines
}

// TestReadmeKeepingDataCurrent runs the README's worked example as
// written there, with openfootball's host replaced by a local server of
// the same files (../shared/data) and the admin listener on a free port.
func TestReadmeKeepingDataCurrent(t *testing.T) {
	lines := readmeBlock(t, "## Keeping data current")
	files := http.StripPrefix("/openfootball/football.json/master/",
		http.FileServer(http.Dir(natstest.SharedData(t, "openfootball-football-json"))))
	src := httptest.NewServer(files)
	defer src.Close()
	c := newCLI(t)
	local := strings.NewReplacer("https://raw.githubusercontent.com", src.URL, "127.0.0.1:9190", natstest.FreeAddr(t))
	for _, line := range lines {
		args := strings.Fields(local.Replace(line))
		if args[0] != "ingest" {
			t.Fatalf("README line %q: not an ingest command", line)
		}
		switch {
		case args[len(args)-1] == "&":
			if args[1] != "follow" {
				t.Fatalf("README line %q: only follow runs in the background", line)
			}
			c.follow(t, args[2:len(args)-1]...)
		case args[1] == "feed" && args[2] == "show":
			out := c.waitOutput(t, `last result:\s+changed`, args[1:]...)
			for _, want := range []string{`matches:\s+380`, `changes published:\s+\d{3}`, `etag:|last modified:\s+\w{3}, `, `next poll:\s+20`} {
				if !regexp.MustCompile(want).MatchString(out) {
					t.Errorf("%s: no %s in\n%s", line, want, out)
				}
			}
			t.Logf("%s\n%s", line, out)
		default:
			c.ok(args[1:]...)
		}
	}
}
