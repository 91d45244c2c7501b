package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/footdata/footballd/internal/natstest"
)

// notDryRun are the documented commands the dry-run comparison leaves
// out, and why.
var notDryRun = map[string]string{
	"follow":   "runs until stopped; --dry-run is refused, naming a scratch stream instead",
	"stream":   "operators' commands: TestStreamInit and TestOperatorCommandsNeedAdmin",
	"backup":   "changes nothing on the server; --dry-run is refused, naming stream info",
	"restore":  "its own dry run, checked on a scratch server: TestRestore",
	"passwd":   "touches no server",
	"generate": "a million fixtures",
}

// documentedCommands are the examples of docs/ingest.md's table of
// commands: every `ingest …` of its example column, as words.
func documentedCommands(t *testing.T) [][]string {
	t.Helper()
	raw, err := os.ReadFile("../../docs/ingest.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, _ := strings.Cut(string(raw), "| command | example |")
	table, _, _ = strings.Cut(table, "\n\n")
	var out [][]string
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(line, " | ")
		if len(cells) < 2 {
			continue
		}
		for _, m := range regexp.MustCompile("`(ingest [^`]+)`").FindAllStringSubmatch(cells[1], -1) {
			out = append(out, shellWords(m[1]))
		}
	}
	if len(out) < 30 {
		t.Fatalf("docs/ingest.md: %d commands found in the table, want its thirty-odd", len(out))
	}
	return out
}

// dryRunWorld makes what the documented examples refer to: teams 1 to 8,
// 88 and 471, competition 1 (1 to 5 and 471 in it, 88 not), fixture 7 and a fixture
// of 471, a person 12, the client acme; and the files they read, in the
// working directory.
func dryRunWorld(t *testing.T, c *cli) {
	t.Helper()
	for _, id := range []string{"1", "2", "3", "4", "5", "6", "7", "8", "88", "471"} {
		c.ok("team", "put", "--id", id, "--name", "Team "+id)
	}
	c.ok("competition", "put", "--id", "1", "--league", "PL", "--year", "2025", "--caption", "Premier League 2025/26",
		"--matchdays", "38", "--teams", "1,2,3,4,5,471")
	c.ok("fixture", "put", "--id", "7", "--competition", "1", "--matchday", "1", "--home", "1", "--away", "2", "--kickoff", "2025-08-16T14:00:00Z")
	c.ok("fixture", "put", "--competition", "1", "--matchday", "1", "--home", "471", "--away", "3", "--kickoff", "2025-08-16T14:00:00Z")
	c.ok("person", "put", "--id", "12", "--name", "Thorgan Hazard")
	files := map[string]string{
		"rules.json": `{"pointsWin": 3, "pointsDraw": 1, "tieBreakers": ["GOAL_DIFFERENCE", "GOALS_SCORED", "H2H_POINTS"]}`,
		"squad.csv":  "name,position,jerseyNumber,dateOfBirth,nationality,contractUntil,marketValue\nBukayo Saka,Offence,7,2001-09-05,England,2027-06-30,140000000\n",
	}
	for name, text := range files {
		if err := os.WriteFile(name, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDocsDryRun runs each command of docs/ingest.md's table with
// --dry-run and then without, one after the other, in a world where each
// has something to act on: the dry run says what the real run then does
// (the same entities created, updated or unchanged, field by field), or
// refuses it the same way.
func TestDocsDryRun(t *testing.T) {
	c := newCLI(t)
	shared := natstest.SharedData(t)
	commands := documentedCommands(t)
	t.Chdir(t.TempDir())
	dryRunWorld(t, c)
	// What differs by design: the revision a real run wrote; the time
	// and the token of each run; the token shown once, which a dry run
	// does not issue.
	revision := regexp.MustCompile(` \(revision \d+\)`)
	varies := regexp.MustCompile(`"\d{4}-\d\d-\d\dT[^"]+"|tokenHash: "[0-9a-f]+"`)
	tokenShown := regexp.MustCompile(`(?m)^(token: .*|\(shown once.*|dry run: no token issued)\n`)
	same := func(out string) string {
		out = strings.ReplaceAll(out, "dry run, nothing published; would have ", "")
		out = revision.ReplaceAllString(strings.ReplaceAll(out, "would be ", ""), "")
		return tokenShown.ReplaceAllString(varies.ReplaceAllString(out, "…"), "")
	}
	for _, words := range commands {
		args := words[1:]
		if why, ok := notDryRun[args[0]]; ok {
			t.Logf("%s: not compared: %s", strings.Join(words, " "), why)
			continue
		}
		if testing.Short() && len(args) > 1 && args[1] == "engsoccerdata" {
			// Ten seasons, twice: most of the test's time.
			t.Logf("%s: not compared under -short", strings.Join(words, " "))
			continue
		}
		args = expandShared(t, shared, args)
		name := strings.Join(words, " ")
		dryCode, dryOut, dryErr := c.run(append([]string{"--dry-run"}, args...)...)
		code, out, errOut := c.run(args...)
		switch {
		case dryCode != code:
			t.Errorf("%s: exit %d with --dry-run, %d without\ndry run: %s%s\nreal run: %s%s", name, dryCode, code, dryOut, dryErr, out, errOut)
		case code != exitOK && dryErr != errOut:
			t.Errorf("%s: refused with --dry-run as\n%s  and without as\n%s", name, dryErr, errOut)
		case code == exitOK && same(dryOut) != same(out):
			t.Errorf("%s: the dry run says\n%s\nthe real run\n%s", name, dryOut, out)
		case code != exitOK:
			t.Logf("%s: refused alike: %s", name, strings.TrimSpace(errOut))
		}
	}
}

// expandShared reads a documented path of ../shared/data as the test's
// copy, its wildcards expanded as the shell would.
func expandShared(t *testing.T, shared string, args []string) []string {
	t.Helper()
	var out []string
	for _, a := range args {
		rest, ok := strings.CutPrefix(a, "../shared/data/")
		if !ok {
			out = append(out, a)
			continue
		}
		matches, err := filepath.Glob(filepath.Join(shared, rest))
		if err != nil || len(matches) == 0 {
			t.Fatalf("%s: no such file in %s", a, shared)
		}
		out = append(out, matches...)
	}
	return out
}
