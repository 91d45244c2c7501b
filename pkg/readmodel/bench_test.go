package readmodel_test

import (
	"context"
	"errors"
	"flag"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/push"
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

func newBenchModel(b *testing.B, sink ...func([]push.Event)) *readmodel.Model {
	b.Helper()
	cfg := readmodel.Config{Now: func() time.Time { return bench.now }}
	for _, f := range sink {
		cfg.Events = f
	}
	m, err := readmodel.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	return m
}

func replay(b *testing.B, evs []events.Event, sink ...func([]push.Event)) *readmodel.Model {
	m := newBenchModel(b, sink...)
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
// ready, beside the decode-only baseline of the same messages. The model
// benchmark also times a decode-only pass before each replay (off the
// clock) and reports the ratio of the two as x-decode, so that the ratio
// comes from one run under the same conditions.
func BenchmarkReplay(b *testing.B) {
	d, evs := benchData(b)
	b.Run("decode-only", func(b *testing.B) {
		for range b.N {
			decodeOnly(b, evs)
		}
		b.ReportMetric(float64(len(evs))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	})
	b.Run("model", func(b *testing.B) {
		var decoding, replaying time.Duration
		for range b.N {
			b.StopTimer()
			runtime.GC()
			start := time.Now()
			decodeOnly(b, evs)
			decoding += time.Since(start)
			runtime.GC()
			b.StartTimer()
			start = time.Now()
			replay(b, evs)
			replaying += time.Since(start)
		}
		perReplay := replaying / time.Duration(b.N)
		b.ReportMetric(float64(len(evs))/perReplay.Seconds(), "events/s")
		b.ReportMetric(float64(perReplay.Nanoseconds())/float64(d.fixtures), "ns/fixture")
		b.ReportMetric(float64(replaying)/float64(decoding), "x-decode")
	})
}

// BenchmarkMarkReady times the end of a replay alone: building every
// competition, team, day and pair from the gathered batch and publishing
// it. The stream is applied before, off the clock. This step runs after the
// last message, so it adds to start-up whole.
//
// The step may use every core, so it reports the CPU time it took (cpu-ns,
// every thread of the process) beside the elapsed time: on a shared machine
// the first is the steadier figure, the second the one start-up waits for.
func BenchmarkMarkReady(b *testing.B) {
	d, evs := benchData(b)
	var cpu time.Duration
	for range b.N {
		b.StopTimer()
		m := newBenchModel(b)
		for _, ev := range evs {
			m.Apply(ev)
		}
		runtime.GC()
		before := cpuTime(b)
		b.StartTimer()
		m.MarkReady()
		b.StopTimer()
		cpu += cpuTime(b) - before
	}
	perFixture := func(t time.Duration) float64 { return float64(t.Nanoseconds()) / float64(b.N) / float64(d.fixtures) }
	b.ReportMetric(perFixture(b.Elapsed()), "ns/fixture")
	b.ReportMetric(perFixture(cpu), "cpu-ns/fixture")
}

// cpuTime is the CPU time, user and system, the process has used so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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
// and the pair rebuilt per event. "push" derives the push events of each
// result too (a Fixture.Update and a Competition.Update); "plain", in the
// same run, is its baseline.
func BenchmarkApplyLive(b *testing.B) {
	d, evs := benchData(b)
	var fixtures []*model.Fixture
	for _, e := range d.entities {
		if f, ok := e.(*model.Fixture); ok {
			fixtures = append(fixtures, f)
		}
	}
	// Enough results that no run applies one its model holds already.
	live := make([]events.Event, 16384)
	for i := range live {
		f := *fixtures[(i*7919)%len(fixtures)]
		f.Status = model.Finished
		f.Result = model.Result{FullTime: &model.Score{Home: i % 5, Away: i % 3}}
		live[i] = event(b, 0, &f)
	}
	var pushed int
	for _, v := range []struct {
		name string
		sink []func([]push.Event)
	}{{"plain", nil}, {"push", []func([]push.Event){func(evs []push.Event) { pushed += len(evs) }}}} {
		m := replay(b, evs, v.sink...)
		seq := uint64(len(evs))
		next := 0
		b.Run(v.name, func(b *testing.B) {
			pushed = 0
			for range b.N {
				ev := live[next%len(live)]
				next++
				seq++
				ev.Seq = seq
				m.Apply(ev)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(pushed)/float64(b.N), "pushed/event")
		})
	}
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
		{"HeadToHead/10", func() int { h, _ := s.HeadToHead(fixture, 10, model.TierDonating); return h.Count }},
		{"Team", func() int { _, ok := s.Team(team); return b2i(ok) }},
		{"CompetitionTeams", func() int { ts, _ := s.CompetitionTeams(latest.ID); return len(ts) }},
		{"SearchTeams", func() int { return len(s.SearchTeams("club 1", model.TierDonating)) }},
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

// jetStreamData puts the generated data into a new embedded server.
func jetStreamData(b *testing.B) (*dataset, *events.Store) {
	d, _ := benchData(b)
	store := natstest.MustOpen(b, natstest.MustStart(b))
	natstest.PutNew(b, store, d.entities...)
	return d, store
}

// BenchmarkReplayJetStream replays the generated data from a real embedded
// JetStream server: the raw consumption (every message delivered, nothing
// done), the same with decoding, and the model's Run until ready. x-raw is
// the model's time over the raw consumption's, measured in this run: the
// design's start-up target (at most 1.5 at 1,000,000 fixtures).
func BenchmarkReplayJetStream(b *testing.B) {
	d, store := jetStreamData(b)
	ctx := context.Background()
	consume := func(b *testing.B, handle func(events.Event)) time.Duration {
		start := time.Now()
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		err := store.Consume(cctx, events.Prefix+".>", func(ev events.Event, _ events.Progress) error {
			handle(ev)
			return nil
		}, cancel, nil)
		if err != nil && !errors.Is(err, context.Canceled) {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	var raw time.Duration
	b.Run("raw", func(b *testing.B) {
		raw = 0
		for range b.N {
			raw += consume(b, func(events.Event) {})
		}
		raw /= time.Duration(b.N)
		b.ReportMetric(float64(len(d.entities))/raw.Seconds(), "events/s")
	})
	b.Run("decode", func(b *testing.B) {
		var per time.Duration
		for range b.N {
			per += consume(b, func(ev events.Event) { decodeOnly(b, []events.Event{ev}) })
		}
		per /= time.Duration(b.N)
		b.ReportMetric(float64(len(d.entities))/per.Seconds(), "events/s")
		b.ReportMetric(float64(per)/float64(raw), "x-raw")
	})
	b.Run("model", func(b *testing.B) {
		var per time.Duration
		for range b.N {
			m := newBenchModel(b)
			cctx, cancel := context.WithCancel(ctx)
			done := make(chan error, 1)
			start := time.Now()
			go func() { done <- m.Run(cctx, store) }()
			if err := m.WaitReady(ctx); err != nil {
				b.Fatal(err)
			}
			per += time.Since(start)
			cancel()
			<-done
		}
		per /= time.Duration(b.N)
		b.ReportMetric(float64(len(d.entities))/per.Seconds(), "events/s")
		b.ReportMetric(float64(per)/float64(raw), "x-raw")
	})
}

// BenchmarkEditToVisible measures the time from an editor's write to the
// stream until a replica's snapshot shows it (the design's freshness
// target: p99 under 50ms), one edit at a time, on a replica holding the
// generated data.
func BenchmarkEditToVisible(b *testing.B) {
	d, store := jetStreamData(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := newBenchModel(b)
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx, store) }()
	defer func() { cancel(); <-done }()
	if err := m.WaitReady(ctx); err != nil {
		b.Fatal(err)
	}
	var fixtures []*model.Fixture
	for _, e := range d.entities {
		if f, ok := e.(*model.Fixture); ok {
			fixtures = append(fixtures, f)
		}
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		f := *fixtures[(i*7919)%len(fixtures)]
		f.Status = model.Finished
		f.Result = model.Result{FullTime: &model.Score{Home: 1 + i%5, Away: i % 3}}
		subject, _ := events.SubjectOf(&f)
		body, _ := events.Encode(&f)
		rev, err := store.Get(ctx, subject)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		seq, err := store.Publish(ctx, events.Msg{Subject: subject, Body: body, Expected: rev.Seq})
		if err != nil {
			b.Fatal(err)
		}
		for s := m.Snapshot(); s.Seq() < seq; s = m.Snapshot() {
			<-s.Changed()
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}
