package readmodel

import (
	"slices"
	"sort"
	"sync/atomic"
	"time"

	"github.com/footdata/footballd/pkg/model"
)

// Snapshot is one consistent state of the model: every answer it gives
// reflects the same events, whatever the writer does meanwhile. It is a
// small value; the methods return copies that callers may keep and change.
//
// Versions: each competition, team, squad, season list, the fixture
// calendar, the team list, clients and leagues carry a version that changes
// whenever anything their answers depend on changes, so that rendered
// responses can be cached under it. Versions are numbers of this process's
// publications: compare them for equality only, and never across replicas.
type Snapshot struct {
	w   *world
	now time.Time
	cfg *Config
	// learned is the model's clients read ahead of the writer
	// (Model.LearnClient), loaded only when a token is not in w.
	learned *atomic.Pointer[map[string]learnedClient]
}

// Seq is the stream sequence of the last event this snapshot reflects.
func (s Snapshot) Seq() uint64 { return s.w.seq }

// Changed is closed once a newer snapshot is published.
func (s Snapshot) Changed() <-chan struct{} { return s.w.next }

// Now is the clock's time when the snapshot was taken.
func (s Snapshot) Now() time.Time { return s.now }

// CurrentSeason is the latest year whose season switch date has passed.
func (s Snapshot) CurrentSeason() int {
	return currentSeason(s.now, s.cfg.SwitchMonth, s.cfg.SwitchDay)
}

// Competition is a competition with the figures derived from its fixtures.
type Competition struct {
	model.Competition
	// CurrentMatchday follows the specification's rule at the last
	// recomputation (every TickInterval and on every change).
	CurrentMatchday int
	// LastMatchday is the competition's last matchday: the larger of its
	// declared number of matchdays and its fixtures' highest, at least 1.
	LastMatchday int
	// DefaultMatchday is the league table's matchday when none is asked
	// for: the current matchday, or the last one for a former season.
	DefaultMatchday int
	NumberOfGames   int
	// LastUpdated is the stream time of the latest change to the
	// competition, its fixtures, adjustments or tie-break order.
	LastUpdated time.Time
	Version     uint64
	// FirstKickoff and LastKickoff are the kick-offs of its earliest and
	// latest fixtures (zero without fixtures): the v4 API's season dates.
	FirstKickoff, LastKickoff time.Time
}

func (s Snapshot) comp(id int) (*compSnap, bool) {
	if !fitsInt32(id) {
		return nil, false
	}
	c, ok := s.w.comps.get(int32(id))
	if !ok || c.comp == nil {
		return nil, false
	}
	return c, true
}

func (s Snapshot) competition(c *compSnap) Competition {
	v := Competition{
		Competition:     *c.comp,
		CurrentMatchday: c.current,
		LastMatchday:    c.last,
		DefaultMatchday: s.defaultMatchday(c),
		NumberOfGames:   len(c.fixtures),
		LastUpdated:     c.lastUpdated,
		Version:         c.version,
	}
	if n := len(c.fixtures); n > 0 {
		v.FirstKickoff, v.LastKickoff = c.fixtures[0].time(), c.fixtures[n-1].time()
	}
	v.Teams = slices.Clone(c.comp.Teams)
	v.Rules = c.comp.Rules.Clone()
	return v
}

// defaultMatchday is Competition.DefaultMatchday.
func (s Snapshot) defaultMatchday(c *compSnap) int {
	if c.comp.Year < s.CurrentSeason() {
		return c.last
	}
	return c.current
}

// CompetitionKey is what a cached answer about a competition needs to be
// found: whether it exists, who may see it, its kind, season and version.
// It copies nothing, unlike Competition, so a cache hit costs no
// allocation that grows with the competition.
type CompetitionKey struct {
	ID      int
	Type    model.CompetitionType
	Tier    model.Tier
	Year    int
	Version uint64
}

// CompetitionKey returns the key of one competition.
func (s Snapshot) CompetitionKey(id int) (CompetitionKey, bool) {
	c, ok := s.comp(id)
	if !ok {
		return CompetitionKey{}, false
	}
	return CompetitionKey{ID: c.comp.ID, Type: c.comp.Type, Tier: c.comp.Tier, Year: c.comp.Year, Version: c.version}, true
}

// Competition returns one competition.
func (s Snapshot) Competition(id int) (Competition, bool) {
	c, ok := s.comp(id)
	if !ok {
		return Competition{}, false
	}
	return s.competition(c), true
}

// Competitions returns the competitions of a season, by id.
func (s Snapshot) Competitions(season int) []Competition {
	se := s.w.seasons[season]
	if se == nil {
		return nil
	}
	list := make([]Competition, 0, len(se.ids))
	for _, id := range se.ids {
		if c, ok := s.comp(int(id)); ok {
			list = append(list, s.competition(c))
		}
	}
	return list
}

// LeagueSeasonIDs returns the ids of the competitions of one league, one
// a season, newest first: the seasons of a v4 competition. The slice is
// the snapshot's own, so that a cached v4 answer finds its season without
// allocating; the caller must not change it.
func (s Snapshot) LeagueSeasonIDs(code model.LeagueCode) []int32 { return s.w.byLeague[code] }

// LeagueSeasons returns the keys of the competitions of one league, one a
// season, newest first.
func (s Snapshot) LeagueSeasons(code model.LeagueCode) []CompetitionKey {
	ids := s.LeagueSeasonIDs(code)
	list := make([]CompetitionKey, 0, len(ids))
	for _, id := range ids {
		if k, ok := s.CompetitionKey(int(id)); ok {
			list = append(list, k)
		}
	}
	return list
}

// SeasonVersion is the version of Competitions(season).
func (s Snapshot) SeasonVersion(season int) uint64 {
	if se := s.w.seasons[season]; se != nil {
		return se.version
	}
	return 0
}

// Fixture is a fixture with its teams' names: each team's name, or its
// placeholder ("Winner Group A") while the team is not known.
type Fixture struct {
	model.Fixture
	HomeTeamName string
	AwayTeamName string
}

func (s Snapshot) fixture(f *fixture, sc *scores) Fixture {
	v := Fixture{Fixture: f.unpack(s.w.strs, sc)}
	v.HomeTeamName = s.teamName(f.home, v.HomePlaceholder)
	v.AwayTeamName = s.teamName(f.away, v.AwayPlaceholder)
	return v
}

func (s Snapshot) teamName(id int32, placeholder string) string {
	if t, ok := s.w.teams.get(id); ok && t.team != nil {
		return t.team.Name
	}
	return placeholder
}

// Fixture returns one fixture with its goals and venue; lists leave those
// out (Goals asks for a listed fixture's).
func (s Snapshot) Fixture(id int) (Fixture, bool) {
	if !fitsInt32(id) {
		return Fixture{}, false
	}
	f, ok := s.w.fixtures.get(int32(id))
	if !ok {
		return Fixture{}, false
	}
	v := s.fixture(f, new(scores))
	s.withExtras(&v)
	return v, true
}

// FixtureFilter narrows a list of fixtures. The zero value lets every
// fixture through.
type FixtureFilter struct {
	// From and To bound the UTC calendar day of the kick-off, both
	// inclusive; a zero time leaves that end open. Only the date counts.
	From, To time.Time
	// Matchday, if not 0, keeps that matchday only.
	Matchday int
	// Season, if not 0, keeps fixtures of competitions of that year only.
	Season int
	// Venue keeps, in a team's fixtures, those at home (model.Home) or
	// away (model.Away); "" keeps both.
	Venue model.Side
	// Leagues, if not empty, keeps fixtures of competitions of these
	// leagues only.
	Leagues []model.LeagueCode
}

// bounds returns the kick-off range [lo, hi) in Unix seconds.
func (f *FixtureFilter) bounds() (lo, hi int64) {
	lo, hi = -1<<63, 1<<63-1
	if !f.From.IsZero() {
		lo = int64(dayOf(f.From.Unix())) * secondsPerDay
	}
	if !f.To.IsZero() {
		hi = (int64(dayOf(f.To.Unix())) + 1) * secondsPerDay
	}
	return lo, hi
}

// filter returns the fixtures of list (in date order) that pass f, for
// team (0 outside a team's list). The date range is found by binary search,
// so the cost follows the answer.
func (s Snapshot) filter(list []*fixture, f FixtureFilter, team int32) []Fixture {
	lo, hi := f.bounds()
	i := sort.Search(len(list), func(i int) bool { return list[i].kickoff >= lo })
	j := sort.Search(len(list), func(i int) bool { return list[i].kickoff >= hi })
	var out []Fixture
	if f.Matchday == 0 && f.Season == 0 && f.Venue == "" && len(f.Leagues) == 0 {
		// Every fixture of the range is in the answer.
		out = make([]Fixture, 0, j-i)
	}
	var sc scores
	var comp int32
	var compOK, known bool
	for _, r := range list[i:j] {
		switch {
		case f.Matchday != 0 && int(r.matchday) != f.Matchday,
			f.Venue == model.Home && r.home != team,
			f.Venue == model.Away && r.away != team:
			continue
		}
		if f.Season != 0 || len(f.Leagues) > 0 {
			// Lists run in long stretches of one competition.
			if !known || r.comp != comp {
				comp, compOK, known = r.comp, s.compPasses(r.comp, f), true
			}
			if !compOK {
				continue
			}
		}
		out = append(out, s.fixture(r, &sc))
	}
	return out
}

func (s Snapshot) compPasses(id int32, f FixtureFilter) bool {
	c, ok := s.w.comps.get(id)
	if !ok || c.comp == nil {
		return false
	}
	if f.Season != 0 && c.comp.Year != f.Season {
		return false
	}
	return len(f.Leagues) == 0 || slices.Contains(f.Leagues, c.comp.League)
}

// CompetitionFixtures returns a competition's fixtures in date order.
func (s Snapshot) CompetitionFixtures(id int, f FixtureFilter) ([]Fixture, bool) {
	c, ok := s.comp(id)
	if !ok {
		return nil, false
	}
	list := c.fixtures
	if f.Matchday > 0 {
		if f.Matchday+1 >= len(c.mdStart) {
			return nil, true
		}
		list = c.byMatchday[c.mdStart[f.Matchday]:c.mdStart[f.Matchday+1]]
	}
	return s.filter(list, f, 0), true
}

// TeamFixtures returns a team's fixtures in date order, across competitions
// and seasons.
func (s Snapshot) TeamFixtures(id int, f FixtureFilter) ([]Fixture, bool) {
	t, ok := s.team(id)
	if !ok {
		return nil, false
	}
	return s.filter(t.fixtures, f, int32(id)), true
}

// Fixtures returns the fixtures of every competition between f.From and
// f.To (both required, else nothing), in date order.
func (s Snapshot) Fixtures(f FixtureFilter) []Fixture {
	if f.From.IsZero() || f.To.IsZero() {
		return nil
	}
	var out []Fixture
	for d := dayOf(f.From.Unix()); d <= dayOf(f.To.Unix()); d++ {
		if list, ok := s.w.days.get(d); ok {
			out = append(out, s.filter(list, f, 0)...)
		}
	}
	return out
}

// CalendarVersion is the version of every fixture list across
// competitions (Fixtures): it changes with any fixture, team or competition.
func (s Snapshot) CalendarVersion() uint64 { return s.w.calendarVersion }
