package model

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"testing"
)

func TestDefaultRulesByFormat(t *testing.T) {
	tests := []struct {
		name       string
		code       LeagueCode
		year       int
		win        int
		tieBreaks  []TieBreaker
		headToHead HeadToHeadMode
		regular    int
		phases     []string // "name kind from-to carry"
		thirds     []TieBreaker
	}{
		{name: "Premier League", code: "PL", year: 2024, win: 3,
			tieBreaks: []TieBreaker{GoalDifference, GoalsScored, HeadToHeadPoints, HeadToHeadGoalDiff, HeadToHeadGoals}},
		{name: "Serie A: head-to-head recomputed after each rule", code: "SA", year: 2024, win: 3,
			tieBreaks: []TieBreaker{HeadToHeadPoints, HeadToHeadGoalDiff, GoalDifference, GoalsScored}},
		{name: "Champions League group stage with away goals", code: "CL", year: 2019, win: 3, headToHead: HeadToHeadUEFA,
			tieBreaks: []TieBreaker{HeadToHeadPoints, HeadToHeadGoalDiff, HeadToHeadGoals, HeadToHeadAwayGoals,
				GoalDifference, GoalsScored, AwayGoals, Wins, AwayWins, DisciplinaryPoints, Coefficient}},
		{name: "Champions League group stage without away goals", code: "CL", year: 2023, win: 3, headToHead: HeadToHeadUEFA,
			tieBreaks: []TieBreaker{HeadToHeadPoints, HeadToHeadGoalDiff, HeadToHeadGoals,
				GoalDifference, GoalsScored, AwayGoals, Wins, AwayWins, DisciplinaryPoints, Coefficient}},
		{name: "Champions League league phase", code: "CL", year: 2024, win: 3,
			tieBreaks: []TieBreaker{GoalDifference, GoalsScored, AwayGoals, Wins, AwayWins,
				OpponentsPoints, OpponentsGoalDiff, OpponentsGoals, DisciplinaryPoints, Coefficient}},
		{name: "Euro 2012: no thirds", code: "EC", year: 2012, win: 3, headToHead: HeadToHeadUEFA,
			tieBreaks: []TieBreaker{HeadToHeadPoints, HeadToHeadGoalDiff, HeadToHeadGoals, GoalDifference, GoalsScored, DisciplinaryPoints, Coefficient}},
		{name: "Euro 2016", code: "EC", year: 2016, win: 3, headToHead: HeadToHeadUEFA,
			tieBreaks: []TieBreaker{HeadToHeadPoints, HeadToHeadGoalDiff, HeadToHeadGoals, GoalDifference, GoalsScored, DisciplinaryPoints, Coefficient},
			thirds:    []TieBreaker{GoalDifference, GoalsScored, DisciplinaryPoints, Coefficient}},
		{name: "Euro 2020: wins", code: "EC", year: 2020, win: 3, headToHead: HeadToHeadUEFA,
			tieBreaks: []TieBreaker{HeadToHeadPoints, HeadToHeadGoalDiff, HeadToHeadGoals, GoalDifference, GoalsScored, Wins, DisciplinaryPoints, Coefficient},
			thirds:    []TieBreaker{GoalDifference, GoalsScored, Wins, DisciplinaryPoints, Coefficient}},
		{name: "Euro 2024", code: "EC", year: 2024, win: 3, headToHead: HeadToHeadUEFA,
			tieBreaks: []TieBreaker{HeadToHeadPoints, HeadToHeadGoalDiff, HeadToHeadGoals, GoalDifference, GoalsScored, DisciplinaryPoints, Coefficient},
			thirds:    []TieBreaker{GoalDifference, GoalsScored, Wins, DisciplinaryPoints, Coefficient}},
		{name: "World Cup 1990: two points, thirds", code: "WC", year: 1990, win: 2, headToHead: HeadToHeadTogether,
			tieBreaks: []TieBreaker{GoalDifference, GoalsScored, HeadToHeadPoints, HeadToHeadGoalDiff, HeadToHeadGoals},
			thirds:    []TieBreaker{GoalDifference, GoalsScored}},
		{name: "World Cup 1994: three points", code: "WC", year: 1994, win: 3, headToHead: HeadToHeadTogether,
			tieBreaks: []TieBreaker{GoalDifference, GoalsScored, HeadToHeadPoints, HeadToHeadGoalDiff, HeadToHeadGoals},
			thirds:    []TieBreaker{GoalDifference, GoalsScored}},
		{name: "World Cup 2018: fair play", code: "WC", year: 2018, win: 3, headToHead: HeadToHeadTogether,
			tieBreaks: []TieBreaker{GoalDifference, GoalsScored, HeadToHeadPoints, HeadToHeadGoalDiff, HeadToHeadGoals, DisciplinaryPoints}},
		{name: "World Cup 2026", code: "WC", year: 2026, win: 3, headToHead: HeadToHeadUEFA,
			tieBreaks: []TieBreaker{HeadToHeadPoints, HeadToHeadGoalDiff, HeadToHeadGoals, GoalDifference, GoalsScored, DisciplinaryPoints, Coefficient},
			thirds:    []TieBreaker{GoalDifference, GoalsScored, DisciplinaryPoints, Coefficient}},
		{name: "Scotland before the split", code: "SPL", year: 1999, win: 3,
			tieBreaks: []TieBreaker{GoalDifference, GoalsScored, HeadToHeadPoints, HeadToHeadGoalDiff, HeadToHeadGoals}},
		{name: "Scotland", code: "SPL", year: 2024, win: 3, regular: 33,
			tieBreaks: []TieBreaker{GoalDifference, GoalsScored, HeadToHeadPoints, HeadToHeadGoalDiff, HeadToHeadGoals},
			phases:    []string{"Championship SECTION 1-6 ", "Relegation SECTION 7-12 "}},
		{name: "Belgium before play-offs", code: "BJL", year: 2005, win: 3,
			tieBreaks: []TieBreaker{Wins, GoalDifference, GoalsScored, AwayGoals, AwayWins}},
		{name: "Belgium 2009-2019", code: "BJL", year: 2015, win: 3, regular: 30,
			tieBreaks: []TieBreaker{Wins, GoalDifference, GoalsScored, AwayGoals, AwayWins},
			phases:    []string{"Champions' play-off PLAYOFF 1-6 HALF_UP"}},
		{name: "Belgium 2020-2022", code: "BJL", year: 2021, win: 3, regular: 34,
			tieBreaks: []TieBreaker{Wins, GoalDifference, GoalsScored, AwayGoals, AwayWins},
			phases:    []string{"Champions' play-off PLAYOFF 1-4 HALF_UP", "Europe play-off PLAYOFF 5-8 HALF_UP"}},
		{name: "Belgium", code: "BJL", year: 2024, win: 3, regular: 30,
			tieBreaks: []TieBreaker{Wins, GoalDifference, GoalsScored, AwayGoals, AwayWins},
			phases: []string{"Champions' play-off PLAYOFF 1-6 HALF_UP", "Europe play-off PLAYOFF 7-12 HALF_UP",
				"Relegation play-off PLAYOFF 13-16 ALL"}},
		{name: "Austria", code: "ABL", year: 2024, win: 3, regular: 22,
			tieBreaks: []TieBreaker{GoalDifference, GoalsScored, HeadToHeadPoints, HeadToHeadGoalDiff, HeadToHeadGoals},
			phases:    []string{"Championship group PLAYOFF 1-6 HALF_DOWN", "Qualification group PLAYOFF 7-12 HALF_DOWN"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := DefaultRules(tt.code, tt.year)
			if err := r.Validate(); err != nil {
				t.Fatalf("invalid: %v", err)
			}
			var phases []string
			for _, p := range r.Phases {
				phases = append(phases, p.Name+" "+string(p.Kind)+" "+strconv.Itoa(p.From)+"-"+strconv.Itoa(p.To)+" "+string(p.Carry))
			}
			var thirds []TieBreaker
			if r.Thirds != nil {
				thirds = r.Thirds.TieBreakers
			}
			if r.PointsWin != tt.win || !slices.Equal(r.TieBreakers, tt.tieBreaks) || r.HeadToHead != tt.headToHead ||
				r.RegularMatchdays != tt.regular || !slices.Equal(phases, tt.phases) || !slices.Equal(thirds, tt.thirds) {
				t.Errorf("got %d points, %v, %q, regular %d, phases %q, thirds %v\nwant %d points, %v, %q, regular %d, phases %q, thirds %v",
					r.PointsWin, r.TieBreakers, r.HeadToHead, r.RegularMatchdays, phases, thirds,
					tt.win, tt.tieBreaks, tt.headToHead, tt.regular, tt.phases, tt.thirds)
			}
		})
	}
}

func TestCarried(t *testing.T) {
	tests := []struct {
		carry         Carry
		points        int
		carried, half int
	}{
		{CarryHalfUp, 55, 28, 1}, // Union Saint-Gilloise 2024-25: 27.5 → 28
		{CarryHalfUp, 68, 34, 0},
		{CarryHalfDown, 55, 27, -1},
		{CarryHalfUp, -3, -1, 1},
		{CarryHalfDown, -3, -2, -1},
		{CarryAll, 31, 31, 0},
		{CarryNone, 31, 0, 0},
	}
	for _, tt := range tests {
		if c, h := tt.carry.Carried(tt.points); c != tt.carried || h != tt.half {
			t.Errorf("%s of %d: got %d (%+d half), want %d (%+d half)", tt.carry, tt.points, c, h, tt.carried, tt.half)
		}
	}
}

func TestTableRulesValidate(t *testing.T) {
	base := func() TableRules { return DefaultRules("BJL", 2024) }
	tests := []struct {
		name  string
		edit  func(*TableRules)
		field string
	}{
		{"defaults", func(*TableRules) {}, ""},
		{"unknown tie-breaker", func(r *TableRules) { r.TieBreakers = append(r.TieBreakers, "LUCK") }, "tieBreakers"},
		{"unknown head-to-head mode", func(r *TableRules) { r.HeadToHead = "SOMETIMES" }, "headToHead"},
		{"phases without a regular season", func(r *TableRules) { r.RegularMatchdays = 0 }, "regularMatchdays"},
		{"regular season without phases", func(r *TableRules) { r.Phases = nil }, "regularMatchdays"},
		{"overlapping places", func(r *TableRules) { r.Phases[1].From = 6 }, "phases.Europe play-off"},
		{"places backwards", func(r *TableRules) { r.Phases[2].To = 12 }, "phases.Relegation play-off"},
		{"unnamed phase", func(r *TableRules) { r.Phases[0].Name = " " }, "phases"},
		{"phase named like the rest", func(r *TableRules) { r.Phases[0].Name = RegularSeason }, "phases"},
		{"two phases of one name", func(r *TableRules) { r.Phases[1].Name = r.Phases[0].Name }, "phases"},
		{"mixed kinds", func(r *TableRules) { r.Phases[2].Kind, r.Phases[2].Carry = PhaseSection, "" }, "phases.Relegation play-off.kind"},
		{"play-off without carry", func(r *TableRules) { r.Phases[0].Carry = "" }, "phases.Champions' play-off.carry"},
		{"section with halved points", func(r *TableRules) {
			*r = DefaultRules("SPL", 2024)
			r.Phases[0].Carry = CarryHalfUp
		}, "phases.Championship.carry"},
		{"phase tie-breaker listed twice", func(r *TableRules) { r.Phases[0].TieBreakers = []TieBreaker{Wins, Wins} }, "phases.Champions' play-off.tieBreakers"},
		{"head-to-head among thirds", func(r *TableRules) {
			*r = DefaultRules("EC", 2024)
			r.Thirds.TieBreakers = append(r.Thirds.TieBreakers, HeadToHeadPoints)
		}, "thirds"},
	}
	for _, tt := range tests {
		r := base()
		tt.edit(&r)
		err := r.Validate()
		var field string
		if e, ok := err.(*Error); ok {
			field = e.Field
		} else if err != nil {
			t.Errorf("%s: %v is not a *model.Error", tt.name, err)
		}
		if field != tt.field {
			t.Errorf("%s: error %v, want one about %q", tt.name, err, tt.field)
		}
	}
}

// TestTableRulesJSON: rules written before phases existed still decode, and
// new rules survive a round trip.
func TestTableRulesJSON(t *testing.T) {
	var old TableRules
	if err := json.Unmarshal([]byte(`{"pointsWin":3,"pointsDraw":1,"tieBreakers":["GOAL_DIFFERENCE","H2H_POINTS"]}`), &old); err != nil {
		t.Fatal(err)
	}
	if err := old.Validate(); err != nil || old.HeadToHead != "" || old.Phases != nil || old.Thirds != nil {
		t.Errorf("old rules: %+v, %v", old, err)
	}
	for _, r := range []TableRules{DefaultRules("BJL", 2024), DefaultRules("EC", 2024), DefaultRules("PL", 2024)} {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var back TableRules
		if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, r) {
			t.Errorf("round trip of %s: %+v, %v", b, back, err)
		}
	}
	r := DefaultRules("BJL", 2024)
	c := r.Clone()
	c.Phases[0].TieBreakers = append(c.Phases[0].TieBreakers, Wins)
	c.TieBreakers[0] = Coefficient
	if len(r.Phases[0].TieBreakers) != 0 || r.TieBreakers[0] != Wins {
		t.Error("a clone shares its slices")
	}
}

func TestTieBreakDataValidate(t *testing.T) {
	tests := []struct {
		name  string
		d     TieBreakData
		field string
	}{
		{"valid", TieBreakData{CompetitionID: 1, Disciplinary: map[int]int{4: 7, 9: 3}, Coefficients: []int{9, 4}, Source: "UEFA"}, ""},
		{"only a source", TieBreakData{CompetitionID: 1, Source: "none yet"}, ""},
		{"no source", TieBreakData{CompetitionID: 1, Disciplinary: map[int]int{4: 7}}, "source"},
		{"negative points", TieBreakData{CompetitionID: 1, Disciplinary: map[int]int{4: -1}, Source: "x"}, "disciplinary"},
		{"bad team", TieBreakData{CompetitionID: 1, Disciplinary: map[int]int{0: 1}, Source: "x"}, "disciplinary"},
		{"team twice in the order", TieBreakData{CompetitionID: 1, Coefficients: []int{4, 4}, Source: "x"}, "coefficients"},
		{"no competition", TieBreakData{Source: "x"}, "competition"},
	}
	for _, tt := range tests {
		err := tt.d.Validate()
		var field string
		if e, ok := err.(*Error); ok {
			field = e.Field
		}
		if field != tt.field {
			t.Errorf("%s: error %v, want one about %q", tt.name, err, tt.field)
		}
	}
	d := TieBreakData{Disciplinary: map[int]int{7: 1, 2: 3}, Coefficients: []int{9, 2}}
	if got := d.Teams(); !slices.Equal(got, []int{2, 7, 9}) {
		t.Errorf("teams %v", got)
	}
}
