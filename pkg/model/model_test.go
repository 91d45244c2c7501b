package model

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestStatusTransitions(t *testing.T) {
	tests := []struct {
		from, to Status
		ok       bool
		path     []Status
	}{
		{Scheduled, Timed, true, []Status{Timed}},
		{Timed, InPlay, true, []Status{InPlay}},
		{InPlay, Finished, true, []Status{Finished}},
		{Timed, Finished, false, []Status{InPlay, Finished}},
		{Postponed, Finished, false, []Status{Scheduled, InPlay, Finished}},
		{Timed, Postponed, true, []Status{Postponed}},
		{Postponed, Canceled, true, []Status{Canceled}},
		{Finished, Finished, true, []Status{Finished}},
		{Finished, InPlay, false, nil},
		{Canceled, Timed, false, nil},
		{InPlay, Postponed, false, nil},
	}
	for _, tt := range tests {
		err := tt.from.CheckTransition(tt.to)
		if (err == nil) != tt.ok {
			t.Errorf("%s→%s: direct error %v, want ok=%v", tt.from, tt.to, err, tt.ok)
		}
		path, err := tt.from.Path(tt.to)
		if !slices.Equal(path, tt.path) {
			t.Errorf("%s→%s: path %v, want %v", tt.from, tt.to, path, tt.path)
		}
		if tt.path == nil && (err == nil || ErrorCode(err) != Invalid || !strings.Contains(err.Error(), "allowed")) {
			t.Errorf("%s→%s: refusal %v should name the allowed moves", tt.from, tt.to, err)
		}
	}
}

func TestParseScore(t *testing.T) {
	tests := []struct {
		in   string
		want Score
		ok   bool
	}{
		{"2-1", Score{2, 1}, true}, {"0:0", Score{0, 0}, true}, {"10-9", Score{10, 9}, true},
		{"2-", Score{}, false}, {"a-1", Score{}, false}, {"2-1-0", Score{}, false}, {"-1-2", Score{}, false},
		{"2 - 1", Score{}, false}, {"100-0", Score{}, false}, {"", Score{}, false},
	}
	for _, tt := range tests {
		got, err := ParseScore("score", tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseScore(%q) = %v, %v; want %v ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestDefaultRules(t *testing.T) {
	tests := []struct {
		code  LeagueCode
		year  int
		win   int
		first TieBreaker
	}{
		{"PL", 2025, 3, GoalDifference},
		{"PL", 1980, 2, GoalDifference},
		{"EL2", 1985, 3, GoalDifference},
		{"SA", 2025, 3, HeadToHeadPoints},
		{"PD", 1990, 2, HeadToHeadPoints},
		{"BL1", 1965, 2, GoalQuotient},
		{"BL1", 1971, 2, GoalDifference},
		{"CL", 2020, 3, HeadToHeadPoints},
		{"XYZ", 2020, 3, GoalDifference},
	}
	for _, tt := range tests {
		r := DefaultRules(tt.code, tt.year)
		if r.PointsWin != tt.win || r.PointsDraw != 1 || r.TieBreakers[0] != tt.first {
			t.Errorf("DefaultRules(%s, %d) = %+v", tt.code, tt.year, r)
		}
		if err := r.Validate(); err != nil {
			t.Errorf("DefaultRules(%s, %d) invalid: %v", tt.code, tt.year, err)
		}
	}
}

func TestFixtureValidate(t *testing.T) {
	good := func() Fixture {
		return Fixture{ID: 1, CompetitionID: 1, Matchday: 1, Stage: Regular, Kickoff: time.Unix(0, 0), HomeTeamID: 1, AwayTeamID: 2, Status: Timed}
	}
	tests := []struct {
		name  string
		edit  func(*Fixture)
		field string
	}{
		{"valid", func(*Fixture) {}, ""},
		{"matchday 0", func(f *Fixture) { f.Matchday = 0 }, "matchday"},
		{"same teams", func(f *Fixture) { f.AwayTeamID = 1 }, "awayTeam"},
		{"finished without score", func(f *Fixture) { f.Status = Finished }, "result"},
		{"negative goals", func(f *Fixture) { f.Status = Finished; f.Result.FullTime = &Score{-1, 0} }, "fullTime"},
		{"half time without full time", func(f *Fixture) { f.Result.HalfTime = &Score{1, 0} }, "fullTime"},
		{"awarded while timed", func(f *Fixture) { f.Awarded = Home }, "awarded"},
		{"unknown stage", func(f *Fixture) { f.Stage = "FRIENDLY" }, "stage"},
		{"in play with unknown team", func(f *Fixture) { f.Status = InPlay; f.AwayTeamID = 0 }, "status"},
		{"odds below 1", func(f *Fixture) { f.Odds = &Odds{0.5, 3, 4} }, "odds"},
		{"awarded 0-0 to the away side", func(f *Fixture) { f.Status = Finished; f.Result.FullTime = &Score{}; f.Awarded = Away }, ""},
	}
	for _, tt := range tests {
		f := good()
		tt.edit(&f)
		err := f.Validate()
		var field string
		if e, ok := err.(*Error); ok {
			field = e.Field
		} else if err != nil {
			t.Errorf("%s: error %v is not a *model.Error", tt.name, err)
		}
		if field != tt.field {
			t.Errorf("%s: error %v, want one about %q", tt.name, err, tt.field)
		}
	}
}

func TestOutcomeFollowsTheAward(t *testing.T) {
	f := Fixture{Status: Finished, Result: Result{FullTime: &Score{0, 0}}, Awarded: Away}
	if side, ok := f.Outcome(); !ok || side != Away {
		t.Errorf("awarded fixture outcome %s %v", side, ok)
	}
	f.Awarded = ""
	if side, _ := f.Outcome(); side != Draw {
		t.Errorf("0-0 outcome %s", side)
	}
	f.Status = Postponed
	if _, ok := f.Outcome(); ok {
		t.Error("a postponed fixture has an outcome")
	}
}

func TestNormalizeTeamName(t *testing.T) {
	same := [][]string{
		{"Manchester United FC", "Manchester United", "manchester  united"},
		{"AFC Bournemouth", "Bournemouth"},
		{"Brighton & Hove Albion FC", "Brighton & Hove Albion"},
		{"1. FC Köln", "1 FC Köln"},
	}
	for _, group := range same {
		for _, n := range group[1:] {
			if NormalizeTeamName(n) != NormalizeTeamName(group[0]) {
				t.Errorf("%q and %q normalise differently: %q, %q", n, group[0], NormalizeTeamName(n), NormalizeTeamName(group[0]))
			}
		}
	}
	if NormalizeTeamName("Manchester City") == NormalizeTeamName("Manchester United") {
		t.Error("two clubs share a key")
	}
	if NormalizeTeamName("FC") != "fc" {
		t.Errorf("a name made only of an affix keeps it: %q", NormalizeTeamName("FC"))
	}
}

func TestTokens(t *testing.T) {
	tok, err := NewToken()
	if err != nil || len(tok) != 32 || !ValidToken(tok) {
		t.Fatalf("token %q, %v", tok, err)
	}
	other, _ := NewToken()
	if other == tok {
		t.Fatal("two tokens alike")
	}
	c := Client{Name: "acme", Tier: TierRegistered, PerMinute: 50, TokenHash: HashToken(tok)}
	if err := c.Validate(); err != nil || strings.Contains(c.TokenHash, tok) {
		t.Fatalf("client %+v: %v", c, err)
	}
}

func TestValidToken(t *testing.T) {
	for tok, want := range map[string]bool{"abc123": true, "z9": true, "": false, "abc0": false, "ABC": false, "ab-c": false, "äbc": false} {
		if got := ValidToken(tok); got != want {
			t.Errorf("ValidToken(%q) = %v", tok, got)
		}
	}
}

func TestTierAllows(t *testing.T) {
	if !TierDonating.Allows(TierRegistered) || TierAnonymous.Allows(TierRegistered) || !TierRegistered.Allows(TierAnonymous) || TierRegistered.Allows(TierDonating) {
		t.Error("tier order wrong")
	}
}
