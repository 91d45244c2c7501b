package readmodel_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/readmodel"
)

func ids(fs []readmodel.Fixture) []int {
	out := make([]int, len(fs))
	for i, f := range fs {
		out[i] = f.ID
	}
	return out
}

func idOf(f *readmodel.Fixture) int {
	if f == nil {
		return 0
	}
	return f.ID
}

func date(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 15, 0, 0, 0, time.UTC) }

func meeting(id, comp, home, away int, score string, kick time.Time) *model.Fixture {
	f := played(id, comp, 1, home, away, score)
	f.Kickoff = kick
	return f
}

// pairVersion is the pair version of a fixture's key.
func pairVersion(s readmodel.Snapshot, id int) uint64 {
	k, _ := s.FixtureKey(id)
	return k.PairVersion
}

func TestHeadToHead(t *testing.T) {
	f := newFeed(t, date(2017, 9, 1))
	f.put(teams()...)
	cup := league(20, 2015)
	cup.Type, cup.League = model.TypeCup, "FAC"
	target := timed(100, 12, 1, bravo, alpha, date(2017, 1, 14))
	f.put(league(10, 2013, gd), league(11, 2014, gd), cup, league(12, 2016, gd),
		meeting(1, 10, alpha, bravo, "2-0", date(2014, 1, 11)),                      // A home win
		meeting(2, 11, bravo, alpha, "1-1", date(2014, 8, 16)),                      // draw
		meeting(3, 11, bravo, alpha, "2-1", date(2015, 1, 17)),                      // B home win
		meeting(4, 11, alpha, bravo, "0-1", date(2015, 8, 15)),                      // B away win
		meeting(5, 20, bravo, alpha, "0-3", date(2016, 1, 9)),                       // A away win, in the cup
		awarded(meeting(6, 12, alpha, bravo, "2-0", date(2016, 8, 13)), model.Away), // awarded to B
		meeting(7, 12, alpha, charlie, "5-0", date(2016, 9, 1)),                     // another pair
		timed(8, 12, 2, alpha, bravo, date(2016, 12, 1)),                            // not played
		target,
		meeting(9, 12, alpha, bravo, "1-0", date(2017, 3, 1)), // after the fixture
	)
	f.m.MarkReady()
	s := f.snap()

	type want struct {
		count, homeWins, awayWins, draws, goals                    int
		start, end                                                 time.Time
		lastHomeWinHome, lastWinHome, lastAwayWinAway, lastWinAway int
		fixtures                                                   []int
	}
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	tests := []struct {
		name    string
		fixture int
		n       int
		later   bool
		want    want
	}{
		{"every earlier meeting", 100, 10, false, want{6, 3, 2, 1, 13, day(2014, 1, 11), day(2016, 8, 13), 3, 6, 5, 5, []int{6, 5, 4, 3, 2, 1}}},
		{"the last two", 100, 2, false, want{2, 1, 1, 0, 5, day(2016, 1, 9), day(2016, 8, 13), 0, 6, 5, 5, []int{6, 5}}},
		{"a finished fixture counts itself", 4, 10, false, want{4, 1, 2, 1, 8, day(2014, 1, 11), day(2015, 8, 15), 1, 1, 4, 4, []int{4, 3, 2, 1}}},
		{"head2head=0", 100, 0, false, want{fixtures: []int{}}},
		{"the first meeting counts only itself", 1, 10, false, want{1, 1, 0, 0, 2, day(2014, 1, 11), day(2014, 1, 11), 1, 1, 0, 0, []int{1}}},
		{"the only meeting of a pair", 7, 10, false, want{1, 1, 0, 0, 5, day(2016, 9, 1), day(2016, 9, 1), 7, 7, 0, 0, []int{7}}},
		// v4's: a meeting after the fixture (a return leg) counts too.
		{"later meetings too", 100, 10, true, want{7, 3, 3, 1, 14, day(2014, 1, 11), day(2017, 3, 1), 3, 6, 5, 9, []int{9, 6, 5, 4, 3, 2, 1}}},
		{"later meetings, the last two", 100, 2, true, want{2, 1, 1, 0, 3, day(2016, 8, 13), day(2017, 3, 1), 0, 6, 0, 9, []int{9, 6}}},
		{"later meetings of the first", 1, 3, true, want{3, 2, 1, 0, 6, day(2016, 1, 9), day(2017, 3, 1), 9, 9, 6, 6, []int{9, 6, 5}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, ok := s.HeadToHeadWhere(tt.fixture, tt.n, model.TierDonating, readmodel.HeadToHeadFilter{Later: tt.later})
			if !ok {
				t.Fatal("fixture not found")
			}
			got := want{h.Count, h.HomeTeamWins, h.AwayTeamWins, h.Draws, h.Goals, h.TimeFrameStart, h.TimeFrameEnd,
				idOf(h.LastHomeWinHomeTeam), idOf(h.LastWinHomeTeam), idOf(h.LastAwayWinAwayTeam), idOf(h.LastWinAwayTeam), ids(h.Fixtures)}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
	if _, ok := s.HeadToHead(999, 10, model.TierDonating); ok {
		t.Error("unknown fixture found")
	}
	// The pair's version is the aggregate's; a meeting of another pair
	// moves that pair's version only.
	if h, _ := s.HeadToHead(100, 3, model.TierDonating); pairVersion(s, 100) != h.Version || h.Version == 0 {
		t.Errorf("pair version %d, the aggregate's %d", pairVersion(s, 100), h.Version)
	}
	if k, ok := s.FixtureKey(7); !ok || k.Competition != 12 || k.PairVersion == 0 {
		t.Errorf("fixture 7 of competition 12: key %+v, found %t", k, ok)
	}
	if k, ok := s.FixtureKey(999); ok || k != (readmodel.FixtureKey{}) {
		t.Errorf("unknown fixture: key %+v, found %t", k, ok)
	}
	f.put(meeting(10, 12, alpha, charlie, "1-1", date(2017, 2, 1)))
	if s2 := f.snap(); pairVersion(s2, 7) == pairVersion(s, 7) || pairVersion(s2, 100) != pairVersion(s, 100) {
		t.Errorf("after a meeting of another pair: versions %d→%d (that pair), %d→%d (this one)",
			pairVersion(s, 7), pairVersion(s2, 7), pairVersion(s, 100), pairVersion(s2, 100))
	}
	// Names come with the fixtures.
	h, _ := s.HeadToHead(100, 1, model.TierDonating)
	if h.Fixtures[0].HomeTeamName != "Alpha FC" || h.LastWinHomeTeam.AwayTeamName != "Bravo FC" {
		t.Errorf("names: %+v", h.Fixtures[0])
	}
}

func TestHeadToHeadListsTenOfMore(t *testing.T) {
	f := newFeed(t, date(2017, 9, 1))
	f.put(teams()...)
	f.put(league(10, 2000, gd))
	for i := 1; i <= 12; i++ {
		f.put(meeting(i, 10, alpha, bravo, "1-0", date(2000+i, 1, 1)))
	}
	f.m.MarkReady()
	h, _ := f.snap().HeadToHead(12, 100, model.TierDonating)
	if h.Count != 12 || len(h.Fixtures) != 10 || h.Fixtures[0].ID != 12 || h.Fixtures[9].ID != 3 {
		t.Errorf("got count %d, fixtures %v; want 12 and 12..3", h.Count, ids(h.Fixtures))
	}
	if h.HomeTeamWins != 12 || idOf(h.LastHomeWinHomeTeam) != 12 {
		t.Errorf("got %d home wins, last %d", h.HomeTeamWins, idOf(h.LastHomeWinHomeTeam))
	}
	// The goals are those of every meeting counted, not only those listed.
	if h.Goals != 12 {
		t.Errorf("got %d goals, want 12", h.Goals)
	}
}

// TestHeadToHeadGoals: a meeting's goals include extra time, not the
// shoot-out.
func TestHeadToHeadGoals(t *testing.T) {
	f := newFeed(t, date(2017, 9, 1))
	f.put(teams()...)
	f.put(league(10, 2016, gd))
	cup := meeting(1, 10, alpha, bravo, "1-1", date(2017, 1, 1))
	cup.Result.ExtraTime = &model.Score{Home: 2, Away: 2}
	cup.Result.Penalties = &model.Score{Home: 5, Away: 4}
	f.put(cup, meeting(2, 10, bravo, alpha, "0-1", date(2017, 2, 1)))
	f.m.MarkReady()
	if h, _ := f.snap().HeadToHead(2, 10, model.TierDonating); h.Count != 2 || h.Goals != 5 {
		t.Errorf("got %d meetings, %d goals; want 2 and 4+1", h.Count, h.Goals)
	}
}
