package push_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/push"
)

func fixtureEvent(seq uint64, id, comp int32, league model.LeagueCode, tier model.Tier, teams ...int32) push.Event {
	return push.Event{Seq: seq, Kind: push.FixtureUpdate, ID: id, Competition: comp, League: league, Tier: tier, Teams: teams,
		Time: time.Date(2026, 3, 13, 15, 4, 5, 0, time.UTC), Updates: map[string][2]any{"goalsHomeTeam": {0, 1}}}
}

func compEvent(seq uint64, comp int32, league model.LeagueCode, tier model.Tier) push.Event {
	return push.Event{Seq: seq, Kind: push.CompetitionUpdate, ID: comp, Competition: comp, League: league, Tier: tier,
		Time: time.Date(2026, 3, 13, 15, 4, 5, 0, time.UTC), Updates: map[string][2]any{"currentMatchday": {1, 2}}}
}

func newHub(t testing.TB, cfg push.HubConfig) *push.Hub {
	t.Helper()
	h, err := push.NewHub(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// ids lists the IDs of entries as "seq.n".
func ids(es []*push.Entry) string {
	var s []string
	for _, e := range es {
		s = append(s, e.ID.String())
	}
	return strings.Join(s, " ")
}

// drain takes what a subscription holds now.
func drain(sub *push.Subscription) []*push.Entry {
	var es []*push.Entry
	for {
		select {
		case e, ok := <-sub.C():
			if !ok {
				return es
			}
			es = append(es, e)
		default:
			return es
		}
	}
}

func TestHubFiltersAndResumes(t *testing.T) {
	history := []push.Event{
		fixtureEvent(10, 1, 100, "PL", model.TierAnonymous, 7, 8), compEvent(10, 100, "PL", model.TierAnonymous),
		fixtureEvent(11, 2, 200, "CL", model.TierDonating, 7, 9), compEvent(11, 200, "CL", model.TierDonating),
		fixtureEvent(12, 3, 100, "PL", model.TierAnonymous, 8, 9),
	}
	next := []push.Event{fixtureEvent(13, 1, 100, "PL", model.TierAnonymous, 7, 8), compEvent(13, 100, "PL", model.TierAnonymous)}
	anon := push.Filter{Tier: model.TierAnonymous}
	cases := []struct {
		name        string
		history     int
		filter      push.Filter
		resume      string // Last-Event-ID, "" for none
		floor       uint64
		ok          bool
		backlog     string
		live        string
		description string
	}{
		{name: "new events only", history: 10, filter: anon, ok: true, live: "13.0 13.1"},
		{name: "resume after an event", history: 10, filter: anon, resume: "10.0", ok: true, backlog: "10.1 12.0", live: "13.0 13.1"},
		{name: "resume after an edit", history: 10, filter: anon, resume: "10", ok: true, backlog: "12.0", live: "13.0 13.1"},
		{name: "tier donating sees all", history: 10, filter: push.Filter{Tier: model.TierDonating}, resume: "10.1", ok: true, backlog: "11.0 11.1 12.0", live: "13.0 13.1"},
		{name: "team filter: fixtures only", history: 10, filter: push.Filter{Tier: model.TierDonating, Teams: []int32{9}}, resume: "9", ok: true, backlog: "11.0 12.0"},
		{name: "fixture filter", history: 10, filter: push.Filter{Tier: model.TierAnonymous, Fixtures: []int32{1}}, resume: "9", ok: true, backlog: "10.0", live: "13.0"},
		{name: "league filter", history: 10, filter: push.Filter{Tier: model.TierDonating, Leagues: []model.LeagueCode{"CL"}}, resume: "9", ok: true, backlog: "11.0 11.1"},
		{name: "competition filter", history: 10, filter: push.Filter{Tier: model.TierAnonymous, Competitions: []int32{100}}, resume: "10.0", ok: true, backlog: "10.1 12.0", live: "13.0 13.1"},
		{name: "evicted: reset", history: 3, filter: anon, resume: "10.0", ok: false, live: "13.0 13.1"},
		{name: "held exactly", history: 3, filter: anon, resume: "10.1", ok: true, backlog: "12.0", live: "13.0 13.1"},
		{name: "before the replica's history: reset", history: 10, filter: anon, resume: "8", floor: 9, ok: false, live: "13.0 13.1"},
		{name: "ahead of this replica", history: 10, filter: anon, resume: "13.0", ok: true, live: "13.1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHub(t, push.HubConfig{History: tc.history})
			h.Publish(history[:2])
			h.Publish(history[2:4])
			h.Publish(history[4:])
			var from push.EventID
			if tc.resume != "" {
				var err error
				if from, err = push.ParseEventID(tc.resume); err != nil {
					t.Fatal(err)
				}
			}
			sub, backlog, ok := h.Subscribe(tc.filter, tc.resume != "", from, tc.floor)
			defer sub.Close()
			if ok != tc.ok || ids(backlog) != tc.backlog {
				t.Errorf("resume: got ok %v backlog %q, want %v %q", ok, ids(backlog), tc.ok, tc.backlog)
			}
			h.Publish(next)
			if got := ids(drain(sub)); got != tc.live {
				t.Errorf("live: got %q, want %q", got, tc.live)
			}
		})
	}
}

func TestHubDropsSlowSubscriber(t *testing.T) {
	h := newHub(t, push.HubConfig{Buffer: 2})
	slow, _, _ := h.Subscribe(push.Filter{Tier: model.TierAnonymous}, false, push.EventID{}, 0)
	fast, _, _ := h.Subscribe(push.Filter{Tier: model.TierAnonymous}, false, push.EventID{}, 0)
	for seq := uint64(1); seq <= 3; seq++ {
		h.Publish([]push.Event{fixtureEvent(seq, 1, 100, "PL", model.TierAnonymous)})
		if seq < 3 {
			<-fast.C()
		}
	}
	if got := ids(drain(slow)); got != "1.0 2.0" || !slow.Dropped() {
		t.Errorf("slow subscriber: got %q dropped %v, want its buffer, then dropped", got, slow.Dropped())
	}
	if got := ids(drain(fast)); got != "3.0" || fast.Dropped() {
		t.Errorf("fast subscriber: got %q dropped %v", got, fast.Dropped())
	}
	h.Close()
	if _, open := <-fast.C(); open || fast.Dropped() {
		t.Errorf("after Close: channel open %v, dropped %v; want closed, not dropped", open, fast.Dropped())
	}
}

func TestParseEventID(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{{"12.3", "12.3", true}, {"12", "12", true}, {"x", "", false}, {"1.-1", "", false}, {"", "", false}} {
		id, err := push.ParseEventID(tc.in)
		if (err == nil) != tc.ok || (tc.ok && id.String() != tc.want) {
			t.Errorf("ParseEventID(%q) = %v, %v; want %q ok %v", tc.in, id, err, tc.want, tc.ok)
		}
	}
}

// BenchmarkHubFanOut publishes one event to N idle subscribers (the cost on
// the read model's writer) and reports the memory each subscription holds.
func BenchmarkHubFanOut(b *testing.B) {
	for _, n := range []int{1, 100, 10_000} {
		b.Run(fmt.Sprint("subscribers=", n), func(b *testing.B) {
			h := newHub(b, push.HubConfig{Buffer: 64})
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			subs := make([]*push.Subscription, n)
			for i := range subs {
				subs[i], _, _ = h.Subscribe(push.Filter{Tier: model.TierAnonymous}, false, push.EventID{}, 0)
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(n), "B/subscription")
			ev := []push.Event{fixtureEvent(0, 1, 100, "PL", model.TierAnonymous)}
			b.ResetTimer()
			for i := range b.N {
				ev[0].Seq = uint64(i + 1)
				h.Publish(ev)
				for _, s := range subs {
					<-s.C()
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/delivery")
		})
	}
}
