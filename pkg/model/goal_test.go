package model

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestGoalsMakeTheScore: goals are refused unless each is well formed and
// together they make the final score, extra time included and shoot-out
// kicks not.
func TestGoalsMakeTheScore(t *testing.T) {
	sc := func(h, a int) *Score { return &Score{h, a} }
	g := func(minute int, side Side, typ GoalType, scorer string) Goal {
		return Goal{Minute: minute, Side: side, Type: typ, Scorer: scorer}
	}
	// The 2022 World Cup final: 2-2, 3-3 after extra time, 4-2 on kicks.
	final := []Goal{g(23, Home, GoalPenalty, "Lionel Messi"), g(36, Home, GoalRegular, "Ángel Di María"), g(80, Away, GoalPenalty, "Kylian Mbappé"),
		g(81, Away, GoalRegular, "Kylian Mbappé"), g(108, Home, GoalRegular, "Lionel Messi"), g(118, Away, GoalPenalty, "Kylian Mbappé")}
	finalResult := Result{FullTime: sc(2, 2), HalfTime: sc(2, 0), ExtraTime: sc(3, 3), Penalties: sc(4, 2)}
	tests := []struct {
		name   string
		status Status
		result Result
		goals  []Goal
		field  string // "" when valid
		rule   string
	}{
		{"a final's goals after extra time", Finished, finalResult, final, "", ""},
		{"one goal missing", Finished, finalResult, final[:5], "goals", "the result is 3-3"},
		{"goals without extra time's", Finished, Result{FullTime: sc(2, 2), ExtraTime: sc(3, 3), Penalties: sc(4, 2)}, final[:4], "goals", "make 2-2"},
		{"an own goal counts for the other side", Finished, Result{FullTime: sc(0, 1)}, []Goal{g(87, Away, GoalOwn, "Rüdiger")}, "", ""},
		{"stoppage time", Finished, Result{FullTime: sc(1, 0)}, []Goal{{Minute: 45, Injury: 2, Side: Home, Type: GoalRegular, Scorer: "Carvajal"}}, "", ""},
		{"minute unknown", Finished, Result{FullTime: sc(1, 0)}, []Goal{g(0, Home, GoalRegular, "Kane")}, "", ""},
		{"minute -1", Finished, Result{FullTime: sc(1, 0)}, []Goal{g(-1, Home, GoalRegular, "Kane")}, "goal minute", "from 1 to 120"},
		{"stoppage time after no minute", Finished, Result{FullTime: sc(1, 0)}, []Goal{{Injury: 2, Side: Home, Type: GoalRegular}}, "goal injury time", "after a known minute"},
		{"minute 121", Finished, Result{FullTime: sc(1, 0)}, []Goal{g(121, Home, GoalRegular, "Kane")}, "goal minute", "from 1 to 120"},
		{"no side", Finished, Result{FullTime: sc(1, 0)}, []Goal{g(10, Draw, GoalRegular, "Kane")}, "goal side", "HOME_TEAM or AWAY_TEAM"},
		{"unknown type", Finished, Result{FullTime: sc(1, 0)}, []Goal{g(10, Home, "HEADER", "Kane")}, "goal type", "REGULAR, PENALTY or OWN"},
		{"no scorer known", Finished, Result{FullTime: sc(1, 0)}, []Goal{g(10, Home, GoalRegular, "")}, "", ""},
		{"a scorer id without a name", Finished, Result{FullTime: sc(1, 0)}, []Goal{{Minute: 10, Side: Home, Type: GoalRegular, ScorerID: 7}}, "goal scorer", "must not be empty"},
		{"goals before kick-off", Scheduled, Result{}, []Goal{g(10, Home, GoalRegular, "Kane")}, "goals", "only a fixture played"},
		{"goals while live", InPlay, Result{FullTime: sc(1, 0)}, []Goal{g(10, Home, GoalRegular, "Kane")}, "", ""},
	}
	wc := &Competition{ID: 1, Caption: "WC 2022", League: "WC", Year: 2022, Type: TypeTournament}
	wc.SetDefaults()
	for _, tt := range tests {
		f := Fixture{ID: 1, CompetitionID: 1, Matchday: 7, Stage: Playoff, Kickoff: time.Unix(0, 0),
			HomeTeamID: 1, AwayTeamID: 2, Status: tt.status, Result: tt.result, Goals: tt.goals}
		err := CheckFixture(wc, &f, nil)
		var e *Error
		switch {
		case tt.field == "" && err != nil:
			t.Errorf("%s: refused: %v", tt.name, err)
		case tt.field != "" && (!errors.As(err, &e) || e.Field != tt.field || e.Code != Invalid || !strings.Contains(e.Message, tt.rule)):
			t.Errorf("%s: error %v, want an invalid %s naming the rule %q", tt.name, err, tt.field, tt.rule)
		}
	}
}

func TestPersonValidate(t *testing.T) {
	dob := Date("1993-07-28")
	bad := Date("28/07/1993")
	tests := []struct {
		name  string
		p     Person
		field string
	}{
		{"a scorer", Person{ID: 1, Name: "Harry Kane", TeamID: 770, Aliases: []string{"Kane"}, DateOfBirth: &dob}, ""},
		{"no id", Person{Name: "Harry Kane"}, "id"},
		{"no name", Person{ID: 1}, "name"},
		{"empty alias", Person{ID: 1, Name: "Harry Kane", Aliases: []string{""}}, "alias"},
		{"bad date", Person{ID: 1, Name: "Harry Kane", DateOfBirth: &bad}, "dateOfBirth"},
	}
	for _, tt := range tests {
		err := tt.p.Validate()
		var e *Error
		if (tt.field == "") != (err == nil) || (err != nil && (!errors.As(err, &e) || e.Field != tt.field)) {
			t.Errorf("%s: %v, want field %q", tt.name, err, tt.field)
		}
	}
}
