package importer_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/importer"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// engsoccerdata is GPL: it is read from the shared data folder and never
// copied into the repository.
func engFile(name string) string {
	return filepath.Join(natstest.SharedDir(), "engsoccerdata", "data-raw", name)
}

// engImport imports a file's seasons from..to, each range in one call.
func engImport(t testing.TB, im *importer.Importer, file string, ranges ...[2]int) {
	t.Helper()
	for _, r := range ranges {
		importWith(t, im, "engsoccerdata", importer.Options{From: r[0], To: r[1]}, natstest.SharedData(t, "engsoccerdata", "data-raw", file))
	}
}

// csvCounts counts a file's matches by "season/division", read here
// independently of the importer.
func csvCounts(t testing.TB, file string, seasons ...int) map[string]int {
	t.Helper()
	f, err := os.Open(engFile(file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	out := map[string]int{}
	for _, r := range rows[1:] {
		season, _ := strconv.Atoi(r[col["Season"]])
		if slices.Contains(seasons, season) {
			out[fmt.Sprintf("%d/%s", season, r[col["division"]])]++
		}
	}
	return out
}

// record is a team's line in a table counted from fixtures.
type record struct{ won, drawn, lost int }

func records(w world, comp int) map[string]record {
	out := map[string]record{}
	for _, f := range w.fixtures {
		if f.CompetitionID != comp || f.Stage != model.Regular {
			continue
		}
		h, a := w.teams[f.HomeTeamID].Name, w.teams[f.AwayTeamID].Name
		rh, ra := out[h], out[a]
		switch f.Result.FullTime.Winner() {
		case model.Home:
			rh.won++
			ra.lost++
		case model.Away:
			ra.won++
			rh.lost++
		default:
			rh.drawn++
			ra.drawn++
		}
		out[h], out[a] = rh, ra
	}
	return out
}

func TestEngSoccerEngland(t *testing.T) {
	s := natstest.MustOpen(t, natstest.MustStart(t))
	ctx := context.Background()
	seasons := [][2]int{{1888, 1888}, {1921, 1921}, {1990, 1990}, {1995, 1995}}
	im := newImporter(t, s)
	engImport(t, im, "england.csv", seasons...)
	importWith(t, im, "engsoccerdata", importer.Options{From: 1990, To: 1990}, engFile("deductions.csv"))
	deducted := im.Summary.Adjustments
	first := im.Summary
	if len(first.Rejected) > 0 {
		t.Fatalf("rejected: %+v", first.Rejected[:min(5, len(first.Rejected))])
	}
	want := csvCounts(t, "england.csv", 1888, 1921, 1990, 1995)
	total := 0
	for _, n := range want {
		total += n
	}
	if first.Fixtures.Created != total {
		t.Errorf("%d fixtures created, the files have %d", first.Fixtures.Created, total)
	}

	w := load(t, s)
	codes := map[string]model.LeagueCode{"1": "PL", "2": "ELC", "3": "EL1", "3N": "E3N", "3S": "E3S", "4": "EL2"}
	perComp := map[int]int{}
	for _, f := range w.fixtures {
		perComp[f.CompetitionID]++
	}
	for key, n := range want {
		var season int
		var div string
		fmt.Sscanf(key, "%d/%s", &season, &div)
		c, ok := w.comps[fmt.Sprintf("%s/%d", codes[div], season)]
		if !ok || perComp[c.ID] != n {
			t.Errorf("%s: competition %+v holds %d fixtures, the file %d", key, c.Caption, perComp[c.ID], n)
		}
		// Every team plays every matchday's game once: with the
		// derived matchdays, a season has 2(n-1) of them.
		if ok && c.NumberOfMatchdays != 2*(len(c.Teams)-1) {
			t.Errorf("%s: %d teams, %d matchdays", c.Caption, len(c.Teams), c.NumberOfMatchdays)
		}
	}
	if len(w.comps) != len(want) {
		t.Errorf("%d competitions, the file has %d divisions in these seasons", len(w.comps), len(want))
	}

	// 1888-89: the first league, and Preston North End's unbeaten season.
	pl88 := w.comps["PL/1888"]
	if pl88.Caption != "First Division 1888/89" || len(pl88.Teams) != 12 || pl88.NumberOfMatchdays != 22 ||
		pl88.Rules.PointsWin != 2 || pl88.Rules.TieBreakers[0] != model.GoalQuotient {
		t.Errorf("1888-89: %+v", pl88)
	}
	if got := records(w, pl88.ID)["Preston North End"]; got != (record{18, 4, 0}) {
		t.Errorf("Preston North End 1888-89: won, drawn, lost %v, want 18 4 0", got)
	}
	for _, f := range w.fixtures {
		if f.CompetitionID == pl88.ID && (f.Kickoff.Hour() != 15 || f.Status != model.Finished || f.Source == "") {
			t.Fatalf("1888 fixture %+v: want FINISHED at 15:00 GMT with a source", f)
		}
	}
	// 1995-96: 380 games; August kick-offs are 15:00 British Summer Time.
	pl95 := w.comps["PL/1995"]
	if pl95.Caption != "Premier League 1995/96" || perComp[pl95.ID] != 380 || pl95.NumberOfMatchdays != 38 || pl95.Rules.PointsWin != 3 {
		t.Errorf("1995-96: %s, %d fixtures, %d matchdays, %d points a win", pl95.Caption, perComp[pl95.ID], pl95.NumberOfMatchdays, pl95.Rules.PointsWin)
	}
	f, ok := w.find(pl95.ID, "Aston Villa", "Manchester United", 1)
	if !ok || !f.Kickoff.Equal(time.Date(1995, 8, 19, 14, 0, 0, 0, time.UTC)) || *f.Result.FullTime != (model.Score{Home: 3, Away: 1}) {
		t.Errorf("Aston Villa 3-1 Manchester United, 19 August 1995: %+v", f)
	}
	// 1921-22: the Third Division North and South; from 1981-82, three
	// points for a win in every division, the fourth included.
	e3n, e3s, el2 := w.comps["E3N/1921"], w.comps["E3S/1921"], w.comps["EL2/1990"]
	if e3n.Caption != "Third Division North 1921/22" || e3s.ID == 0 || e3n.Rules.PointsWin != 2 {
		t.Errorf("1921-22 third tier: %+v, %+v", e3n, e3s)
	}
	if el2.Caption != "Fourth Division 1990/91" || el2.Rules.PointsWin != 3 || el2.Rules.TieBreakers[0] != model.GoalDifference {
		t.Errorf("1981-82 fourth tier: %+v", el2)
	}
	// One club, one id across seasons.
	arsenal := map[int]bool{}
	for _, tm := range w.teams {
		if tm.Name == "Arsenal" {
			arsenal[tm.ID] = true
		}
	}
	if len(arsenal) != 1 {
		t.Errorf("Arsenal has %d ids", len(arsenal))
	}

	// 1990-91: Arsenal docked two points and Manchester United one.
	if deducted.Created != 2 || deducted.Rejected != 0 {
		t.Errorf("deductions: %+v", deducted)
	}
	pl90 := w.comps["PL/1990"]
	adj := adjustments(t, s, pl90.ID)
	if len(adj) != 2 || adj["Arsenal"] != -2 || adj["Manchester United"] != -1 {
		t.Errorf("1990-91 adjustments %v", adj)
	}

	// Importing again publishes nothing.
	before, err := s.LastSeq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	again := newImporter(t, s)
	engImport(t, again, "england.csv", seasons...)
	importWith(t, again, "engsoccerdata", importer.Options{From: 1990, To: 1990}, engFile("deductions.csv"))
	rededucted := again.Summary.Adjustments
	if after, _ := s.LastSeq(ctx); after != before {
		t.Errorf("re-import published %d messages", after-before)
	}
	if again.Summary.Fixtures.Unchanged != total || again.Summary.Fixtures.Created+again.Summary.Fixtures.Updated != 0 ||
		again.Summary.Competitions.Unchanged != len(want) || again.Summary.Teams.Created != 0 || rededucted.Unchanged != 2 {
		t.Errorf("re-import: %+v, deductions %+v", again.Summary, rededucted)
	}
}

// adjustments maps team names to their points adjustments in a competition.
func adjustments(t testing.TB, s *events.Store, comp int) map[string]int {
	t.Helper()
	out := map[string]int{}
	ctx := context.Background()
	err := s.Scan(ctx, events.Subject(events.KindAdjustment, strconv.Itoa(comp), "*"), func(ev events.Event) error {
		a, err := events.Decode[model.Adjustment](ev.Data)
		if err != nil {
			return err
		}
		tm, _, err := events.Load[model.Team](ctx, s, events.Subject(events.KindTeam, strconv.Itoa(a.TeamID)))
		out[tm.Name] = a.Points
		if a.Reason != "points deduction (engsoccerdata)" {
			t.Errorf("adjustment reason %q", a.Reason)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEngSoccerBesideOpenFootball imports a season from openfootball and
// from engsoccerdata: the clubs are the same teams, and the matches the
// season already holds are not added twice.
func TestEngSoccerBesideOpenFootball(t *testing.T) {
	s := natstest.MustOpen(t, natstest.MustStart(t))
	im := newImporter(t, s)
	importWith(t, im, "openfootball", importer.Options{}, ofFile(t, "openfootball-football-json/2015-16/en.1.json"))
	teamsBefore := im.Summary.Teams.Created
	engImport(t, im, "england.csv", [2]int{2015, 2015})
	w := load(t, s)
	pl := w.comps["PL/2015"]
	n := 0
	for _, f := range w.fixtures {
		if f.CompetitionID == pl.ID {
			n++
		}
	}
	if n != 380 || len(pl.Teams) != 20 || pl.Caption != "English Premier League 2015/16" {
		t.Errorf("PL 2015-16 from both sources: %d fixtures, %d teams, caption %q", n, len(pl.Teams), pl.Caption)
	}
	if im.Summary.Fixtures.Unchanged != 380 || len(im.Summary.Rejected) > 0 {
		t.Errorf("summary %+v", im.Summary)
	}
	counts := csvCounts(t, "england.csv", 2015)
	lower := counts["2015/2"] + counts["2015/3"] + counts["2015/4"]
	if im.Summary.Fixtures.Created != 380+lower {
		t.Errorf("%d fixtures created, want 380 from openfootball and %d of the lower divisions", im.Summary.Fixtures.Created, lower)
	}
	// The Premier League's clubs were all known by name: the 72 new teams
	// are those of the Football League.
	if created := im.Summary.Teams.Created - teamsBefore; created != 72 {
		t.Errorf("%d teams created by the second source, want 72", created)
	}
}

// TestEngSoccerOtherCountries imports a season of two other countries.
func TestEngSoccerOtherCountries(t *testing.T) {
	s := natstest.MustOpen(t, natstest.MustStart(t))
	im := newImporter(t, s)
	engImport(t, im, "germany.csv", [2]int{1963, 1963})
	engImport(t, im, "scotland.csv", [2]int{2015, 2015})
	if len(im.Summary.Rejected) > 0 {
		t.Fatalf("rejected %+v", im.Summary.Rejected)
	}
	w := load(t, s)
	bl := w.comps["BL1/1963"]
	if bl.Caption != "1. Bundesliga 1963/64" || len(bl.Teams) != 16 || bl.NumberOfMatchdays != 30 ||
		bl.Rules.PointsWin != 2 || bl.Rules.TieBreakers[0] != model.GoalQuotient {
		t.Errorf("Bundesliga 1963-64: %+v", bl)
	}
	if got := records(w, bl.ID)["1. FC Koln"]; got.won != 17 || got.drawn != 11 || got.lost != 2 {
		t.Errorf("1. FC Köln, first champions: %+v", got)
	}
	// The Scottish top flight splits after 33 rounds: 38 games each.
	spl := w.comps["SPL/2015"]
	if len(spl.Teams) != 12 || spl.NumberOfMatchdays != 38 || w.comps["SL2/2015"].ID == 0 {
		t.Errorf("Scotland 2015-16: %+v", spl)
	}
	for _, f := range w.fixtures {
		if f.CompetitionID == spl.ID && !f.Kickoff.Equal(time.Date(f.Kickoff.Year(), f.Kickoff.Month(), f.Kickoff.Day(), f.Kickoff.Hour(), 0, 0, 0, time.UTC)) {
			t.Fatalf("kick-off %s is not on the hour", f.Kickoff)
		}
	}
}

func TestEngSoccerFiles(t *testing.T) {
	files, err := importer.Formats["engsoccerdata"].Files([]string{natstest.SharedData(t, "engsoccerdata", "data-raw")})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range files[:len(files)-1] {
		names[filepath.Base(f)] = true
	}
	deductions := files[len(files)-1]
	for _, want := range []string{"england.csv", "england_nonleague.csv", "germany2.csv", "mls.csv", "spain.csv"} {
		if !names[want] {
			t.Errorf("%s not listed in %v", want, files)
		}
	}
	for _, not := range []string{"facup.csv", "champs.csv", "england_club_data.csv", "teamnames.csv", "deductions.csv"} {
		if names[not] {
			t.Errorf("%s listed as a match file", not)
		}
	}
	if filepath.Base(deductions) != "deductions.csv" {
		t.Errorf("deductions file %q", deductions)
	}
	s := natstest.MustOpen(t, natstest.MustStart(t))
	im := newImporter(t, s)
	importWith(t, im, "engsoccerdata", importer.Options{}, engFile("facup.csv"))
	if len(im.Summary.Rejected) != 1 || model.ErrorCode(im.Summary.Rejected[0].Err) != model.Invalid {
		t.Errorf("cup file: got %v, want one invalid file", im.Summary.Rejected)
	}
}

// BenchmarkEngSoccerEngland imports every English league match (about
// 208,000) into a fresh server. Reported: fixtures/s.
func BenchmarkEngSoccerEngland(b *testing.B) {
	var elapsed time.Duration
	fixtures := 0
	for range b.N {
		b.StopTimer()
		s := natstest.MustOpen(b, natstest.MustStart(b))
		im := newImporter(b, s)
		b.StartTimer()
		start := time.Now()
		engImport(b, im, "england.csv", [2]int{0, 0})
		elapsed += time.Since(start)
		fixtures = im.Summary.Fixtures.Created
	}
	b.ReportMetric(float64(fixtures*b.N)/elapsed.Seconds(), "fixtures/s")
}

// TestRacingEngSoccerImports: importers of the same seasons at once, each
// claiming a file's seasons together, end with one competition per
// season, created by exactly one of them, and every match once.
func TestRacingEngSoccerImports(t *testing.T) {
	srv := natstest.MustStart(t)
	const importers = 3
	sums := make([]importer.Summary, importers)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range importers {
		im := newImporter(t, natstest.MustOpen(t, srv))
		wg.Go(func() {
			<-start
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			if err := im.Import(ctx, importer.Formats["engsoccerdata"], []string{engFile("england.csv")}, importer.Options{From: 1990, To: 1991}); err != nil {
				t.Errorf("importer %d: %v", i, err)
			}
			sums[i] = im.Summary
		})
	}
	close(start)
	wg.Wait()
	want := csvCounts(t, "england.csv", 1990, 1991)
	total := 0
	for _, n := range want {
		total += n
	}
	w := load(t, natstest.MustOpen(t, srv))
	if len(w.comps) != len(want) {
		t.Errorf("%d competitions, want %d (one per season and division)", len(w.comps), len(want))
	}
	if len(w.fixtures) != total {
		t.Errorf("%d fixtures, the file has %d", len(w.fixtures), total)
	}
	created := 0
	for i, s := range sums {
		created += s.Competitions.Created
		if got := s.Competitions.Created + s.Competitions.Updated + s.Competitions.Unchanged; got != len(want) {
			t.Errorf("importer %d counted %d competitions (%+v), want %d", i, got, s.Competitions, len(want))
		}
	}
	if created != len(want) {
		t.Errorf("%d competitions created in all, want %d: each by one importer", created, len(want))
	}
}
