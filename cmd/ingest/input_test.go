package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// TestOddsAreNumbers: NaN and the infinities are refused as odds with
// exit 2, naming the field and the value (NaN used to reach the stream's
// encoder and fail there, exit 1, as if the stream were unreachable).
func TestOddsAreNumbers(t *testing.T) {
	c := newCLI(t)
	setup(t, c)
	c.okf("fixture put --competition 1 --matchday 1 --home 57 --away 61 --kickoff 2025-08-16T14:00:00Z")
	for _, odds := range []string{"NaN,1,1", "1.5,nan,2", "2,3,Inf", "-Inf,3,4", "+Infinity,3,4", "1e400,3,4"} {
		c.refused(exitInvalid, `^ingest: fixture put: odds "`+regexp.QuoteMeta(odds)+`": must be three decimal odds home,draw,away, each a number`,
			"fixture", "put", "--id", "1", "--odds", odds)
	}
	if out := c.okf("fixture put --id 1 --odds 1.85,3.60,4.20"); !strings.Contains(out, "odds.homeWin: 1.85") {
		t.Errorf("odds after the refusals: %s", out)
	}
}

// ofLeagueFile is an openfootball league file whose first match's home
// team, on line 3, is home.
func ofLeagueFile(home string) string {
	return "{\"name\": \"Premier League 2015/16\",\n \"matches\": [\n" +
		`  {"round": "Matchday 1", "date": "2015-08-08", "team1": "` + home + `", "team2": "Arsenal FC", "score": {"ft": [1, 0]}}` +
		"\n ]}\n"
}

// engFile is an engsoccerdata match file whose one match's home team, on
// line 2, is home.
func engFile(home string) string {
	return "Date,Season,home,visitor,FT,hgoal,vgoal,division,tier,totgoal,goaldif,result\n" +
		"1995-08-19,1995," + home + ",Arsenal,1-0,1,0,1,1,1,1,H\n"
}

const bom = "\xEF\xBB\xBF"

// TestImportFileText: every file ingest reads is text of the encoding the
// editor names (UTF-8 unless --encoding says otherwise), whatever the
// format; what is not is refused with the file and the line, never stored
// with replacement characters. A byte-order mark is skipped. A file over
// the size limit (--max-file-size, 64MiB by default) is refused with one
// line naming it and the limit, a regular file from its size alone.
func TestImportFileText(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string // path under DIR → content
		sizes map[string]int64  // path under DIR → size of an empty sparse file
		setup []string
		stdin string
		args  string // DIR is the folder of the files
		code  int
		want  string   // stderr when refused, stdout otherwise (regular expression)
		teams []string // names of the teams the stream must hold, in order
	}{
		{name: "openfootball in Latin-1", files: map[string]string{"2015-16/en.1.json": ofLeagueFile("Caf\xE9 FC")},
			args: "import openfootball DIR/2015-16/en.1.json", code: exitInvalid,
			want: `^ingest: import openfootball: \S+/2015-16/en\.1\.json: line 3: byte 0xE9 is not UTF-8: name the file's encoding with --encoding latin1 or windows-1252\n$`},
		{name: "openfootball, --encoding latin1", files: map[string]string{"2015-16/en.1.json": ofLeagueFile("Caf\xE9 FC")},
			args: "import openfootball --encoding latin1 DIR/2015-16/en.1.json", want: `teams\s+2\s`, teams: []string{"Arsenal FC", "Café FC"}},
		{name: "openfootball, --encoding windows-1252", files: map[string]string{"2015-16/en.1.json": ofLeagueFile("Nott\x92m Forest")},
			args: "import openfootball --encoding windows-1252 DIR/2015-16/en.1.json", want: `teams\s+2\s`, teams: []string{"Arsenal FC", "Nott’m Forest"}},
		{name: "windows-1252 read as Latin-1", files: map[string]string{"2015-16/en.1.json": ofLeagueFile("Nott\x92m Forest")},
			args: "import openfootball --encoding latin1 DIR/2015-16/en.1.json", code: exitInvalid, want: `en\.1\.json: team "Nott\\u0092m Forest": .*\(found U\+0092\)`},
		{name: "a byte windows-1252 does not assign", files: map[string]string{"2015-16/en.1.json": ofLeagueFile("Caf\x81 FC")},
			args: "import openfootball --encoding windows-1252 DIR/2015-16/en.1.json", code: exitInvalid, want: `en\.1\.json: line 3: byte 0x81 is no character of windows-1252\n$`},
		{name: "engsoccerdata in Latin-1", files: map[string]string{"england.csv": engFile("Caf\xE9 FC")},
			args: "import engsoccerdata DIR/england.csv", code: exitInvalid, want: `/england\.csv: line 2: byte 0xE9 is not UTF-8: name the file's encoding`},
		{name: "engsoccerdata, --encoding latin1", files: map[string]string{"england.csv": engFile("Caf\xE9 FC")},
			args: "import engsoccerdata --encoding latin1 DIR/england.csv", want: `fixtures\s+1\s`, teams: []string{"Arsenal", "Café FC"}},
		{name: "openfootball with a byte-order mark", files: map[string]string{"2015-16/en.1.json": bom + ofLeagueFile("Café FC")},
			args: "import openfootball DIR/2015-16/en.1.json", want: `fixtures\s+1\s`, teams: []string{"Arsenal FC", "Café FC"}},
		{name: "an engsoccerdata folder with byte-order marks", files: map[string]string{"data-raw/england.csv": bom + engFile("Café FC"),
			"data-raw/deductions.csv": bom + "Season,team,tier,deduction,country\n1995,Café FC,1,3,England\n"},
			args: "import engsoccerdata DIR/data-raw", want: `(?s)fixtures\s+1\s.*adjustments\s+1\s`, teams: []string{"Arsenal", "Café FC"}},
		{name: "aliases with a byte-order mark", files: map[string]string{"2015-16/en.1.json": ofLeagueFile("Gunners"),
			"aliases.csv": bom + "# the club's nickname\nspelling,team\nGunners,Café FC\n"},
			args: "import openfootball --aliases DIR/aliases.csv DIR/2015-16/en.1.json", want: `teams\s+2\s`, teams: []string{"Arsenal FC", "Café FC"}},
		{name: "aliases in Latin-1", files: map[string]string{"2015-16/en.1.json": ofLeagueFile("Gunners"), "aliases.csv": "spelling,team\nGunners,Caf\xE9 FC\n"},
			args: "import openfootball --aliases DIR/aliases.csv DIR/2015-16/en.1.json", code: exitInvalid,
			want: `^ingest: import openfootball: aliases "\S+/aliases\.csv": line 2: byte 0xE9 is not UTF-8`},
		{name: "a squad with a byte-order mark", files: map[string]string{"squad.csv": bom + "name,position\nDavid Raya,Keeper\n"},
			setup: []string{"team put --name Arsenal"}, args: "squad put --team 57 DIR/squad.csv", want: `players\[0\].name: "David Raya"`, teams: []string{"Arsenal"}},
		{name: "a squad in windows-1252", files: map[string]string{"squad.csv": "name,position\nMartin \xD8degaard,Midfield\n"},
			setup: []string{"team put --name Arsenal"}, args: "squad put --team 57 --encoding windows-1252 DIR/squad.csv", want: `players\[0\].name: "Martin Ødegaard"`, teams: []string{"Arsenal"}},
		{name: "rules from stdin with a byte-order mark", stdin: bom + `{"pointsWin": 3, "pointsDraw": 1, "tieBreakers": ["GOAL_DIFFERENCE"]}`,
			args: "competition put --league PL --year 2025 --caption PL --rules -", want: `competition 1 created`},
		{name: "openfootball over the default limit", sizes: map[string]int64{"2015-16/en.1.json": 64<<20 + 1},
			args: "import openfootball DIR/2015-16/en.1.json", code: exitInvalid,
			want: `^ingest: import openfootball: \S+/en\.1\.json: is 67108865 bytes, more than the limit of 64MiB \(--max-file-size\)\n$`},
		{name: "an endless file", args: "import openfootball --league PL --season 2015 --max-file-size 1MiB /dev/zero", code: exitInvalid,
			want: `^ingest: import openfootball: /dev/zero: is more than the limit of 1MiB \(--max-file-size\)\n$`},
		{name: "engsoccerdata over a limit given", files: map[string]string{"england.csv": engFile("Café FC")},
			args: "import engsoccerdata --max-file-size 100B DIR/england.csv", code: exitInvalid,
			want: `/england\.csv: is 128 bytes, more than the limit of 100B \(--max-file-size\)\n$`},
		{name: "a limit raised", files: map[string]string{"2015-16/en.1.json": ofLeagueFile("Café FC")},
			args: "import openfootball --max-file-size 1GiB DIR/2015-16/en.1.json", want: `fixtures\s+1\s`, teams: []string{"Arsenal FC", "Café FC"}},
		{name: "a squad over its limit", files: map[string]string{"squad.csv": "name,position\nDavid Raya,Keeper\n"},
			setup: []string{"team put --name Arsenal"}, args: "squad put --team 57 --max-file-size 10B DIR/squad.csv", code: exitInvalid,
			want: `^ingest: squad put: file "\S+/squad\.csv": is 32 bytes, more than the limit of 10B \(--max-file-size\)\n$`, teams: []string{"Arsenal"}},
		{name: "endless rules", args: "competition put --league PL --year 2025 --caption PL --max-file-size 1KiB --rules /dev/zero", code: exitInvalid,
			want: `^ingest: competition put: rules "/dev/zero": is more than the limit of 1KiB \(--max-file-size\)\n$`},
		{name: "no limit", args: "import openfootball --max-file-size 0 x.json", code: exitInvalid, want: `--max-file-size "0": want a size .*\(see ingest help import openfootball\)`},
		{name: "an unknown encoding", args: "import engsoccerdata --encoding ebcdic x.csv", code: exitInvalid, want: `--encoding "ebcdic": want utf-8, latin1 or windows-1252 \(see ingest help import engsoccerdata\)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCLI(t)
			dir := t.TempDir()
			for rel, body := range tt.files {
				writeFile(t, filepath.Join(dir, rel), body, -1)
			}
			for rel, size := range tt.sizes {
				writeFile(t, filepath.Join(dir, rel), "", size)
			}
			for _, cmd := range tt.setup {
				c.okf(cmd)
			}
			c.stdin = tt.stdin
			args := strings.Fields(strings.ReplaceAll(tt.args, "DIR", dir))
			if tt.code != exitOK {
				c.refused(tt.code, tt.want, args...)
			} else if out := c.ok(args...); !regexp.MustCompile(tt.want).MatchString(out) {
				t.Errorf("output %q, want a match for %q", out, tt.want)
			}
			if got := teamNames(t, c); !slices.Equal(got, tt.teams) {
				t.Errorf("teams %q, want %q", got, tt.teams)
			}
		})
	}
}

// writeFile writes body to path, or, for a size of 0 or more, makes an
// empty sparse file of that size.
func writeFile(t *testing.T, path, body string, size int64) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if size >= 0 {
		if err := os.Truncate(path, size); err != nil {
			t.Fatal(err)
		}
	}
}

// teamNames are the names of the teams the stream holds, sorted.
func teamNames(t *testing.T, c *cli) []string {
	t.Helper()
	var names []string
	for _, tm := range natstest.All[model.Team](t, natstest.MustOpen(t, c.srv), events.KindTeam) {
		names = append(names, tm.Name)
	}
	slices.Sort(names)
	return names
}

// TestLookAlikeNamesAreRefused: a name with a character that shows
// nothing (zero-width and other format characters, fillers, variation
// selectors) is refused wherever names are given, and a name that differs
// from a team's only in case and spacing is that team's: a new team or a
// renamed one under it is refused, naming the team.
func TestLookAlikeNamesAreRefused(t *testing.T) {
	c := newCLI(t)
	c.okf("team put --name Arsenal_FC")
	c.okf("team put --name Chelsea_FC")
	c.okf("competition put --league PL --year 2025 --caption PL --teams 57,61")
	dir := t.TempDir()
	for _, r := range []string{"\u200B", "\uFEFF", "\u2060", "\u00AD", "\u200D", "\u180E", "\u3164", "\u115F", "\uFFA0", "\uFE0F", "\U000E0100", "\U000E0041"} {
		name := "Arse" + r + "nal FC"
		found := regexp.QuoteMeta(fmt.Sprintf("%U", []rune(r)[0]))
		season := filepath.Join(dir, r, "2015-16", "en.1.json")
		writeFile(t, season, ofLeagueFile(name), -1)
		aliases := filepath.Join(dir, r, "aliases.csv")
		writeFile(t, aliases, "spelling,team\nGunners,"+name+"\n", -1)
		squad := filepath.Join(dir, r, "squad.csv")
		writeFile(t, squad, "name,position\nBukayo"+r+" Saka,Winger\n", -1)
		for _, args := range [][]string{
			{"team", "put", "--name", name},
			{"team", "put", "--id", "61", "--name", name},
			{"team", "put", "--id", "61", "--short-name", "Chel" + r + "sea"},
			{"team", "alias", "--team", "57", name},
			{"competition", "put", "--league", "PD", "--year", "2025", "--caption", "La" + r + "Liga"},
			{"league", "put", "ZZZ", "--name", "Super" + r + "liga", "--zone", "UTC"},
			{"squad", "put", "--team", "57", squad},
			{"import", "openfootball", season},
			{"import", "openfootball", "--aliases", aliases, season},
		} {
			c.refused(exitInvalid, `must not contain control, formatting or invisible characters \(found `+found+`\)`, args...)
		}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"team", "put", "--name", "Arsenal_FC"}, `^ingest: team put: name "Arsenal_FC": already names team 57 \(Arsenal_FC\): change that team with --id 57`},
		{[]string{"team", "put", "--name", "ARSENAL  fc"}, `^ingest: team put: name "ARSENAL  fc": looks like team 57 \(Arsenal_FC\): change that team with --id 57`},
		{[]string{"team", "put", "--name", "arsenal\u00a0FC"}, `looks like team 57 \(Arsenal_FC\)`},
		{[]string{"team", "put", "--id", "61", "--name", "Arsenal"}, `^ingest: team put: name "Arsenal": looks like team 57 \(Arsenal_FC\)`},
		{[]string{"team", "alias", "--team", "61", "arsenal fc"}, `^ingest: team alias: name "arsenal fc": looks like team 57 \(Arsenal_FC\)`},
	} {
		c.refused(exitConflict, tt.want, tt.args...)
	}
	if got := teamNames(t, c); !slices.Equal(got, []string{"Arsenal_FC", "Chelsea_FC"}) {
		t.Errorf("teams after the refusals: %q", got)
	}
	if out := c.okf("show team 61"); strings.Contains(out, "shortName") {
		t.Errorf("team 61 changed by a refused edit: %s", out)
	}
}
