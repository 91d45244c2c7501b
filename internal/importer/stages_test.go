package importer

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/pkg/model"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestRoundStages lists every round name of every match file in
// ../shared/data that the importer reads rounds from (openfootball's
// leagues, cups, World Cups and Euros; engsoccerdata's files with a round
// column), file by file, with its v4 stage as model.StageOf gives it and
// the number of matches of each stage: testdata/stages.golden, rewritten
// with -update. Numbered rounds of one stage are listed as a range
// ("Matchday 1–34"). No name may be unknown to the table.
func TestRoundStages(t *testing.T) {
	var out strings.Builder
	for _, pf := range dataSeasons(t) {
		fmt.Fprintf(&out, "%s (%s %d, %s)\n", strings.TrimPrefix(filepath.ToSlash(pf.path), dataDir+"/"), pf.league.Code, pf.year, pf.kind)
		counts, order := map[model.RoundStage]int{}, []model.RoundStage(nil)
		var rounds []roundRange
		seen := map[string]bool{}
		for _, pm := range pf.matches {
			stage, known := model.StageOf(pm.round, pm.stage == model.Playoff, pf.kind)
			if !known {
				t.Errorf("%s: round %q is not in the stage table", pf.path, pm.round)
			}
			if counts[stage] == 0 {
				order = append(order, stage)
			}
			counts[stage]++
			if !seen[pm.round] {
				seen[pm.round] = true
				rounds = addRound(rounds, pm.round, stage)
			}
		}
		line := make([]string, len(order))
		for i, s := range order {
			line[i] = fmt.Sprintf("%s %d", s, counts[s])
		}
		fmt.Fprintf(&out, "  matches: %s\n", strings.Join(line, ", "))
		for _, r := range rounds {
			fmt.Fprintf(&out, "  %s: %s\n", r, r.stage)
		}
	}
	path := filepath.Join("testdata", "stages.golden")
	if *update {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got := out.String(); got != string(want) {
		t.Errorf("stages differ from %s (go test -run TestRoundStages -update rewrites it, then read the diff):\n%s", path, firstDiff(got, string(want)))
	}
}

const dataDir = "../../../shared/data"

// dataSeasons parses every match file with round names, in path order.
func dataSeasons(t *testing.T) []*parsedFile {
	t.Helper()
	var files []string
	for _, pattern := range []string{"openfootball-football-json/*/*.json", "openfootball-worldcup-json/*/*.json", "openfootball-euro-json/*/*.json"} {
		m, err := filepath.Glob(filepath.Join(dataDir, pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	sort.Strings(files)
	if len(files) < 300 {
		t.Fatalf("%d openfootball files found in %s", len(files), dataDir)
	}
	leagues := func(code model.LeagueCode) (model.League, error) {
		if l, ok := model.BuiltinLeague(code); ok {
			return l, nil
		}
		if code == "ZZ" {
			return model.League{Code: code, Name: "unnamed", Zone: "UTC"}, nil
		}
		return model.League{}, model.Invalidf("league", string(code), "not built in")
	}
	var out []*parsedFile
	for _, f := range files {
		base := filepath.Base(f)
		opts := Options{}
		switch {
		case strings.Contains(base, ".groups.") || strings.Contains(base, ".stadiums.") || strings.Contains(base, ".standings.") ||
			strings.Contains(base, ".squads.") || strings.Contains(base, ".teams."):
			continue
		case base == "worldcup.quali_playoffs.json":
			// Scores as arrays of matches over two legs: a layout the
			// format does not read (model.TestStageOf has its names).
			continue
		case base == "clubworldcup.json":
			// No league code of ours: read under a stand-in.
			opts.League = "ZZ"
		}
		src, err := parseOpenFootball(f, opts, leagues)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, src.seasons...)
	}
	for _, f := range []string{"engsoccerdata/data-raw/mls.csv", "engsoccerdata/data-raw/spain.csv"} {
		src, err := parseEngSoccerFile(filepath.Join(dataDir, f), Options{}, leagues)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, pf := range src.seasons {
			for _, pm := range pf.matches {
				if pm.stage == model.Playoff {
					out = append(out, pf)
					break
				}
			}
		}
	}
	return out
}

// roundRange is a round name, or numbered rounds of one name and stage.
type roundRange struct {
	template string // the name with its last number as %s
	lo, hi   int
	stage    model.RoundStage
}

var lastNumber = regexp.MustCompile(`\d+(\D*)$`)

func addRound(rs []roundRange, round string, stage model.RoundStage) []roundRange {
	r := roundRange{template: strings.ReplaceAll(round, "%", "%%"), stage: stage}
	if m := lastNumber.FindStringSubmatchIndex(round); m != nil {
		r.lo, _ = strconv.Atoi(round[m[0]:m[2]])
		r.hi = r.lo
		r.template = strings.ReplaceAll(round[:m[0]], "%", "%%") + "%s" + strings.ReplaceAll(round[m[2]:], "%", "%%")
	}
	if n := len(rs); n > 0 && r.lo > 0 {
		if p := &rs[n-1]; p.template == r.template && p.stage == stage && p.hi+1 == r.lo {
			p.hi = r.lo
			return rs
		}
	}
	return append(rs, r)
}

func (r roundRange) String() string {
	switch {
	case r.lo == 0:
		return strings.ReplaceAll(r.template, "%%", "%")
	case r.lo == r.hi:
		return fmt.Sprintf(r.template, strconv.Itoa(r.lo))
	}
	return fmt.Sprintf(r.template, fmt.Sprintf("%d–%d", r.lo, r.hi))
}

// firstDiff shows the first line where got and want differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d: got %q, want %q", i+1, gl, wl)
		}
	}
	return ""
}

// TestOpenLigaDBCupStages: the DFB-Pokal's rounds as OpenLigaDB names them
// (spec openligadb/FORMAT.md: "1. Runde" … "Endspiel") are read into their
// stages by the same table, without a warning.
func TestOpenLigaDBCupStages(t *testing.T) {
	rounds := []struct {
		name string
		want model.RoundStage
	}{
		{"1. Runde", "ROUND_1"}, {"2. Runde", "ROUND_2"}, {"Achtelfinale", model.StageLast16},
		{"Viertelfinale", model.StageQuarterFinals}, {"Halbfinale", model.StageSemiFinals}, {"Endspiel", model.StageFinal},
	}
	var ms []string
	for i, r := range rounds {
		ms = append(ms, fmt.Sprintf(`{"matchID":%d,"matchDateTimeUTC":"2026-%02d-10T18:30:00Z","leagueSeason":2026,"leagueShortcut":"dfb",`+
			`"group":{"groupName":%q,"groupOrderID":%d},"team1":{"teamName":"Home %d"},"team2":{"teamName":"Away %d"}}`, i+1, i+8, r.name, i+1, i, i))
	}
	src, err := readOpenLigaDB("getmatchdata/dfb/2026", []byte("["+strings.Join(ms, ",")+"]"), Options{},
		func(code model.LeagueCode) (model.League, error) { l, _ := model.BuiltinLeague(code); return l, nil })
	if err != nil {
		t.Fatal(err)
	}
	pf := src.seasons[0]
	for i, pm := range pf.matches {
		if got, known := model.StageOf(pm.round, pm.stage == model.Playoff, pf.kind); got != rounds[i].want || !known {
			t.Errorf("%q: %s (known %v), want %s", pm.round, got, known, rounds[i].want)
		}
	}
	for _, w := range checkSeason(pf, time.Time{}) {
		if w.Kind == warnRoundStage {
			t.Errorf("warning: %s", w)
		}
	}
}

// TestCupRoundsOfTextFiles: the cups whose seasons come only as
// Football.TXT files, which no format of ours imports (the FA and League
// Cups, the Champions League's text editions), name their rounds in
// "» …" headers: every such name is one the stage table knows, so that
// a cup read from any of them would get its stages by the table too. A
// header naming a group ("Group A", "Gruppe H") is the group of the
// matches under it, whose stage is GROUP_STAGE, not a round.
func TestCupRoundsOfTextFiles(t *testing.T) {
	groupHeader := regexp.MustCompile(`^(Group|Gruppe) [A-L]$`)
	var files []string
	for _, pattern := range []string{"openfootball-england/*/facup.txt", "openfootball-england/*/eflcup.txt", "openfootball-champions-league/*/cl.txt"} {
		m, err := filepath.Glob(filepath.Join(dataDir, pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 20 {
		t.Fatalf("%d cup text files under %s: is ../shared/data there?", len(files), dataDir)
	}
	names := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.Lines(string(b)) {
			round, ok := strings.CutPrefix(strings.TrimSpace(line), "» ")
			if !ok || groupHeader.MatchString(round) {
				continue
			}
			names++
			if stage, known := model.StageOf(round, true, model.TypeCup); !known {
				t.Errorf("%s: round %q is not in the stage table (it would be %s)", f, round, stage)
			}
		}
	}
	if names == 0 {
		t.Fatal("no round headers read")
	}
}
