package readmodel

import (
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/push"
)

// TestPushEventsIndependentOfBatching: replicas publish live messages in
// batches that depend on timing; the events they derive must not. A model
// that publishes every message and one that gets them in one held-back
// chunk derive the same events.
func TestPushEventsIndependentOfBatching(t *testing.T) {
	at := time.Date(2017, 8, 11, 18, 45, 0, 0, time.UTC)
	var seq uint64
	msg := func(v any) events.Event {
		t.Helper()
		data, err := events.Encode(v)
		if err != nil {
			t.Fatal(err)
		}
		seq++
		ev := events.Event{Seq: seq, Time: at.Add(time.Duration(seq) * time.Minute), Data: data}
		switch v := v.(type) {
		case *model.Team:
			ev.Kind, ev.Key = events.KindTeam, []string{strconv.Itoa(v.ID)}
		case *model.Competition:
			ev.Kind, ev.Key = events.KindCompetition, []string{strconv.Itoa(v.ID)}
		case *model.Fixture:
			ev.Kind, ev.Key = events.KindFixture, []string{strconv.Itoa(v.CompetitionID), strconv.Itoa(v.ID)}
		}
		ev.Subject = events.Prefix + "." + string(ev.Kind) + "." + ev.Key[0]
		return ev
	}
	comp := func(id int) *model.Competition {
		return &model.Competition{ID: id, Caption: "League " + strconv.Itoa(id), League: "PL", Year: 2017, Type: model.TypeLeague,
			NumberOfMatchdays: 2, Tier: model.TierAnonymous,
			Teams: []model.CompetitionTeam{{TeamID: 1}, {TeamID: 2}, {TeamID: 3}, {TeamID: 4}},
			Rules: model.TableRules{PointsWin: 3, PointsDraw: 1, TieBreakers: []model.TieBreaker{model.GoalDifference}}}
	}
	fixture := func(id, comp, home, away, goals int) *model.Fixture {
		f := &model.Fixture{ID: id, CompetitionID: comp, Matchday: 1, Stage: model.Regular, Kickoff: at,
			HomeTeamID: home, AwayTeamID: away, Status: model.Timed}
		if goals >= 0 {
			f.Status, f.Result.FullTime = model.Finished, &model.Score{Home: goals, Away: 0}
		}
		return f
	}
	var replay []events.Event
	for id := 1; id <= 4; id++ {
		replay = append(replay, msg(&model.Team{ID: id, Name: "Team " + strconv.Itoa(id)}))
	}
	replay = append(replay, msg(comp(10)), msg(comp(11)), msg(fixture(1, 10, 1, 2, -1)), msg(fixture(2, 10, 3, 4, -1)),
		msg(fixture(3, 11, 1, 2, -1)))
	live := []events.Event{msg(fixture(1, 10, 1, 2, 1)), msg(fixture(3, 11, 1, 2, 2)), msg(fixture(2, 10, 3, 4, 3)),
		msg(fixture(1, 10, 1, 2, 0)), msg(fixture(9, 11, 3, 4, -1))}

	derive := func(batched bool) []push.Event {
		var got []push.Event
		m, err := New(Config{Now: func() time.Time { return at }, MaxDelay: time.Second,
			Events: func(evs []push.Event) { got = append(got, evs...) }})
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range replay {
			m.Apply(ev)
		}
		m.MarkReady()
		if !batched {
			for _, ev := range live {
				m.Apply(ev)
			}
			return got
		}
		c := &chunk{evs: live}
		for _, ev := range live {
			v, err := decodeEvent(ev)
			c.vals, c.errs, c.pending = append(c.vals, v), append(c.errs, err), append(c.pending, 100)
		}
		m.applyChunk(c)
		m.flush()
		return got
	}
	one, batched := derive(false), derive(true)
	if len(one) < len(live) {
		t.Fatalf("%d events from %d live results, want at least one each", len(one), len(live))
	}
	if !reflect.DeepEqual(one, batched) {
		t.Errorf("events differ with batching:\n one by one %+v\n    batched %+v", one, batched)
	}
}
