package main

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// goalsSetup creates England and Germany, a competition of the two and
// fixture 7, England v Germany, and returns the teams' ids.
func goalsSetup(t *testing.T, c *cli) (england, germany int) {
	t.Helper()
	id := func(out string) int {
		m := regexp.MustCompile(`team (\d+) created`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no team created: %s", out)
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	england, germany = id(c.okf("team put --name England")), id(c.okf("team put --name Germany"))
	c.okf("competition put --league EC --year 2028 --type TOURNAMENT --caption Euro_2028 --teams " + strconv.Itoa(england) + ":A," + strconv.Itoa(germany) + ":A")
	c.okf("fixture put --id 7 --competition 1 --matchday 1 --group A --home " + strconv.Itoa(england) + " --away " + strconv.Itoa(germany) + " --kickoff 2028-06-10T19:00:00Z")
	return england, germany
}

// shellWords splits a documented command line as the shell would: words
// apart, double quotes keeping one word together.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	quoted, inWord := false, false
	for _, r := range line {
		switch {
		case r == '"':
			quoted, inWord = !quoted, true
		case r == ' ' && !quoted:
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
			}
			inWord = false
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// TestDocsGoals runs docs/ingest.md's goals example: the goals are stored in
// the order of play, "Kane" is Harry Kane, and the own goal's scorer is a
// person of the home side, for whom it does not count.
func TestDocsGoals(t *testing.T) {
	c := newCLI(t)
	england, _ := goalsSetup(t, c)
	var outs []string
	for _, line := range docBlock(t, "ingest.md", "## Goals and scorers") {
		args := shellWords(line)
		if args[0] != "ingest" {
			t.Fatalf("docs/ingest.md line %q: not an ingest command", line)
		}
		outs = append(outs, c.ok(args[1:]...))
	}
	for _, want := range []string{`goals[0].scorer: "Harry Kane"`, `goals[0].type: "PENALTY"`, `goals[0].injury: 2`, `goals[1].type: "OWN"`, `goals[1].side: "AWAY_TEAM"`} {
		if !strings.Contains(outs[0], want) {
			t.Errorf("result: output lacks %q:\n%s", want, outs[0])
		}
	}
	if !regexp.MustCompile(`"name": "Harry Kane"`).MatchString(outs[1]) || !strings.Contains(outs[1], `"Kane"`) {
		t.Errorf("show person 1:\n%s", outs[1])
	}
	s := natstest.MustOpen(t, c.srv)
	f := natstest.All[model.Fixture](t, s, events.KindFixture)[events.FixtureSubject(1, 7)]
	persons := natstest.All[model.Person](t, s, events.KindPerson)
	person := func(id int) model.Person { return persons[events.Subject(events.KindPerson, strconv.Itoa(id))] }
	var got []string
	for _, g := range f.Goals {
		p := person(g.ScorerID)
		got = append(got, g.String()+" "+string(g.Side)+" "+p.Name+"/"+strconv.Itoa(p.TeamID))
	}
	want := []string{
		"45+2' Harry Kane (pen.) HOME_TEAM Harry Kane/" + strconv.Itoa(england),
		"87' Stones (o.g.) AWAY_TEAM Stones/" + strconv.Itoa(england),
		"90' Kane HOME_TEAM Harry Kane/" + strconv.Itoa(england),
	}
	if !slices.Equal(got, want) {
		t.Errorf("goals:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(persons) != 2 {
		t.Errorf("%d persons, want Harry Kane and Stones", len(persons))
	}
	// The same goals again change nothing; none removes them.
	if out := c.ok(shellWords(docBlock(t, "ingest.md", "## Goals and scorers")[0])[1:]...); !strings.Contains(out, "fixture 1/7 unchanged") {
		t.Errorf("the same goals again: %s", out)
	}
	if out := c.ok("result", "7", "--goal", "none"); !strings.Contains(out, `goals[0].scorer: "Harry Kane" → (none)`) {
		t.Errorf("--goal none: %s", out)
	}
	if f := natstest.All[model.Fixture](t, s, events.KindFixture)[events.FixtureSubject(1, 7)]; len(f.Goals) != 0 {
		t.Errorf("after --goal none: %v", f.Goals)
	}
	if out := c.okf("history fixture 7"); !strings.Contains(out, `goals[2].scorer: "Kane"`) {
		t.Errorf("history lacks the goals:\n%s", out)
	}
}

// TestGoalRefusals: a bad --goal exits 2 with one line naming the flag
// and its value, and writes nothing, not even a person.
func TestGoalRefusals(t *testing.T) {
	c := newCLI(t)
	goalsSetup(t, c)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--score", "1-0", "--goal", "middle 10 Kane"}, `ingest: result: goal "middle 10 Kane": the side must be home or away`},
		{[]string{"--score", "1-0", "--goal", "home ten Kane"}, `ingest: result: goal "home ten Kane": the minute must be from 1 to 120`},
		{[]string{"--score", "1-0", "--goal", "home 121 Kane"}, `ingest: result: goal "home 121 Kane": the minute must be from 1 to 120`},
		{[]string{"--score", "1-0", "--goal", "home 45+x Kane"}, `ingest: result: goal "home 45+x Kane": the stoppage minutes must be from 1 to 30`},
		{[]string{"--score", "1-0", "--goal", "home 10"}, `ingest: result: goal "home 10": too few words`},
		{[]string{"--score", "1-0", "--goal", "home 10 Ka\u200bne"}, `ingest: result: goal scorer "Ka\u200bne": must not contain control`},
		{[]string{"--score", "2-1", "--goal", "home 10 Kane"}, `ingest: result: goals "1-0": 1 goals listed make 1-0, the result is 2-1`},
		{[]string{"--score", "1-0", "--goal", "away 10 Kane og", "--goal", "home 20 Kane"}, `ingest: result: goals "1-1": 2 goals listed make 1-1, the result is 1-0`},
	}
	for _, tt := range tests {
		code, out, errOut := c.run(append([]string{"result", "7"}, tt.args...)...)
		if code != exitInvalid || out != "" || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, tt.want) {
			t.Errorf("result 7 %q: exit %d, stdout %q, stderr %q; want exit %d and %q", tt.args, code, out, errOut, exitInvalid, tt.want)
		}
	}
	s := natstest.MustOpen(t, c.srv)
	if persons := natstest.All[model.Person](t, s, events.KindPerson); len(persons) != 0 {
		t.Errorf("refused goals wrote persons: %v", persons)
	}
	if f := natstest.All[model.Fixture](t, s, events.KindFixture)[events.FixtureSubject(1, 7)]; f.Status != model.Timed {
		t.Errorf("refused results changed the fixture: %+v", f)
	}
}

// TestPersonPut fixes a person by hand: a new name keeps the former one
// as an alias, --alias and --unalias add and remove spellings, and the
// scorer's name resolves to the person after.
func TestPersonPut(t *testing.T) {
	c := newCLI(t)
	england, _ := goalsSetup(t, c)
	tests := []struct {
		args string
		want []string
	}{
		{"person put --name Hazard --team " + strconv.Itoa(england), []string{`person 1 created`, `name: "Hazard"`}},
		{"person put --id 1 --name Thorgan_Hazard --alias T._Hazard", []string{`person 1 updated`, `name: "Hazard" → "Thorgan_Hazard"`, `aliases[0]: "T._Hazard"`, `aliases[1]: "Hazard"`}},
		{"person put --id 1 --alias T._Hazard", []string{`person 1 unchanged`}},
		{"person put --id 1 --unalias t._hazard", []string{`person 1 updated`, `aliases[0]: "T._Hazard" → "Hazard"`}},
		{"person put --id 5 --name Harry_Kane --team " + strconv.Itoa(england) + " --date-of-birth 1993-07-28", []string{`person 5 created`, `dateOfBirth: "1993-07-28"`}},
		{"person put --name Jude_Bellingham", []string{`person 6 created`}},
		// A scorer's short name finds the person.
		{"result 7 --score 1-0 --goal home_10_Kane", []string{`goals[0].scorerId: 5`}},
	}
	for _, tt := range tests {
		args := strings.Fields(tt.args)
		for i := range args {
			args[i] = strings.ReplaceAll(args[i], "_", " ")
		}
		out := c.ok(args...)
		for _, w := range tt.want {
			if !strings.Contains(out, strings.ReplaceAll(w, "_", " ")) {
				t.Errorf("ingest %s\noutput:\n%s\nwant %q", tt.args, out, w)
			}
		}
	}
	for _, tt := range []struct {
		args string
		code int
		want string
	}{
		{"person put --id 1 --date-of-birth 1993-13-01", exitInvalid, `date-of-birth "1993-13-01"`},
		{"person put --id 1 --alias Ha\u200bzard", exitInvalid, `alias "Ha\u200bzard": must not contain`},
		{"person put --team 0 --name X", exitInvalid, `team "0": must be a positive whole number`},
		{"person put --name X --team 99999", exitNotFound, `teamId "99999"`},
	} {
		code, out, errOut := c.run(strings.Fields(tt.args)...)
		if code != tt.code || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tt.want) {
			t.Errorf("ingest %s: exit %d, stdout %q, stderr %q; want exit %d and %q", tt.args, code, out, errOut, tt.code, tt.want)
		}
	}
}

// TestGoalAmbiguousScorer: a scorer's name two persons of the team fit is
// recorded as a person of its own, and the command says so on stderr.
func TestGoalAmbiguousScorer(t *testing.T) {
	c := newCLI(t)
	england, _ := goalsSetup(t, c)
	for _, name := range []string{"Eden Hazard", "Thorgan Hazard"} {
		c.ok("person", "put", "--name", name, "--team", strconv.Itoa(england))
	}
	code, out, errOut := c.run("result", "7", "--score", "1-0", "--goal", "home 10 Hazard")
	if code != exitOK || !strings.Contains(out, `goals[0].scorerId: 3`) ||
		!strings.Contains(errOut, `warning: scorer "Hazard" of team `+strconv.Itoa(england)+` could be Eden Hazard (1) or Thorgan Hazard (2)`) {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
}

// TestHalfTimeAgainstGoals: goals given to a finished fixture are checked
// against its half time as against its score, whether the half time comes
// with them or was recorded before; nothing refused is written.
func TestHalfTimeAgainstGoals(t *testing.T) {
	c := newCLI(t)
	goalsSetup(t, c)
	c.ok("result", "7", "--score", "0-0", "--half-time", "0-0")
	early := []string{"--goal", "home 10 Kane", "--goal", "home 30 Saka"}
	tests := []struct {
		args []string
		want string // "": accepted
	}{
		// Half time 0-0 kept from the first result.
		{append([]string{"result", "7", "--score", "2-0"}, early...), `ingest: result: half-time "0-0": the goals listed make 2-0 by half time`},
		{append([]string{"result", "7", "--score", "2-0", "--half-time", "0-0"}, early...), `ingest: result: half-time "0-0": the goals listed make 2-0 by half time`},
		{append([]string{"result", "7", "--score", "2-0", "--half-time", "1-0"}, early...), `ingest: result: half-time "1-0": the goals listed make 2-0 by half time`},
		{[]string{"result", "7", "--score", "1-0", "--half-time", "1-0", "--goal", "home 60 Kane"}, `ingest: result: half-time "1-0": the goals listed make 0-0 by half time`},
		{append([]string{"result", "7", "--score", "2-0", "--half-time", "2-0"}, early...), ""},
		// Later goals keep the half time the earlier ones made.
		{append([]string{"result", "7", "--score", "3-0", "--goal", "home 80 Kane"}, early...), ""},
	}
	for _, tt := range tests {
		code, out, errOut := c.run(tt.args...)
		if tt.want == "" {
			if code != exitOK {
				t.Errorf("%q: exit %d, stderr %q; want it accepted", tt.args, code, errOut)
			}
			continue
		}
		if code != exitInvalid || out != "" || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, tt.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d and %q", tt.args, code, out, errOut, exitInvalid, tt.want)
		}
	}
	want := regexp.MustCompile(`"fullTime": \{\s+"home": 3,\s+"away": 0\s+\},\s+"halfTime": \{\s+"home": 2,\s+"away": 0`)
	if out := c.ok("show", "fixture", "7"); !want.MatchString(out) {
		t.Errorf("fixture 7 after the goals: want 3-0, half time 2-0, in\n%s", out)
	}
}
