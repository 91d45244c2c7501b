package readmodel_test

import (
	"flag"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/readmodel"
)

// benchFixtures sizes the generated data of the benchmarks: 22 leagues (the
// appendix's codes) of 20 teams, as many seasons as it takes. The default
// keeps `go test -bench .` to a couple of minutes on two cores;
// -readmodel.fixtures=1000000 gives the design's target size.
var benchFixtures = flag.Int("readmodel.fixtures", 100_000, "fixtures in the generated data of the readmodel benchmarks")

const benchLeagues = 22

var bench struct {
	once   sync.Once
	data   *dataset
	events []events.Event
	model  *readmodel.Model
	now    time.Time
}

// benchData generates the data once per process, with the stream's
// messages, and a model built from them.
func benchData(b *testing.B) (*dataset, []events.Event) {
	b.Helper()
	bench.once.Do(func() {
		comps := (*benchFixtures + 379) / 380
		seasons := (comps + benchLeagues - 1) / benchLeagues
		bench.now = time.Date(2018, 1, 15, 12, 0, 0, 0, time.UTC)
		bench.data = generate(genConfig{leagues: benchLeagues, seasons: seasons, teams: 20, cutoff: bench.now, seed: 1})
		bench.events = make([]events.Event, len(bench.data.entities))
		for i, e := range bench.data.entities {
			bench.events[i] = event(b, uint64(i+1), e)
		}
	})
	return bench.data, bench.events
}

func newBenchModel(b *testing.B) *readmodel.Model {
	b.Helper()
	m, err := readmodel.New(readmodel.Config{Now: func() time.Time { return bench.now }})
	if err != nil {
		b.Fatal(err)
	}
	return m
}

func replay(b *testing.B, evs []events.Event) *readmodel.Model {
	m := newBenchModel(b)
	for _, ev := range evs {
		m.Apply(ev)
	}
	m.MarkReady()
	return m
}

// decodeOnly is the baseline of a replay: decoding every message into its
// entity, which any consumer must do, and nothing else.
func decodeOnly(b *testing.B, evs []events.Event) {
	for _, ev := range evs {
		var err error
		switch ev.Kind {
		case events.KindFixture:
			_, err = events.Decode[model.Fixture](ev.Data)
		case events.KindTeam:
			_, err = events.Decode[model.Team](ev.Data)
		case events.KindCompetition:
			_, err = events.Decode[model.Competition](ev.Data)
		case events.KindAdjustment:
			_, err = events.Decode[model.Adjustment](ev.Data)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReplay replays the generated stream into a new model until it is
// ready, beside the decode-only baseline of the same messages; the
// x-decode metric is the ratio of the two in this run.
func BenchmarkReplay(b *testing.B) {
	d, evs := benchData(b)
	b.Run("decode-only", func(b *testing.B) {
		for range b.N {
			decodeOnly(b, evs)
		}
		b.ReportMetric(float64(len(evs))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	})
	b.Run("model", func(b *testing.B) {
		for range b.N {
			replay(b, evs)
		}
		perReplay := b.Elapsed() / time.Duration(b.N)
		b.ReportMetric(float64(len(evs))/perReplay.Seconds(), "events/s")
		b.ReportMetric(float64(perReplay.Nanoseconds())/float64(d.fixtures), "ns/fixture")
		b.StopTimer()
		start := time.Now()
		decodeOnly(b, evs)
		b.ReportMetric(float64(perReplay)/float64(time.Since(start)), "x-decode")
	})
}

// BenchmarkMemory reports the heap the model holds per fixture.
func BenchmarkMemory(b *testing.B) {
	d, evs := benchData(b)
	for range b.N {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		m := replay(b, evs)
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(d.fixtures), "B/fixture")
		b.ReportMetric(float64(d.fixtures), "fixtures")
		runtime.KeepAlive(m)
	}
}

// readyModel is a model of the generated data shared by the benchmarks that
// do not change it.
func readyModel(b *testing.B) *readmodel.Model {
	_, evs := benchData(b)
	if bench.model == nil {
		bench.model = replay(b, evs)
	}
	return bench.model
}

// BenchmarkApplyLive applies live results to a ready model, each visible
// when Apply returns: one competition's tables, its teams' lists, the day
// and the pair rebuilt per event.
func BenchmarkApplyLive(b *testing.B) {
	d, evs := benchData(b)
	m := replay(b, evs)
	var fixtures []*model.Fixture
	for _, e := range d.entities {
		if f, ok := e.(*model.Fixture); ok {
			fixtures = append(fixtures, f)
		}
	}
	live := make([]events.Event, 4096)
	for i := range live {
		f := *fixtures[(i*7919)%len(fixtures)]
		f.Status = model.Finished
		f.Result = model.Result{FullTime: &model.Score{Home: i % 5, Away: i % 3}}
		live[i] = event(b, 0, &f)
	}
	seq := uint64(len(evs))
	b.ResetTimer()
	for i := range b.N {
		ev := live[i%len(live)]
		seq++
		ev.Seq = seq
		m.Apply(ev)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkQuery measures each index on the generated data.
func BenchmarkQuery(b *testing.B) {
	d, _ := benchData(b)
	s := readyModel(b).Snapshot()
	latest := d.comps[0] // league 0, the latest season
	team := latest.Teams[0].TeamID
	var fixture int
	if fs, _ := s.CompetitionFixtures(latest.ID, readmodel.FixtureFilter{Matchday: 20}); len(fs) > 0 {
		fixture = fs[0].ID
	}
	week := time.Date(2017, 10, 1, 0, 0, 0, 0, time.UTC)
	queries := []struct {
		name string
		run  func() int
	}{
		{"Fixture", func() int { _, ok := s.Fixture(fixture); return b2i(ok) }},
		{"Competition", func() int { _, ok := s.Competition(latest.ID); return b2i(ok) }},
		{"Competitions/season", func() int { return len(s.Competitions(2017)) }},
		{"CompetitionFixtures", func() int { fs, _ := s.CompetitionFixtures(latest.ID, readmodel.FixtureFilter{}); return len(fs) }},
		{"CompetitionFixtures/matchday", func() int {
			fs, _ := s.CompetitionFixtures(latest.ID, readmodel.FixtureFilter{Matchday: 20})
			return len(fs)
		}},
		{"TeamFixtures/all", func() int { fs, _ := s.TeamFixtures(team, readmodel.FixtureFilter{}); return len(fs) }},
		{"TeamFixtures/season+venue", func() int {
			fs, _ := s.TeamFixtures(team, readmodel.FixtureFilter{Season: 2017, Venue: model.Home})
			return len(fs)
		}},
		{"Fixtures/week", func() int { return len(s.Fixtures(timeFrame(week, week.AddDate(0, 0, 6)))) }},
		{"Fixtures/week+league", func() int {
			return len(s.Fixtures(readmodel.FixtureFilter{From: week, To: week.AddDate(0, 0, 6), Leagues: []model.LeagueCode{"PL"}}))
		}},
		{"Table/default", func() int { t, _ := s.Table(latest.ID, 0); return len(t.Standings) }},
		{"Table/old-matchday", func() int { t, _ := s.Table(d.comps[len(d.comps)-1].ID, 5); return len(t.Standings) }},
		{"HeadToHead/10", func() int { h, _ := s.HeadToHead(fixture, 10); return h.Count }},
		{"Team", func() int { _, ok := s.Team(team); return b2i(ok) }},
		{"CompetitionTeams", func() int { ts, _ := s.CompetitionTeams(latest.ID); return len(ts) }},
		{"SearchTeams", func() int { return len(s.SearchTeams("club 1")) }},
		{"Snapshot", func() int { return int(readyModel(b).Snapshot().Seq() & 1) }},
	}
	for _, q := range queries {
		b.Run(q.name, func(b *testing.B) {
			if q.run() == 0 && q.name != "Snapshot" {
				b.Fatalf("%s: empty answer", q.name)
			}
			b.ReportAllocs()
			for range b.N {
				q.run()
			}
		})
	}
}

func b2i(ok bool) int {
	if ok {
		return 1
	}
	return 0
}
