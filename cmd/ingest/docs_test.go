package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// docBlock returns the first sh block of docs/page after the text after, its
// continued lines joined and comments dropped.
func docBlock(t *testing.T, page, after string) []string {
	t.Helper()
	block := natstest.BlockAfter(t, "../../docs/"+page, after, "sh").Text
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

// TestDocsKeepingDataCurrent runs docs/feeds.md's worked example as
// written there, with openfootball's host replaced by a local server of
// the same files (../shared/data) and the admin listener on a port of
// its own choosing.
func TestDocsKeepingDataCurrent(t *testing.T) {
	lines := docBlock(t, "feeds.md", "# Keeping data current")
	mux := http.NewServeMux()
	mux.Handle("/openfootball/football.json/master/", http.StripPrefix("/openfootball/football.json/master/",
		http.FileServer(http.Dir(natstest.SharedData(t, "openfootball-football-json")))))
	// football-data.co.uk's file of the season, as the datasets' copy.
	mux.HandleFunc("/mmz4281/2526/I1.csv", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, natstest.SharedData(t, "datasets-football-datasets", "datasets", "serie-a", "season-2526.csv"))
	})
	src := httptest.NewServer(mux)
	defer src.Close()
	c := newCLI(t)
	local := strings.NewReplacer("https://raw.githubusercontent.com", src.URL, "https://www.football-data.co.uk", src.URL,
		"127.0.0.1:9190", "127.0.0.1:0")
	for _, line := range lines {
		args := strings.Fields(local.Replace(line))
		if args[0] != "ingest" {
			t.Fatalf("docs/feeds.md line %q: not an ingest command", line)
		}
		switch {
		case args[len(args)-1] == "&":
			if args[1] != "follow" {
				t.Fatalf("docs/feeds.md line %q: only follow runs in the background", line)
			}
			// The sources are the test's, on loopback.
			c.follow(t, append(args[2:len(args)-1], "--feed-allow", "127.0.0.1/32")...)
		case args[1] == "feed" && args[2] == "show":
			out := c.waitOutput(t, `last result:\s+changed`, args[1:]...)
			wants := []string{`matches:\s+380`, `changes published:\s+\d{3}`, `etag:|last modified:\s+\w{3}, `, `next poll:\s+20`}
			if args[3] == "sa-football-data" {
				// The file of a season in progress.
				wants = []string{`matches:\s+\d{3}`, `last modified:\s+\w{3}, `, `changes published:\s+\d{3}`}
			}
			for _, want := range wants {
				if !regexp.MustCompile(want).MatchString(out) {
					t.Errorf("%s: no %s in\n%s", line, want, out)
				}
			}
			t.Logf("%s\n%s", line, out)
		default:
			c.ok(args[1:]...)
		}
	}
	// Two leagues followed: 380 fixtures each, 40 teams.
	s := natstest.MustOpen(t, c.srv)
	byComp := map[int]int{}
	for _, f := range natstest.All[model.Fixture](t, s, events.KindFixture) {
		byComp[f.CompetitionID]++
	}
	if teams := natstest.All[model.Team](t, s, events.KindTeam); len(byComp) != 2 || len(teams) != 40 {
		t.Errorf("after both feeds: fixtures by competition %v and %d teams; want two competitions of 380 and 40 teams", byComp, len(teams))
	}
	for comp, n := range byComp {
		if n != 380 {
			t.Errorf("competition %d has %d fixtures, want 380", comp, n)
		}
	}
}

// TestDocsFeedFormats: docs/feeds.md lists every format a feed can follow,
// and no other, in the sentence that says what --format is.
func TestDocsFeedFormats(t *testing.T) {
	raw, err := os.ReadFile("../../docs/feeds.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(raw), "`--format` is the import format that reads a fetched document, one of")
	if !ok {
		t.Fatal("docs/feeds.md: no sentence saying what --format is")
	}
	list, _, _ := strings.Cut(after, "(")
	var documented []string
	for _, m := range regexp.MustCompile("`([a-z-]+)`").FindAllStringSubmatch(list, -1) {
		documented = append(documented, m[1])
	}
	if want := fetchableFormats(); !slices.Equal(documented, want) {
		t.Errorf("docs/feeds.md lists the formats %q; the code has %q", documented, want)
	}
}
