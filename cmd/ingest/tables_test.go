package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTableInputs: table rules from a file on competition put, and the
// tie-break data (disciplinary points, coefficients) with tiebreak.
func TestTableInputs(t *testing.T) {
	c := newCLI(t)
	setup(t, c)
	dir := t.TempDir()
	write := func(name, body string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	rules := write("rules.json", `{"pointsWin":3,"pointsDraw":1,"tieBreakers":["WINS","GOAL_DIFFERENCE"],"regularMatchdays":30,
		"phases":[{"name":"Champions' play-off","kind":"PLAYOFF","from":1,"to":6,"carry":"HALF_UP"}]}`)
	misspelt := write("misspelt.json", `{"pointsWin":3,"pointsDraw":1,"tieBreakers":[],"phase":[]}`)
	sections := write("sections.json", `{"pointsWin":3,"pointsDraw":1,"tieBreakers":[],"regularMatchdays":3,
		"phases":[{"name":"Top","kind":"SECTION","from":1,"to":2,"carry":"HALF_UP"}]}`)

	for _, tt := range []struct {
		args string
		want []string
	}{
		{"tiebreak --competition 1 --disciplinary 57:4,61:7 --source UEFA", []string{`tiebreakdata 1 created`, `disciplinary.57: 4`, `disciplinary.61: 7`, `source: "UEFA"`}},
		{"tiebreak --competition 1 --coefficients 61,57", []string{`tiebreakdata 1 updated`, `coefficients\[0\]: 61`}},
		{"tiebreak --competition 1 --disciplinary 61:-", []string{`disciplinary.61: 7 → \(none\)`}},
		{"tiebreak --competition 1 --order 61,57 --reason lots --source FIFA", []string{`tiebreak 1 created`, `teamIds\[0\]: 61`, `tiebreakdata 1 updated`, `source: "UEFA" → "FIFA"`}},
		{"competition put --id 1 --rules " + rules, []string{`competition 1 updated`, `rules.phases\[0\].carry: "HALF_UP"`, `rules.regularMatchdays: 30`, `rules.tieBreakers\[0\]: "GOAL_DIFFERENCE" → "WINS"`}},
	} {
		out := c.okf(tt.args)
		for _, w := range tt.want {
			if !regexp.MustCompile(w).MatchString(out) {
				t.Errorf("ingest %s\noutput:\n%s\nwant match for %q", tt.args, out, w)
			}
		}
	}
	// Rules from stdin, on a new competition: the README's Superliga.
	c.okf("league put DSL --name Superliga --country Denmark --zone Europe/Copenhagen")
	c.stdin = `{"pointsWin": 3, "pointsDraw": 1, "tieBreakers": ["GOAL_DIFFERENCE", "GOALS_SCORED", "H2H_POINTS"], "regularMatchdays": 22,
		"phases": [{"name": "Championship round", "kind": "SECTION", "from": 1, "to": 6}, {"name": "Relegation round", "kind": "SECTION", "from": 7, "to": 12}]}`
	if out := c.okf("competition put --league DSL --year 2025 --caption Superliga --matchdays 32 --rules -"); !strings.Contains(out, `rules.phases[1].name: "Relegation round"`) {
		t.Errorf("competition with rules from stdin:\n%s", out)
	}
	c.stdin = ""
	// What was not given stayed: Arsenal's points and the order.
	if out := c.okf("show tiebreakdata 1"); !strings.Contains(out, `"57": 4`) || !strings.Contains(out, `"coefficients": [`) {
		t.Errorf("tie-break data after the edits: %s", out)
	}

	for _, tt := range []struct {
		args string
		code int
		want string
	}{
		{"tiebreak --competition 1", exitInvalid, `want --order and --reason, or --disciplinary, --coefficients or --source`},
		{"tiebreak --competition 1 --disciplinary 62:1", exitInvalid, `teams "62": is not a team of competition 1`},
		{"tiebreak --competition 1 --disciplinary 1x", exitInvalid, `disciplinary "1x": must be TEAM:POINTS`},
		{"tiebreak --competition 1 --disciplinary 57:-4", exitInvalid, `disciplinary "57:-4": points must be a whole number from 0 to 999`},
		{"tiebreak --competition 9 --coefficients 57,61 --source x", exitNotFound, `competition "9": no such competition`},
		{"competition put --id 1 --rules " + misspelt, exitInvalid, `unknown field "phase"`},
		{"competition put --id 1 --rules " + sections, exitInvalid, `phases.Top.carry "HALF_UP": a section keeps every point`},
		{"competition put --id 1 --rules /nonexistent.json", exitInvalid, `rules "/nonexistent.json": cannot be read`},
	} {
		code, _, errOut := c.run(strings.Fields(tt.args)...)
		if code != tt.code || !strings.Contains(errOut, tt.want) || strings.Count(strings.TrimRight(errOut, "\n"), "\n") != 0 {
			t.Errorf("ingest %s: exit %d, stderr %q; want exit %d and one line with %q", tt.args, code, errOut, tt.code, tt.want)
		}
	}
}
