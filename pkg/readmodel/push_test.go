package readmodel_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/push"
	"github.com/footdata/footballd/pkg/readmodel"
)

// pushFeed is a feed whose model derives push events into got.
func pushFeed(t *testing.T) (*feed, *[]push.Event) {
	t.Helper()
	var got []push.Event
	c := &clock{now: t0}
	m, err := readmodel.New(readmodel.Config{Now: c.Now, Events: func(evs []push.Event) { got = append(got, evs...) }})
	if err != nil {
		t.Fatal(err)
	}
	return &feed{tb: t, m: m, clock: c, last: map[string]events.Event{}}, &got
}

// pushLine is an event as the tests compare it: kind, id, teams, tier and
// its updates as JSON.
func pushLine(t *testing.T, e push.Event) string {
	t.Helper()
	u, err := json.Marshal(e.Updates)
	if err != nil {
		t.Fatal(err)
	}
	teams, _ := json.Marshal(e.Teams)
	return e.Kind + " " + itoa(int(e.ID)) + " c" + itoa(int(e.Competition)) + " " + string(e.League) + " " + string(teams) + " " + string(e.Tier) + " " + string(u)
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestPushEventsOfLiveMessages(t *testing.T) {
	restricted := league(20, 2017, gd)
	restricted.Tier, restricted.League = model.TierDonating, "CL"
	moved := timed(2, 10, 1, charlie, delta, kickoff(1))
	moved.Kickoff = kickoff(1).Add(2 * time.Hour)
	halfTime := played(2, 10, 1, charlie, delta, "2-1")
	halfTime.Result.HalfTime = &model.Score{Home: 1, Away: 1}
	fewer := league(10, 2017, gd)
	fewer.Teams = fewer.Teams[:3]
	cases := []struct {
		name string
		live []any
		want []string
	}{
		{"result moves the table", []any{played(2, 10, 1, charlie, delta, "2-1")}, []string{
			`Fixture.Update 2 c10 PL [3,4] anonymous {"goalsAwayTeam":[null,1],"goalsHomeTeam":[null,2],"status":["TIMED","FINISHED"]}`,
			`Competition.Update 10 c10 PL null anonymous {"leagueTable":[{"2":4,"3":2,"4":3},{"2":3,"3":2,"4":4}]}`,
		}},
		{"half time only", []any{played(2, 10, 1, charlie, delta, "2-1"), halfTime}, []string{
			`Fixture.Update 2 c10 PL [3,4] anonymous {"goalsAwayTeam":[null,1],"goalsHomeTeam":[null,2],"status":["TIMED","FINISHED"]}`,
			`Competition.Update 10 c10 PL null anonymous {"leagueTable":[{"2":4,"3":2,"4":3},{"2":3,"3":2,"4":4}]}`,
			`Fixture.Update 2 c10 PL [3,4] anonymous {"halfTime.goalsAwayTeam":[null,1],"halfTime.goalsHomeTeam":[null,1]}`,
		}},
		// Seconds after both matchday 1 games kicked off, the last
		// matchday is current; with one of them two hours later,
		// matchday 1 is.
		{"new date", []any{moved}, []string{
			`Fixture.Update 2 c10 PL [3,4] anonymous {"date":["2017-08-11T18:45:00Z","2017-08-11T20:45:00Z"]}`,
			`Competition.Update 10 c10 PL null anonymous {"currentMatchday":[6,1]}`,
		}},
		{"new fixture", []any{timed(5, 10, 2, alpha, charlie, kickoff(2))}, []string{
			`Competition.Update 10 c10 PL null anonymous {"currentMatchday":[6,1],"numberOfGames":[2,3]}`,
		}},
		// Delta still plays fixture 2, so it stays in the table.
		{"fewer teams", []any{fewer}, []string{
			`Competition.Update 10 c10 PL null anonymous {"numberOfTeams":[4,3],"teams":[[1,2,3,4],[1,2,3]]}`,
		}},
		{"restricted competition carries its tier", []any{played(7, 20, 1, alpha, bravo, "0-1")}, []string{
			`Fixture.Update 7 c20 CL [1,2] donating {"goalsAwayTeam":[null,1],"goalsHomeTeam":[null,0],"status":["TIMED","FINISHED"]}`,
			`Competition.Update 20 c20 CL null donating {"leagueTable":[{"1":1,"2":2,"3":3,"4":4},{"1":4,"2":1,"3":2,"4":3}]}`,
		}},
		// Alpha stays first and Bravo last: the table changed, its order
		// did not, and a client that caches the table must hear of it.
		{"a correction that moves no team", []any{played(1, 10, 1, alpha, bravo, "2-0")}, []string{
			`Fixture.Update 1 c10 PL [1,2] anonymous {"goalsHomeTeam":[1,2]}`,
			`Competition.Update 10 c10 PL null anonymous {"leagueTable":[{"1":1,"2":4},{"1":1,"2":4}]}`,
		}},
		{"unchanged and stale messages", []any{timed(2, 10, 1, charlie, delta, kickoff(1))}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, got := pushFeed(t)
			f.put(teams()...)
			f.put(league(10, 2017, gd), restricted, played(1, 10, 1, alpha, bravo, "1-0"), timed(2, 10, 1, charlie, delta, kickoff(1)),
				timed(7, 20, 1, alpha, bravo, kickoff(1)))
			f.m.MarkReady()
			if len(*got) != 0 {
				t.Fatalf("the replay gave %d events, want none", len(*got))
			}
			start := f.seq
			f.put(tc.live...)
			var lines []string
			for i, e := range *got {
				lines = append(lines, pushLine(t, e))
				if e.Seq <= start || e.Seq > f.seq || (i > 0 && e.Seq < (*got)[i-1].Seq) {
					t.Errorf("event %d: seq %d, want the live messages' %d..%d in order", i, e.Seq, start+1, f.seq)
				}
				if want := t0.Add(time.Duration(e.Seq) * time.Second); !e.Time.Equal(want) {
					t.Errorf("event %d: time %s, want the message's %s", i, e.Time, want)
				}
			}
			if !equalLines(lines, tc.want) {
				t.Errorf("events:\n got %q\nwant %q", lines, tc.want)
			}
		})
	}
}
