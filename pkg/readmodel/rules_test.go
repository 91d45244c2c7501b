package readmodel_test

import (
	"fmt"
	"testing"

	"github.com/footdata/footballd/pkg/model"
)

// withRules returns comp with its rules changed by edit.
func withRules(comp *model.Competition, edit func(r *model.TableRules)) *model.Competition {
	edit(&comp.Rules)
	return comp
}

// five is a league of the five test teams.
func five(id int, rules ...model.TieBreaker) *model.Competition {
	c := league(id, 2024, rules...)
	c.Teams = append(c.Teams, model.CompetitionTeam{TeamID: echo})
	return c
}

// A group of four all on four points (the shape of Euro 2024's group E):
// the whole group's mini-table puts B and D (+1, six goals) ahead of A (-1,
// five) and C (-1, three); D beat B 3-1, C beat A 2-0.
func fourLevel(c int) []any {
	return []any{played(1, c, 1, alpha, bravo, "2-2"), played(2, c, 1, charlie, delta, "1-1"),
		played(3, c, 2, alpha, charlie, "0-2"), played(4, c, 2, bravo, delta, "1-3"),
		played(5, c, 3, alpha, delta, "3-2"), played(6, c, 3, bravo, charlie, "3-0")}
}

// TestTableRules covers the rules added for real competitions' formats,
// one case each; a case fails if its rule is ignored.
func TestTableRules(t *testing.T) {
	const c = 10
	h2hRules := []model.TieBreaker{h2hPts, h2hGD, h2hGS, gd, gs}
	mode := func(m model.HeadToHeadMode) *model.Competition {
		return withRules(league(c, 2024, h2hRules...), func(r *model.TableRules) { r.HeadToHead = m })
	}
	// Regular season of four teams in three matchdays: B 8 (4 of them an
	// adjustment), A 7, C 4, D 1; then two play-off matchdays.
	regular := []any{played(1, c, 1, alpha, bravo, "1-1"), played(2, c, 1, charlie, delta, "0-0"),
		played(3, c, 2, alpha, charlie, "2-0"), played(4, c, 2, bravo, delta, "1-0"),
		played(5, c, 3, alpha, delta, "1-0"), played(6, c, 3, bravo, charlie, "0-1"),
		&model.Adjustment{ID: 1, CompetitionID: c, TeamID: bravo, Points: 4, Reason: "bonus"}}
	playoffs := func(phases ...model.Phase) *model.Competition {
		return withRules(league(c, 2024, gd), func(r *model.TableRules) { r.RegularMatchdays, r.Phases = 3, phases })
	}
	title := model.Phase{Name: "Title", Kind: model.PhasePlayoff, From: 1, To: 2, Carry: model.CarryHalfUp}
	relegation := model.Phase{Name: "Relegation", Kind: model.PhasePlayoff, From: 3, To: 4, Carry: model.CarryAll}
	sections := withRules(league(c, 2024, gd, gs), func(r *model.TableRules) {
		r.RegularMatchdays = 3
		r.Phases = []model.Phase{{Name: "Top", Kind: model.PhaseSection, From: 1, To: 2}, {Name: "Bottom", Kind: model.PhaseSection, From: 3, To: 4}}
	})
	// A beats everyone, B beats C and D, C beats D; then the sections.
	sectionGames := []any{played(1, c, 1, alpha, bravo, "1-0"), played(2, c, 1, charlie, delta, "1-0"),
		played(3, c, 2, alpha, charlie, "1-0"), played(4, c, 2, bravo, delta, "1-0"),
		played(5, c, 3, alpha, delta, "1-0"), played(6, c, 3, bravo, charlie, "1-0"),
		played(7, c, 4, alpha, bravo, "0-0"), played(8, c, 4, charlie, delta, "5-0"),
		played(9, c, 5, bravo, alpha, "0-0"), played(10, c, 5, delta, charlie, "0-5")}

	tests := []struct {
		name     string
		comp     *model.Competition
		entities []any
		matchday int
		want     []string
	}{
		{
			// A: one win and two defeats; B: three draws and a better
			// goal difference.
			name: "wins before goal difference",
			comp: five(c, model.Wins, gd),
			entities: []any{played(1, c, 1, alpha, charlie, "1-0"), played(2, c, 1, bravo, delta, "1-1"),
				played(3, c, 2, alpha, delta, "0-4"), played(4, c, 2, bravo, echo, "1-1"),
				played(5, c, 3, alpha, echo, "0-1"), played(6, c, 3, bravo, charlie, "1-1")},
			matchday: 3,
			want:     []string{"D 1 1 4", "E 2 2 4", "A 3 3 3", "B 4 4 3", "C 5 5 1"},
		},
		{
			// A and B: 3 points, 2-2 in goals, one away goal, one win; A
			// won away, B at home. C scored no away goal.
			name: "away wins",
			comp: five(c, gd, gs, away, model.Wins, model.AwayWins),
			entities: []any{played(1, c, 1, charlie, alpha, "0-1"), played(2, c, 1, bravo, echo, "1-0"),
				played(3, c, 2, alpha, delta, "1-2"), played(4, c, 2, charlie, bravo, "2-1")},
			matchday: 2,
			want:     []string{"D 1 1 3", "A 2 2 3", "B 3 3 3", "C 4 4 3", "E 5 5 0"},
		},
		{
			// A beat C (3 points), B beat D (0): A's opponents did better.
			// A and C are level on every opponents' figure; D's opponent
			// has the better goal difference than E's.
			name: "opponents' points, goal difference and goals",
			comp: five(c, model.OpponentsPoints, model.OpponentsGoalDiff, model.OpponentsGoals),
			entities: []any{played(1, c, 1, alpha, charlie, "1-0"), played(2, c, 1, bravo, delta, "1-0"),
				played(3, c, 2, charlie, echo, "1-0")},
			matchday: 2,
			want:     []string{"A 1 1 3", "C 2 1 3", "B 3 3 3", "D 4 4 0", "E 5 5 0"},
		},
		{
			name: "fewer disciplinary points rank higher",
			comp: league(c, 2024, model.DisciplinaryPoints),
			entities: []any{played(1, c, 1, alpha, charlie, "1-0"), played(2, c, 1, bravo, delta, "1-0"),
				&model.TieBreakData{CompetitionID: c, Disciplinary: map[int]int{alpha: 5, bravo: 3}, Source: "reports"}},
			matchday: 1,
			want:     []string{"B 1 1 3", "A 2 2 3", "C 3 3 0", "D 4 3 0"},
		},
		{
			name: "disciplinary points missing for one level team separate nobody",
			comp: league(c, 2024, model.DisciplinaryPoints),
			entities: []any{played(1, c, 1, alpha, charlie, "1-0"), played(2, c, 1, bravo, delta, "1-0"),
				&model.TieBreakData{CompetitionID: c, Disciplinary: map[int]int{bravo: 3}, Source: "reports"}},
			matchday: 1,
			want:     []string{"A 1 1 3", "B 2 1 3", "C 3 3 0", "D 4 3 0"},
		},
		{
			name: "the coefficient order after level disciplinary points",
			comp: league(c, 2024, model.DisciplinaryPoints, model.Coefficient),
			entities: []any{played(1, c, 1, alpha, charlie, "1-0"), played(2, c, 1, bravo, delta, "1-0"),
				&model.TieBreakData{CompetitionID: c, Disciplinary: map[int]int{alpha: 4, bravo: 4},
					Coefficients: []int{delta, charlie, bravo, alpha}, Source: "UEFA"}},
			matchday: 1,
			want:     []string{"B 1 1 3", "A 2 2 3", "D 3 3 0", "C 4 4 0"},
		},
		{
			// Each rule recomputes the mini-table: goals between B and D
			// alone (D 3, B 1), between A and C alone (C 2, A 0).
			name:     "head-to-head recomputed after each rule (Spain, Italy)",
			comp:     mode(model.HeadToHeadEachRule),
			entities: fourLevel(c),
			matchday: 3,
			want:     []string{"D 1 1 4", "B 2 2 4", "C 3 3 4", "A 4 4 4"},
		},
		{
			// One mini-table of all four, once: B and D stay level (and
			// level on goal difference and goals), A's five goals beat C's
			// three.
			name:     "head-to-head together on the whole level group (FIFA to 2022)",
			comp:     mode(model.HeadToHeadTogether),
			entities: fourLevel(c),
			matchday: 3,
			want:     []string{"B 1 1 4", "D 2 1 4", "A 3 3 4", "C 4 4 4"},
		},
		{
			// As together, then again between B and D alone: D won.
			name:     "head-to-head on the whole group, re-applied to those still level (UEFA)",
			comp:     mode(model.HeadToHeadUEFA),
			entities: fourLevel(c),
			matchday: 3,
			want:     []string{"D 1 1 4", "B 2 2 4", "A 3 3 4", "C 4 4 4"},
		},
		{
			name:     "sections: the regular season",
			comp:     sections,
			entities: sectionGames,
			matchday: 3,
			want:     []string{"A 1 1 9", "B 2 2 6", "C 3 3 3", "D 4 4 0"},
		},
		{
			// C ends with more points than B but cannot leave the bottom
			// section.
			name:     "sections keep their places after the split",
			comp:     sections,
			entities: sectionGames,
			matchday: 5,
			want:     []string{"A 1 1 11", "B 2 2 8", "C 3 3 9", "D 4 4 0"},
		},
		{
			name:     "play-offs: the regular season",
			comp:     playoffs(title, relegation),
			entities: regular,
			matchday: 3,
			want:     []string{"B 1 1 8", "A 2 2 7", "C 3 3 4", "D 4 4 1"},
		},
		{
			// B carries 8/2 = 4, A 7/2 = 3.5, rounded up to 4 (so below
			// B); C and D carry their points whole.
			name:     "play-offs start from the carried points",
			comp:     playoffs(title, relegation),
			entities: append(regular, timed(7, c, 4, alpha, bravo, kickoff(4))),
			matchday: 4,
			want:     []string{"Title:B 1 1 4", "Title:A 2 2 4", "Relegation:C 1 1 4", "Relegation:D 2 2 1"},
		},
		{
			// A and B both win once: 7 each, and the half point A gained
			// by rounding is taken off again. C and D end on 5: the
			// play-off's goal difference decides. A game between the two
			// play-offs counts nowhere.
			name: "play-offs: the half point taken off again for level teams",
			comp: playoffs(title, relegation),
			entities: append(regular, played(7, c, 4, alpha, bravo, "1-0"), played(8, c, 4, delta, charlie, "2-0"),
				played(9, c, 5, bravo, alpha, "1-0"), played(10, c, 5, charlie, delta, "0-0"),
				played(11, c, 5, alpha, charlie, "9-0")),
			matchday: 5,
			want:     []string{"Title:B 1 1 7", "Title:A 2 2 7", "Relegation:D 1 1 5", "Relegation:C 2 2 5"},
		},
		{
			// B on 6 carries 3, A on 7 carries 3.5 rounded down to 3: the
			// half point counts again when they finish level. Teams in
			// no phase keep their regular-season places.
			name: "play-offs: halved and rounded down, the half point counts again for level teams",
			comp: playoffs(model.Phase{Name: "Title", Kind: model.PhasePlayoff, From: 1, To: 2, Carry: model.CarryHalfDown}),
			entities: append(regular, &model.Adjustment{ID: 2, CompetitionID: c, TeamID: bravo, Points: -2, Reason: "fine"},
				played(7, c, 4, alpha, bravo, "1-0"), played(9, c, 5, bravo, alpha, "1-0")),
			matchday: 5,
			want:     []string{"Title:A 1 1 6", "Title:B 2 2 6", "Regular season:C 3 3 4", "Regular season:D 4 4 1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { expectTable(t, tt.comp, tt.entities, tt.matchday, tt.want) })
	}
}

// TestThirds ranks the teams placed third in three groups of three, each
// row keeping its group.
func TestThirds(t *testing.T) {
	const c = 20
	comp := league(c, 2024, gd, gs)
	comp.Type, comp.League = model.TypeTournament, "EC"
	comp.Teams = nil
	for id := alpha; id <= 9; id++ {
		comp.Teams = append(comp.Teams, model.CompetitionTeam{TeamID: id, Group: string(rune('A' + (id-1)/3))})
	}
	comp.Rules.Thirds = &model.ThirdsRule{TieBreakers: []model.TieBreaker{gd, gs}}
	f := newFeed(t, t0)
	f.put(teams()...)
	for id := 6; id <= 9; id++ {
		short := letters[id]
		f.put(&model.Team{ID: id, Name: "Team " + short, ShortName: &short})
	}
	f.put(comp,
		// Group A: 1 4 points, 2 3, 3 1 (goal difference -1).
		grouped(played(1, c, 1, alpha, bravo, "2-0"), "A"), grouped(played(2, c, 2, alpha, charlie, "1-1"), "A"),
		grouped(played(3, c, 3, bravo, charlie, "2-1"), "A"),
		// Group B: 4 4 points, 5 3, 6 1 (goal difference -3).
		grouped(played(4, c, 1, delta, echo, "1-0"), "B"), grouped(played(5, c, 2, echo, 6, "3-0"), "B"),
		grouped(played(6, c, 3, delta, 6, "0-0"), "B"),
		// Group C: three draws, 7 third on goals.
		grouped(played(7, c, 1, 7, 8, "1-1"), "C"), grouped(played(8, c, 2, 8, 9, "2-2"), "C"),
		grouped(played(9, c, 3, 7, 9, "1-1"), "C"))
	f.m.MarkReady()
	table, _ := f.snap().Table(c, 3)
	if n := len(table.Standings); n != 4 || table.Standings[3].Group != model.Thirds {
		t.Fatalf("standings %+v, want groups A, B, C then thirds", table.Standings)
	}
	thirds := table.Standings[3].Rows
	var got []string
	for _, r := range thirds {
		got = append(got, fmt.Sprintf("%s:%s %d %d %d", r.Group, letters[r.TeamID], r.Position, r.Rank, r.Points))
	}
	want := []string{"C:G 1 1 2", "A:C 2 2 1", "B:F 3 3 1"}
	if !equalLines(got, want) {
		t.Errorf("thirds:\n got %q\nwant %q", got, want)
	}
	if msg := checkTable(table, comp.Rules); msg != "" {
		t.Error(msg)
	}
	// Before any game the thirds have no rank.
	before := newFeed(t, t0)
	before.put(teams()...)
	before.put(comp, grouped(timed(1, c, 1, alpha, bravo, kickoff(1)), "A"))
	before.m.MarkReady()
	table, _ = before.snap().Table(c, 1)
	for _, r := range table.Standings[len(table.Standings)-1].Rows {
		if r.Rank != 0 {
			t.Errorf("thirds before any game: %+v", r)
		}
	}
}
