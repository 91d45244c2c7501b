package readmodel

import (
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/push"
)

// world is one published state of the whole model. Nothing reachable from
// it is ever written again: the writer builds the next world beside it,
// sharing every part that did not change, and swaps the pointer.
type world struct {
	seq      uint64
	fixtures *shardTable[int32, *fixture]
	comps    *shardTable[int32, *compSnap]
	teams    *shardTable[int32, *teamSnap]
	squads   *shardTable[int32, *squadSnap]
	days     *shardTable[int32, []*fixture]
	pairs    *shardTable[uint64, *pairSnap]
	// Goals, venues and persons (goals.go).
	extras  *shardTable[int32, *fixtureExtra]
	persons *shardTable[int32, *personSnap]
	players *shardTable[int32, int32]   // squad player → team
	scored  *shardTable[int32, []int32] // person → fixtures he scored in, by id
	strs    []string
	seasons map[int]*season
	// byLeague holds each league's competitions, newest season first: a
	// v4 request names a league, and finds its seasons without going
	// through every competition.
	byLeague map[model.LeagueCode][]int32
	clients  map[string]*model.Client // by token hash; revoked ones left out
	// clientNames holds the same clients by name.
	clientNames map[string]*model.Client
	webhooks    []model.Webhook // by name, removed ones included
	// registered holds, by webhook name, the stream sequence of the
	// message that made its registration (a webhook added again under its
	// name is a new one).
	registered map[string]uint64
	leagues    []model.League // by code
	search     *searchIndex

	calendarVersion, teamsVersion, clientsVersion, leaguesVersion, personsVersion uint64
	// currentVersion changes when any team's current competition does.
	currentVersion uint64

	// next is closed when a newer world replaces this one.
	next chan struct{}
}

// compSnap is the published state of one competition with everything
// derived from it.
type compSnap struct {
	comp        *model.Competition // nil while only its fixtures are known
	version     uint64
	lastUpdated time.Time
	fixtures    []*fixture // date order
	byMatchday  []*fixture // matchday order, then date order
	// mdStart[md]:mdStart[md+1] is matchday md in byMatchday.
	mdStart []int32
	last    int // last matchday: at least 1
	current int // current matchday
	tables  []*mdTable
	// tableTeams are the teams of the tables, for reusing them.
	tableTeams []teamGroup
	// tableNames is what the tables' rows show of their teams, by team
	// id, resolved when the tables are built (a change to a team rebuilds
	// its competitions' tables).
	tableNames *tableNames
	// scorers are the competition's goals by scorer, in no order.
	scorers []scorerTally
}

// teamSnap is the published state of one team.
type teamSnap struct {
	team     *model.Team // nil while only fixtures or lists name the team
	version  uint64
	fixtures []*fixture // date order, every competition and season
	// latest is the latest competition by season that a caller of each
	// tier may see (model.Tier.Rank), 0 if none.
	latest [3]int32
}

type squadSnap struct {
	squad   *model.Squad
	seq     uint64
	version uint64
	at      time.Time // the event's time: its players' lastUpdated
}

// pairSnap holds the finished meetings of two teams, for head-to-head.
type pairSnap struct {
	fixtures []*fixture // date order
	version  uint64
}

// season lists the competitions of one year.
type season struct {
	ids     []int32
	version uint64
}

// pairKey names two teams whichever is at home.
func pairKey(a, b int32) uint64 {
	if a > b {
		a, b = b, a
	}
	return uint64(uint32(a))<<32 | uint64(uint32(b))
}

// writer is the state only the writer side touches, under Model.mu.
type writer struct {
	ready bool
	// derive is whether live messages give push events (Config.Events).
	derive bool
	gen    uint64 // generation of the last publication
	seq    uint64 // last stream sequence applied

	fixtures cowMap[int32, *fixture]
	comps    cowMap[int32, *compSnap]
	teams    cowMap[int32, *teamSnap]
	squads   cowMap[int32, *squadSnap]
	days     cowMap[int32, []*fixture]
	pairs    cowMap[uint64, *pairSnap]
	extras   cowMap[int32, *fixtureExtra]
	persons  cowMap[int32, *personSnap]
	players  cowMap[int32, int32]
	scored   cowMap[int32, []int32]
	strs     interner

	compState  map[int32]*compState
	teamEnt    map[int32]held[model.Team]
	clientEnt  map[string]held[model.Client]
	webhookEnt map[string]held[model.Webhook]
	// registered is world.registered as it is being built.
	registered map[string]uint64
	leagueEnt  map[model.LeagueCode]held[model.League]
	personEnt  map[int32]held[model.Person]
	listedIn   map[int32][]int32 // team → competitions listing it
	byYear     map[int][]int32   // season → competitions

	// The last published values of the small parts rebuilt whole.
	prev *world
	// pushed are the push events of the last publication.
	pushed []push.Event

	b batch
}

func newWriter() *writer {
	return &writer{
		fixtures:   newCowMap[int32, *fixture](10, hashFixtureID),
		comps:      newCowMap[int32, *compSnap](8, hashInt32),
		teams:      newCowMap[int32, *teamSnap](8, hashInt32),
		squads:     newCowMap[int32, *squadSnap](6, hashInt32),
		days:       newCowMap[int32, []*fixture](8, hashInt32),
		pairs:      newCowMap[uint64, *pairSnap](10, hashUint64),
		extras:     newCowMap[int32, *fixtureExtra](6, hashFixtureID),
		persons:    newCowMap[int32, *personSnap](6, hashInt32),
		players:    newCowMap[int32, int32](6, hashInt32),
		scored:     newCowMap[int32, []int32](6, hashInt32),
		strs:       newInterner(),
		compState:  map[int32]*compState{},
		teamEnt:    map[int32]held[model.Team]{},
		clientEnt:  map[string]held[model.Client]{},
		webhookEnt: map[string]held[model.Webhook]{},
		registered: map[string]uint64{},
		leagueEnt:  map[model.LeagueCode]held[model.League]{},
		personEnt:  map[int32]held[model.Person]{},
		listedIn:   map[int32][]int32{},
		byYear:     map[int][]int32{},
		b:          newBatch(),
	}
}

// delta is a batch's change to one fixture list.
type delta struct{ rem, add []*fixture }

// deltas sorts a batch's fixture changes by the lists they touch.
type deltas struct {
	comps deltaIndex[int32]
	teams deltaIndex[int32]
	days  deltaIndex[int32]
	pairs deltaIndex[uint64]
}

// deltaIndex is the deltas of one kind of list. Consecutive changes mostly
// touch the same competition and day (the stream comes in that order), so
// the last delta is kept at hand.
type deltaIndex[K comparable] struct {
	m     map[K]*delta
	lastK K
	last  *delta
}

func (x *deltaIndex[K]) note(k K, f *fixture, add bool) {
	d := x.last
	if d == nil || k != x.lastK {
		d = x.m[k]
		if d == nil {
			d = &delta{}
			x.m[k] = d
		}
		x.lastK, x.last = k, d
	}
	if add {
		d.add = append(d.add, f)
	} else {
		d.rem = append(d.rem, f)
	}
}

func (w *writer) collect() deltas {
	d := deltas{comps: deltaIndex[int32]{m: map[int32]*delta{}}, teams: deltaIndex[int32]{m: map[int32]*delta{}},
		days: deltaIndex[int32]{m: map[int32]*delta{}}, pairs: deltaIndex[uint64]{m: map[uint64]*delta{}}}
	// The indexes are filled apart, so that the initial replay's million
	// changes are sorted on two cores: competitions and teams (two notes
	// a fixture) on one, days and pairs (a look-up per finished fixture
	// in a map of tens of thousands: each pair's fixtures are far apart
	// in the stream) on the other. At 1M the halves were 110 ms
	// (competitions, days, teams) against 53 (pairs) with days on the
	// first.
	both(len(w.b.added)+len(w.b.fixtures) >= parallelMin, func() {
		w.changes(func(f *fixture, add bool) {
			d.comps.note(f.comp, f, add)
			if f.home != 0 {
				d.teams.note(f.home, f, add)
			}
			if f.away != 0 {
				d.teams.note(f.away, f, add)
			}
		})
	}, func() {
		w.changes(func(f *fixture, add bool) {
			d.days.note(f.day(), f, add)
			if f.finished() && f.home != 0 && f.away != 0 {
				d.pairs.note(pairKey(f.home, f.away), f, add)
			}
		})
	})
	return d
}

// changes calls note for every fixture change of the batch: each record
// readers lose and each record they gain.
func (w *writer) changes(note func(f *fixture, add bool)) {
	for _, ch := range w.b.fixtures {
		note(ch.orig, false)
		note(ch.cur, true)
	}
	for _, f := range w.b.added {
		// Only a record replaced within the batch is no longer current;
		// without any, the lookup is skipped (a million of them at the
		// end of the replay).
		if w.b.replaced == 0 {
			note(f, true)
		} else if cur, _ := w.fixtures.get(f.id); cur == f {
			note(f, true)
		}
	}
}

// merge applies d to a list sorted by order and returns a new list; old is
// not changed (readers may hold it).
func merge(old []*fixture, d *delta, order func(a, b *fixture) int) []*fixture {
	if d == nil {
		return old
	}
	if len(d.rem)+len(d.add) <= 4 {
		// A live edit: find the places by binary search and move the
		// rest with memmove.
		out := slices.Clone(old)
		for _, f := range d.rem {
			if i, found := slices.BinarySearchFunc(out, f, order); found && out[i] == f {
				out = slices.Delete(out, i, i+1)
			}
		}
		for _, f := range d.add {
			i, _ := slices.BinarySearchFunc(out, f, order)
			out = slices.Insert(out, i, f)
		}
		return out
	}
	sortRuns(d.add, order)
	gone := make(map[*fixture]bool, len(d.rem))
	for _, f := range d.rem {
		gone[f] = true
	}
	out := make([]*fixture, 0, len(old)+len(d.add)-len(d.rem))
	i := 0
	for _, f := range old {
		if gone[f] {
			continue
		}
		for i < len(d.add) && order(d.add[i], f) < 0 {
			out = append(out, d.add[i])
			i++
		}
		out = append(out, f)
	}
	return append(out, d.add[i:]...)
}

// sortRuns sorts s by order. The replay's fixtures mostly come in order
// already, or in a few ordered runs: the stream holds each competition's
// fixtures in date order, and a day's or a team's list interleaves a few
// competitions. Finding the runs is one comparison a fixture; merging k of
// them costs log2(k) passes, where a general sort costs several times
// that. Many short runs go to the general sort.
func sortRuns(s []*fixture, order func(a, b *fixture) int) {
	starts := []int{0}
	for i := 1; i < len(s); i++ {
		if order(s[i-1], s[i]) > 0 {
			if len(starts) > len(s)/8 {
				slices.SortFunc(s, order)
				return
			}
			starts = append(starts, i)
		}
	}
	if len(starts) == 1 {
		return
	}
	src, dst := s, make([]*fixture, len(s))
	end := func(i int) int {
		if i < len(starts) {
			return starts[i]
		}
		return len(s)
	}
	for len(starts) > 1 {
		next := starts[:0]
		for i := 0; i < len(starts); i += 2 {
			lo, mid, hi := starts[i], end(i+1), end(i+2)
			a, b, out := src[lo:mid], src[mid:hi], dst[lo:lo]
			for len(a) > 0 && len(b) > 0 {
				if order(b[0], a[0]) < 0 {
					out, b = append(out, b[0]), b[1:]
				} else {
					out, a = append(out, a[0]), a[1:]
				}
			}
			out = append(out, a...)
			_ = append(out, b...)
			next = append(next, lo)
		}
		starts = next
		src, dst = dst, src
	}
	if &src[0] != &s[0] {
		copy(s, src)
	}
}

// firstMatchday is the earliest matchday a delta touches.
func (d *delta) firstMatchday() int {
	md := 1 << 30
	for _, f := range d.rem {
		md = min(md, int(f.matchday))
	}
	for _, f := range d.add {
		md = min(md, int(f.matchday))
	}
	return md
}

// publish builds the next world from the batch. Derived data is rebuilt
// only for what the batch touched: the competitions, teams, days and pairs
// of its fixtures, and whatever depends on its other entities.
func (w *writer) publish(now time.Time) *world {
	w.gen++
	g := w.gen
	d := w.collect()
	w.dirtyRenamed()
	w.publishDays(d.days.m)
	w.publishPairs(d.pairs.m, g)
	currentMoved := w.publishTeams(d.teams.m, g)
	for c, dl := range d.comps.m {
		w.b.dirtyComp(c, dl.firstMatchday())
	}
	before := w.liveBefore()
	w.publishComps(d.comps.m, g, now)
	w.deriveEvents(before)
	nw := w.nextWorld()
	w.bumpVersions(nw, g, currentMoved)
	w.prev = nw
	w.b = newBatch()
	return nw
}

// dirtyRenamed marks the competitions of the batch's renamed teams. A
// team's name, short name and crest show in its competitions' tables and
// fixture lists, and its name orders ties: its competitions are rebuilt
// from the first matchday. Its fixtures as last published name them; the
// batch's own fixtures are in competitions rebuilt anyway (d.comps), whose
// earlier tables cannot hold the team unless it listed or played there
// before. The initial replay, which renames every team, has no list to
// read.
func (w *writer) dirtyRenamed() {
	b := &w.b
	for t := range b.renamed {
		for _, c := range w.listedIn[t] {
			b.dirtyComp(c, 1)
		}
		if ts, ok := w.teams.get(t); ok {
			// A team's fixtures come in runs of one competition: one
			// look-up a run, not one a fixture.
			for i, f := range ts.fixtures {
				if i == 0 || f.comp != ts.fixtures[i-1].comp {
					b.dirtyComp(f.comp, 1)
				}
			}
		}
	}
}

// publishDays merges the batch's changes into the days' fixture lists.
func (w *writer) publishDays(changed map[int32]*delta) {
	days := slices.Collect(maps.Keys(changed))
	dayLists := make([][]*fixture, len(days))
	forEach(len(days), func(i int) {
		old, _ := w.days.get(days[i])
		dayLists[i] = merge(old, changed[days[i]], byDate)
	})
	for i, day := range days {
		if list := dayLists[i]; len(list) > 0 {
			w.days.set(day, list)
		} else {
			w.days.del(day)
		}
	}
}

// publishPairs merges the batch's changes into the pairs' meetings.
func (w *writer) publishPairs(changed map[uint64]*delta, g uint64) {
	pairs := slices.Collect(maps.Keys(changed))
	pairLists := make([][]*fixture, len(pairs))
	forEach(len(pairs), func(i int) {
		var old []*fixture
		if p, ok := w.pairs.get(pairs[i]); ok {
			old = p.fixtures
		}
		pairLists[i] = merge(old, changed[pairs[i]], byDate)
	})
	for i, k := range pairs {
		if list := pairLists[i]; len(list) > 0 {
			w.pairs.set(k, &pairSnap{fixtures: list, version: g})
		} else {
			w.pairs.del(k)
		}
	}
}

// publishTeams rebuilds the teams the batch touched, and reports whether a
// team's current competition moved.
func (w *writer) publishTeams(changed map[int32]*delta, g uint64) bool {
	for t := range changed {
		w.b.teams[t] = true
	}
	teams := slices.Collect(maps.Keys(w.b.teams))
	teamSnaps := make([]*teamSnap, len(teams))
	forEach(len(teams), func(i int) {
		teamSnaps[i] = w.rebuildTeam(teams[i], changed[teams[i]], g)
	})
	currentMoved := false
	for i, id := range teams {
		prev, ok := w.teams.get(id)
		if t := teamSnaps[i]; t != nil {
			w.teams.set(id, t)
			currentMoved = currentMoved || t.latest != prev.latestOrNone()
		} else if ok {
			w.teams.del(id)
			currentMoved = true
		}
	}
	return currentMoved
}

// liveBefore is, for each competition a live message touched, its snapshot
// before the rebuild; nil without live messages.
func (w *writer) liveBefore() map[int32]*compSnap {
	if len(w.b.live) == 0 {
		return nil
	}
	before := make(map[int32]*compSnap, len(w.b.live))
	for c := range w.b.live {
		before[c], _ = w.comps.get(c)
	}
	return before
}

// publishComps rebuilds the competitions the batch marked, and notes the
// seasons of those still served.
func (w *writer) publishComps(changed map[int32]*delta, g uint64, now time.Time) {
	b := &w.b
	comps := slices.Collect(maps.Keys(b.comps))
	compSnaps := make([]*compSnap, len(comps))
	forEach(len(comps), func(i int) {
		c := comps[i]
		compSnaps[i] = w.rebuildComp(c, changed[c], b.comps[c], g, now.Unix())
	})
	for i, c := range comps {
		s := compSnaps[i]
		if s == nil {
			w.comps.del(c)
			continue
		}
		w.comps.set(c, s)
		if s.comp != nil {
			b.years[s.comp.Year] = true
		}
	}
}

// deriveEvents adds the push events of the live competitions, rebuilt from
// before, and hands the batch's events, sorted, to the pusher.
func (w *writer) deriveEvents(before map[int32]*compSnap) {
	b := &w.b
	for c, msg := range b.live {
		after, _ := w.comps.get(c)
		if e, ok := competitionEvent(c, msg, before[c], after); ok {
			b.events = append(b.events, e)
		}
	}
	sortEvents(b.events)
	w.pushed = b.events
}

// nextWorld is the world of the writer's tables, with the parts rebuilt
// whole carried from the last world, or built for the first.
func (w *writer) nextWorld() *world {
	nw := &world{
		seq:      w.seq,
		fixtures: w.fixtures.publish(),
		comps:    w.comps.publish(),
		teams:    w.teams.publish(),
		squads:   w.squads.publish(),
		days:     w.days.publish(),
		pairs:    w.pairs.publish(),
		extras:   w.extras.publish(),
		persons:  w.persons.publish(),
		players:  w.players.publish(),
		scored:   w.scored.publish(),
		strs:     w.strs.list,
		next:     make(chan struct{}),
	}
	if p := w.prev; p != nil {
		nw.seasons, nw.clients, nw.leagues, nw.search = p.seasons, p.clients, p.leagues, p.search
		nw.byLeague = p.byLeague
		nw.clientNames, nw.webhooks, nw.registered = p.clientNames, p.webhooks, p.registered
		nw.calendarVersion, nw.teamsVersion, nw.clientsVersion, nw.leaguesVersion = p.calendarVersion, p.teamsVersion, p.clientsVersion, p.leaguesVersion
		nw.currentVersion, nw.personsVersion = p.currentVersion, p.personsVersion
	} else {
		nw.seasons, nw.clients, nw.clientNames, nw.search = map[int]*season{}, map[string]*model.Client{}, map[string]*model.Client{}, &searchIndex{}
		nw.leagues = w.leagueList()
	}
	return nw
}

// bumpVersions rebuilds in nw the parts the batch changed and gives them
// version g.
func (w *writer) bumpVersions(nw *world, g uint64, currentMoved bool) {
	b := &w.b
	if b.seasonsMoved || nw.byLeague == nil {
		nw.byLeague = w.leagueIndex()
	}
	if len(b.years) > 0 {
		nw.seasons = maps.Clone(nw.seasons)
		for y := range b.years {
			if ids := w.byYear[y]; len(ids) > 0 {
				nw.seasons[y] = &season{ids: slices.Clone(ids), version: g}
			} else {
				delete(nw.seasons, y)
			}
		}
	}
	if len(b.fixtures) > 0 || len(b.added) > 0 || b.calendar {
		nw.calendarVersion = g
	}
	if b.teamsChanged {
		nw.teamsVersion = g
		nw.search = w.buildSearch()
	}
	if currentMoved {
		nw.currentVersion = g
	}
	if b.personsChanged {
		nw.personsVersion = g
	}
	if b.clientsChanged {
		nw.clientsVersion = g
		nw.clients, nw.clientNames = w.clientsByHash()
	}
	if b.webhooksChanged {
		nw.webhooks, nw.registered = w.webhookList(), maps.Clone(w.registered)
	}
	if b.leaguesChanged {
		nw.leaguesVersion = g
		nw.leagues = w.leagueList()
	}
}

// rebuildTeam rebuilds a team's fixtures and current competitions; nil
// means the team is no longer served. It only reads the writer's state, so
// that teams are rebuilt in parallel (forEach).
func (w *writer) rebuildTeam(id int32, d *delta, g uint64) *teamSnap {
	var fixtures []*fixture
	if prev, ok := w.teams.get(id); ok {
		fixtures = prev.fixtures
	}
	fixtures = merge(fixtures, d, byDate)
	ent := w.teamEnt[id].v
	if ent == nil && len(fixtures) == 0 && len(w.listedIn[id]) == 0 {
		return nil
	}
	return &teamSnap{team: ent, version: g, fixtures: fixtures, latest: w.latestComp(id, fixtures)}
}

// latestOrNone is the team's current competitions, none for a team not
// served.
func (t *teamSnap) latestOrNone() [3]int32 {
	if t == nil {
		return [3]int32{}
	}
	return t.latest
}

// latestComp picks the team's competition of the latest season, for each
// tier among those it may see; in one season a league comes before a cup
// or tournament, then the lower id.
func (w *writer) latestComp(team int32, fixtures []*fixture) [3]int32 {
	var best [3]*model.Competition
	consider := func(id int32) {
		st := w.compState[id]
		if st == nil || st.comp == nil {
			return
		}
		for r := range best {
			if model.Tier(st.comp.Tier).Rank() <= r && (best[r] == nil || later(st.comp, best[r])) {
				best[r] = st.comp
			}
		}
	}
	for _, c := range w.listedIn[team] {
		consider(c)
	}
	var seen int32
	for _, f := range fixtures {
		if f.comp != seen {
			seen = f.comp
			consider(seen)
		}
	}
	var out [3]int32
	for r, c := range best {
		if c != nil {
			out[r] = int32(c.ID)
		}
	}
	return out
}

// later reports whether c beats than as a team's latest competition.
func later(c, than *model.Competition) bool {
	if c.Year != than.Year {
		return c.Year > than.Year
	}
	if league := c.Type == model.TypeLeague; league != (than.Type == model.TypeLeague) {
		return league
	}
	return c.ID < than.ID
}

// rebuildComp rebuilds a competition's snapshot after a change from
// matchday from on; nil means the competition is no longer served. It only
// reads the writer's state, so that competitions are rebuilt in parallel
// (forEach).
func (w *writer) rebuildComp(id int32, d *delta, from int, g uint64, now int64) *compSnap {
	st := w.compState[id]
	prev, ok := w.comps.get(id)
	if !ok {
		prev = &compSnap{}
	}
	s := &compSnap{version: g, fixtures: merge(prev.fixtures, d, byDate)}
	if (st == nil || st.comp == nil) && len(s.fixtures) == 0 {
		return nil
	}
	s.byMatchday, s.mdStart = matchdayIndex(s.fixtures)
	s.last = max(len(s.mdStart)-2, 1)
	if st != nil {
		s.comp, s.lastUpdated = st.comp, st.lastUpdated
	}
	if s.comp != nil {
		s.last = max(s.last, s.comp.NumberOfMatchdays)
		in := w.tableInput(st, s)
		in.reuse, in.from = prev.tables, from
		t := buildTables(in, prev.tableTeams)
		s.tables, s.tableTeams = t.byMatchday, t.teams
		s.tableNames = w.tableNames(t.teams)
	}
	if st != nil && st.goalFixtures > 0 {
		s.scorers = w.tallyScorers(s.fixtures)
	}
	s.current = currentMatchday(s.fixtures, now, s.last)
	return s
}

// matchdayIndex returns fixtures, which are in date order, in matchday
// order (byMatchday) and where each matchday starts: start[md]:start[md+1]
// is matchday md, and start has an entry past the last matchday. A stable
// counting sort by matchday keeps date order within each matchday: two
// passes instead of a comparison sort, which was half the sorting of the
// replay's final build at 1M.
func matchdayIndex(fixtures []*fixture) (out []*fixture, start []int32) {
	// count[md+1] counts matchday md, and then count[md] is where it
	// starts.
	var count [math.MaxUint8 + 2]int32
	last := 0
	for _, f := range fixtures {
		count[int(f.matchday)+1]++
		last = max(last, int(f.matchday))
	}
	for i := 1; i < len(count); i++ {
		count[i] += count[i-1]
	}
	start = make([]int32, last+2)
	copy(start, count[:])
	out = make([]*fixture, len(fixtures))
	for _, f := range fixtures {
		out[count[f.matchday]] = f
		count[f.matchday]++
	}
	return out, start
}

func (w *writer) tableInput(st *compState, s *compSnap) *tableInput {
	in := &tableInput{
		comp: st.comp,
		last: s.last,
		name: w.teamName,
		strs: w.strs.list,
	}
	for _, f := range s.byMatchday {
		if !f.playoff && f.home != 0 && f.away != 0 {
			in.regular = append(in.regular, f)
		}
	}
	for _, a := range st.adjust {
		if a.v.Points != 0 {
			if in.adjust == nil {
				in.adjust = map[int32]int32{}
			}
			in.adjust[int32(a.v.TeamID)] += int32(a.v.Points)
		}
	}
	if o := st.order.v; o != nil {
		for _, t := range o.TeamIDs {
			in.order = append(in.order, int32(t))
		}
	}
	if d := st.data.v; d != nil {
		in.disc = make(map[int32]int32, len(d.Disciplinary))
		for team, points := range d.Disciplinary {
			in.disc[int32(team)] = int32(points)
		}
		in.coef = make(map[int32]int32, len(d.Coefficients))
		for place, team := range d.Coefficients {
			in.coef[int32(team)] = int32(place)
		}
	}
	return in
}

// tableNames resolves the names and crests of a competition's table teams,
// tg in team order. Reading them from the published teams for every row
// of every rendering was a third of the cost of encoding a table on a 1M
// world, where the teams' map is seldom in the processor's cache.
func (w *writer) tableNames(tg []teamGroup) *tableNames {
	if len(tg) == 0 {
		return nil
	}
	names := &tableNames{ids: make([]int32, 0, len(tg)), names: make([]tableName, 0, len(tg))}
	for i, g := range tg {
		if i > 0 && g.team == tg[i-1].team {
			continue
		}
		var n tableName
		if t := w.teamEnt[g.team].v; t != nil {
			n.name = t.Name
			if t.ShortName != nil {
				n.short = *t.ShortName
			}
			if t.CrestURL != nil {
				n.crest = *t.CrestURL
			}
		}
		names.ids = append(names.ids, g.team)
		names.names = append(names.names, n)
	}
	return names
}

func (w *writer) teamName(id int32) string {
	if t := w.teamEnt[id].v; t != nil {
		return t.Name
	}
	return ""
}

// tick moves current matchdays to now; it reports whether any moved.
func (w *writer) tick(now int64) bool {
	moved := false
	for id, st := range w.compState {
		s, ok := w.comps.get(id)
		if !ok || st.comp == nil {
			continue
		}
		if cur := currentMatchday(s.fixtures, now, s.last); cur != s.current {
			next := *s
			next.current, next.version = cur, w.gen+1
			w.comps.set(id, &next)
			w.b.years[st.comp.Year] = true
			w.b.touch()
			moved = true
		}
	}
	return moved
}

// clientsByHash returns the clients that are not revoked by token hash and
// by name.
func (w *writer) clientsByHash() (byHash, byName map[string]*model.Client) {
	byHash = make(map[string]*model.Client, len(w.clientEnt))
	byName = make(map[string]*model.Client, len(w.clientEnt))
	for _, h := range w.clientEnt {
		if !h.v.Revoked {
			byHash[h.v.TokenHash] = h.v
			byName[h.v.Name] = h.v
		}
	}
	return byHash, byName
}

// webhookList is the webhooks, removed ones included, by name.
func (w *writer) webhookList() []model.Webhook {
	list := make([]model.Webhook, 0, len(w.webhookEnt))
	for _, h := range w.webhookEnt {
		list = append(list, *h.v)
	}
	slices.SortFunc(list, func(a, b model.Webhook) int { return strings.Compare(a.Name, b.Name) })
	return list
}

// leagueIndex is world.byLeague, from the competitions by season.
func (w *writer) leagueIndex() map[model.LeagueCode][]int32 {
	years := slices.Sorted(maps.Keys(w.byYear))
	out := map[model.LeagueCode][]int32{}
	for i := len(years) - 1; i >= 0; i-- {
		for _, id := range w.byYear[years[i]] {
			if st := w.compState[id]; st != nil && st.comp != nil {
				out[st.comp.League] = append(out[st.comp.League], id)
			}
		}
	}
	return out
}

// leagueList is the built-in leagues with the editors' additions; an
// editor's league of a built-in code replaces it.
func (w *writer) leagueList() []model.League {
	byCode := map[model.LeagueCode]model.League{}
	for _, l := range model.BuiltinLeagues {
		byCode[l.Code] = l
	}
	for code, h := range w.leagueEnt {
		byCode[code] = *h.v
	}
	list := slices.Collect(maps.Values(byCode))
	slices.SortFunc(list, func(a, b model.League) int { return strings.Compare(string(a.Code), string(b.Code)) })
	return list
}
