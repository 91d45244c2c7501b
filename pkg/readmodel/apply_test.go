package readmodel_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

func TestOlderEventIgnored(t *testing.T) {
	f := newFeed(t, t0)
	f.put(teams()...)
	f.put(league(10, 2017, gd))
	newer := played(1, 10, 1, alpha, bravo, "3-0")
	older := played(1, 10, 1, alpha, bravo, "0-3")
	f.m.Apply(event(t, 100, newer))
	f.m.Apply(event(t, 50, older))
	f.m.Apply(event(t, 100, older)) // the same sequence again: a redelivery
	renamed := &model.Team{ID: alpha, Name: "Alpha Renamed"}
	f.m.Apply(event(t, 101, renamed))
	f.m.Apply(event(t, 60, &model.Team{ID: alpha, Name: "Alpha Old"}))
	f.m.MarkReady()
	// Live, too.
	f.m.Apply(event(t, 70, played(1, 10, 1, alpha, bravo, "1-1")))

	s := f.snap()
	if fx, _ := s.Fixture(1); fx.Result.FullTime.Home != 3 {
		t.Errorf("fixture: got %+v, want the newer 3-0", fx.Result.FullTime)
	}
	if tm, _ := s.Team(alpha); tm.Name != "Alpha Renamed" {
		t.Errorf("team: got %q", tm.Name)
	}
	if st := f.m.Stats(); st.Stale != 4 {
		t.Errorf("stale events: got %d, want 4", st.Stale)
	}
}

func TestLiveEventUpdatesTableAndVersion(t *testing.T) {
	f := newFeed(t, t0)
	f.put(teams()...)
	f.put(league(10, 2017, gd), league(11, 2017, gd), played(1, 10, 1, alpha, bravo, "1-0"),
		timed(2, 10, 1, charlie, delta, kickoff(1)), played(3, 11, 1, alpha, bravo, "0-0"))
	if f.m.Ready() {
		t.Fatal("ready before MarkReady")
	}
	f.m.MarkReady()
	if !f.m.Ready() {
		t.Fatal("not ready after MarkReady")
	}
	before := f.snap()
	c10, _ := before.Competition(10)
	c11, _ := before.Competition(11)
	tbl, _ := before.Table(10, 1)

	result := played(2, 10, 1, charlie, delta, "4-0")
	f.put(result)
	after := f.snap()
	select {
	case <-before.Changed():
	default:
		t.Error("the old snapshot was not told of the change")
	}
	if after.Seq() != f.seq {
		t.Errorf("snapshot seq: got %d, want %d", after.Seq(), f.seq)
	}
	got, _ := after.Table(10, 1)
	if want := []string{"C 1 1 3", "A 2 2 3", "B 3 3 0", "D 4 4 0"}; !equalLines(rowLines(got), want) {
		t.Errorf("table after the result:\n got %q\nwant %q", rowLines(got), want)
	}
	if n10, _ := after.Competition(10); n10.Version == c10.Version || got.Version == tbl.Version {
		t.Errorf("competition version did not change: %d", n10.Version)
	}
	if n11, _ := after.Competition(11); n11.Version != c11.Version {
		t.Errorf("an untouched competition's version changed: %d → %d", c11.Version, n11.Version)
	}
	if after.CalendarVersion() == before.CalendarVersion() {
		t.Error("calendar version did not change")
	}
	if after.SeasonVersion(2017) == before.SeasonVersion(2017) {
		t.Error("season version did not change")
	}
	// The old snapshot still shows the old state.
	if old, _ := before.Table(10, 1); !equalLines(rowLines(old), rowLines(tbl)) {
		t.Error("an old snapshot changed")
	}

	// A team's new name shows in its competitions, whose versions move.
	c10, _ = after.Competition(10)
	t1, _ := after.Team(alpha)
	f.put(&model.Team{ID: alpha, Name: "Aardvark FC"})
	s := f.snap()
	if n10, _ := s.Competition(10); n10.Version == c10.Version {
		t.Error("renaming a team did not change its competition's version")
	}
	if nt, _ := s.Team(alpha); nt.Version == t1.Version || s.TeamsVersion() == after.TeamsVersion() {
		t.Error("renaming a team did not change the team versions")
	}
	if fx, _ := s.Fixture(1); fx.HomeTeamName != "Aardvark FC" {
		t.Errorf("fixture shows %q", fx.HomeTeamName)
	}
	// The new entity has no short name or crest: the table drops the old ones.
	if tb, _ := s.Table(10, 1); tb.Standings[0].Rows[1].TeamName != "Aardvark FC" || tb.Standings[0].Rows[1].ShortName != "" ||
		tb.Standings[0].Rows[1].CrestURL != "" {
		t.Errorf("table shows %+v", tb.Standings[0].Rows[1])
	}
}

func TestDecodeErrorsCountedAndSkipped(t *testing.T) {
	f := newFeed(t, t0)
	f.put(teams()...)
	f.put(league(10, 2017, gd))
	good := event(t, 100, played(1, 10, 1, alpha, bravo, "1-0"))
	bad := []func(ev *events.Event){
		func(ev *events.Event) { ev.Data = []byte("{not json") },
		func(ev *events.Event) { ev.Data = []byte(`{"v":99,"data":{}}`) },                   // a newer schema
		func(ev *events.Event) { ev.Key = []string{"10", "2"} },                             // subject and body disagree
		func(ev *events.Event) { ev.Key = []string{"10"} },                                  // a malformed subject
		func(ev *events.Event) { ev.Data = []byte(`{"v":1,"data":{"id":1,"matchday":0}}`) }, // invalid
	}
	for i, spoil := range bad {
		ev := good
		ev.Seq = uint64(50 + i)
		spoil(&ev)
		f.m.Apply(ev)
	}
	f.m.Apply(good)
	f.m.MarkReady()
	st := f.m.Stats()
	if st.DecodeErrors != uint64(len(bad)) || !strings.Contains(st.LastDecodeError, "football.fixture.10.1") {
		t.Errorf("decode errors: got %d (%q), want %d", st.DecodeErrors, st.LastDecodeError, len(bad))
	}
	if _, ok := f.snap().Fixture(1); !ok {
		t.Error("the good event after bad ones was not applied")
	}
	if st.LastSeq != 100 {
		t.Errorf("last seq: got %d", st.LastSeq)
	}
}

func TestFixtureMovesBetweenCompetitionsAndTeams(t *testing.T) {
	f := newFeed(t, t0)
	f.put(teams()...)
	f.put(league(10, 2017, gd), league(11, 2017, gd), played(1, 10, 1, alpha, bravo, "1-0"))
	f.m.MarkReady()
	moved := played(1, 11, 2, charlie, delta, "2-2")
	moved.Kickoff = t0.Add(48 * time.Hour)
	f.put(moved)
	s := f.snap()
	if fs, _ := s.CompetitionFixtures(10, emptyFilter); len(fs) != 0 {
		t.Errorf("old competition still lists %v", ids(fs))
	}
	if fs, _ := s.CompetitionFixtures(11, emptyFilter); len(fs) != 1 || fs[0].CompetitionID != 11 {
		t.Errorf("new competition lists %v", ids(fs))
	}
	if fs, _ := s.TeamFixtures(alpha, emptyFilter); len(fs) != 0 {
		t.Errorf("old team still lists %v", ids(fs))
	}
	if fs, _ := s.TeamFixtures(delta, emptyFilter); len(fs) != 1 {
		t.Errorf("new team lists %v", ids(fs))
	}
	if tb, _ := s.Table(10, 1); tb.Standings[0].Rows[0].Points != 0 {
		t.Errorf("old competition's table still counts the game: %q", rowLines(tb))
	}
	if h, _ := s.HeadToHead(1, 10, model.TierDonating); h.Count != 1 || h.Fixtures[0].HomeTeamID != charlie {
		t.Errorf("head-to-head: %+v", h)
	}
	if fs := s.Fixtures(timeFrame(t0, t0)); len(fs) != 0 {
		t.Errorf("old day still lists %v", ids(fs))
	}
	if fs := s.Fixtures(timeFrame(moved.Kickoff, moved.Kickoff)); len(fs) != 1 {
		t.Errorf("new day lists %v", ids(fs))
	}
}

// TestRenameInABatchWithNewFixtures: a team renamed in the live batch that
// also brings its first fixture of another competition shows its new name
// in the tables of both, although neither lists it among its teams: one
// it played in before the batch, one it plays in from the batch on.
func TestRenameInABatchWithNewFixtures(t *testing.T) {
	unlisted := func(id int) *model.Competition {
		c := league(id, 2017, gd)
		c.Teams = []model.CompetitionTeam{{TeamID: bravo}, {TeamID: charlie}, {TeamID: delta}, {TeamID: echo}}
		return c
	}
	f := newFeed(t, t0.Add(30*24*time.Hour))
	f.put(teams()...)
	f.put(unlisted(10), unlisted(11), played(1, 10, 1, alpha, bravo, "1-0"), played(2, 11, 1, bravo, charlie, "0-0"))
	f.m.MarkReady()
	for _, step := range []struct {
		name  string
		batch []any
	}{
		{"rename first", []any{&model.Team{ID: alpha, Name: "Aardvark FC"}, played(3, 11, 2, alpha, charlie, "2-0")}},
		{"fixture first", []any{played(4, 11, 3, charlie, alpha, "1-1"), &model.Team{ID: alpha, Name: "Albatross FC"}}},
	} {
		name, batch := step.name, step.batch
		evs := make([]events.Event, len(batch))
		for i, v := range batch {
			f.seq++
			evs[i] = event(t, f.seq, v)
		}
		f.m.ApplyBatch(evs...)
		s := f.snap()
		tm, _ := s.Team(alpha)
		for _, comp := range []int{10, 11} {
			c, _ := s.Competition(comp)
			tb, ok := s.Table(comp, c.CurrentMatchday)
			if !ok {
				t.Fatalf("%s: no table of %d", name, comp)
			}
			var names []string
			for _, r := range tb.Standings[0].Rows {
				names = append(names, r.TeamName)
			}
			if !slices.Contains(names, tm.Name) {
				t.Errorf("%s: table of %d holds %q, want %q in it", name, comp, names, tm.Name)
			}
		}
		if fx, _ := s.Fixture(1); fx.HomeTeamName != tm.Name {
			t.Errorf("%s: fixture 1 shows %q, want %q", name, fx.HomeTeamName, tm.Name)
		}
	}
}

// TestEveryKindIsKnown: an event of any kind the service writes is applied
// or deliberately left aside, never counted as rejected (the feed
// follower's feeds were, on every replica).
func TestEveryKindIsKnown(t *testing.T) {
	f := newFeed(t, t0)
	f.put(teams()...)
	f.put(league(10, 2017, gd))
	f.put(&model.Feed{Name: "pl", URL: "https://example.org/en.1.json", Format: "openfootball", EverySeconds: 1800,
		Created: t0}, &model.Person{ID: 9, Name: "Harry Kane"})
	f.m.MarkReady()
	if st := f.m.Stats(); st.DecodeErrors != 0 {
		t.Errorf("%d events rejected: %s", st.DecodeErrors, st.LastDecodeError)
	}
}
