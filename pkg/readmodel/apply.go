package readmodel

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// errStale marks an event that is not newer than the state held for its
// entity: a replay or a duplicate, harmless and ignored.
var errStale = errors.New("stale event")

// held is an entity with the stream sequence of the event that set it.
type held[T any] struct {
	v   *T
	seq uint64
}

// compState is the writer's own state of a competition: what its derived
// data is rebuilt from, besides its fixtures.
type compState struct {
	comp        *model.Competition // nil while only its fixtures are known
	seq         uint64
	lastUpdated time.Time
	adjust      map[int32]held[model.Adjustment]
	order       held[model.TieBreakOrder]
}

// fixChange is a fixture's change within one batch: the record readers hold
// (orig, nil for a new fixture) and the one they will get.
type fixChange struct{ orig, cur *fixture }

// batch is what changed since the last publication.
type batch struct {
	dirty    bool
	since    time.Time // when the first change came, for MaxDelay
	fixtures map[int32]fixChange
	comps    map[int32]int  // to rebuild, from this matchday on
	teams    map[int32]bool // to rebuild
	renamed  map[int32]bool // teams whose entity changed: their competitions show it
	years    map[int]bool   // seasons whose list of competitions changed
	// Parts rebuilt whole when anything in them changed.
	teamsChanged, clientsChanged, leaguesChanged bool
	calendar                                     bool
}

func newBatch() batch {
	return batch{fixtures: map[int32]fixChange{}, comps: map[int32]int{}, teams: map[int32]bool{},
		renamed: map[int32]bool{}, years: map[int]bool{}}
}

// dirtyComp marks a competition for a rebuild from matchday md on.
func (b *batch) dirtyComp(id int32, md int) {
	if cur, ok := b.comps[id]; !ok || md < cur {
		b.comps[id] = md
	}
}

func (b *batch) touch() {
	if !b.dirty {
		b.dirty = true
		b.since = time.Now()
	}
}

// apply changes the writer's state by one event. It returns errStale for an
// event not newer than its entity, and an error for a message that does not
// hold a valid entity under its subject.
func (w *writer) apply(ev events.Event) error {
	w.seq = ev.Seq
	var err error
	switch ev.Kind {
	case events.KindFixture:
		err = w.applyFixture(ev)
	case events.KindCompetition:
		err = w.applyCompetition(ev)
	case events.KindTeam:
		err = w.applyTeam(ev)
	case events.KindSquad:
		err = w.applySquad(ev)
	case events.KindAdjustment:
		err = w.applyAdjustment(ev)
	case events.KindTieBreak:
		err = w.applyTieBreak(ev)
	case events.KindClient:
		err = w.applyClient(ev)
	case events.KindLeague:
		err = w.applyLeague(ev)
	default:
		// Id counters and name spellings serve writers only; kinds added
		// after this build are not ours to show.
		return nil
	}
	if err == nil {
		w.b.touch()
	}
	return err
}

// decode reads and validates the entity of ev, whose key must have n tokens.
func decode[T any, PT interface {
	*T
	Validate() error
}](ev events.Event, n int) (*T, error) {
	if len(ev.Key) != n {
		return nil, fmt.Errorf("subject %s: want %d key tokens", ev.Subject, n)
	}
	v, err := events.Decode[T](ev.Data)
	if err != nil {
		return nil, err
	}
	if err := PT(&v).Validate(); err != nil {
		return nil, fmt.Errorf("invalid %T: %w", v, err)
	}
	return &v, nil
}

// keyID parses key token i, which must equal the entity's own id.
func keyID(ev events.Event, i, want int) (int32, error) {
	id, err := strconv.Atoi(ev.Key[i])
	if err != nil || id != want || !fitsInt32(id) {
		return 0, fmt.Errorf("subject %s does not hold entity %d", ev.Subject, want)
	}
	return int32(id), nil
}

func (w *writer) comp(id int32) *compState {
	st := w.compState[id]
	if st == nil {
		st = &compState{adjust: map[int32]held[model.Adjustment]{}}
		w.compState[id] = st
	}
	return st
}

func (st *compState) touched(t time.Time) {
	if t.After(st.lastUpdated) {
		st.lastUpdated = t
	}
}

func (w *writer) applyFixture(ev events.Event) error {
	f, err := decode[model.Fixture](ev, 2)
	if err != nil {
		return err
	}
	cid, err := keyID(ev, 0, f.CompetitionID)
	if err != nil {
		return err
	}
	id, err := keyID(ev, 1, f.ID)
	if err != nil {
		return err
	}
	if !fitsInt32(f.HomeTeamID, f.AwayTeamID) {
		return fmt.Errorf("fixture %d: team id out of range", f.ID)
	}
	old, _ := w.fixtures.get(id)
	if old != nil && old.seq >= ev.Seq {
		return errStale
	}
	rec := pack(f, ev.Seq, &w.strs)
	w.fixtures.set(id, rec)
	if ch, ok := w.b.fixtures[id]; ok {
		w.b.fixtures[id] = fixChange{orig: ch.orig, cur: rec}
	} else {
		w.b.fixtures[id] = fixChange{orig: old, cur: rec}
	}
	w.comp(cid).touched(ev.Time)
	if old != nil && old.comp != cid {
		w.comp(old.comp).touched(ev.Time)
	}
	return nil
}

func (w *writer) applyCompetition(ev events.Event) error {
	c, err := decode[model.Competition](ev, 1)
	if err != nil {
		return err
	}
	id, err := keyID(ev, 0, c.ID)
	if err != nil {
		return err
	}
	for _, t := range c.Teams {
		if !fitsInt32(t.TeamID) {
			return fmt.Errorf("competition %d: team id %d out of range", c.ID, t.TeamID)
		}
	}
	st := w.comp(id)
	if st.comp != nil && st.seq >= ev.Seq {
		return errStale
	}
	old := st.comp
	st.comp, st.seq = c, ev.Seq
	st.touched(ev.Time)
	w.b.dirtyComp(id, 1)
	w.b.years[c.Year] = true
	w.b.calendar = true

	var before []int32
	if old != nil {
		w.b.years[old.Year] = true
		before = teamIDs(old)
	}
	after := teamIDs(c)
	for _, t := range before {
		if !slices.Contains(after, t) {
			w.listedIn[t] = remove(w.listedIn[t], id)
			w.b.teams[t] = true
		}
	}
	for _, t := range after {
		if !slices.Contains(before, t) {
			w.listedIn[t] = insert(w.listedIn[t], id)
			w.b.teams[t] = true
		}
	}
	if old == nil || old.Year != c.Year || old.Type != c.Type || old.League != c.League {
		// The teams' latest competition (and its league) may have moved.
		w.byYear[c.Year] = insert(w.byYear[c.Year], id)
		if old != nil && old.Year != c.Year {
			w.byYear[old.Year] = remove(w.byYear[old.Year], id)
		}
		if snap, ok := w.comps.get(id); ok {
			for _, f := range snap.fixtures {
				w.b.teams[f.home] = true
				w.b.teams[f.away] = true
			}
			delete(w.b.teams, 0)
		}
	}
	return nil
}

func teamIDs(c *model.Competition) []int32 {
	ids := make([]int32, len(c.Teams))
	for i, t := range c.Teams {
		ids[i] = int32(t.TeamID)
	}
	return ids
}

// insert and remove keep a small sorted set of ids.
func insert(s []int32, id int32) []int32 {
	i, found := slices.BinarySearch(s, id)
	if found {
		return s
	}
	return slices.Insert(s, i, id)
}

func remove(s []int32, id int32) []int32 {
	i, found := slices.BinarySearch(s, id)
	if !found {
		return s
	}
	return slices.Delete(s, i, i+1)
}

func (w *writer) applyTeam(ev events.Event) error {
	t, err := decode[model.Team](ev, 1)
	if err != nil {
		return err
	}
	id, err := keyID(ev, 0, t.ID)
	if err != nil {
		return err
	}
	if h := w.teamEnt[id]; h.v != nil && h.seq >= ev.Seq {
		return errStale
	}
	w.teamEnt[id] = held[model.Team]{v: t, seq: ev.Seq}
	w.b.teams[id] = true
	w.b.renamed[id] = true
	w.b.teamsChanged = true
	w.b.calendar = true
	return nil
}

func (w *writer) applySquad(ev events.Event) error {
	s, err := decode[model.Squad](ev, 1)
	if err != nil {
		return err
	}
	id, err := keyID(ev, 0, s.TeamID)
	if err != nil {
		return err
	}
	if old, ok := w.squads.get(id); ok && old.seq >= ev.Seq {
		return errStale
	}
	w.squads.set(id, &squadSnap{squad: s, seq: ev.Seq, version: w.gen + 1})
	return nil
}

func (w *writer) applyAdjustment(ev events.Event) error {
	a, err := decode[model.Adjustment](ev, 2)
	if err != nil {
		return err
	}
	cid, err := keyID(ev, 0, a.CompetitionID)
	if err != nil {
		return err
	}
	id, err := keyID(ev, 1, a.ID)
	if err != nil {
		return err
	}
	if !fitsInt32(a.TeamID) {
		return fmt.Errorf("adjustment %d: team id out of range", a.ID)
	}
	st := w.comp(cid)
	if h, ok := st.adjust[id]; ok && h.seq >= ev.Seq {
		return errStale
	}
	st.adjust[id] = held[model.Adjustment]{v: a, seq: ev.Seq}
	st.touched(ev.Time)
	w.b.dirtyComp(cid, 1)
	return nil
}

func (w *writer) applyTieBreak(ev events.Event) error {
	o, err := decode[model.TieBreakOrder](ev, 1)
	if err != nil {
		return err
	}
	cid, err := keyID(ev, 0, o.CompetitionID)
	if err != nil {
		return err
	}
	if !fitsInt32(o.TeamIDs...) {
		return fmt.Errorf("tie-break order of %d: team id out of range", o.CompetitionID)
	}
	st := w.comp(cid)
	if st.order.v != nil && st.order.seq >= ev.Seq {
		return errStale
	}
	st.order = held[model.TieBreakOrder]{v: o, seq: ev.Seq}
	st.touched(ev.Time)
	w.b.dirtyComp(cid, 1)
	return nil
}

func (w *writer) applyClient(ev events.Event) error {
	c, err := decode[model.Client](ev, 1)
	if err != nil {
		return err
	}
	if ev.Key[0] != c.Name {
		return fmt.Errorf("subject %s does not hold client %s", ev.Subject, c.Name)
	}
	if h := w.clientEnt[c.Name]; h.v != nil && h.seq >= ev.Seq {
		return errStale
	}
	w.clientEnt[c.Name] = held[model.Client]{v: c, seq: ev.Seq}
	w.b.clientsChanged = true
	return nil
}

func (w *writer) applyLeague(ev events.Event) error {
	l, err := decode[model.League](ev, 1)
	if err != nil {
		return err
	}
	if ev.Key[0] != string(l.Code) {
		return fmt.Errorf("subject %s does not hold league %s", ev.Subject, l.Code)
	}
	if h := w.leagueEnt[l.Code]; h.v != nil && h.seq >= ev.Seq {
		return errStale
	}
	w.leagueEnt[l.Code] = held[model.League]{v: l, seq: ev.Seq}
	w.b.leaguesChanged = true
	return nil
}
