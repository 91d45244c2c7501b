package readmodel_test

import (
	"testing"

	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/readmodel"
)

// TestPushEventsOfALiveMatch: every change of a live match is one fixture
// event (the minute alone too), the same state again is none, and the
// table moves only when the match is over.
func TestPushEventsOfALiveMatch(t *testing.T) {
	live := func(st model.Status, minute int, home, away int) *model.Fixture {
		f := timed(2, 10, 1, charlie, delta, kickoff(1))
		f.Status, f.Minute, f.Result.FullTime = st, minute, &model.Score{Home: home, Away: away}
		return f
	}
	halfTime := live(model.Paused, 45, 1, 0)
	halfTime.Result.HalfTime = &model.Score{Home: 1}
	halfTime.InjuryTime = 2
	final := played(2, 10, 1, charlie, delta, "1-0")
	final.Result.HalfTime = &model.Score{Home: 1}
	f, got := pushFeed(t)
	f.put(teams()...)
	f.put(league(10, 2017, gd), played(1, 10, 1, alpha, bravo, "1-0"), timed(2, 10, 1, charlie, delta, kickoff(1)))
	f.m.MarkReady()
	steps := []struct {
		state *model.Fixture
		want  []string
	}{
		{live(model.InPlay, 1, 0, 0), []string{`Fixture.Update 2 c10 PL [3,4] anonymous {"goalsAwayTeam":[null,0],"goalsHomeTeam":[null,0],"minute":[null,1],"status":["TIMED","IN_PLAY"]}`}},
		{live(model.InPlay, 2, 0, 0), []string{`Fixture.Update 2 c10 PL [3,4] anonymous {"minute":[1,2]}`}},
		{live(model.InPlay, 2, 0, 0), nil},
		{live(model.InPlay, 31, 1, 0), []string{`Fixture.Update 2 c10 PL [3,4] anonymous {"goalsHomeTeam":[0,1],"minute":[2,31]}`}},
		{halfTime, []string{`Fixture.Update 2 c10 PL [3,4] anonymous {"halfTime.goalsAwayTeam":[null,0],"halfTime.goalsHomeTeam":[null,1],"injuryTime":[null,2],"minute":[31,45],"status":["IN_PLAY","PAUSED"]}`}},
		{final, []string{
			`Fixture.Update 2 c10 PL [3,4] anonymous {"injuryTime":[2,null],"minute":[45,null],"status":["PAUSED","FINISHED"]}`,
			`Competition.Update 10 c10 PL null anonymous {"leagueTable":[{"2":4,"3":2,"4":3},{"2":3,"3":2,"4":4}]}`,
		}},
	}
	for i, st := range steps {
		before := len(*got)
		f.put(st.state)
		var lines []string
		for _, e := range (*got)[before:] {
			lines = append(lines, pushLine(t, e))
		}
		if !equalLines(lines, st.want) {
			t.Errorf("step %d (%s %d'):\n got %q\nwant %q", i, st.state.Status, st.state.Minute, lines, st.want)
		}
	}
}

// TestLiveMatchesCountInNoTable: a live, suspended or awarded match, and
// goals nobody is known to have scored.
func TestLiveMatchesCountInNoTable(t *testing.T) {
	f := newFeed(t, t0)
	f.put(teams()...)
	f.put(league(10, 2017, gd))
	f.m.MarkReady()
	for i, st := range []model.Status{model.InPlay, model.Paused, model.Suspended} {
		fx := played(i+1, 10, 1, alpha, bravo, "1-0")
		fx.Status = st
		fx.Goals = []model.Goal{{Side: model.Home, Type: model.GoalRegular}}
		f.put(fx)
		if played := tablePlayed(t, f.m.Snapshot(), 10, alpha); played != 0 {
			t.Errorf("%s: alpha played %d in the table, want 0", st, played)
		}
	}
	awarded := played(9, 10, 1, charlie, delta, "0-0")
	awarded.Status, awarded.Awarded = model.AwardedStatus, model.Away
	f.put(awarded)
	if played := tablePlayed(t, f.m.Snapshot(), 10, charlie); played != 1 {
		t.Errorf("awarded: charlie played %d, want 1", played)
	}
	if sc, _ := f.m.Snapshot().Scorers(10, 0); len(sc) != 0 {
		t.Errorf("scorers of goals nobody is known to have scored: %+v", sc)
	}
}

// tablePlayed is the games team played in competition comp's table.
func tablePlayed(t *testing.T, s readmodel.Snapshot, comp, team int) int {
	t.Helper()
	tbl, ok := s.Table(comp, 1)
	if !ok {
		t.Fatalf("no table of competition %d", comp)
	}
	for _, st := range tbl.Standings {
		for _, r := range st.Rows {
			if r.TeamID == team {
				return r.PlayedGames
			}
		}
	}
	t.Fatalf("team %d is in no standing", team)
	return 0
}

// TestPushEventOfGoalsAlone: a goal's scorer learned after the goal
// changes no score and is an event all the same; the same goals again
// are none.
func TestPushEventOfGoalsAlone(t *testing.T) {
	withGoal := func(scorer string) *model.Fixture {
		f := played(2, 10, 1, charlie, delta, "1-0")
		f.Status = model.InPlay
		f.Goals = []model.Goal{{Minute: 12, Side: model.Home, Type: model.GoalRegular, Scorer: scorer}}
		return f
	}
	f, got := pushFeed(t)
	f.put(teams()...)
	f.put(league(10, 2017, gd), withGoal(""))
	f.m.MarkReady()
	f.put(withGoal("Kane"), withGoal("Kane"))
	var lines []string
	for _, e := range *got {
		lines = append(lines, pushLine(t, e))
	}
	want := []string{`Fixture.Update 2 c10 PL [3,4] anonymous {"goals":[[{"minute":12,"side":"HOME_TEAM","type":"REGULAR","scorer":""}],` +
		`[{"minute":12,"side":"HOME_TEAM","type":"REGULAR","scorer":"Kane"}]]}`}
	if !equalLines(lines, want) {
		t.Errorf("events:\n got %q\nwant %q", lines, want)
	}
}
