package readmodel_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/readmodel"
)

// TestConcurrentReadsAreConsistent applies thousands of live events while
// readers check that every snapshot they get is whole: each table agrees
// with itself and with the competition's fixture list of the same snapshot,
// which would fail if a reader saw an event half applied.
func TestConcurrentReadsAreConsistent(t *testing.T) {
	cutoff := time.Date(2017, 12, 1, 0, 0, 0, 0, time.UTC)
	d := generate(genConfig{leagues: 2, seasons: 2, teams: 10, cutoff: cutoff, seed: 7})
	f := newFeed(t, cutoff)
	f.put(d.entities...)
	f.m.MarkReady()

	var fixtures []*model.Fixture
	for _, e := range d.entities {
		if fx, ok := e.(*model.Fixture); ok {
			fixtures = append(fixtures, fx)
		}
	}
	edits := 2000
	if testing.Short() {
		edits = 500
	}
	var done atomic.Bool
	var reads atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for r := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(r), 2))
			for !done.Load() {
				s := f.m.Snapshot()
				comp := d.comps[rng.IntN(len(d.comps))]
				if msg := checkSnapshot(s, comp, rng.IntN(comp.NumberOfMatchdays+2)); msg != "" {
					select {
					case errs <- fmt.Sprintf("competition %d at seq %d: %s", comp.ID, s.Seq(), msg):
					default:
					}
					return
				}
				reads.Add(1)
			}
		}()
	}
	// The ticker's path runs beside the writer too.
	wg.Add(1)
	go func() {
		defer wg.Done()
		for now := cutoff; !done.Load(); now = now.Add(6 * time.Hour) {
			f.m.Tick(now)
			time.Sleep(time.Millisecond) // the ticker's pace: not a wait
		}
	}()

	rng := rand.New(rand.NewPCG(42, 3))
	for i := range edits {
		fx := *fixtures[rng.IntN(len(fixtures))]
		switch i % 10 {
		case 0: // a score correction that an editor awards the other way
			fx.Status, fx.Result.FullTime = model.Finished, &model.Score{Home: rng.IntN(6), Away: rng.IntN(6)}
			fx.Awarded = []model.Side{model.Home, model.Away, model.Draw}[rng.IntN(3)]
		case 1: // postponed and moved
			fx.Status, fx.Result, fx.Awarded = model.Postponed, model.Result{}, ""
			fx.Kickoff = fx.Kickoff.Add(time.Duration(rng.IntN(200)) * time.Hour)
		case 2:
			f.put(&model.Adjustment{ID: 100000 + i, CompetitionID: fx.CompetitionID, TeamID: fx.HomeTeamID, Points: -rng.IntN(5), Reason: "test"})
			continue
		case 3:
			f.put(&model.Team{ID: fx.AwayTeamID, Name: fmt.Sprintf("Renamed %d", i)})
			continue
		default: // a live score
			fx.Status, fx.Awarded = model.Finished, ""
			fx.Result = model.Result{FullTime: &model.Score{Home: rng.IntN(5), Away: rng.IntN(5)}}
		}
		f.put(&fx)
	}
	done.Store(true)
	wg.Wait()
	close(errs)
	for msg := range errs {
		t.Error(msg)
	}
	if reads.Load() == 0 {
		t.Error("no reads")
	}
	t.Logf("%d edits, %d consistent reads", edits, reads.Load())
}

// checkSnapshot checks one competition in one snapshot.
func checkSnapshot(s readmodel.Snapshot, comp *model.Competition, matchday int) string {
	c, ok := s.Competition(comp.ID)
	if !ok {
		return "competition missing"
	}
	list, _ := s.CompetitionFixtures(comp.ID, readmodel.FixtureFilter{})
	if len(list) != c.NumberOfGames {
		return fmt.Sprintf("%d fixtures listed, %d counted", len(list), c.NumberOfGames)
	}
	if !slices.IsSortedFunc(list, func(a, b readmodel.Fixture) int { return a.Kickoff.Compare(b.Kickoff) }) {
		return "fixtures out of date order"
	}
	// The table at the last matchday counts exactly the finished games of
	// the list; the same fixture read by id is the listed one.
	finished := 0
	for _, fx := range list {
		if fx.Status == model.Finished {
			finished++
		}
		if one, _ := s.Fixture(fx.ID); one.Status != fx.Status || one.Awarded != fx.Awarded {
			return fmt.Sprintf("fixture %d differs between its index and the competition's list", fx.ID)
		}
	}
	last, _ := s.Table(comp.ID, c.LastMatchday)
	played := 0
	for _, r := range last.Standings[0].Rows {
		played += r.PlayedGames
	}
	if played != 2*finished {
		return fmt.Sprintf("table counts %d games, the list has %d finished", played/2, finished)
	}
	if msg := checkTable(last, c.Rules); msg != "" {
		return msg
	}
	if matchday >= 1 {
		table, _ := s.Table(comp.ID, matchday)
		if msg := checkTable(table, c.Rules); msg != "" {
			return fmt.Sprintf("matchday %d: %s", matchday, msg)
		}
	}
	return ""
}
