package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/footdata/footballd/internal/natstest"
)

const dataDir = "../../../shared/data/openfootball-football-json"

// setup creates three teams, Arsenal, Chelsea and Everton (their historic
// v1 ids 57, 61 and 62), and competition 1 with Arsenal and Chelsea.
func setup(t *testing.T, c *cli) {
	t.Helper()
	c.okf("team put --name Arsenal --short-name Arsenal --code ARS")
	c.okf("team put --name Chelsea")
	c.okf("team put --name Everton")
	c.okf("competition put --league PL --year 2025 --caption Premier_League_2025/26 --matchdays 38 --teams 57,61")
}

func (c *cli) okf(line string) string {
	c.t.Helper()
	return c.ok(strings.Fields(line)...)
}

func TestCommandsHappyPath(t *testing.T) {
	c := newCLI(t)
	c.okf("team put --name Arsenal --short-name Arsenal --code ARS")
	c.okf("team put --name Chelsea")
	c.okf("team put --name Everton")
	tests := []struct {
		args string
		want []string // regular expressions the output must match
	}{
		{"league put ABL --name Bundesliga --country Austria --zone Europe/Vienna", []string{`league ABL created`}},
		{"competition put --league PL --year 2025 --caption PL-2025 --matchdays 38 --teams 57,61", []string{`competition 1 created`, `rules.pointsWin: 3`, `teams\[1\].teamId: 61`}},
		{"competition put --id 1 --tier registered", []string{`competition 1 updated`, `tier: "anonymous" → "registered"`}},
		{"competition put --id 1 --tier registered", []string{`competition 1 unchanged`}},
		{"fixture put --competition 1 --matchday 1 --home 57 --away 61 --kickoff 2025-08-16T14:00:00Z", []string{`fixture 1/1 created`, `status: "TIMED"`}},
		{"status 1 kick-off", []string{`fixture 1/1 updated`, `status: "TIMED" → "IN_PLAY"`, `result.fullTime.home: 0`}},
		{"result 1 --score 1-0 --status IN_PLAY", []string{`result.fullTime.home: 0 → 1`}},
		{"result 1 --score 2-1 --half-time 1-0", []string{`status: "IN_PLAY" → "FINISHED"`, `result.halfTime.home: 1`}},
		{"result 1 --score 2-1 --awarded away", []string{`awarded: "AWAY_TEAM"`}},
		{"fixture put --id 1 --odds 1.5,4.2,6.0", []string{`odds.homeWin: 1.5`}},
		{"deduct --competition 1 --team 61 --points 3 --reason administration", []string{`adjustment 1/1 created`, `points: -3`}},
		{"deduct --id 1 --points 0", []string{`adjustment 1/1 updated`, `points: -3 → 0`}},
		{"tiebreak --competition 1 --order 61,57 --reason lots", []string{`tiebreak 1 created`, `teamIds\[0\]: 61`}},
		{"team alias --team 57 Arsenal_London", []string{`teamname arsenal_london created`}},
		{"team put --id 62 --crest https://example.org/everton.svg", []string{`team 62 updated`, `crestUrl: "https://example.org/everton.svg"`}},
		{"show fixture 1", []string{`"awarded": "AWAY_TEAM"`, `by tester`}},
		{"history fixture 1", []string{`(?s)revision \d+.*revision \d+.*status: "IN_PLAY" → "FINISHED"`}},
		{"client add acme --tier donating --per-minute 120", []string{`client acme created`, `token: [a-z1-9]{32}\n`}},
		{"client list", []string{`acme\s+donating\s+120\s+0\s+active`}},
		{"client revoke acme", []string{`revoked: true`}},
		{"client list", []string{`acme\s+donating\s+120\s+0\s+revoked`}},
		{"--dry-run fixture put --competition 1 --matchday 2 --home 61 --away 57 --kickoff 2025-08-23T14:00:00Z", []string{`fixture 1/2 would be created`}},
		{"fixture put --competition 1 --matchday 2 --home 61 --away 57 --kickoff 2025-08-23T14:00:00Z", []string{`fixture 1/2 created`}},
		// A result entered after the match passes through IN_PLAY.
		{"result 2 --score 3-0", []string{`fixture 1/2 updated`, `status: "TIMED" → "FINISHED"`}},
		{"history fixture 2", []string{`(?s)status: "TIMED" → "IN_PLAY".*status: "IN_PLAY" → "FINISHED"`}},
	}
	for _, tt := range tests {
		out := c.okf(tt.args)
		for _, w := range tt.want {
			if !regexp.MustCompile(w).MatchString(out) {
				t.Errorf("ingest %s\noutput:\n%s\nwant match for %q", tt.args, out, w)
			}
		}
	}
	// The dry run published nothing: the real create got the id it showed.
	if out := c.okf("show fixture 2"); !strings.Contains(out, `"matchday": 2`) {
		t.Errorf("fixture 2 after the real create: %s", out)
	}
}

func TestSquadPut(t *testing.T) {
	c := newCLI(t)
	c.okf("team put --name Arsenal")
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "squad.csv")
	os.WriteFile(csvPath, []byte("name,position,jerseyNumber,dateOfBirth,nationality\nDavid Raya,Keeper,22,1995-09-15,Spain\nBukayo Saka,Right Winger,7,2001-09-05,England\n"), 0o644)
	out := c.okf("squad put --team 57 " + csvPath)
	for _, w := range []string{"squad 57 created", `players[0].name: "David Raya"`, `players[1].jerseyNumber: 7`, `players[1].id: 2`} {
		if !strings.Contains(out, w) {
			t.Errorf("output %q lacks %q", out, w)
		}
	}
	// The same names keep their ids when the squad is replaced from JSON.
	jsonPath := filepath.Join(dir, "squad.json")
	os.WriteFile(jsonPath, []byte(`[{"name":"Bukayo Saka","position":"Right Winger","jerseyNumber":7,"nationality":"England","dateOfBirth":"2001-09-05"},{"name":"Declan Rice","position":"Central Midfield","nationality":"England"}]`), 0o644)
	out = c.okf("squad put --team 57 " + jsonPath)
	for _, w := range []string{"squad 57 updated", `players[0].id: 1 → 2`, `players[0].name: "David Raya" → "Bukayo Saka"`, `players[1].name: "Bukayo Saka" → "Declan Rice"`, `players[1].id: 2 → 3`} {
		if !strings.Contains(out, w) {
			t.Errorf("output %q lacks %q", out, w)
		}
	}
}

func TestRefusals(t *testing.T) {
	c := newCLI(t)
	setup(t, c)
	c.okf("fixture put --competition 1 --matchday 1 --home 57 --away 61 --kickoff 2025-08-16T14:00:00Z")
	c.okf("status 1 cancel")
	tests := []struct {
		args string
		code int
		want string
	}{
		{"status 1 kick-off", exitInvalid, `status "IN_PLAY": cannot move from CANCELED; allowed: none: CANCELED is final`},
		{"result 1 --score 2:x", exitInvalid, `score "2:x": must be a score like 2-1`},
		{"result 1 --score 100-1", exitInvalid, `score "100-1": goals must be from 0 to 99`},
		{"fixture put --competition 1 --matchday 1 --home 57 --away 62 --kickoff 2025-08-16T14:00:00Z", exitInvalid, `awayTeam "62": is not a team of competition 1`},
		{"fixture put --competition 1 --matchday 1 --home 57 --away 77 --kickoff 2025-08-16T14:00:00Z", exitInvalid, `awayTeam "77": is not a team of competition 1`},
		{"fixture put --competition 1 --matchday 39 --home 57 --away 61 --kickoff 2025-08-16T14:00:00Z", exitInvalid, `matchday "39": competition 1 has 38 matchdays`},
		{"fixture put --competition 1 --matchday 1 --home 57 --away 61 --kickoff tomorrow", exitInvalid, `kickoff "tomorrow": must be an RFC 3339 time`},
		{"fixture put --competition 9 --matchday 1 --home 57 --away 61 --kickoff 2025-08-16T14:00:00Z", exitNotFound, `competition "9": no such competition`},
		{"competition put --league XX9 --year 2025 --caption X", exitInvalid, `league "XX9": is not a known league code`},
		{"competition put --league X --year 2025 --caption X", exitInvalid, `league "X": must be 2 to 4 letters or digits`},
		{"competition put --league PL --year 2026 --caption X --teams 57,99", exitNotFound, `teams "99": no such team`},
		{"competition put --league PL --year 2025 --caption X --tiebreakers GOAL_DIFFERENCE,COIN_TOSS", exitInvalid, `tieBreakers "COIN_TOSS": must be one of`},
		{"result 42 --score 1-0", exitNotFound, `fixture "42": no such fixture`},
		{"deduct --competition 1 --team 62 --points 3 --reason x", exitInvalid, `team "62": is not a team of competition 1`},
		{"deduct --competition 1 --team 57 --points 3", exitInvalid, `reason: must say why`},
		{"tiebreak --competition 1 --order 57 --reason lots", exitInvalid, `teams "57": an order needs at least two teams`},
		{"team put --name Arsenal", exitConflict, `name "Arsenal": already names team 57`},
		{"team alias --team 61 Arsenal", exitConflict, `name "Arsenal": already names team 57`},
		{"client add Bad!Name", exitInvalid, `name "Bad!Name": must be 1 to 63 lower-case letters`},
		{"client add acme --tier gold", exitInvalid, `tier "gold": must be anonymous, registered or donating`},
		{"client revoke nobody", exitNotFound, `client "nobody": no such client`},
		{"show fixture abc", exitInvalid, `fixture id "abc": must be a positive whole number`},
		{"show gadget 1", exitInvalid, `kind "gadget": must be one of`},
		{"fixture put --matchday x", exitInvalid, `matchday "x": must be a whole number`},
		{"frobnicate", exitInvalid, `unknown command "frobnicate" (see`},
		{"resutl 42 --score 1-0", exitInvalid, `unknown command "resutl 42": did you mean "result"?`},
		{"client ad acme", exitInvalid, `unknown command "client ad": did you mean "client add"?`},
		{"stream int", exitInvalid, `did you mean "stream init"?`},
		{"import openfootball --league ZZZ9 " + dataDir + "/2015-16/en.1.json", exitInvalid, `league "ZZZ9": is not a known league code`},
		{"import openfootball /nonexistent/en.1.json", exitInvalid, `/nonexistent/en.1.json: no such file`},
		{"import openfootball /nonexistent/2015-16/en.1.json", exitInvalid, `/nonexistent/2015-16/en.1.json: no such file`},
	}
	for _, tt := range tests {
		code, out, errOut := c.run(strings.Fields(tt.args)...)
		if code != tt.code {
			t.Errorf("ingest %s: exit %d, want %d (stderr %q)", tt.args, code, tt.code, errOut)
		}
		if !strings.Contains(errOut, tt.want) {
			t.Errorf("ingest %s: stderr %q, want it to contain %q", tt.args, errOut, tt.want)
		}
		if strings.Count(strings.TrimRight(errOut, "\n"), "\n") != 0 {
			t.Errorf("ingest %s: reason is not one line: %q", tt.args, errOut)
		}
		if regexp.MustCompile(`(?m)^\S+ \S+ (created|updated)`).MatchString(out) {
			t.Errorf("ingest %s: refused command reported a change: %q", tt.args, out)
		}
	}
	// Nothing refused reached the stream.
	if out := c.okf("show fixture 1"); !strings.Contains(out, `"status": "CANCELED"`) || strings.Contains(out, `"fullTime"`) {
		t.Errorf("fixture 1 changed by refused edits: %s", out)
	}
}

func TestGenerateAndEngSoccer(t *testing.T) {
	c := newCLI(t)
	out := c.okf("generate --seed 7 --leagues 2 --seasons 1 --tournament-every -1 --live 1")
	if !regexp.MustCompile(`fixtures\D+\d{3}`).MatchString(out) {
		t.Errorf("generate summary: %s", out)
	}
	// The same world cannot be generated twice into one stream.
	if code, _, errOut := c.run("generate", "--seed", "7", "--leagues", "2", "--seasons", "1", "--tournament-every", "-1"); code != exitConflict {
		t.Errorf("second generate: exit %d %s", code, errOut)
	}
	out = c.okf("import engsoccerdata --from 1995 --to 1995 ../../../shared/data/engsoccerdata/data-raw/england.csv")
	if !regexp.MustCompile(`fixtures\s+2036\s+0\s+0\s+0`).MatchString(out) {
		t.Errorf("engsoccerdata 1995-96 (380+552+552+552 league games): %s", out)
	}
}

// TestImportErrorsSaidOnce: a file an import refuses is named with its
// reason once (the error line, or the summary's list when there are
// several), the summary counts only the files imported, and a value of
// the wrong type names its line and match.
func TestImportErrorsSaidOnce(t *testing.T) {
	c := newCLI(t)
	dir := filepath.Join(t.TempDir(), "2015-16")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(natstest.SharedData(t, "openfootball-football-json", "2015-16", "en.1.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The fourth match's full-time home goals as a string.
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	doc["matches"].([]any)[3].(map[string]any)["score"].(map[string]any)["ft"].([]any)[0] = "1"
	bad, _ := json.MarshalIndent(doc, "", " ")
	if err := os.WriteFile(filepath.Join(dir, "en.1.json"), bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "en.9.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	good := natstest.SharedData(t, "openfootball-football-json", "2015-16", "de.1.json")
	tests := []struct {
		files    []string
		imported string
		errLine  string
		listed   []string
	}{
		{[]string{"/nonexistent/en.1.json"}, "imported 0 of 1 file(s): 1 refused whole", "/nonexistent/en.1.json: no such file", nil},
		{[]string{filepath.Join(dir, "en.9.json")}, "imported 0 of 1 file(s)", `league "en\.9": no league code known`, nil},
		{[]string{filepath.Join(dir, "en.1.json")}, "imported 0 of 1 file(s)", `line \d+, match 4 \(Leicester City v Sunderland AFC\): score\.ft: want a number, got a JSON string`, nil},
		{[]string{filepath.Join(dir, "en.1.json"), "/nonexistent/en.1.json", good}, "imported 1 of 3 file(s): 2 refused whole",
			`2 rejection\(s\) in 2 file\(s\), grouped above`, []string{"/nonexistent/en.1.json: no such file", "en.1.json: not openfootball JSON"}},
	}
	for _, tt := range tests {
		code, out, errOut := c.run(append([]string{"import", "openfootball"}, tt.files...)...)
		if code != exitInvalid || !strings.Contains(out, tt.imported) || !regexp.MustCompile(tt.errLine).MatchString(errOut) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("import %v: exit %d\nstdout: %s\nstderr: %s\nwant %q and the error line %q", tt.files, code, out, errOut, tt.imported, tt.errLine)
		}
		for _, want := range tt.listed {
			if strings.Count(out+errOut, want) != 1 {
				t.Errorf("import %v: %q said %d times, want once:\n%s%s", tt.files, want, strings.Count(out+errOut, want), out, errOut)
			}
		}
		if len(tt.listed) == 0 && regexp.MustCompile(tt.errLine).MatchString(out) {
			t.Errorf("import %v: the one error is said twice, in the summary and as the error:\n%s%s", tt.files, out, errOut)
		}
	}
}
