package readmodel

import (
	"slices"
	"sort"
	"time"

	"github.com/footdata/footballd/pkg/model"
)

// h2hDetailed is how many meetings a HeadToHead lists in detail.
const h2hDetailed = 10

// HeadToHead aggregates the last meetings of a fixture's two teams.
type HeadToHead struct {
	Count int
	// TimeFrameStart and TimeFrameEnd are the UTC dates (midnight) of the
	// oldest and the newest meeting counted; zero when there is none.
	TimeFrameStart, TimeFrameEnd time.Time
	// HomeTeamWins and AwayTeamWins count the wins of this fixture's home
	// and away team, wherever the meeting was played.
	HomeTeamWins, AwayTeamWins, Draws int
	// Goals is the goals of the meetings counted, extra time included and
	// shoot-outs not: v4's aggregate totalGoals.
	Goals int
	// The latest home win of this fixture's home team, its latest win
	// anywhere, and likewise for the away team, among the meetings counted.
	LastHomeWinHomeTeam, LastWinHomeTeam, LastAwayWinAwayTeam, LastWinAwayTeam *Fixture
	// Fixtures are the meetings counted, newest first, at most 10 (or
	// HeadToHeadFilter.Detailed).
	Fixtures []Fixture
	// Version changes with the meetings of the two teams.
	Version uint64
}

// FixtureKey is what a cached answer about a fixture needs to be found,
// besides its competition's key: the competition, and the version of the
// meetings of its two teams (HeadToHead's Version for any n, 0 while either
// team is unknown).
type FixtureKey struct {
	Competition int
	PairVersion uint64
}

// FixtureKey returns the key of fixture id without building the fixture or
// its aggregate: one look-up of the fixture and one of its pair. In a world
// of a million fixtures each look-up meets memory the kernel's network path
// has evicted since the last request, about 0.1 µs a look-up in a replica
// under load, so the fixture is not looked up once per figure.
func (s Snapshot) FixtureKey(id int) (FixtureKey, bool) {
	if !fitsInt32(id) {
		return FixtureKey{}, false
	}
	f, ok := s.w.fixtures.get(int32(id))
	if !ok {
		return FixtureKey{}, false
	}
	k := FixtureKey{Competition: int(f.comp)}
	if f.home == 0 || f.away == 0 {
		return k, true
	}
	if p, ok := s.w.pairs.get(pairKey(f.home, f.away)); ok {
		k.PairVersion = p.version
	}
	return k, true
}

// HeadToHead aggregates the last n finished meetings of the fixture's two
// teams that kicked off before or at the fixture, in any competition a
// caller of tier may see and any season: the fixture itself counts once it
// is finished, as in the historic service. Outcomes are Fixture.Outcome: an awarded result counts as
// awarded. The cost follows n, through the index of meetings by pair of
// teams. n <= 0, or a fixture whose teams are not both known, gives the
// empty aggregate.
func (s Snapshot) HeadToHead(fixtureID, n int, tier model.Tier) (HeadToHead, bool) {
	return s.HeadToHeadWhere(fixtureID, n, tier, HeadToHeadFilter{})
}

// HeadToHeadFilter narrows the meetings a HeadToHead counts, for v4's
// head2head filters; the zero filter counts every meeting, as v1 does.
type HeadToHeadFilter struct {
	// From and To bound the meetings' kick-offs to [From, To); a zero
	// bound is no bound.
	From, To time.Time
	// Leagues keeps the meetings in these leagues' competitions; nil
	// keeps all.
	Leagues []model.LeagueCode
	// Detailed is how many meetings Fixtures lists; 0 is h2hDetailed.
	Detailed int
	// Later counts the meetings after the fixture too (a return leg), as
	// v4's head2head does upstream; v1's counts those up to the fixture.
	Later bool
}

// narrows reports whether q keeps fewer meetings than the zero filter.
func (q *HeadToHeadFilter) narrows() bool {
	return !q.From.IsZero() || !q.To.IsZero() || q.Leagues != nil
}

// keeps reports whether q counts meeting m of competition c.
func (q *HeadToHeadFilter) keeps(m *fixture, c *compSnap) bool {
	return (q.From.IsZero() || m.kickoff >= q.From.Unix()) && (q.To.IsZero() || m.kickoff < q.To.Unix()) &&
		(q.Leagues == nil || slices.Contains(q.Leagues, c.comp.League))
}

// HeadToHeadWhere is HeadToHead of the meetings q keeps: the last n of
// them (up to the fixture unless q.Later), Fixtures listing q.Detailed.
func (s Snapshot) HeadToHeadWhere(fixtureID, n int, tier model.Tier, q HeadToHeadFilter) (HeadToHead, bool) {
	if !fitsInt32(fixtureID) {
		return HeadToHead{}, false
	}
	f, ok := s.w.fixtures.get(int32(fixtureID))
	if !ok {
		return HeadToHead{}, false
	}
	h := HeadToHead{Fixtures: []Fixture{}}
	if n <= 0 || f.home == 0 || f.away == 0 {
		return h, true
	}
	p, ok := s.w.pairs.get(pairKey(f.home, f.away))
	if !ok {
		return h, true
	}
	h.Version = p.version
	meetings := s.meetings(p, f, n, tier, &q)
	h.Count = len(meetings)
	if h.Count == 0 {
		return h, true
	}
	h.TimeFrameStart = dayStart(meetings[0])
	h.TimeFrameEnd = dayStart(meetings[len(meetings)-1])
	s.tally(&h, f, meetings, q.Detailed)
	return h, true
}

// meetings is the last n of the pair's meetings up to f's kick-off (any,
// with q.Later) that tier sees and q keeps, the oldest first, as the
// pair's list.
func (s Snapshot) meetings(p *pairSnap, f *fixture, n int, tier model.Tier, q *HeadToHeadFilter) []*fixture {
	end := len(p.fixtures)
	if !q.Later {
		end = sort.Search(end, func(i int) bool { return p.fixtures[i].kickoff > f.kickoff })
	}
	if tier == model.TierDonating && !q.narrows() {
		return p.fixtures[max(0, end-n):end]
	}
	var seen []*fixture
	for i := end - 1; i >= 0 && len(seen) < n; i-- {
		if c, ok := s.comp(int(p.fixtures[i].comp)); ok && tier.Allows(c.comp.Tier) && q.keeps(p.fixtures[i], c) {
			seen = append(seen, p.fixtures[i])
		}
	}
	slices.Reverse(seen)
	return seen
}

// tally counts meetings into h, the latest first: goals, results, and the
// first detailed of them (h2hDetailed when not positive) in full.
func (s Snapshot) tally(h *HeadToHead, f *fixture, meetings []*fixture, detailed int) {
	if detailed <= 0 {
		detailed = h2hDetailed
	}
	var sc scores
	view := func(m *fixture) *Fixture {
		v := s.fixture(m, &sc)
		return &v
	}
	for i := len(meetings) - 1; i >= 0; i-- {
		m := meetings[i]
		h.Goals += m.goalsInPlay()
		h.countResult(m, f, view)
		if len(h.Fixtures) < detailed {
			h.Fixtures = append(h.Fixtures, s.fixture(m, &sc))
		}
	}
}

// countResult counts meeting m as a draw or a win of one of f's teams, and
// keeps, for each, their last win and last win on f's side of the pitch;
// meetings come the latest first.
func (h *HeadToHead) countResult(m, f *fixture, view func(*fixture) *Fixture) {
	var winner int32
	switch side, _ := m.outcome(); side {
	case model.Home:
		winner = m.home
	case model.Away:
		winner = m.away
	default:
		h.Draws++
	}
	switch winner {
	case f.home:
		h.HomeTeamWins++
		if h.LastWinHomeTeam == nil {
			h.LastWinHomeTeam = view(m)
		}
		if m.home == f.home && h.LastHomeWinHomeTeam == nil {
			h.LastHomeWinHomeTeam = view(m)
		}
	case f.away:
		h.AwayTeamWins++
		if h.LastWinAwayTeam == nil {
			h.LastWinAwayTeam = view(m)
		}
		if m.away == f.away && h.LastAwayWinAwayTeam == nil {
			h.LastAwayWinAwayTeam = view(m)
		}
	}
}

func dayStart(f *fixture) time.Time {
	return time.Unix(int64(f.day())*secondsPerDay, 0).UTC()
}

// goalsInPlay is the goals of a meeting after extra time when it had one,
// else after full time; 0 when an awarded result has no score.
func (f *fixture) goalsInPlay() int {
	s := f.fullTime
	if f.extraTime.known() {
		s = f.extraTime
	}
	if !s.known() {
		return 0
	}
	return int(s[0]) + int(s[1])
}
