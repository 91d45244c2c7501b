package model

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestStatusFlow checks every move between two statuses against the flow
// written out here, state by state, so that a change to the flow is a
// change to this table too.
func TestStatusFlow(t *testing.T) {
	allowed := map[Status][]Status{
		Scheduled:       {Timed, InPlay, Postponed, Suspended, Canceled, AwardedStatus},
		Timed:           {Scheduled, InPlay, Postponed, Suspended, Canceled, AwardedStatus},
		InPlay:          {Paused, ExtraTime, PenaltyShootout, Finished, Suspended},
		Paused:          {InPlay, ExtraTime, PenaltyShootout, Finished, Suspended},
		ExtraTime:       {Paused, PenaltyShootout, Finished, Suspended},
		PenaltyShootout: {Finished},
		Finished:        {AwardedStatus},
		Suspended:       {InPlay, Postponed, Canceled, AwardedStatus, Finished},
		Postponed:       {Timed, Scheduled, Canceled, AwardedStatus},
		Canceled:        {},
		AwardedStatus:   {Finished},
	}
	if len(allowed) != len(Statuses) {
		t.Fatalf("the table has %d statuses, the model %d", len(allowed), len(Statuses))
	}
	for _, from := range Statuses {
		for _, to := range Statuses {
			want := from == to || slices.Contains(allowed[from], to)
			if err := from.CheckTransition(to); (err == nil) != want {
				t.Errorf("%s→%s: error %v, want allowed=%v", from, to, err, want)
			}
			path, err := from.Path(to)
			if err != nil {
				continue
			}
			// Every path is a chain of allowed moves through states
			// that go without saying.
			cur := from
			for i, st := range path {
				if cur.CheckTransition(st) != nil {
					t.Errorf("%s→%s: path %v moves %s→%s", from, to, path, cur, st)
				}
				if i < len(path)-1 && st != Scheduled && st != Timed && st != InPlay {
					t.Errorf("%s→%s: path %v passes through %s", from, to, path, st)
				}
				cur = st
			}
		}
	}
}

// TestStatusPaths: a jump records what must have happened on the way, and
// only that.
func TestStatusPaths(t *testing.T) {
	tests := []struct {
		from, to Status
		path     []Status // nil: refused
	}{
		{Timed, Paused, []Status{InPlay, Paused}},
		{Timed, ExtraTime, []Status{InPlay, ExtraTime}},
		{Scheduled, PenaltyShootout, []Status{InPlay, PenaltyShootout}},
		{Timed, Finished, []Status{InPlay, Finished}},
		{Timed, AwardedStatus, []Status{AwardedStatus}},
		{Postponed, Finished, []Status{Timed, InPlay, Finished}},
		{Suspended, Paused, []Status{InPlay, Paused}},
		{Suspended, Timed, nil}, // a replay is POSTPONED first, said so
		{PenaltyShootout, InPlay, nil},
		{InPlay, Postponed, nil}, // suspended first, said so
		{Finished, InPlay, nil},
		{AwardedStatus, Canceled, nil},
		{Canceled, AwardedStatus, nil},
	}
	for _, tt := range tests {
		path, err := tt.from.Path(tt.to)
		if !slices.Equal(path, tt.path) {
			t.Errorf("%s→%s: path %v, want %v", tt.from, tt.to, path, tt.path)
		}
		if tt.path == nil && (ErrorCode(err) != Invalid || !strings.Contains(err.Error(), "allowed")) {
			t.Errorf("%s→%s: refusal %v should name the allowed moves", tt.from, tt.to, err)
		}
	}
}

func TestStatusKinds(t *testing.T) {
	for _, s := range Statuses {
		live := s == InPlay || s == Paused || s == ExtraTime || s == PenaltyShootout
		counts := s == Finished || s == AwardedStatus
		if s.Live() != live || s.HasResult() != counts {
			t.Errorf("%s: Live %v HasResult %v, want %v %v", s, s.Live(), s.HasResult(), live, counts)
		}
	}
	for in, want := range map[string]Status{"cancelled": Canceled, "CANCELED": Canceled, " paused ": Paused, "Awarded": AwardedStatus,
		"extra_time": ExtraTime, "PENALTY_SHOOTOUT": PenaltyShootout, "suspended": Suspended} {
		if got, err := ParseStatus(in); got != want || err != nil {
			t.Errorf("ParseStatus(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseStatus("LIVE"); err == nil || !strings.Contains(err.Error(), "PENALTY_SHOOTOUT") {
		t.Errorf("ParseStatus(LIVE) = %v, want an error naming the statuses", err)
	}
}

// TestLiveFixtures: a live match's minute, running score, half time and
// goals, and what is refused.
func TestLiveFixtures(t *testing.T) {
	sc := func(h, a int) *Score { return &Score{h, a} }
	kane := func(minute, injury int) Goal {
		return Goal{Minute: minute, Injury: injury, Side: Home, Type: GoalRegular, Scorer: "Kane"}
	}
	anon := func(side Side) Goal { return Goal{Side: side, Type: GoalRegular} }
	tests := []struct {
		name           string
		status         Status
		minute, injury int
		result         Result
		goals          []Goal
		awarded        Side
		field          string // "" when valid
		rule           string
	}{
		{"kick-off", InPlay, 1, 0, Result{FullTime: sc(0, 0)}, nil, "", "", ""},
		{"stoppage time", InPlay, 45, 3, Result{FullTime: sc(1, 0)}, []Goal{kane(12, 0)}, "", "", ""},
		{"half time", Paused, 45, 0, Result{FullTime: sc(1, 0), HalfTime: sc(1, 0)}, []Goal{kane(12, 0)}, "", "", ""},
		{"a goal of the second half", InPlay, 50, 0, Result{FullTime: sc(1, 0), HalfTime: sc(0, 0)}, []Goal{kane(47, 0)}, "", "", ""},
		{"a goal of first-half stoppage time", InPlay, 50, 0, Result{FullTime: sc(1, 0), HalfTime: sc(1, 0)}, []Goal{kane(45, 2)}, "", "", ""},
		{"half time the goals do not make", InPlay, 50, 0, Result{FullTime: sc(1, 0), HalfTime: sc(0, 0)}, []Goal{kane(12, 0)}, "", "half-time", "make 1-0 by half time"},
		{"half time above the goals", InPlay, 50, 0, Result{FullTime: sc(1, 0), HalfTime: sc(1, 0)}, []Goal{kane(60, 0)}, "", "half-time", "make 0-0 by half time"},
		{"goals of unknown minute and scorer", InPlay, 70, 0, Result{FullTime: sc(1, 1), HalfTime: sc(1, 0)}, []Goal{anon(Home), anon(Away)}, "", "", ""},
		{"a half time no goal of unknown minute makes", InPlay, 70, 0, Result{FullTime: sc(2, 1), HalfTime: sc(2, 0)}, []Goal{anon(Home), kane(60, 0), anon(Away)}, "", "half-time", "by half time"},
		{"goals that are not the running score", InPlay, 70, 0, Result{FullTime: sc(2, 0)}, []Goal{kane(12, 0)}, "", "goals", "the result is 2-0"},
		{"a minute after extra time", ExtraTime, 121, 0, Result{FullTime: sc(1, 1), ExtraTime: sc(1, 1)}, nil, "", "minute", "from 1 to 120"},
		{"negative stoppage time", InPlay, 90, -1, Result{FullTime: sc(0, 0)}, nil, "", "injury time", "from 0 to 30"},
		{"extra time runs", ExtraTime, 105, 1, Result{FullTime: sc(1, 1), ExtraTime: sc(2, 1)}, nil, "", "", ""},
		{"a shoot-out under way is level", PenaltyShootout, 120, 0, Result{FullTime: sc(1, 1), ExtraTime: sc(1, 1), Penalties: sc(3, 3)}, nil, "", "", ""},
		{"a shoot-out over has a winner", Finished, 0, 0, Result{FullTime: sc(1, 1), ExtraTime: sc(1, 1), Penalties: sc(3, 3)}, nil, "", "penalties", "has a winner"},
		{"a finished match has no minute", Finished, 90, 0, Result{FullTime: sc(0, 0)}, nil, "", "minute", "not a FINISHED one"},
		{"stoppage time alone before kick-off", Timed, 0, 2, Result{}, nil, "", "minute", "not a TIMED one"},
		{"a suspended match keeps its score and goals", Suspended, 0, 0, Result{FullTime: sc(1, 0)}, []Goal{kane(12, 0)}, "", "", ""},
		{"an award", AwardedStatus, 0, 0, Result{FullTime: sc(3, 0)}, nil, Home, "", ""},
		{"an award of a match never played", AwardedStatus, 0, 0, Result{}, nil, Away, "", ""},
		{"an award with neither score nor side", AwardedStatus, 0, 0, Result{}, nil, "", "result", "a fixture AWARDED needs"},
		{"no award while live", InPlay, 10, 0, Result{FullTime: sc(0, 0)}, nil, Home, "awarded", "FINISHED or AWARDED"},
	}
	cup := &Competition{ID: 1, Caption: "Cup 2026", League: "FAC", Year: 2026, Type: TypeCup}
	cup.SetDefaults()
	for _, tt := range tests {
		f := Fixture{ID: 1, CompetitionID: 1, Matchday: 3, Stage: Playoff, Kickoff: time.Unix(0, 0), HomeTeamID: 1, AwayTeamID: 2,
			Status: tt.status, Minute: tt.minute, InjuryTime: tt.injury, Result: tt.result, Goals: tt.goals, Awarded: tt.awarded}
		err := CheckFixture(cup, &f, nil)
		var e *Error
		switch {
		case tt.field == "" && err != nil:
			t.Errorf("%s: refused: %v", tt.name, err)
		case tt.field != "" && (!errors.As(err, &e) || e.Field != tt.field || e.Code != Invalid || !strings.Contains(e.Message, tt.rule)):
			t.Errorf("%s: error %v, want an invalid %s naming the rule %q", tt.name, err, tt.field, tt.rule)
		}
	}
}

// TestStoredStatusIsCanonical: a status as ParseStatus reads it is not
// one as stored.
func TestStoredStatusIsCanonical(t *testing.T) {
	f := Fixture{ID: 1, CompetitionID: 1, Matchday: 1, Stage: Regular, Kickoff: time.Unix(0, 0), HomeTeamID: 1, AwayTeamID: 2, Status: "CANCELLED"}
	if err := f.Validate(); ErrorCode(err) != Invalid {
		t.Errorf("status CANCELLED stored: %v, want invalid", err)
	}
}

func TestGoalString(t *testing.T) {
	for g, want := range map[Goal]string{
		{Minute: 45, Injury: 2, Side: Home, Type: GoalPenalty, Scorer: "Kane"}: "45+2' Kane (pen.)",
		{Side: Away, Type: GoalRegular}:                                        "?' ?",
	} {
		if got := g.String(); got != want {
			t.Errorf("%+v: %q, want %q", g, got, want)
		}
	}
}

// TestNoExtraTimeInALeague: a league match neither goes to extra time nor
// to a shoot-out, live or not.
func TestNoExtraTimeInALeague(t *testing.T) {
	pl := &Competition{ID: 2, Caption: "PL 2026", League: "PL", Year: 2026, Type: TypeLeague}
	pl.SetDefaults()
	for _, st := range []Status{ExtraTime, PenaltyShootout} {
		f := Fixture{ID: 1, CompetitionID: 2, Matchday: 3, Stage: Regular, Kickoff: time.Unix(0, 0), HomeTeamID: 1, AwayTeamID: 2,
			Status: st, Result: Result{FullTime: &Score{1, 1}}}
		if err := CheckFixture(pl, &f, nil); ErrorCode(err) != Invalid || !strings.Contains(err.Error(), "only knock-out") {
			t.Errorf("%s in a league: %v, want refused", st, err)
		}
	}
}
