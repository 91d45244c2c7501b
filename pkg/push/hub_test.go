package push_test

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
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

func TestHubFiltersAndResumes(t *testing.T) {
	history := []push.Event{
		fixtureEvent(10, 1, 100, "PL", model.TierAnonymous, 7, 8), compEvent(10, 100, "PL", model.TierAnonymous),
		fixtureEvent(11, 2, 200, "CL", model.TierDonating, 7, 9), compEvent(11, 200, "CL", model.TierDonating),
		fixtureEvent(12, 3, 100, "PL", model.TierAnonymous, 8, 9),
	}
	next := []push.Event{fixtureEvent(13, 1, 100, "PL", model.TierAnonymous, 7, 8), compEvent(13, 100, "PL", model.TierAnonymous)}
	anon := push.Filter{Tier: model.TierAnonymous}
	cases := []struct {
		name    string
		history int
		filter  push.Filter
		resume  string // Last-Event-ID, "" for none
		floor   uint64
		ceiling uint64 // the stream's last sequence; 13 when 0
		ok      bool
		backlog string // what Take gives at once
		live    string // what it gives after more events
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
		{name: "beyond the stream: reset", history: 10, filter: anon, resume: "14.0", ok: false, live: "13.0 13.1"},
		{name: "far beyond the stream: reset", history: 10, filter: anon, resume: "99999999.0", ok: false, live: "13.0 13.1"},
		{name: "last sequence there is: reset", history: 10, filter: anon, resume: "18446744073709551615", ok: false, live: "13.0 13.1"},
		{name: "up to the stream's last", history: 10, filter: anon, resume: "20", ceiling: 20, ok: true},
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
			ceiling := tc.ceiling
			if ceiling == 0 {
				ceiling = 13
			}
			sub, ok := h.Subscribe(tc.filter, tc.resume != "", from, tc.floor, ceiling)
			backlog, state := sub.Take()
			if ok != tc.ok || ids(backlog) != tc.backlog || state != push.Open {
				t.Errorf("resume: got ok %v backlog %q state %v, want %v %q open", ok, ids(backlog), state, tc.ok, tc.backlog)
			}
			changed := sub.Changed()
			h.Publish(next)
			select {
			case <-changed:
			case <-time.After(5 * time.Second):
				t.Fatal("subscriber not woken by Publish")
			}
			if live, _ := sub.Take(); ids(live) != tc.live {
				t.Errorf("live: got %q, want %q", ids(live), tc.live)
			}
		})
	}
}

// TestHubSubscriberBehindAndClose: a subscriber whose place has left the
// history is told so, and Close wakes every subscriber for the last time.
func TestHubSubscriberBehindAndClose(t *testing.T) {
	h := newHub(t, push.HubConfig{History: 2})
	slow, _ := h.Subscribe(push.Filter{Tier: model.TierAnonymous}, false, push.EventID{}, 0, 0)
	fast, _ := h.Subscribe(push.Filter{Tier: model.TierAnonymous}, false, push.EventID{}, 0, 0)
	for seq := uint64(1); seq <= 3; seq++ {
		h.Publish([]push.Event{fixtureEvent(seq, 1, 100, "PL", model.TierAnonymous)})
		if got, state := fast.Take(); ids(got) != fmt.Sprint(seq, ".0") || state != push.Open {
			t.Errorf("fast subscriber: got %q %v", ids(got), state)
		}
	}
	if got, state := slow.Take(); len(got) != 0 || state != push.Behind || slow.After().String() != "3.0" {
		t.Errorf("slow subscriber: got %q %v after %s, want behind, moved on to 3.0", ids(got), state, slow.After())
	}
	changed := fast.Changed()
	h.Close()
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close woke no one")
	}
	if _, state := fast.Take(); state != push.Closed {
		t.Errorf("after Close: %v, want closed", state)
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

// BenchmarkHubFanOut publishes one event to N waiting subscribers, each
// on its own goroutine, until all have taken it: "publish" is the cost on
// the read model's writer, "ns/delivery" the whole fan-out per subscriber.
// It reports the heap each subscription holds.
func BenchmarkHubFanOut(b *testing.B) {
	for _, n := range []int{1, 100, 10_000} {
		b.Run(fmt.Sprint("subscribers=", n), func(b *testing.B) {
			h := newHub(b, push.HubConfig{})
			defer h.Close()
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			subs := make([]*push.Subscription, n)
			for i := range subs {
				subs[i], _ = h.Subscribe(push.Filter{Tier: model.TierAnonymous}, false, push.EventID{}, 0, 0)
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			perSub := (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / float64(n)
			got := make(chan struct{}, n)
			var wg sync.WaitGroup
			for _, s := range subs {
				wg.Go(func() {
					for {
						changed := s.Changed()
						es, state := s.Take()
						for range es {
							got <- struct{}{}
						}
						if state != push.Open {
							return
						}
						<-changed
					}
				})
			}
			ev := []push.Event{fixtureEvent(0, 1, 100, "PL", model.TierAnonymous)}
			var publish time.Duration
			b.ResetTimer()
			for i := range b.N {
				ev[0].Seq = uint64(i + 1)
				start := time.Now()
				h.Publish(ev)
				publish += time.Since(start)
				for range n {
					<-got
				}
			}
			b.StopTimer()
			h.Close()
			wg.Wait()
			b.ReportMetric(perSub, "B/subscription")
			b.ReportMetric(float64(publish.Nanoseconds())/float64(b.N), "ns/publish")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/delivery")
		})
	}
}
