package readmodel

import (
	"cmp"
	"slices"
	"time"

	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// Goals, venues and persons.
//
// Goals are rare (tournament files carry them, league files do not), so
// they stay out of the compact fixture record, which would otherwise hold
// a pointer the collector scans a million times. A fixture that has goals
// or a venue has an entry in a side table keyed by its id (extras); the
// replay of a league pays one nil check per fixture. The table follows the
// fixture: an edit that drops both removes the entry.
//
// Persons are the person events and the squads' players (one id space):
// a person event wins for every field it sets, the squad gives the shirt
// number and, without an event, everything. A scorer id that neither
// knows is still a person, named as his first goal wrote him, so that no
// scorers row points at a person the API cannot show.
//
// A competition with goals tallies its scorers when it is rebuilt
// (rebuildComp); names are resolved when read, since a person event does
// not rebuild competitions.

// fixtureExtra is what a fixture has beyond the compact record.
type fixtureExtra struct {
	goals []model.Goal
	venue string
}

// personSnap is a person event as published.
type personSnap struct {
	p  *model.Person
	at time.Time
}

// scorerTally is one scorer's count in a competition: by person id, or by
// the name as written (id 0) when the goal names nobody known.
type scorerTally struct {
	person    int32
	name      string
	team      int32
	goals     int
	penalties int
	matches   int
	// last is the kick-off of the scorer's latest goal: his team is the
	// one he scored for last.
	last int64
}

func extraOf(f *model.Fixture) *fixtureExtra {
	if len(f.Goals) == 0 && f.Venue == "" {
		return nil
	}
	return &fixtureExtra{goals: f.Goals, venue: f.Venue}
}

// scorerIDs is the persons who scored a fixture's goals, own goals
// included (the scorer played), each once, ascending.
func (x *fixtureExtra) scorerIDs() []int32 {
	if x == nil {
		return nil
	}
	var ids []int32
	for _, g := range x.goals {
		if g.ScorerID != 0 {
			ids = insert(ids, int32(g.ScorerID))
		}
	}
	return ids
}

// noteExtras keeps the side table, each competition's count of fixtures
// with goals and each person's fixtures in step with a fixture change:
// old is the record replaced (nil for a new fixture), rec the new one.
// It returns the goals before and after, for the change's event.
func (w *writer) noteExtras(old, rec *fixture, f *model.Fixture) (was, is []model.Goal) {
	var before *fixtureExtra
	if old != nil {
		before, _ = w.extras.get(old.id)
	}
	after := extraOf(f)
	if before == nil && after == nil {
		return nil, nil
	}
	if before != nil && len(before.goals) > 0 {
		w.comp(old.comp).goalFixtures--
	}
	if after != nil && len(after.goals) > 0 {
		w.comp(rec.comp).goalFixtures++
	}
	if after != nil {
		w.extras.set(rec.id, after)
	} else {
		w.extras.del(rec.id)
	}
	scorersWere, scorersAre := before.scorerIDs(), after.scorerIDs()
	for _, p := range scorersWere {
		if _, still := slices.BinarySearch(scorersAre, p); !still {
			// Published lists are never written: change a copy.
			list, _ := w.scored.get(p)
			if list = remove(slices.Clone(list), rec.id); len(list) > 0 {
				w.scored.set(p, list)
			} else {
				w.scored.del(p)
			}
		}
	}
	for _, p := range scorersAre {
		if _, already := slices.BinarySearch(scorersWere, p); !already {
			list, _ := w.scored.get(p)
			w.scored.set(p, insert(slices.Clone(list), rec.id))
		}
	}
	w.b.personsChanged = true
	return before.goalList(), after.goalList()
}

// goalList is the extra's goals, nil when none.
func (x *fixtureExtra) goalList() []model.Goal {
	if x == nil {
		return nil
	}
	return x.goals
}

func (w *writer) applyPerson(ev events.Event, p *model.Person) error {
	id := int32(p.ID)
	if err := hold(w.personEnt, id, p, ev.Seq); err != nil {
		return err
	}
	w.persons.set(id, &personSnap{p: p, at: ev.Time})
	w.b.personsChanged = true
	return nil
}

// notePlayers points each player of a team's new squad at the team and
// lets go of those the old squad had.
func (w *writer) notePlayers(team int32, old, cur *model.Squad) {
	if old != nil {
		for _, p := range old.Players {
			if t, ok := w.players.get(int32(p.ID)); ok && t == team {
				w.players.del(int32(p.ID))
			}
		}
	}
	for _, p := range cur.Players {
		if fitsInt32(p.ID) {
			w.players.set(int32(p.ID), team)
		}
	}
	w.b.personsChanged = true
}

// tallyScorers counts the goals of a competition's fixtures by scorer:
// regular and penalty goals count for their scorer, own goals for nobody.
func (w *writer) tallyScorers(fixtures []*fixture) []scorerTally {
	ts := scorerTallies{byID: map[int32]int{}, byName: map[namedScorer]int{}}
	for _, f := range fixtures {
		if x, ok := w.extras.get(f.id); ok && len(x.goals) > 0 {
			ts.countFixture(f, x.goals)
		}
	}
	return ts.list
}

// scorerTallies is a competition's tallies as they are counted, with the
// index of each scorer's: by person id, or by the name as written and the
// team for a goal that names nobody known.
type scorerTallies struct {
	list   []scorerTally
	byID   map[int32]int
	byName map[namedScorer]int
}

type namedScorer struct {
	name string
	team int32
}

// countFixture counts one fixture's goals: a scorer's goals and penalties
// each, his match once, and his team is the one of his latest fixture.
func (ts *scorerTallies) countFixture(f *fixture, goals []model.Goal) {
	counted := map[int]bool{}
	for _, g := range goals {
		// An own goal counts for no scorer's tally, nor does one whose
		// scorer the source did not know.
		if g.Type == model.GoalOwn || g.Anonymous() {
			continue
		}
		team := f.home
		if g.Side == model.Away {
			team = f.away
		}
		i := ts.of(g, team)
		t := &ts.list[i]
		t.goals++
		if g.Type == model.GoalPenalty {
			t.penalties++
		}
		if !counted[i] {
			counted[i] = true
			t.matches++
		}
		if f.kickoff >= t.last {
			t.last, t.team = f.kickoff, team
		}
	}
}

// of returns the index of the tally of a goal's scorer, who scored for
// team, starting one if he has none yet.
func (ts *scorerTallies) of(g model.Goal, team int32) int {
	if g.ScorerID != 0 {
		i, ok := ts.byID[int32(g.ScorerID)]
		if !ok {
			i = ts.start(g)
			ts.byID[int32(g.ScorerID)] = i
		}
		return i
	}
	key := namedScorer{g.Scorer, team}
	i, ok := ts.byName[key]
	if !ok {
		i = ts.start(g)
		ts.byName[key] = i
	}
	return i
}

// start adds an empty tally for a goal's scorer and returns its index.
func (ts *scorerTallies) start(g model.Goal) int {
	ts.list = append(ts.list, scorerTally{person: int32(g.ScorerID), name: g.Scorer})
	return len(ts.list) - 1
}

// Goals returns a fixture's goals in the order of play, nil when it has
// none.
func (s Snapshot) Goals(fixture int) []model.Goal {
	if !fitsInt32(fixture) {
		return nil
	}
	x, ok := s.w.extras.get(int32(fixture))
	if !ok {
		return nil
	}
	return slices.Clone(x.goals)
}

// withExtras fills a fixture's goals and venue.
func (s Snapshot) withExtras(f *Fixture) {
	if x, ok := s.w.extras.get(int32(f.ID)); ok {
		f.Goals, f.Venue = slices.Clone(x.goals), x.venue
	}
}

// Person is a person as the API shows him.
type Person struct {
	model.Person
	// TeamID (in model.Person) is the person event's team, else the
	// squad's. ShirtNumber is the squad's jersey number.
	ShirtNumber *int
	// LastUpdated is the time of the person event, else of the squad's;
	// zero for a scorer known only from his goals.
	LastUpdated time.Time
}

// Person returns a person: a person event, a squad's player, or a scorer
// known by his goals alone.
func (s Snapshot) Person(id int) (Person, bool) {
	if !fitsInt32(id) {
		return Person{}, false
	}
	// The squad's step fills out in place and the scorer's returns a name:
	// a Person is large beside the look-ups, and no step copies one.
	var out Person
	inSquad := s.fillFromSquad(&out, id)
	ps, hasEvent := s.w.persons.get(int32(id))
	if hasEvent {
		overlayEvent(&out, id, ps)
	}
	if inSquad || hasEvent {
		return out, true
	}
	if name, ok := s.scorerName(id); ok {
		return Person{Person: model.Person{ID: id, Name: name}}, true
	}
	return Person{}, false
}

// fillFromSquad fills out with the person as the squad of his team (the
// squad that last named him) has him, and reports whether it has him.
func (s Snapshot) fillFromSquad(out *Person, id int) bool {
	t, ok := s.w.players.get(int32(id))
	if !ok {
		return false
	}
	q, ok := s.w.squads.get(t)
	if !ok {
		return false
	}
	for _, p := range q.squad.Players {
		if p.ID == id {
			out.Person = model.Person{ID: id, Name: p.Name, TeamID: int(t), Nationality: p.Nationality,
				DateOfBirth: clonePtr(p.DateOfBirth), Position: p.Position}
			out.ShirtNumber, out.LastUpdated = clonePtr(p.JerseyNumber), q.at
			return true
		}
	}
	return false
}

// overlayEvent lays a person event over what the squad gave: the event
// wins for every field it sets, and its time is the person's.
func overlayEvent(out *Person, id int, ps *personSnap) {
	p := ps.p
	out.ID, out.Name, out.LastUpdated = id, p.Name, ps.at
	out.Aliases = slices.Clone(p.Aliases)
	if p.TeamID != 0 {
		out.TeamID = p.TeamID
	}
	if p.Nationality != "" {
		out.Nationality = p.Nationality
	}
	if p.DateOfBirth != nil {
		out.DateOfBirth = clonePtr(p.DateOfBirth)
	}
	if p.Position != "" {
		out.Position = p.Position
	}
}

// scorerName is the name of a scorer neither an event nor a squad knows,
// as the first goal of his fixtures names him.
func (s Snapshot) scorerName(id int) (string, bool) {
	ids, _ := s.w.scored.get(int32(id))
	for _, fid := range ids {
		x, ok := s.w.extras.get(fid)
		if !ok {
			continue
		}
		for _, g := range x.goals {
			if g.ScorerID == id {
				return g.Scorer, true
			}
		}
	}
	return "", false
}

// PersonsVersion changes whenever any person, squad or goal changes: the
// version of every answer that shows persons.
func (s Snapshot) PersonsVersion() uint64 { return s.w.personsVersion }

// PersonFixtures returns the fixtures a person scored in (own goals
// included), newest first.
func (s Snapshot) PersonFixtures(id int) []Fixture {
	if !fitsInt32(id) {
		return nil
	}
	ids, _ := s.w.scored.get(int32(id))
	out := make([]Fixture, 0, len(ids))
	var sc scores
	for _, fid := range ids {
		if f, ok := s.w.fixtures.get(fid); ok {
			out = append(out, s.fixture(f, &sc))
		}
	}
	slices.SortFunc(out, func(a, b Fixture) int { return cmp.Or(b.Kickoff.Compare(a.Kickoff), cmp.Compare(b.ID, a.ID)) })
	return out
}

// Scorer is one row of a competition's scorers.
type Scorer struct {
	// PersonID is 0 for a scorer the goals name without an id; Name is
	// the person's name, else the name as the goal wrote it.
	PersonID int
	Name     string
	// TeamID is the team of his latest goal.
	TeamID int
	// Goals counts regular and penalty goals; Penalties the penalty goals;
	// Matches the fixtures he scored in.
	Goals, Penalties, Matches int
}

// Scorers returns a competition's scorers, most goals first, then by the
// collation of the name (nameKey) and by id (upstream's further order, by
// matches played, needs line-ups we do not have); at most limit rows when
// limit > 0.
func (s Snapshot) Scorers(comp, limit int) ([]Scorer, bool) {
	c, ok := s.comp(comp)
	if !ok {
		return nil, false
	}
	rows := make([]Scorer, len(c.scorers))
	keys := make([]string, len(c.scorers))
	order := make([]int32, len(c.scorers))
	for i, t := range c.scorers {
		rows[i] = Scorer{PersonID: int(t.person), Name: t.name, TeamID: int(t.team), Goals: t.goals, Penalties: t.penalties, Matches: t.matches}
		if t.person != 0 {
			if p, ok := s.Person(int(t.person)); ok {
				rows[i].Name = p.Name
			}
		}
		keys[i], order[i] = nameKey(rows[i].Name), int32(i)
	}
	// Sorting indices moves no strings: a sort of the rows paid a write
	// barrier for each of their pointers on every swap.
	slices.SortFunc(order, func(i, j int32) int {
		a, b := &rows[i], &rows[j]
		return cmp.Or(cmp.Compare(b.Goals, a.Goals), cmp.Compare(keys[i], keys[j]), cmp.Compare(a.Name, b.Name),
			cmp.Compare(a.PersonID, b.PersonID), cmp.Compare(a.TeamID, b.TeamID))
	})
	if limit > 0 && len(order) > limit {
		order = order[:limit]
	}
	out := make([]Scorer, len(order))
	for k, i := range order {
		out[k] = rows[i]
	}
	return out, true
}
