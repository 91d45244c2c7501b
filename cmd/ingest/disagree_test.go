package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// giveResult gives the unplayed match of team1 and team2 of the season
// file at path a full-time score ("2, 2"), as its source does once it is
// played.
func giveResult(t *testing.T, path, team1, team2, score string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	unplayed := fmt.Sprintf("\"team1\": %q,\n      \"team2\": %q,\n      \"score\": {\n      }", team1, team2)
	if !bytes.Contains(b, []byte(unplayed)) {
		t.Fatalf("%s: no unplayed %s v %s to give a result", path, team1, team2)
	}
	b = bytes.Replace(b, []byte(unplayed), []byte(strings.Replace(unplayed, "{\n      }", `{"ft": [`+score+`]}`, 1)), 1)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFeedHandEdit: the README's first edit (a live score typed in) on a
// fixture a feed follows. The edit holds while the source says what it
// said before, the difference is one visible state (`feed show` names the
// fixture and both values of each field, fd_feed_disagreements counts
// them), the file unchanged is still not fetched whole (not_modified,
// nothing logged), and once the source changes that fixture its value
// wins and the disagreement is gone.
func TestFeedHandEdit(t *testing.T) {
	c := newCLI(t)
	path := seasonCopy(t)
	c.ok("feed", "add", "pl", "--format", "openfootball", "--url", "file://"+path, "--every", "1s", "--create-teams")
	stop, admin := c.followAdmin(t, "--lease", "1s", "--holder", "f1", "--feed-files", filepath.Dir(path))
	c.waitOutput(t, `last result:\s+changed`, "feed", "show", "pl")

	id := fixtureOf(t, c, "Burnley", "AFC Bournemouth")
	c.ok("result", id, "--score", "1-0", "--status", "IN_PLAY")
	// Another match of the file is played: the file is read again, the
	// hand-edited fixture with it.
	giveResult(t, path, "Sunderland AFC", "Brighton & Hove Albion FC", "3, 3")
	show := c.waitOutput(t, `disagreements:\s+2\b`, "feed", "show", "pl")
	for _, want := range []string{
		`fixture ` + id + ` \(Burnley FC v AFC Bournemouth, 2026-03-14\) status: the source says TIMED, the stream holds IN_PLAY`,
		`fixture ` + id + ` \(Burnley FC v AFC Bournemouth, 2026-03-14\) score: the source says none, the stream holds 1-0`,
	} {
		if !regexp.MustCompile(want).MatchString(show) {
			t.Errorf("feed show lacks %s:\n%s", want, show)
		}
	}
	if out := c.ok("show", "fixture", id); !strings.Contains(out, `"status": "IN_PLAY"`) {
		t.Errorf("the editor's edit did not hold:\n%s", out)
	}
	if out := c.ok("show", "fixture", fixtureOf(t, c, "Sunderland", "Brighton")); !strings.Contains(out, `"status": "FINISHED"`) {
		t.Errorf("the file's other change was not written:\n%s", out)
	}
	// The file unchanged: not fetched whole again, nothing rejected or
	// logged, the disagreement still shown.
	show = c.waitOutput(t, `last result:\s+not_modified`, "feed", "show", "pl")
	for _, want := range []string{`disagreements:\s+2\b`, `last error:\s+-`} {
		if !regexp.MustCompile(want).MatchString(show) {
			t.Errorf("feed show after the next poll lacks %s:\n%s", want, show)
		}
	}
	if strings.Contains(show, "rejected") {
		t.Errorf("the hand-edited fixture was rejected:\n%s", show)
	}
	waitMetric(t, admin, `fd_feed_disagreements{feed="pl"} 2`)

	// The source plays the match: the later change wins.
	giveResult(t, path, "Burnley FC", "AFC Bournemouth", "2, 2")
	show = c.waitOutput(t, `disagreements:\s+0\b`, "feed", "show", "pl")
	if strings.Contains(show, "fixture "+id) {
		t.Errorf("the disagreement outlived the source's change:\n%s", show)
	}
	if out := c.ok("show", "fixture", id); !strings.Contains(out, `"status": "FINISHED"`) || !strings.Contains(out, `"home": 2`) {
		t.Errorf("the source's change did not win:\n%s", out)
	}
	waitMetric(t, admin, `fd_feed_disagreements{feed="pl"} 0`)
	if _, log := stop(); strings.Contains(log, "WARN") {
		t.Errorf("the follower warned:\n%s", log)
	}
}

// waitMetric waits until the follower's /metrics has line.
func waitMetric(t *testing.T, admin, line string) {
	t.Helper()
	natstest.CheckFor(t, 30*time.Second, 20*time.Millisecond, func() error {
		if _, body := getURL(t, "http://"+admin+"/metrics"); !strings.Contains(body, line+"\n") {
			return fmt.Errorf("/metrics lacks %q", line)
		}
		return nil
	})
}

// TestFeedTwoSources: two feeds of one season in different formats, as
// docs/feeds.md's first example adds them (openfootball's file of the
// Premier League as of 13 March 2026, then football-data.co.uk's of the
// whole season), make one fixture of each match: the second finds the
// first's 380 and writes the results the first does not have yet, and
// no match is there twice.
func TestFeedTwoSources(t *testing.T) {
	c := newCLI(t)
	path := seasonCopy(t)
	csv := natstest.SharedData(t, "datasets-football-datasets", "datasets", "premier-league", "season-2526.csv")
	c.ok("feed", "add", "pl-openfootball", "--format", "openfootball", "--url", "file://"+path, "--every", "1s", "--create-teams")
	c.follow(t, "--lease", "1s", "--holder", "f1", "--admin-listen", "", "--feed-files", filepath.Dir(path)+","+filepath.Dir(csv))
	c.waitOutput(t, `last result:\s+changed`, "feed", "show", "pl-openfootball")
	id := fixtureOf(t, c, "Sunderland", "Brighton")
	if out := c.ok("show", "fixture", id); !strings.Contains(out, `"status": "TIMED"`) {
		t.Fatalf("Sunderland v Brighton before the second source:\n%s", out)
	}
	c.ok("feed", "add", "pl-football-data", "--format", "football-data", "--league", "PL", "--season", "2025", "--url", "file://"+csv, "--every", "1s")
	show := c.waitOutput(t, `last result:\s+(changed|held_back)`, "feed", "show", "pl-football-data")
	t.Logf("%s", show)
	fixtures := 0
	for _, f := range natstest.All[model.Fixture](t, natstest.MustOpen(t, c.srv), events.KindFixture) {
		if strings.Contains(f.Source, ":PL:2025:") {
			fixtures++
		}
	}
	if fixtures != 380 {
		t.Errorf("%d Premier League 2025 fixtures after two sources, want 380", fixtures)
	}
	if out := c.ok("show", "fixture", id); !strings.Contains(out, `"status": "FINISHED"`) {
		t.Errorf("the second source's result did not reach Sunderland v Brighton:\n%s", out)
	}
}
