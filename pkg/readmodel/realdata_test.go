package readmodel_test

import (
	"context"
	"encoding/json"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/importer"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/readmodel"
)

// realSeasons are imported through the CLI's importer; each is checked
// against a count made here from the files alone.
var realSeasons = []struct {
	file   string
	league model.LeagueCode
	year   int
}{
	{"2015-16/en.1.json", "PL", 2015},
	{"2019-20/en.1.json", "PL", 2019},
	{"2020-21/en.1.json", "PL", 2020},
	{"2015-16/de.1.json", "BL1", 2015},
	{"2015-16/es.1.json", "PD", 2015},
	{"2015-16/it.1.json", "SA", 2015},
	{"2016-17/fr.1.json", "FL1", 2016},
	{"2023-24/en.2.json", "ELC", 2023},
}

// tally is one team's line counted independently from a file.
type tally struct{ played, won, drawn, lost, goals, against, points int }

type rawMatch struct {
	Round  string `json:"round"`
	Team1  string `json:"team1"`
	Team2  string `json:"team2"`
	Stage  string `json:"stage"`
	Status string `json:"status"`
	Score  struct {
		FT []int `json:"ft"`
	} `json:"score"`
}

func readMatches(t *testing.T, file string) []rawMatch {
	t.Helper()
	raw, err := os.ReadFile(natstest.SharedData(t, "openfootball-football-json", file))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Matches []rawMatch `json:"matches"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	return f.Matches
}

// count tallies the regular-season results of a file with 3 points for a
// win: play-offs (a stage other than Regular) are left out, and the one
// awarded 0-0 of these files (Bastia v Lyon 2016-17) goes to the away side.
func count(t *testing.T, file string) map[string]*tally {
	t.Helper()
	out := map[string]*tally{}
	get := func(n string) *tally {
		if out[n] == nil {
			out[n] = &tally{}
		}
		return out[n]
	}
	for _, m := range readMatches(t, file) {
		if (m.Stage != "" && m.Stage != "Regular") || len(m.Score.FT) != 2 {
			continue
		}
		h, a := get(m.Team1), get(m.Team2)
		hg, ag := m.Score.FT[0], m.Score.FT[1]
		h.played++
		a.played++
		h.goals, h.against, a.goals, a.against = h.goals+hg, h.against+ag, a.goals+ag, a.against+hg
		winner := 0
		switch {
		case hg > ag:
			winner = 1
		case ag > hg:
			winner = 2
		case m.Status == "awarded":
			winner = 2
		}
		switch winner {
		case 1:
			h.won, a.lost, h.points = h.won+1, a.lost+1, h.points+3
		case 2:
			a.won, h.lost, a.points = a.won+1, h.lost+1, a.points+3
		default:
			h.drawn, a.drawn, h.points, a.points = h.drawn+1, a.drawn+1, h.points+1, a.points+1
		}
	}
	return out
}

// realModel imports the seasons into a fresh stream and replays it into a
// model, as a replica does at start.
func realModel(t *testing.T) (readmodel.Snapshot, map[string]readmodel.Competition) {
	t.Helper()
	store := natstest.MustOpen(t, natstest.MustStart(t))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, s := range realSeasons {
		if sum := natstest.Import(t, store, "openfootball", importer.Options{}, natstest.SharedData(t, "openfootball-football-json", s.file)); len(sum.Rejected) > 0 {
			t.Fatalf("import %s: rejected %v", s.file, sum.Rejected)
		}
	}
	m, err := readmodel.New(readmodel.Config{Now: func() time.Time { return time.Date(2026, 3, 13, 12, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- m.Run(runCtx, store) }()
	t.Cleanup(func() { stop(); <-done })
	if err := m.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	snap := m.Snapshot()
	comps := map[string]readmodel.Competition{}
	for _, s := range realSeasons {
		for _, c := range snap.Competitions(s.year) {
			if c.League == s.league {
				comps[s.file] = c
			}
		}
	}
	return snap, comps
}

func TestRealTablesMatchAnIndependentCount(t *testing.T) {
	snap, comps := realModel(t)
	for _, s := range realSeasons {
		t.Run(s.file, func(t *testing.T) {
			c, ok := comps[s.file]
			if !ok {
				t.Fatal("competition not found")
			}
			table, ok := snap.Table(c.ID, 0)
			if !ok || len(table.Standings) != 1 {
				t.Fatalf("table: %v %+v", ok, table)
			}
			if table.Matchday != c.LastMatchday {
				t.Errorf("default matchday %d of a former season, want the last, %d", table.Matchday, c.LastMatchday)
			}
			want := count(t, s.file)
			rows := table.Standings[0].Rows
			if len(rows) != len(want) {
				t.Fatalf("%d rows, %d teams in the file", len(rows), len(want))
			}
			// Names in the table are the teams' first-seen spellings; the
			// file's spelling may differ only in affixes, so match by key.
			byKey := map[string]*tally{}
			for name, tl := range want {
				byKey[model.NormalizeTeamName(name)] = tl
			}
			for _, r := range rows {
				w := byKey[model.NormalizeTeamName(r.TeamName)]
				if w == nil {
					t.Errorf("%s is not in the file", r.TeamName)
					continue
				}
				got := tally{r.PlayedGames, r.Wins, r.Draws, r.Losses, r.Goals, r.GoalsAgainst, r.Points}
				if got != *w {
					t.Errorf("%s: table %+v, file %+v", r.TeamName, got, *w)
				}
			}
			checkOrder(t, snap, c, rows)
		})
	}
}

// checkOrder checks the table's order against the league's first rules:
// points, then the first tie-breaker between two teams level on points.
func checkOrder(t *testing.T, snap readmodel.Snapshot, c readmodel.Competition, rows []readmodel.TableRow) {
	t.Helper()
	for i := 1; i < len(rows); i++ {
		a, b := rows[i-1], rows[i]
		if a.Points < b.Points {
			t.Errorf("%s (%d) above %s (%d)", a.TeamName, a.Points, b.TeamName, b.Points)
		}
		if a.Points != b.Points {
			continue
		}
		switch c.Rules.TieBreakers[0] {
		case model.GoalDifference:
			if a.GoalDifference < b.GoalDifference || (a.GoalDifference == b.GoalDifference && a.Goals < b.Goals) {
				t.Errorf("%s above %s: goal difference %d/%d, goals %d/%d", a.TeamName, b.TeamName, a.GoalDifference, b.GoalDifference, a.Goals, b.Goals)
			}
		case model.HeadToHeadPoints:
			level := 0
			for _, r := range rows {
				if r.Points == a.Points {
					level++
				}
			}
			if level == 2 {
				pa, pb := h2hPoints(t, snap, c, a.TeamID, b.TeamID)
				if pa < pb {
					t.Errorf("%s above %s with %d head-to-head points to %d", a.TeamName, b.TeamName, pa, pb)
				}
			}
		}
	}
}

func h2hPoints(t *testing.T, snap readmodel.Snapshot, c readmodel.Competition, a, b int) (int, int) {
	t.Helper()
	fs, _ := snap.CompetitionFixtures(c.ID, readmodel.FixtureFilter{})
	pa, pb := 0, 0
	for _, f := range fs {
		if f.Stage != model.Regular || f.Result.FullTime == nil {
			continue
		}
		var ga, gb int
		switch {
		case f.HomeTeamID == a && f.AwayTeamID == b:
			ga, gb = f.Result.FullTime.Home, f.Result.FullTime.Away
		case f.HomeTeamID == b && f.AwayTeamID == a:
			ga, gb = f.Result.FullTime.Away, f.Result.FullTime.Home
		default:
			continue
		}
		switch {
		case ga > gb:
			pa += 3
		case gb > ga:
			pb += 3
		default:
			pa, pb = pa+1, pb+1
		}
	}
	return pa, pb
}

// TestRealHeadToHeadAcrossSeasons checks head2head for Manchester United v
// Tottenham in 2020-21 against the meetings counted from the three Premier
// League files imported.
func TestRealHeadToHeadAcrossSeasons(t *testing.T) {
	snap, comps := realModel(t)
	type meeting struct {
		home, away string
		hg, ag     int
	}
	var meetings []meeting
	for _, file := range []string{"2015-16/en.1.json", "2019-20/en.1.json", "2020-21/en.1.json"} {
		for _, m := range readMatches(t, file) {
			k1, k2 := model.NormalizeTeamName(m.Team1), model.NormalizeTeamName(m.Team2)
			pair := map[string]bool{k1: true, k2: true}
			if pair["manchester united"] && pair["tottenham hotspur"] && len(m.Score.FT) == 2 {
				meetings = append(meetings, meeting{k1, k2, m.Score.FT[0], m.Score.FT[1]})
			}
		}
	}
	if len(meetings) != 6 {
		t.Fatalf("%d meetings in the files, want 6", len(meetings))
	}
	// The last meeting of 2020-21 (Spurs at home? whichever came last in
	// the file) is the fixture to ask about.
	fs, _ := snap.CompetitionFixtures(comps["2020-21/en.1.json"].ID, readmodel.FixtureFilter{})
	var last readmodel.Fixture
	for _, f := range fs {
		k := map[string]bool{model.NormalizeTeamName(f.HomeTeamName): true, model.NormalizeTeamName(f.AwayTeamName): true}
		if k["manchester united"] && k["tottenham hotspur"] && f.Kickoff.After(last.Kickoff) {
			last = f
		}
	}
	home := model.NormalizeTeamName(last.HomeTeamName)
	wantHome, wantAway, wantDraws := 0, 0, 0
	for _, m := range meetings {
		switch {
		case m.hg == m.ag:
			wantDraws++
		case (m.hg > m.ag) == (m.home == home):
			wantHome++
		default:
			wantAway++
		}
	}
	h, ok := snap.HeadToHead(last.ID, 10, model.TierDonating)
	if !ok {
		t.Fatal("no head2head")
	}
	if h.Count != 6 || h.HomeTeamWins != wantHome || h.AwayTeamWins != wantAway || h.Draws != wantDraws {
		t.Errorf("head2head %d games %d/%d/%d, want 6 games %d/%d/%d", h.Count, h.HomeTeamWins, h.AwayTeamWins, h.Draws, wantHome, wantAway, wantDraws)
	}
	if len(h.Fixtures) != 6 || h.Fixtures[0].ID != last.ID || !sort.SliceIsSorted(h.Fixtures, func(i, j int) bool { return h.Fixtures[i].Kickoff.After(h.Fixtures[j].Kickoff) }) {
		t.Errorf("head2head fixtures not newest first, starting with the fixture itself")
	}
	if h.TimeFrameStart.Year() != 2015 || h.TimeFrameEnd.Year() != 2021 {
		t.Errorf("time frame %s..%s", h.TimeFrameStart, h.TimeFrameEnd)
	}
	h3, _ := snap.HeadToHead(last.ID, 3, model.TierDonating)
	if h3.Count != 3 || h3.TimeFrameStart.Year() < 2019 {
		t.Errorf("head2head=3: %d games from %s", h3.Count, h3.TimeFrameStart)
	}
}
