package importer_test

import (
	"testing"
	"time"

	"github.com/footdata/footballd/internal/importer"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// TestOpenLigaDBLiveSnapshot: the recorded 2. Bundesliga season taken 32
// minutes into matchday 27 has three matches in play whose results are
// placeholders (0:0) while their goals count: each is IN_PLAY with the
// score of its last goal, the finished ones FINISHED with their type-2
// result and their type-1 half time, the rest TIMED; every fixture's
// source is OpenLigaDB's match id; a goal entered live, with neither
// minute nor scorer, is kept as its side's, of no one; importing it again
// publishes nothing.
func TestOpenLigaDBLiveSnapshot(t *testing.T) {
	s := natstest.MustOpen(t, natstest.MustStart(t))
	file := natstest.SharedData(t, "..", "spec", "openligadb", "getmatchdata-bl2-2023.live-2024-03-30T1332.json")
	opts := importer.Options{Now: time.Date(2024, 3, 30, 12, 33, 0, 0, time.UTC)}
	sum := natstest.Import(t, s, "openligadb", opts, file)
	if sum.Fixtures.Rejected != 0 || sum.Fixtures.Created != 306 {
		t.Fatalf("fixtures %+v, want 306 created and none rejected", sum.Fixtures)
	}
	byID := map[string]model.Fixture{}
	count := map[model.Status]int{}
	for _, f := range natstest.All[model.Fixture](t, s, events.KindFixture) {
		byID[f.Source] = f
		count[f.Status]++
	}
	for src, want := range map[string]string{"openligadb:67174": "1-0", "openligadb:67175": "1-0", "openligadb:67178": "1-0"} {
		f := byID[src]
		if f.Status != model.InPlay || f.Result.FullTime == nil || f.Result.FullTime.String() != want || f.Result.HalfTime != nil {
			t.Errorf("%s: %s %v (half time %v), want IN_PLAY %s with no half time", src, f.Status, f.Result.FullTime, f.Result.HalfTime, want)
		}
	}
	if g := byID["openligadb:67174"].Goals; len(g) != 1 || !g[0].Anonymous() || g[0].Side != model.Home || g[0].Minute != 0 {
		t.Errorf("goals of 67174: %+v, want one of the home side with no minute and no scorer", g)
	}
	if count[model.InPlay] != 3 || count[model.Finished]+count[model.InPlay]+count[model.Timed] != 306 {
		t.Errorf("statuses %v, want 3 IN_PLAY and the rest FINISHED or TIMED", count)
	}
	// A half time the goals' minutes contradict (a goal in first-half
	// stoppage time written as 47') is left out by the writer.
	halves := 0
	for _, f := range byID {
		if f.Matchday == 0 {
			t.Fatalf("%s: no matchday: %+v", f.Source, f)
		}
		if f.Status == model.Finished && f.Result.HalfTime != nil {
			halves++
		}
	}
	if halves < count[model.Finished]*9/10 {
		t.Errorf("%d of %d finished matches have their half time, want nearly all", halves, count[model.Finished])
	}
	t.Logf("%d of %d finished matches have their half time", halves, count[model.Finished])
	if again := natstest.Import(t, s, "openligadb", opts, file); again.Changes() != 0 {
		t.Errorf("the same answer again changed %d entities, want none", again.Changes())
	}
}
