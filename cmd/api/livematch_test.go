package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/internal/webhook"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// liveStep is one state of a scripted live match, and what it shows.
type liveStep struct {
	name   string
	change func(f *model.Fixture)
	// updates is the step's Fixture.Update, as JSON.
	updates string
	// v4 is the match in /v4/matches?status=LIVE ("" when not live), v1
	// its v1 status.
	v4, v1 string
}

// TestLiveMatchIsPushedAndServed plays a match through the write path
// while a replica serves it: kick-off, a goal, half time, a goal whose
// scorer and minute the source does not know, that goal taken back (VAR),
// the first goal's scorer named in full, full time. Each state arrives as one Fixture.Update, in order, on the
// event stream and at a webhook; /v4/matches?status=LIVE shows the
// running score with the minute, v1 shows IN_PLAY; the table counts the
// match only once it is over.
func TestLiveMatchIsPushedAndServed(t *testing.T) {
	r := startReplica(t, "", "--now", "2026-03-14T15:30:00Z", "--webhook-allow", "127.0.0.1/32")
	s := r.store()
	ed, f := smallWorld(t, s)
	ctx := context.Background()
	token := addClient(t, s, "reg", model.TierRegistered, 1000)
	auth := map[string]string{"X-Auth-Token": token}
	stream := r.openStream(t, "", auth)
	hook := newHookReceiver(t)
	secret, _, err := ed.AddWebhook(ctx, model.Webhook{Name: "live", Client: "reg", URL: hook.srv.URL + "/hook"})
	if err != nil {
		t.Fatal(err)
	}
	hook.secret.Store(secret)
	r.waitApplied(s)
	created := natstest.All[model.Webhook](t, s, events.KindWebhook)[events.Subject(events.KindWebhook, "live")].Created
	natstest.CheckFor(t, 30*time.Second, 20*time.Millisecond, func() error {
		states, err := webhook.ReadStates(ctx, s.Conn())
		if err != nil {
			return err
		}
		if st, _, err := states.Get(ctx, "live", created); err != nil || st.Status != webhook.Verified {
			return fmt.Errorf("webhook: state %+v, %v; want verified", st, err)
		}
		return nil
	})

	first := model.Goal{Minute: 23, Side: model.Home, Type: model.GoalRegular, Scorer: "Striker"}
	anonymous := model.Goal{Side: model.Away, Type: model.GoalRegular}
	named := first
	named.Scorer = "Sam Striker"
	// The goals as an event carries them: as the stream stores them.
	const (
		firstJSON     = `{"minute":23,"side":"HOME_TEAM","type":"REGULAR","scorer":"Striker"}`
		anonymousJSON = `{"minute":0,"side":"AWAY_TEAM","type":"REGULAR","scorer":""}`
		namedJSON     = `{"minute":23,"side":"HOME_TEAM","type":"REGULAR","scorer":"Sam Striker"}`
	)
	steps := []liveStep{
		{"kick-off", func(f *model.Fixture) { f.Status, f.Minute = model.InPlay, 1 },
			`{"goalsAwayTeam":[null,0],"goalsHomeTeam":[null,0],"minute":[null,1],"status":["TIMED","IN_PLAY"]}`,
			`IN_PLAY 1' 0-0 ht null-null`, "IN_PLAY"},
		{"a goal", func(f *model.Fixture) {
			f.Minute, f.Result.FullTime, f.Goals = 23, &model.Score{Home: 1}, []model.Goal{first}
		},
			`{"goals":[null,[` + firstJSON + `]],"goalsHomeTeam":[0,1],"minute":[1,23]}`,
			`IN_PLAY 23' 1-0 ht null-null`, "IN_PLAY"},
		{"half time", func(f *model.Fixture) {
			f.Status, f.Minute, f.InjuryTime, f.Result.HalfTime = model.Paused, 45, 2, &model.Score{Home: 1}
		}, `{"halfTime.goalsAwayTeam":[null,0],"halfTime.goalsHomeTeam":[null,1],"injuryTime":[null,2],"minute":[23,45],"status":["IN_PLAY","PAUSED"]}`,
			`PAUSED 45+2' 1-0 ht 1-0`, "IN_PLAY"},
		{"a goal of unknown minute and scorer", func(f *model.Fixture) {
			f.Status, f.Minute, f.InjuryTime = model.InPlay, 58, 0
			f.Result.FullTime, f.Goals = &model.Score{Home: 1, Away: 1}, []model.Goal{first, anonymous}
		}, `{"goals":[[` + firstJSON + `],[` + firstJSON + `,` + anonymousJSON + `]],"goalsAwayTeam":[0,1],"injuryTime":[2,null],"minute":[45,58],"status":["PAUSED","IN_PLAY"]}`,
			`IN_PLAY 58' 1-1 ht 1-0`, "IN_PLAY"},
		{"the goal taken back", func(f *model.Fixture) {
			f.Minute, f.Result.FullTime, f.Goals = 60, &model.Score{Home: 1}, []model.Goal{first}
		},
			`{"goals":[[` + firstJSON + `,` + anonymousJSON + `],[` + firstJSON + `]],"goalsAwayTeam":[1,0],"minute":[58,60]}`,
			`IN_PLAY 60' 1-0 ht 1-0`, "IN_PLAY"},
		{"the scorer named in full", func(f *model.Fixture) { f.Goals = []model.Goal{named} },
			`{"goals":[[` + firstJSON + `],[` + namedJSON + `]]}`,
			`IN_PLAY 60' 1-0 ht 1-0`, "IN_PLAY"},
		{"full time", func(f *model.Fixture) { f.Status, f.Minute = model.Finished, 90 },
			`{"minute":[60,null],"status":["IN_PLAY","FINISHED"]}`,
			"", "FINISHED"},
	}
	var want []string
	for _, st := range steps {
		if _, _, err := ed.PutFixture(ctx, f.ID, true, func(cur *model.Fixture) error { st.change(cur); return nil }); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		want = append(want, st.updates)
		r.waitApplied(s)
		if got := liveMatches(t, r, auth); got != st.v4 {
			t.Errorf("%s: /v4/matches?status=LIVE shows %q, want %q", st.name, got, st.v4)
		}
		var v1 struct {
			Fixture struct{ Status string } `json:"fixture"`
		}
		if err := json.Unmarshal(r.do("GET", "/v1/fixtures/"+strconv.Itoa(f.ID), auth).body, &v1); err != nil || v1.Fixture.Status != st.v1 {
			t.Errorf("%s: /v1/fixtures/%d status %q (%v), want %q", st.name, f.ID, v1.Fixture.Status, err, st.v1)
		}
		if st.name == "a goal of unknown minute and scorer" {
			var m struct {
				Goals []struct {
					Minute *int
					Scorer struct {
						ID   *int
						Name *string
					}
				}
			}
			body := r.do("GET", "/v4/matches/"+strconv.Itoa(f.ID), auth).body
			if err := json.Unmarshal(body, &m); err != nil || len(m.Goals) != 2 || m.Goals[1].Minute != nil || m.Goals[1].Scorer.ID != nil ||
				m.Goals[1].Scorer.Name != nil || m.Goals[0].Minute == nil || *m.Goals[0].Minute != 23 {
				t.Errorf("%s: /v4/matches/%d goals, want the second with minute and scorer null (%v):\n%s", st.name, f.ID, err, body)
			}
		}
		played := r.do("GET", "/v1/competitions/"+strconv.Itoa(f.CompetitionID)+"/leagueTable", auth)
		if counted := !strings.Contains(string(played.body), `"playedGames":0`); counted != (st.v1 == "FINISHED") {
			t.Errorf("%s: the table counts the match: %v\n%s", st.name, counted, played.body)
		}
	}

	var streamed []string
	for len(streamed) < len(want) {
		m, ok := stream.next()
		if !ok {
			t.Fatalf("stream: fixture events so far %q, want %q", streamed, want)
		}
		if m.event == "Fixture.Update" {
			streamed = append(streamed, updatesOf(t, m.data))
		}
	}
	if !slices.Equal(streamed, want) {
		t.Errorf("stream: fixture events\n%q\nwant\n%q", streamed, want)
	}
	// Deliveries are not ordered (docs/push.md): their ids are.
	type delivered struct {
		seq     uint64
		updates string
	}
	var hooked []delivered
	for len(hooked) < len(want) {
		select {
		case d := <-hook.arrived:
			if !strings.Contains(d.body, `"Resource":"Fixture"`) {
				continue
			}
			// The id is the event's key: the edit's sequence first.
			prefix, _, _ := strings.Cut(d.id, ".")
			seq, err := strconv.ParseUint(prefix, 10, 64)
			if err != nil {
				t.Fatalf("webhook-id %q: %v", d.id, err)
			}
			hooked = append(hooked, delivered{seq, updatesOf(t, d.body)})
		case <-time.After(30 * time.Second):
			t.Fatalf("webhook: fixture deliveries so far %v, want %q", hooked, want)
		}
	}
	slices.SortFunc(hooked, func(a, b delivered) int { return cmp.Compare(a.seq, b.seq) })
	for i, d := range hooked {
		if d.updates != want[i] {
			t.Errorf("webhook delivery %d: %s, want %s", i, d.updates, want[i])
		}
	}
}

// updatesOf is the Updates of an event body, as compact JSON.
func updatesOf(t *testing.T, body string) string {
	t.Helper()
	var ev struct{ Updates json.RawMessage }
	if err := json.Unmarshal([]byte(body), &ev); err != nil {
		t.Fatalf("event %s: %v", body, err)
	}
	return string(ev.Updates)
}

// liveMatches is /v4/matches?status=LIVE as "STATUS MINUTE' SCORE ht HT",
// one line per match.
func liveMatches(t *testing.T, r *replica, auth map[string]string) string {
	t.Helper()
	resp := r.do("GET", "/v4/matches?status=LIVE", auth)
	type goals struct{ Home, Away *int }
	var list struct {
		Matches []struct {
			Status             string
			Minute, InjuryTime *int
			Score              struct{ FullTime, HalfTime goals }
		}
	}
	if err := json.Unmarshal(resp.body, &list); err != nil || resp.status != 200 {
		t.Fatalf("/v4/matches?status=LIVE: %d %s (%v)", resp.status, resp.body, err)
	}
	n := func(p *int) string {
		if p == nil {
			return "null"
		}
		return strconv.Itoa(*p)
	}
	var lines []string
	for _, m := range list.Matches {
		minute := n(m.Minute)
		if m.InjuryTime != nil {
			minute += "+" + n(m.InjuryTime)
		}
		lines = append(lines, fmt.Sprintf("%s %s' %s-%s ht %s-%s", m.Status, minute, n(m.Score.FullTime.Home), n(m.Score.FullTime.Away),
			n(m.Score.HalfTime.Home), n(m.Score.HalfTime.Away)))
	}
	return strings.Join(lines, "\n")
}
