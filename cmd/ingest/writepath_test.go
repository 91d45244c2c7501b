package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// refused runs a command that must be refused with code and one line on
// stderr matching want.
func (c *cli) refused(code int, want string, args ...string) {
	c.t.Helper()
	got, out, errOut := c.run(args...)
	if got != code {
		c.t.Errorf("ingest %.80q: exit %d, want %d (stderr %q)", strings.Join(args, " "), got, code, errOut)
	}
	if !regexp.MustCompile(want).MatchString(errOut) {
		c.t.Errorf("ingest %.80q: stderr %q, want a match for %q", strings.Join(args, " "), errOut, want)
	}
	if strings.Count(strings.TrimRight(errOut, "\n"), "\n") != 0 || len(errOut) > 400 {
		c.t.Errorf("ingest %.80q: want one short line, got %d bytes: %.200q", strings.Join(args, " "), len(errOut), errOut)
	}
	if regexp.MustCompile(`(?m)^\S+ \S+ (created|updated)`).MatchString(out) {
		c.t.Errorf("ingest %.80q: refused command reported a change: %q", strings.Join(args, " "), out)
	}
}

// counters reads every id counter.
func (c *cli) counters() map[string]string {
	c.t.Helper()
	s := natstest.MustOpen(c.t, c.srv)
	out := map[string]string{}
	err := s.Scan(context.Background(), events.All(events.KindSequence), func(ev events.Event) error {
		out[ev.Subject] = string(ev.Data)
		return nil
	})
	if err != nil {
		c.t.Fatal(err)
	}
	return out
}

// TestIDsBeyondTheReadModelAreRefused: an id the read model cannot hold
// (above 2^31-1) is refused where it is made, naming field and value, and
// the counters do not move.
func TestIDsBeyondTheReadModelAreRefused(t *testing.T) {
	c := newCLI(t)
	setup(t, c)
	before := c.counters()
	c.refused(exitInvalid, `id "2147483648": must be a whole number from 1 to 2147483647`,
		"competition", "put", "--id", "2147483648", "--league", "PD", "--year", "2025", "--caption", "X")
	c.refused(exitInvalid, `id "2147483648": must be a whole number from 1 to 2147483647`, "team", "put", "--id", "2147483648", "--name", "Y")
	c.refused(exitInvalid, `id "99999999999999999999": must be a positive whole number`, "team", "put", "--id", "99999999999999999999", "--name", "Y")
	if after := c.counters(); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("counters moved: %v → %v", before, after)
	}
	// The next ordinary creation gets the next ordinary id: ids 1 to 1836
	// are the historic service's, so a new club gets 1837.
	if out := c.ok("team", "put", "--name", "Fulham United"); !strings.Contains(out, "team 1837 created") {
		t.Errorf("after the refusals: %s", out)
	}
}

// TestValidateBeforeReserving: refused edits take no id, so ids have no
// gaps and an adjustment shown as created exists.
func TestValidateBeforeReserving(t *testing.T) {
	c := newCLI(t)
	setup(t, c)
	before := c.counters()
	refusals := []struct {
		want string
		args string
	}{
		{`matchday "0": must be from 1 to 99`, "fixture put --competition 1 --matchday 0 --home 57 --away 61 --kickoff 2025-08-16T14:00:00Z"},
		{`awayTeam "57": must differ from the home team`, "fixture put --competition 1 --matchday 1 --home 57 --away 57 --kickoff 2025-08-16T14:00:00Z"},
		{`points "99999999999": a deduction must be from -99 to 99 points`, "deduct --competition 1 --team 57 --points 99999999999 --reason x"},
		{`team "62": is not a team of competition 1`, "deduct --competition 1 --team 62 --points 3 --reason x"},
		{`name: must not be empty`, "team put --short-name Nobody"},
		{`caption: must not be empty`, "competition put --league PD --year 2025"},
		{`zone "Mars/Olympus": must be an IANA time zone`, "league put ZZ --name Z --zone Mars/Olympus"},
	}
	for _, r := range refusals {
		c.refused(exitInvalid, r.want, strings.Fields(r.args)...)
	}
	if after := c.counters(); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("refused edits moved the counters: %v → %v", before, after)
	}
	c.okf("deduct --competition 1 --team 57 --points 3 --reason administration")
	if out := c.okf("deduct --id 1 --points 0"); !strings.Contains(out, "adjustment 1/1 updated") {
		t.Errorf("the first adjustment is not id 1: %s", out)
	}
}

// TestResultsThatCannotHappenAreRefused: each rule named, nothing stored.
func TestResultsThatCannotHappenAreRefused(t *testing.T) {
	c := newCLI(t)
	setup(t, c)
	c.okf("fixture put --competition 1 --matchday 1 --home 57 --away 61 --kickoff 2025-08-16T14:00:00Z")
	c.refused(exitInvalid, `half-time "4-0": cannot exceed the full-time score 3-2`, "result", "1", "--score", "3-2", "--half-time", "4-0")
	c.refused(exitInvalid, `extra-time "1-1": .*only knock-out`, "result", "1", "--score", "2-1", "--extra-time", "1-1")
	c.refused(exitInvalid, `extra-time "2-1": only knock-out`, "result", "1", "--score", "1-1", "--extra-time", "2-1", "--penalties", "4-3")
	c.okf("fixture put --competition 1 --matchday 39 --stage PLAYOFF --home 57 --away 61 --kickoff 2026-05-20T14:00:00Z")
	c.refused(exitInvalid, `extra-time "1-1": is the score after extra time and cannot be below the full-time score 2-1`, "result", "2", "--score", "2-1", "--extra-time", "1-1")
	c.refused(exitInvalid, `penalties "4-3": a shoot-out follows a level match, not 2-1`, "result", "2", "--score", "1-1", "--extra-time", "2-1", "--penalties", "4-3")
	c.okf("result 2 --score 1-1 --extra-time 2-2 --penalties 4-3")
	if out := c.okf("show fixture 1"); strings.Contains(out, "fullTime") {
		t.Errorf("a refused result was stored: %s", out)
	}
	// An awarded winner needs no goals.
	c.okf("result 1 --awarded away")
}

// TestTextBoundsAreRefused: text has bounds and no control characters,
// URLs are absolute http(s); each refusal is one short line.
func TestTextBoundsAreRefused(t *testing.T) {
	c := newCLI(t)
	c.refused(exitInvalid, `name "a{40}…": is 100001 characters long; at most 100`, "team", "put", "--name", strings.Repeat("a", 100_001))
	c.refused(exitInvalid, `name .*control, formatting or invisible characters \(found U\+0000\)`, "team", "put", "--name", "Arse\x00nal")
	c.refused(exitInvalid, `name .*\(found U\+202E\)`, "team", "put", "--name", "Arsenal\u202elanesrA")
	c.refused(exitInvalid, `crestUrl "notaurl": must be an absolute http or https URL`, "team", "put", "--name", "Arsenal", "--crest", "notaurl")
	c.refused(exitInvalid, `crestUrl "javascript:alert\(1\)": must be an absolute http or https URL`, "team", "put", "--name", "Arsenal", "--crest", "javascript:alert(1)")
	if out := c.okf("team put --name Arsenal --crest https://example.org/a.svg"); !strings.Contains(out, "team 57 created") {
		t.Errorf("after the refusals: %s", out)
	}
}

// TestBadImportFiles: a file that is not the format is exit 2 with one
// line naming the file (once) and what is wrong.
func TestBadImportFiles(t *testing.T) {
	c := newCLI(t)
	dir := filepath.Join(t.TempDir(), "2015-16")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	real, err := os.ReadFile(natstest.SharedData(t, "openfootball-football-json", "2015-16", "en.1.json"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]struct {
		body []byte
		want string
	}{
		"truncated":  {real[:len(real)/2], `not openfootball JSON: unexpected end of JSON input`},
		"empty":      {nil, `not openfootball JSON: unexpected end of JSON input`},
		"binary":     {[]byte{0x7f, 'E', 'L', 'F', 0, 1, 2, 3}, `not openfootball JSON: invalid character .* \(line 1\)`},
		"garbage":    {[]byte("{\"name\": \"x\",\n  matches: []}"), `not openfootball JSON: invalid character 'm' .* \(line 2\)`},
		"no matches": {[]byte(`{"name":"x","matches":[]}`), `not openfootball JSON: the file has no matches`},
	}
	for name, f := range files {
		path := filepath.Join(dir, "en.1.json")
		if err := os.WriteFile(path, f.body, 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errOut := c.run("import", "openfootball", path)
		if code != exitInvalid || !regexp.MustCompile(f.want).MatchString(errOut) || strings.Count(errOut, path) != 1 ||
			strings.Count(strings.TrimRight(errOut, "\n"), "\n") != 0 {
			t.Errorf("%s file: exit %d, stderr %q; want exit 2 and one line naming %s once and matching %q", name, code, errOut, path, f.want)
		}
	}
	code, _, errOut := c.run("import", "engsoccerdata", filepath.Join(dir, "en.1.json"))
	if code != exitInvalid || !strings.Contains(errOut, "not an engsoccerdata match file") {
		t.Errorf("engsoccerdata of a JSON file: exit %d, %q", code, errOut)
	}
}

// TestRejectionsAreGrouped: rows refused for one reason are one group with
// a count and the first few examples; --verbose lists them all.
func TestRejectionsAreGrouped(t *testing.T) {
	c := newCLI(t)
	file := natstest.SharedData(t, "engsoccerdata", "data-raw", "england_nonleague.csv")
	code, out, errOut := c.run("import", "engsoccerdata", "--from", "1990", "--to", "1990", file)
	if code != exitInvalid || !strings.Contains(errOut, "grouped above; everything else was imported") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	m := regexp.MustCompile(`(?m)^rejected (\d+): date: the match has no date$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no group for dateless rows in:\n%.2000s", out)
	}
	if lines := strings.Count(out, "\n"); lines > 30 {
		t.Errorf("%d lines of output for %s rejections: want them grouped", lines, m[1])
	}
	if !strings.Contains(out, "more (--verbose lists them all)") {
		t.Errorf("no pointer to --verbose:\n%s", out)
	}
	_, verbose, _ := c.run("import", "engsoccerdata", "--verbose", "--from", "1990", "--to", "1990", file)
	if n := strings.Count(verbose, "the match has no date"); fmt.Sprint(n-1) != m[1] {
		t.Errorf("--verbose lists %d dateless rows, the group counts %s", n-1, m[1])
	}
}

// TestStatusMovesFollowOneRule: `status` walks the chain of allowed moves
// as `result` does.
func TestStatusMovesFollowOneRule(t *testing.T) {
	c := newCLI(t)
	setup(t, c)
	c.okf("fixture put --competition 1 --matchday 1 --home 57 --away 61 --kickoff 2025-08-16T14:00:00Z")
	c.okf("status 1 postpone")
	if out := c.okf("status 1 kick-off"); !strings.Contains(out, `status: "POSTPONED" → "IN_PLAY"`) {
		t.Errorf("kick-off of a postponed fixture: %s", out)
	}
	if out := c.okf("history fixture 1"); !regexp.MustCompile(`(?s)"POSTPONED" → "TIMED".*"TIMED" → "IN_PLAY"`).MatchString(out) {
		t.Errorf("history does not show the chain POSTPONED → TIMED → IN_PLAY:\n%s", out)
	}
}

// TestConcurrentImportersEndWithEveryEntityOnce runs three importers of
// the same season at once on an empty stream: all exit 0, and every
// competition, fixture and team is there exactly once.
func TestConcurrentImportersEndWithEveryEntityOnce(t *testing.T) {
	c := newCLI(t)
	files := natstest.Season(t, "2015-16")
	args := append([]string{"import", "openfootball"}, files...)
	var wg sync.WaitGroup
	type result struct {
		code        int
		out, errOut string
	}
	results := make([]result, 3)
	for i := range results {
		wg.Go(func() {
			code, out, errOut := c.run(args...)
			results[i] = result{code, out, errOut}
		})
	}
	wg.Wait()
	for i, r := range results {
		if r.code != exitOK {
			t.Errorf("importer %d: exit %d\n%s\n%s", i, r.code, r.out, r.errOut)
		}
	}
	s := natstest.MustOpen(t, c.srv)
	comps := natstest.All[model.Competition](t, s, events.KindCompetition)
	if len(comps) != len(files) {
		t.Errorf("%d competitions from %d files", len(comps), len(files))
	}
	keys := map[string]int{}
	for _, comp := range comps {
		keys[comp.Key()]++
	}
	for k, n := range keys {
		if n != 1 {
			t.Errorf("competition %s stored %d times", k, n)
		}
	}
	fixtures := natstest.All[model.Fixture](t, s, events.KindFixture)
	sources := map[string]int{}
	for _, f := range fixtures {
		sources[f.Source]++
	}
	want := 0
	for _, f := range files {
		want += natstest.CountMatches(t, f)
	}
	if len(fixtures) != want || len(sources) != want {
		t.Errorf("%d fixtures with %d distinct sources, want %d", len(fixtures), len(sources), want)
	}
	teams := natstest.All[model.Team](t, s, events.KindTeam)
	names := map[string]int{}
	for _, tm := range teams {
		names[model.NormalizeTeamName(tm.Name)]++
	}
	for n, k := range names {
		if k != 1 {
			t.Errorf("team %q stored %d times", n, k)
		}
	}
	// The teams of a competition are its files' teams: none of another
	// importer's spare ids.
	for _, comp := range comps {
		for _, tm := range comp.Teams {
			if _, ok := teams[events.Subject(events.KindTeam, fmt.Sprint(tm.TeamID))]; !ok {
				t.Errorf("%s lists team %d, which does not exist", comp.Key(), tm.TeamID)
			}
		}
	}
}
