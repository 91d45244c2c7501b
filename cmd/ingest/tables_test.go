package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestTablesCommand(t *testing.T) {
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
		{"tables --competition 1 --disciplinary 1:4,2:7 --source UEFA", []string{`tiebreakdata 1 created`, `disciplinary.1: 4`, `disciplinary.2: 7`, `source: "UEFA"`}},
		{"tables --competition 1 --coefficients 2,1", []string{`tiebreakdata 1 updated`, `coefficients\[0\]: 2`}},
		{"tables --competition 1 --disciplinary 2:-", []string{`disciplinary.2: 7 → \(none\)`}},
		{"tables --competition 1 --rules " + rules, []string{`competition 1 updated`, `rules.phases\[0\].carry: "HALF_UP"`, `rules.regularMatchdays: 30`, `rules.tieBreakers\[0\]: "GOAL_DIFFERENCE" → "WINS"`}},
	} {
		out := c.okf(tt.args)
		for _, w := range tt.want {
			if !regexp.MustCompile(w).MatchString(out) {
				t.Errorf("ingest %s\noutput:\n%s\nwant match for %q", tt.args, out, w)
			}
		}
	}
	// What was not given stayed: team 1's points and the order.
	if out := c.okf("show tiebreakdata 1"); !strings.Contains(out, `"1": 4`) || !strings.Contains(out, `"coefficients": [`) {
		t.Errorf("tie-break data after the edits: %s", out)
	}

	for _, tt := range []struct {
		args string
		code int
		want string
	}{
		{"tables --competition 1", exitInvalid, `want --rules, --disciplinary, --coefficients or --source`},
		{"tables --competition 1 --disciplinary 3:1", exitInvalid, `teams "3": is not a team of competition 1`},
		{"tables --competition 1 --disciplinary 1x", exitInvalid, `disciplinary "1x": must be TEAM:POINTS`},
		{"tables --competition 1 --disciplinary 1:-4", exitInvalid, `disciplinary "1:-4": points must be from 0 to 999`},
		{"tables --competition 9 --coefficients 1,2 --source x", exitNotFound, `competition "9": no such competition`},
		{"tables --competition 1 --rules " + misspelt, exitInvalid, `unknown field "phase"`},
		{"tables --competition 1 --rules " + sections, exitInvalid, `phases.Top.carry "HALF_UP": a section keeps every point`},
		{"tables --competition 1 --rules /nonexistent.json", exitInvalid, `rules "/nonexistent.json": cannot be read`},
	} {
		code, _, errOut := c.run(strings.Fields(tt.args)...)
		if code != tt.code || !strings.Contains(errOut, tt.want) || strings.Count(strings.TrimRight(errOut, "\n"), "\n") != 0 {
			t.Errorf("ingest %s: exit %d, stderr %q; want exit %d and one line with %q", tt.args, code, errOut, tt.code, tt.want)
		}
	}
}
