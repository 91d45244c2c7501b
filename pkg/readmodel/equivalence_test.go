package readmodel_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/readmodel"
)

// TestLiveEditsMatchFreshReplay makes many kinds of live edits, each
// published with an incremental rebuild, and checks that every answer
// equals that of a new replica replaying the resulting stream: incremental
// rebuilds (tables reused before the changed matchday, merged lists) must
// never drift from a rebuild from scratch.
func TestLiveEditsMatchFreshReplay(t *testing.T) {
	cutoff := time.Date(2017, 11, 1, 0, 0, 0, 0, time.UTC)
	d := generate(genConfig{leagues: 2, seasons: 2, teams: 8, cutoff: cutoff, seed: 3})
	live := newFeed(t, cutoff)
	live.put(d.entities...)
	live.m.MarkReady()

	var fixtures []*model.Fixture
	for _, e := range d.entities {
		if fx, ok := e.(*model.Fixture); ok {
			fixtures = append(fixtures, fx)
		}
	}
	rng := rand.New(rand.NewPCG(9, 9))
	nextID := len(fixtures) + 1
	for i := range 600 {
		fx := *fixtures[rng.IntN(len(fixtures))]
		k := rng.IntN(len(d.comps))
		comp := *d.comps[k]
		switch i % 14 {
		case 0:
			fx.Matchday = 1 + rng.IntN(comp.NumberOfMatchdays+2) // may extend the season
		case 1:
			fx.Kickoff = fx.Kickoff.Add(time.Duration(rng.IntN(400)-200) * time.Hour)
		case 2:
			fx.Status, fx.Result, fx.Awarded = model.Postponed, model.Result{}, ""
		case 3:
			fx.Stage = model.Playoff
		case 4: // a new fixture with a team the competition does not list
			fx.ID, fx.AwayTeamID = nextID, 9000+rng.IntN(3)
			nextID++
		case 5:
			live.put(&model.Adjustment{ID: 1 + rng.IntN(5), CompetitionID: comp.ID, TeamID: comp.Teams[rng.IntN(len(comp.Teams))].TeamID,
				Points: rng.IntN(7) - 5, Reason: "test"})
			continue
		case 6:
			order := []int{comp.Teams[rng.IntN(4)].TeamID, comp.Teams[4+rng.IntN(4)].TeamID}
			live.put(&model.TieBreakOrder{CompetitionID: comp.ID, TeamIDs: order, Reason: "lots"})
			continue
		case 7:
			live.put(&model.Team{ID: comp.Teams[rng.IntN(len(comp.Teams))].TeamID, Name: fmt.Sprintf("Team %d", rng.IntN(5))})
			continue
		case 8:
			comp.Rules.TieBreakers = []model.TieBreaker{model.HeadToHeadPoints, model.HeadToHeadAwayGoals, model.GoalQuotient}
			comp.NumberOfMatchdays += rng.IntN(3)
			live.put(&comp)
			continue
		case 9:
			live.put(&model.Team{ID: 9000 + rng.IntN(3), Name: fmt.Sprintf("Guest %d", rng.IntN(5))})
			continue
		case 10: // a split after the first half, kept by later edits of the rules
			kind, carry := model.PhasePlayoff, model.CarryHalfUp
			if comp.ID%2 == 1 {
				kind, carry = model.PhaseSection, ""
			}
			comp.Rules.RegularMatchdays = 7
			comp.Rules.Phases = []model.Phase{{Name: "Top", Kind: kind, From: 1, To: 4, Carry: carry},
				{Name: "Bottom", Kind: kind, From: 6, To: 8, Carry: carry}}
			comp.Rules.TieBreakers = []model.TieBreaker{model.Wins, model.OpponentsPoints, model.DisciplinaryPoints, model.Coefficient}
			live.put(&comp)
			*d.comps[k] = comp
			continue
		case 11:
			teams := []int{comp.Teams[rng.IntN(8)].TeamID, comp.Teams[rng.IntN(8)].TeamID}
			live.put(&model.TieBreakData{CompetitionID: comp.ID, Disciplinary: map[int]int{teams[0]: rng.IntN(9), teams[1]: rng.IntN(9)},
				Coefficients: teams[:1], Source: "test"})
			continue
		default:
			fx.Status, fx.Awarded = model.Finished, ""
			fx.Result = model.Result{FullTime: &model.Score{Home: rng.IntN(4), Away: rng.IntN(4)}}
			if rng.IntN(10) == 0 {
				fx.Awarded = model.Away
			}
		}
		live.put(&fx)
	}

	fresh := newFeed(t, cutoff)
	replay := make([]events.Event, 0, len(live.last))
	for _, ev := range live.last {
		replay = append(replay, ev)
	}
	slices.SortFunc(replay, func(a, b events.Event) int { return int(a.Seq) - int(b.Seq) })
	for _, ev := range replay {
		fresh.m.Apply(ev)
	}
	fresh.m.MarkReady()

	a, b := live.snap(), fresh.snap()
	same := func(what string, x, y any) {
		t.Helper()
		if !reflect.DeepEqual(x, y) {
			t.Errorf("%s differs:\n live %+v\nfresh %+v", what, x, y)
		}
	}
	teams := map[int]bool{}
	for _, c := range d.comps {
		ca, _ := a.Competition(c.ID)
		cb, _ := b.Competition(c.ID)
		ca.Version, cb.Version = 0, 0
		same(fmt.Sprintf("competition %d", c.ID), ca, cb)
		// The league's seasons, through the index of leagues.
		sa, sb := a.LeagueSeasons(ca.League), b.LeagueSeasons(ca.League)
		for i := range sa {
			sa[i].Version = 0
		}
		for i := range sb {
			sb[i].Version = 0
		}
		same(fmt.Sprintf("seasons of league %s", ca.League), sa, sb)
		for md := 0; md <= ca.LastMatchday+1; md++ {
			ta, _ := a.Table(c.ID, md)
			tb, _ := b.Table(c.ID, md)
			ta.Version, tb.Version = 0, 0
			same(fmt.Sprintf("competition %d table at matchday %d", c.ID, md), ta, tb)
			fa, _ := a.CompetitionFixtures(c.ID, readmodel.FixtureFilter{Matchday: md})
			fb, _ := b.CompetitionFixtures(c.ID, readmodel.FixtureFilter{Matchday: md})
			same(fmt.Sprintf("competition %d fixtures of matchday %d", c.ID, md), fa, fb)
		}
		fa, _ := a.CompetitionFixtures(c.ID, readmodel.FixtureFilter{})
		fb, _ := b.CompetitionFixtures(c.ID, readmodel.FixtureFilter{})
		same(fmt.Sprintf("competition %d fixtures", c.ID), fa, fb)
		for _, fx := range fa {
			teams[fx.HomeTeamID], teams[fx.AwayTeamID] = true, true
			ha, _ := a.HeadToHead(fx.ID, 5, model.TierDonating)
			hb, _ := b.HeadToHead(fx.ID, 5, model.TierDonating)
			ha.Version, hb.Version = 0, 0
			same(fmt.Sprintf("head-to-head of %d", fx.ID), ha, hb)
			q := readmodel.HeadToHeadFilter{From: fx.Kickoff.AddDate(-1, 0, 0), Leagues: []model.LeagueCode{ca.League}, Detailed: 20}
			ha, _ = a.HeadToHeadWhere(fx.ID, 20, model.TierRegistered, q)
			hb, _ = b.HeadToHeadWhere(fx.ID, 20, model.TierRegistered, q)
			ha.Version, hb.Version = 0, 0
			same(fmt.Sprintf("filtered head-to-head of %d", fx.ID), ha, hb)
		}
	}
	for id := range teams {
		ta, _ := a.Team(id)
		tb, _ := b.Team(id)
		ta.Version, tb.Version = 0, 0
		same(fmt.Sprintf("team %d", id), ta, tb)
		fa, _ := a.TeamFixtures(id, readmodel.FixtureFilter{})
		fb, _ := b.TeamFixtures(id, readmodel.FixtureFilter{})
		same(fmt.Sprintf("team %d fixtures", id), fa, fb)
	}
	from, to := time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC)
	same("calendar", a.Fixtures(timeFrame(from, to)), b.Fixtures(timeFrame(from, to)))
	unversioned := func(ts []readmodel.Team) []readmodel.Team {
		for i := range ts {
			ts[i].Version = 0
		}
		return ts
	}
	same("search", unversioned(a.SearchTeams("team", model.TierDonating)), unversioned(b.SearchTeams("team", model.TierDonating)))
}
