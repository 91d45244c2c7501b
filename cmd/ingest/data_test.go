package main

import (
	"encoding/json"
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

// season writes an openfootball file of a made-up league season, in a
// 2025-26 folder, from match lines.
func season(t *testing.T, matches ...map[string]any) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "2025-26")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(map[string]any{"name": "Test League 2025/26", "matches": matches})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "en.1.json")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func match(round, date, home, away string, ft ...int) map[string]any {
	m := map[string]any{"round": round, "date": date, "time": "15:00", "team1": home, "team2": away, "score": map[string]any{}}
	if len(ft) == 2 {
		m["score"] = map[string]any{"ft": ft}
	}
	return m
}

// TestImportWarnsOfSuspiciousData: each kind of suspicious line is warned
// of in its group, with a count and examples; --strict refuses the file
// and imports nothing of it.
func TestImportWarnsOfSuspiciousData(t *testing.T) {
	path := season(t,
		match("Matchday 1", "2025-08-16", "Bolton Wanderers", "Wigan Athletic", 1, 0),
		match("Matchday 1", "2025-08-16", "Bolton Wanderers", "Wigan Athletic", 1, 0), // identical
		match("Matchday 2", "2025-08-23", "Wigan Athletic", "Bolton Wanderers", 2, 2),
		match("Matchday 3", "2025-08-30", "Bolton Wanderers", "Wigan Athletic", 0, 0),
		match("Matchday 4", "2025-09-06", "Wigan Athletic", "Bolton Wanderers", 3, 1),
		match("Matchday 5", "2025-09-13", "Bolton Wanderers", "Wigan Athletic", 1, 1),
		match("Matchday 6", "2025-09-20", "Wigan Athletic", "Bolton", 0, 1),       // a short spelling
		match("Matchday 7", "2025-01-10", "Bolton Wanderers", "Wigan Athletic"),   // dated a year early
		match("Matchday 8", "2025-10-04", "Wigan Athletic", "Bolton Wanderers"),   // past, no result
		match("Matchday 9", "2025-10-04", "Bolton Wanderers", "Stockport County"), // Bolton twice that day
	)
	want := []string{
		`warning 1: a team name seen in a few matches beside a similar one.*\n  .*"Bolton" in 1 matches, "Bolton Wanderers" in \d+`,
		`warning 1: identical fixture lines: imported once\n  .*line 2 repeats Bolton Wanderers v Wigan Athletic`,
		`warning 1: matches dated outside the season\n  .*1 matches between 2025-01-10 and 2025-01-10`,
		`warning \d: a team playing twice on one day\n  .*Bolton Wanderers on 2025-10-04`,
		`warning 1: past fixtures without a result.*\n  .*3 matches before 2025-12-10 have none`,
		`warning 1: teams with unequal numbers of regular matches`,
	}
	c := newCLI(t)
	code, out, errOut := c.run("import", "openfootball", "--strict", "--now", "2025-12-13T12:00:00Z", path)
	if code != exitInvalid || !strings.Contains(errOut, "--strict makes them errors") {
		t.Errorf("--strict: exit %d, stderr %q", code, errOut)
	}
	for _, w := range want {
		if !regexp.MustCompile(w).MatchString(out) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	s := natstest.MustOpen(t, c.srv)
	if n := len(natstest.All[model.Fixture](t, s, events.KindFixture)); n != 0 {
		t.Errorf("--strict imported %d fixtures of a file with warnings", n)
	}
	code, out, errOut = c.run("import", "openfootball", "--now", "2025-12-13T12:00:00Z", path)
	if code != exitOK || !strings.Contains(out, "warning 1: identical fixture lines") {
		t.Fatalf("without --strict: exit %d\n%s%s", code, out, errOut)
	}
	if n := len(natstest.All[model.Fixture](t, s, events.KindFixture)); n != 9 {
		t.Errorf("%d fixtures imported, want the 9 distinct lines", n)
	}
}

// TestDemoData: the demo season with its aliases has 24 League One teams,
// 552 League Two games, and League One dated within its season.
func TestDemoData(t *testing.T) {
	c := newCLI(t)
	files, err := filepath.Glob("../../demo/2025-26/en.[34].json")
	if err != nil || len(files) != 2 {
		t.Fatalf("demo files %v %v", files, err)
	}
	out := c.ok(append([]string{"import", "openfootball", "--aliases", "../../demo/aliases.csv", "--now", "2026-03-13T12:00:00Z"}, files...)...)
	for _, kind := range []string{"a team name seen in a few matches", "matches dated outside the season", "unequal numbers of regular matches"} {
		if strings.Contains(out, kind) {
			t.Errorf("the demo's League One and Two still draw the warning %q:\n%s", kind, out)
		}
	}
	if !strings.Contains(out, "warning 12: identical fixture lines: imported once") {
		t.Errorf("League Two's repeated round is not warned of:\n%s", out)
	}
	s := natstest.MustOpen(t, c.srv)
	comps := map[model.LeagueCode]model.Competition{}
	for _, comp := range natstest.All[model.Competition](t, s, events.KindCompetition) {
		comps[comp.League] = comp
	}
	if n := len(comps["EL1"].Teams); n != 24 {
		t.Errorf("League One has %d teams, want 24", n)
	}
	games := map[int]int{}
	for _, f := range natstest.All[model.Fixture](t, s, events.KindFixture) {
		games[f.CompetitionID]++
		if f.CompetitionID == comps["EL1"].ID && f.Kickoff.Before(time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("League One fixture %d dated %s", f.ID, f.Kickoff)
		}
	}
	if n := games[comps["EL2"].ID]; n != 552 {
		t.Errorf("League Two has %d games, want 552", n)
	}
	// The aliases are spellings of the teams for the next import.
	if out := c.okf("show teamname Bolton"); !strings.Contains(out, fmt.Sprintf(`"teamId": %d`, teamID(t, s, "Bolton Wanderers"))) {
		t.Errorf("Bolton is not a spelling of Bolton Wanderers: %s", out)
	}
}

func teamID(t *testing.T, s *events.Store, name string) int {
	t.Helper()
	for _, tm := range natstest.All[model.Team](t, s, events.KindTeam) {
		if tm.Name == name {
			return tm.ID
		}
	}
	t.Fatalf("no team %q", name)
	return 0
}

// TestDateOnlyKickoff: a match with a date and no time is SCHEDULED on its
// own calendar day, not on the day before in UTC.
func TestDateOnlyKickoff(t *testing.T) {
	c := newCLI(t)
	m := match("Matchday 1", "2026-02-21", "Arsenal", "Chelsea")
	delete(m, "time")
	path := season(t, m, match("Matchday 2", "2026-02-28", "Chelsea", "Arsenal"))
	c.ok("import", "openfootball", path)
	s := natstest.MustOpen(t, c.srv)
	for _, f := range natstest.All[model.Fixture](t, s, events.KindFixture) {
		if f.Matchday != 1 {
			continue
		}
		if !f.Kickoff.Equal(time.Date(2026, 2, 21, 0, 0, 0, 0, time.UTC)) || f.Status != model.Scheduled {
			t.Errorf("date-only fixture: %s %s, want 2026-02-21T00:00:00Z SCHEDULED", f.Kickoff, f.Status)
		}
	}
}

// TestTeamMerge folds a short spelling League One used into its club
// (one the historic id table does not know, so the import made two
// teams): every fixture names the club, the spelling finds the club, the
// history says who merged and why, and two teams that met cannot be
// merged.
func TestTeamMerge(t *testing.T) {
	c := newCLI(t)
	c.ok("import", "openfootball", "../../demo/2025-26/en.3.json")
	s := natstest.MustOpen(t, c.srv)
	stockport, county := teamID(t, s, "Stockport"), teamID(t, s, "Stockport County")
	c.refused(exitInvalid, `reason: must not be empty`, "team", "merge", "--from", fmt.Sprint(stockport), "--into", fmt.Sprint(county))
	comp := natstest.All[model.Competition](t, s, events.KindCompetition)
	var compID int
	for _, cp := range comp {
		compID = cp.ID
	}
	c.ok("tiebreak", "--competition", fmt.Sprint(compID), "--disciplinary", fmt.Sprintf("%d:4", stockport),
		"--coefficients", fmt.Sprintf("%d,%d", stockport, teamID(t, s, "Luton Town")), "--source", "test")
	c.ok("person", "put", "--name", "Paddy Madden", "--team", fmt.Sprint(stockport))
	out := c.ok("team", "merge", "--from", fmt.Sprint(stockport), "--into", fmt.Sprint(county), "--reason", "one club", "--editor", "ann")
	if !regexp.MustCompile(`team \d+ merged into team \d+: \d+ change\(s\)`).MatchString(out) {
		t.Errorf("merge output:\n%s", out)
	}
	for _, f := range natstest.All[model.Fixture](t, s, events.KindFixture) {
		if f.HomeTeamID == stockport || f.AwayTeamID == stockport {
			t.Errorf("fixture %d still names the duplicate", f.ID)
		}
	}
	for _, cp := range natstest.All[model.Competition](t, s, events.KindCompetition) {
		if cp.HasTeam(stockport) || !cp.HasTeam(county) || len(cp.Teams) != 26 {
			t.Errorf("competition teams after the merge: %d, %+v", len(cp.Teams), cp.Teams)
		}
	}
	if out := c.okf(fmt.Sprintf("show tiebreakdata %d", compID)); !strings.Contains(out, fmt.Sprintf(`"%d": 4`, county)) ||
		!strings.Contains(out, fmt.Sprintf("[\n    %d,", county)) {
		t.Errorf("tie-break data after the merge: %s", out)
	}
	if out := c.okf(fmt.Sprintf("show tiebreakdata %d", compID)); !strings.Contains(out, fmt.Sprintf(`"%d": 4`, county)) ||
		!strings.Contains(out, fmt.Sprintf("[\n    %d,", county)) {
		t.Errorf("tie-break data after the merge: %s", out)
	}
	for _, p := range natstest.All[model.Person](t, s, events.KindPerson) {
		if p.TeamID != county {
			t.Errorf("person after the merge: %+v, want team %d", p, county)
		}
	}
	if out := c.okf("show teamname Stockport"); !strings.Contains(out, fmt.Sprintf(`"teamId": %d`, county)) {
		t.Errorf("the duplicate's spelling: %s", out)
	}
	if out := c.okf("history team " + fmt.Sprint(stockport)); !strings.Contains(out, fmt.Sprintf("ann  (ingest team merge %d into %d: one club)", stockport, county)) {
		t.Errorf("history of the duplicate:\n%s", out)
	}
	// Merging again changes nothing.
	if out := c.ok("team", "merge", "--from", fmt.Sprint(stockport), "--into", fmt.Sprint(county), "--reason", "one club"); !strings.Contains(out, ": 0 change(s)") {
		t.Errorf("second merge:\n%s", out)
	}
	// Two teams that met are not one.
	c.refused(exitInvalid, `played team \d+ in fixture \d+: they are two teams`, "team", "merge",
		"--from", fmt.Sprint(teamID(t, s, "Luton Town")), "--into", fmt.Sprint(county), "--reason", "x")
}
