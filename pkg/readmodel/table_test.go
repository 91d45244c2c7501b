package readmodel_test

import (
	"reflect"
	"testing"

	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/readmodel"
)

const (
	gd      = model.GoalDifference
	gs      = model.GoalsScored
	gq      = model.GoalQuotient
	h2hPts  = model.HeadToHeadPoints
	h2hGD   = model.HeadToHeadGoalDiff
	h2hGS   = model.HeadToHeadGoals
	h2hAway = model.HeadToHeadAwayGoals
	away    = model.AwayGoals
)

func playoff(f *model.Fixture) *model.Fixture { f.Stage = model.Playoff; return f }

func awarded(f *model.Fixture, s model.Side) *model.Fixture { f.Awarded = s; return f }

func grouped(f *model.Fixture, g string) *model.Fixture { f.Group = g; return f }

func TestTables(t *testing.T) {
	const c = 10
	withPoints := func(comp *model.Competition, win, draw int) *model.Competition {
		comp.Rules.PointsWin, comp.Rules.PointsDraw = win, draw
		return comp
	}
	listing := func(comp *model.Competition, teams ...model.CompetitionTeam) *model.Competition {
		comp.Teams = teams
		return comp
	}
	tournament := listing(league(c, 2017, gd), model.CompetitionTeam{TeamID: alpha, Group: "A"},
		model.CompetitionTeam{TeamID: bravo, Group: "A"}, model.CompetitionTeam{TeamID: charlie, Group: "B"},
		model.CompetitionTeam{TeamID: delta, Group: "B"})
	tournament.Type = model.TypeTournament
	partly := listing(league(c, 2017, gd), model.CompetitionTeam{TeamID: alpha, Group: "A"},
		model.CompetitionTeam{TeamID: bravo, Group: "A"}, model.CompetitionTeam{TeamID: charlie, Group: "B"})
	partly.Type = model.TypeTournament

	tests := []struct {
		name     string
		comp     *model.Competition
		entities []any // fixtures, adjustments, tie-break orders, in stream order
		matchday int
		want     []string // "team position rank points", group-prefixed in tournaments
	}{
		{
			name: "points then goal difference",
			comp: league(c, 2017, gd, gs),
			entities: []any{played(1, c, 1, alpha, bravo, "2-0"), played(2, c, 1, charlie, delta, "1-1"),
				played(3, c, 2, bravo, charlie, "3-1"), played(4, c, 2, delta, alpha, "1-0")},
			matchday: 2,
			want:     []string{"D 1 1 4", "A 2 2 3", "B 3 3 3", "C 4 4 1"},
		},
		{
			name: "an earlier matchday counts only its games",
			comp: league(c, 2017, gd, gs),
			entities: []any{played(1, c, 1, alpha, bravo, "2-0"), played(2, c, 1, charlie, delta, "1-1"),
				played(3, c, 2, bravo, charlie, "3-1"), played(4, c, 2, delta, alpha, "1-0")},
			matchday: 1,
			want:     []string{"A 1 1 3", "C 2 2 1", "D 3 2 1", "B 4 4 0"},
		},
		{
			name:     "goals scored",
			comp:     league(c, 2017, gd, gs),
			entities: []any{played(1, c, 1, alpha, charlie, "3-1"), played(2, c, 1, bravo, delta, "2-0")},
			matchday: 1,
			want:     []string{"A 1 1 3", "B 2 2 3", "C 3 3 0", "D 4 4 0"},
		},
		{
			name:     "teams level on every rule share a rank in name order",
			comp:     league(c, 2017, gd),
			entities: []any{played(1, c, 1, alpha, charlie, "3-1"), played(2, c, 1, bravo, delta, "2-0")},
			matchday: 1,
			want:     []string{"A 1 1 3", "B 2 1 3", "C 3 3 0", "D 4 3 0"},
		},
		{
			name: "shared ranks 1 2 2 4",
			comp: league(c, 2017, gd),
			entities: []any{played(1, c, 1, alpha, bravo, "1-0"), played(2, c, 1, charlie, delta, "1-0"),
				played(3, c, 2, alpha, delta, "1-0"), played(4, c, 2, bravo, charlie, "1-0")},
			matchday: 2,
			want:     []string{"A 1 1 6", "B 2 2 3", "C 3 2 3", "D 4 4 0"},
		},
		{
			name:     "goal quotient before goal difference",
			comp:     league(c, 1965, gq),
			entities: []any{played(1, c, 1, alpha, charlie, "3-1"), played(2, c, 1, bravo, delta, "5-2")},
			matchday: 1,
			want:     []string{"A 1 1 3", "B 2 2 3", "D 3 3 0", "C 4 4 0"},
		},
		{
			name:     "goal quotient: nothing conceded sorts above any quotient",
			comp:     league(c, 1965, gq),
			entities: []any{played(1, c, 1, alpha, charlie, "1-0"), played(2, c, 1, bravo, delta, "5-1")},
			matchday: 1,
			want:     []string{"A 1 1 3", "B 2 2 3", "D 3 3 0", "C 4 4 0"},
		},
		{
			name: "head-to-head points before goal difference",
			comp: league(c, 2017, h2hPts, gd),
			entities: []any{played(1, c, 1, bravo, alpha, "1-0"), played(2, c, 1, charlie, delta, "0-0"),
				played(3, c, 2, alpha, charlie, "4-0"), played(4, c, 2, delta, bravo, "2-0")},
			matchday: 2,
			want:     []string{"D 1 1 4", "B 2 2 3", "A 3 3 3", "C 4 4 1"},
		},
		{
			// A beat C 5-0, but C is not level with A: that game is not
			// part of the mini-table of A, B and D.
			name: "head-to-head counts games among exactly the level teams",
			comp: league(c, 2017, h2hPts, gd),
			entities: []any{played(1, c, 1, bravo, alpha, "1-0"), played(2, c, 2, alpha, charlie, "5-0"),
				played(3, c, 2, bravo, delta, "0-1")},
			matchday: 2,
			want:     []string{"D 1 1 3", "B 2 2 3", "A 3 3 3", "C 4 4 0"},
		},
		{
			name: "head-to-head goal difference",
			comp: league(c, 2017, h2hPts, h2hGD, gd),
			entities: []any{played(1, c, 1, alpha, bravo, "3-0"), played(2, c, 1, charlie, delta, "0-0"),
				played(3, c, 2, bravo, alpha, "1-0"), played(4, c, 2, delta, charlie, "0-0"),
				played(5, c, 3, bravo, charlie, "6-0"), played(6, c, 3, alpha, delta, "1-0")},
			matchday: 3,
			want:     []string{"A 1 1 6", "B 2 2 6", "D 3 3 2", "C 4 4 2"},
		},
		{
			// A circle of 2-1, 2-1, 1-0: level on head-to-head points and
			// goal difference; B scored most in those games.
			name: "head-to-head goals scored",
			comp: league(c, 2017, h2hPts, h2hGD, h2hGS),
			entities: []any{played(1, c, 1, alpha, bravo, "2-1"), played(2, c, 2, bravo, charlie, "2-1"),
				played(3, c, 3, charlie, alpha, "1-0")},
			matchday: 3,
			want:     []string{"B 1 1 3", "A 2 2 3", "C 3 2 3", "D 4 4 0"},
		},
		{
			name:     "head-to-head away goals",
			comp:     league(c, 2017, h2hPts, h2hGD, h2hAway),
			entities: []any{played(1, c, 1, alpha, bravo, "2-1"), played(2, c, 2, bravo, alpha, "3-2")},
			matchday: 2,
			want:     []string{"A 1 1 3", "B 2 2 3", "C 3 3 0", "D 4 3 0"},
		},
		{
			name:     "away goals",
			comp:     league(c, 2017, gd, gs, away),
			entities: []any{played(1, c, 1, alpha, charlie, "2-0"), played(2, c, 1, delta, bravo, "0-2")},
			matchday: 1,
			want:     []string{"B 1 1 3", "A 2 2 3", "C 3 3 0", "D 4 3 0"},
		},
		{
			name: "points adjustments count from matchday 1; 0 withdraws one",
			comp: league(c, 2017, gd, gs),
			entities: []any{played(1, c, 1, alpha, bravo, "1-0"), played(2, c, 1, charlie, delta, "0-0"),
				&model.Adjustment{ID: 1, CompetitionID: c, TeamID: alpha, Points: -3, Reason: "administration"},
				&model.Adjustment{ID: 2, CompetitionID: c, TeamID: bravo, Points: -6, Reason: "fielding an ineligible player"},
				&model.Adjustment{ID: 2, CompetitionID: c, TeamID: bravo, Points: 0, Reason: "appeal upheld"}},
			matchday: 1,
			want:     []string{"C 1 1 1", "D 2 1 1", "A 3 3 0", "B 4 4 0"},
		},
		{
			name:     "an awarded result gives the points whatever the goals",
			comp:     league(c, 2017, gd),
			entities: []any{awarded(played(1, c, 1, bravo, alpha, "3-0"), model.Away)},
			matchday: 1,
			want:     []string{"A 1 1 3", "B 2 2 0", "C 3 3 0", "D 4 3 0"},
		},
		{
			name:     "play-offs do not count",
			comp:     league(c, 2017, gd),
			entities: []any{played(1, c, 1, alpha, bravo, "1-0"), playoff(played(2, c, 2, bravo, alpha, "5-0"))},
			matchday: 2,
			want:     []string{"A 1 1 3", "C 2 2 0", "D 3 2 0", "B 4 4 0"},
		},
		{
			name: "the editor's order separates the level teams it lists",
			comp: league(c, 2017, gd),
			entities: []any{played(1, c, 1, alpha, bravo, "1-1"), played(2, c, 1, charlie, delta, "1-1"),
				&model.TieBreakOrder{CompetitionID: c, TeamIDs: []int{delta, bravo}, Reason: "lots"}},
			matchday: 1,
			want:     []string{"D 1 1 1", "B 2 2 1", "A 3 3 1", "C 4 3 1"},
		},
		{
			name: "the editor's order of every level team",
			comp: league(c, 2017, gd),
			entities: []any{played(1, c, 1, alpha, bravo, "1-1"), played(2, c, 1, charlie, delta, "1-1"),
				&model.TieBreakOrder{CompetitionID: c, TeamIDs: []int{charlie, alpha, delta, bravo}, Reason: "fair play"}},
			matchday: 1,
			want:     []string{"C 1 1 1", "A 2 2 1", "D 3 3 1", "B 4 4 1"},
		},
		{
			name: "an order listing one level team leaves the tie",
			comp: league(c, 2017, gd),
			entities: []any{played(1, c, 1, alpha, bravo, "1-1"), played(2, c, 1, charlie, delta, "3-0"),
				&model.TieBreakOrder{CompetitionID: c, TeamIDs: []int{bravo, charlie}, Reason: "lots"}},
			matchday: 1,
			want:     []string{"C 1 1 3", "A 2 2 1", "B 3 2 1", "D 4 4 0"},
		},
		{
			name:     "before the first game every team is listed with zeros",
			comp:     league(c, 2017, gd),
			entities: []any{timed(1, c, 1, alpha, bravo, kickoff(1))},
			matchday: 1,
			want:     []string{"A 1 1 0", "B 2 1 0", "C 3 1 0", "D 4 1 0"},
		},
		{
			name:     "two points for a win",
			comp:     withPoints(league(c, 1980, gd), 2, 1),
			entities: []any{played(1, c, 1, alpha, bravo, "1-0"), played(2, c, 1, charlie, delta, "0-0")},
			matchday: 1,
			want:     []string{"A 1 1 2", "C 2 2 1", "D 3 2 1", "B 4 4 0"},
		},
		{
			name:     "a team missing from the list joins from its fixtures",
			comp:     listing(league(c, 2017, gd), model.CompetitionTeam{TeamID: alpha}, model.CompetitionTeam{TeamID: bravo}),
			entities: []any{played(1, c, 1, alpha, echo, "0-1")},
			matchday: 1,
			want:     []string{"E 1 1 3", "B 2 2 0", "A 3 3 0"},
		},
		{
			name: "tournament: one table per group, knock-out games left out, no ranks before a group plays",
			comp: tournament,
			entities: []any{played(1, c, 1, alpha, bravo, "2-0"), grouped(timed(2, c, 1, charlie, delta, kickoff(1)), "B"),
				playoff(played(3, c, 2, alpha, charlie, "3-0"))},
			matchday: 2,
			want:     []string{"A:A 1 1 3", "A:B 2 2 0", "B:C 1 0 0", "B:D 2 0 0"},
		},
		{
			name:     "tournament: a team missing from the list joins its fixture's group, else its opponent's",
			comp:     partly,
			entities: []any{played(1, c, 1, alpha, echo, "0-1"), grouped(played(2, c, 1, delta, charlie, "2-0"), "B")},
			matchday: 1,
			want:     []string{"A:E 1 1 3", "A:B 2 2 0", "A:A 3 3 0", "B:D 1 1 3", "B:C 2 2 0"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { expectTable(t, tt.comp, tt.entities, tt.matchday, tt.want) })
	}
}

func TestTableRow(t *testing.T) {
	f := newFeed(t, t0)
	f.put(teams()...)
	f.put(league(10, 2017, gd, gs), played(1, 10, 1, alpha, bravo, "2-0"), played(2, 10, 2, delta, alpha, "1-0"),
		awarded(played(3, 10, 3, charlie, alpha, "2-1"), model.Away),
		&model.Adjustment{ID: 1, CompetitionID: 10, TeamID: alpha, Points: -1, Reason: "fine"})
	f.m.MarkReady()
	table, _ := f.snap().Table(10, 3)
	var got readmodel.TableRow
	for _, r := range table.Standings[0].Rows {
		if r.TeamID == alpha {
			got = r
		}
	}
	crest := "https://crests.example/1.svg"
	want := readmodel.TableRow{Position: 1, Rank: 1, TeamID: alpha, TeamName: "Alpha FC", ShortName: "A", CrestURL: crest,
		PlayedGames: 3, Points: 5, PointsAdjustment: -1, Goals: 3, GoalsAgainst: 3, GoalDifference: 0, Wins: 2, Losses: 1,
		Home: readmodel.Split{Goals: 2, Wins: 1}, Away: readmodel.Split{Goals: 1, GoalsAgainst: 3, Wins: 1, Losses: 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("row:\n got %+v\nwant %+v", got, want)
	}
}

func TestTableMatchdays(t *testing.T) {
	f := newFeed(t, t0)
	f.put(teams()...)
	cup := league(20, 2017)
	cup.Type, cup.League = model.TypeCup, "FAC"
	f.put(league(10, 2017, gd), played(1, 10, 1, alpha, bravo, "1-0"), timed(3, 10, 2, charlie, delta, kickoff(2)),
		cup, playoff(played(2, 20, 1, alpha, bravo, "1-0")))
	f.m.MarkReady()
	s := f.snap()

	// NumberOfMatchdays is 6: matchday 7 is beyond the last.
	if table, ok := s.Table(10, 7); !ok || table.Matchday != 0 || table.Standings != nil {
		t.Errorf("beyond the last matchday: got %+v %v, want matchday 0 and no standing", table, ok)
	}
	if table, _ := s.Table(10, 6); table.Matchday != 6 || len(table.Standings[0].Rows) != 4 {
		t.Errorf("last matchday: got %+v", table)
	}
	if table, ok := s.Table(20, 1); !ok || table.Matchday != 1 || table.Standings != nil {
		t.Errorf("cup: got %+v %v, want matchday 1 without standing", table, ok)
	}
	if _, ok := s.Table(99, 1); ok {
		t.Error("unknown competition found")
	}
	// Default matchday: the current one (clock at t0: matchday 1 has
	// just kicked off, matchday 2 is a week away).
	if table, _ := s.Table(10, 0); table.Matchday != 1 {
		t.Errorf("default matchday: got %d, want 1", table.Matchday)
	}
}

// TestRowView checks that a row read in place has every figure and name
// Row copies, at every matchday of a league with a deduction and an
// awarded game, and that TableViewOf gives back the rows it was made of.
func TestRowView(t *testing.T) {
	f := newFeed(t, t0)
	f.put(teams()...)
	f.put(league(10, 2017, gd, gs), played(1, 10, 1, alpha, bravo, "2-0"), played(2, 10, 2, delta, alpha, "1-0"),
		awarded(played(3, 10, 3, charlie, alpha, "2-1"), model.Away), timed(4, 10, 4, bravo, charlie, kickoff(4)),
		&model.Adjustment{ID: 1, CompetitionID: 10, TeamID: alpha, Points: -1, Reason: "fine"})
	f.m.MarkReady()
	inPlace := func(r readmodel.RowView) readmodel.TableRow {
		return readmodel.TableRow{Position: r.Position(), Rank: r.Rank(), TeamID: r.TeamID(), TeamName: r.TeamName(),
			ShortName: r.ShortName(), CrestURL: r.CrestURL(), PlayedGames: r.PlayedGames(), Points: r.Points(),
			Goals: r.Goals(), GoalsAgainst: r.GoalsAgainst(), GoalDifference: r.GoalDifference(),
			Wins: r.Wins(), Draws: r.Draws(), Losses: r.Losses(), Home: r.Home(), Away: r.Away()}
	}
	// What a RowView does not give: the group and how the points were made.
	figures := func(r readmodel.TableRow) readmodel.TableRow {
		r.Group, r.PointsAdjustment, r.CarriedPoints = "", 0, 0
		return r
	}
	for md := 1; md <= 4; md++ {
		v, ok := f.snap().TableView(10, md)
		if !ok || v.Standings() != 1 || v.Len(0) != 4 {
			t.Fatalf("matchday %d: %v, %d standings", md, ok, v.Standings())
		}
		var rows []readmodel.TableRow
		for k := range v.Len(0) {
			var want readmodel.TableRow
			v.Row(0, k, &want)
			rows = append(rows, want)
			if got := inPlace(v.RowView(0, k)); got != figures(want) {
				t.Errorf("matchday %d, row %d in place:\n got %+v\nwant %+v", md, k, got, figures(want))
			}
		}
		of := readmodel.TableViewOf(v.Caption, md, []readmodel.Standing{{Rows: rows}})
		for k, want := range rows {
			if got := inPlace(of.RowView(0, k)); got != figures(want) {
				t.Errorf("matchday %d, row %d of TableViewOf:\n got %+v\nwant %+v", md, k, got, figures(want))
			}
		}
	}
}
