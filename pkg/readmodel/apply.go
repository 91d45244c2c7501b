package readmodel

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/push"
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
	data        held[model.TieBreakData]
	// goalFixtures counts its fixtures with goals: only those tally
	// scorers.
	goalFixtures int
}

// fixChange is a change within one batch to a fixture readers hold: the
// record they hold (orig) and the one they will get.
type fixChange struct{ orig, cur *fixture }

// batch is what changed since the last publication.
type batch struct {
	dirty    bool
	since    time.Time // when the first change came, for MaxDelay
	fixtures map[int32]fixChange
	// added are the fixtures new in this batch; an entry replaced later in
	// the batch is skipped at publication. A slice, not the map: the
	// initial replay adds every fixture at once.
	added []*fixture
	// replaced counts the entries of added that a later one replaced.
	replaced int
	comps    map[int32]int  // to rebuild, from this matchday on
	teams    map[int32]bool // to rebuild
	renamed  map[int32]bool // teams whose entity changed: their competitions show it
	years    map[int]bool   // seasons whose list of competitions changed
	// seasonsMoved is set when a competition came, or changed its league
	// or season: the index of the leagues' seasons is rebuilt.
	seasonsMoved bool
	// Parts rebuilt whole when anything in them changed.
	teamsChanged, clientsChanged, leaguesChanged, webhooksChanged, personsChanged bool
	calendar                                                                      bool
	// live is, while push events are derived, the live message that
	// touched each competition (see push.go); events are the events
	// derived so far.
	live   map[int32]liveMsg
	events []push.Event
}

func newBatch() batch {
	return batch{fixtures: map[int32]fixChange{}, comps: map[int32]int{}, teams: map[int32]bool{},
		renamed: map[int32]bool{}, years: map[int]bool{}, live: map[int32]liveMsg{}}
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

// decodeEvent reads the entity of ev and checks it against its subject. It
// touches no state, so that Run can decode on several goroutines while one
// applies in stream order. Kinds the model has nothing to show of give
// (nil, nil): id counters, name spellings and natural keys serve writers
// only, token pointers the leader reads of a token the replica has not
// applied (events.Store.ClientByToken). A kind this build does not know
// was written by a newer release: it is rejected (counted, logged,
// skipped), never silently dropped, since its entity is missing from every
// answer until the replica is upgraded (package events, "Compatibility").
func decodeEvent(ev events.Event) (any, error) {
	if dec, ok := decoders[ev.Kind]; ok {
		return dec(ev)
	}
	return nil, fmt.Errorf("kind %q is unknown to this build: a newer release wrote it (upgrade the replicas before the editors)", ev.Kind)
}

// decoders holds, for each kind this build knows, how decodeEvent reads
// and checks it.
var decoders = map[events.Kind]func(events.Event) (any, error){
	events.KindFixture:        decodeFixture,
	events.KindCompetition:    decodeCompetition,
	events.KindTeam:           decodeTeam,
	events.KindSquad:          decodeSquad,
	events.KindAdjustment:     decodeAdjustment,
	events.KindTieBreak:       decodeTieBreak,
	events.KindTieBreakData:   decodeTieBreakData,
	events.KindClient:         decodeClient,
	events.KindWebhook:        decodeWebhook,
	events.KindLeague:         decodeLeague,
	events.KindPerson:         decodePerson,
	events.KindTeamName:       decodeNothing,
	events.KindCompetitionKey: decodeNothing,
	events.KindSourceKeys:     decodeNothing,
	events.KindSequence:       decodeNothing,
	events.KindClientToken:    decodeNothing,
	events.KindFeed:           decodeNothing,
}

// decodeNothing is the decoder of the kinds the model has nothing to show
// of.
func decodeNothing(events.Event) (any, error) { return nil, nil }

func decodeFixture(ev events.Event) (any, error) {
	f, err := decode[model.Fixture](ev, 2)
	if err == nil {
		err = checkIDs(ev, []int{f.CompetitionID, f.ID}, f.HomeTeamID, f.AwayTeamID)
	}
	return f, err
}

func decodeCompetition(ev events.Event) (any, error) {
	c, err := decode[model.Competition](ev, 1)
	if err == nil {
		teams := make([]int, len(c.Teams))
		for i, t := range c.Teams {
			teams[i] = t.TeamID
		}
		err = checkIDs(ev, []int{c.ID}, teams...)
	}
	return c, err
}

func decodeTeam(ev events.Event) (any, error) {
	t, err := decode[model.Team](ev, 1)
	if err == nil {
		err = checkIDs(ev, []int{t.ID})
	}
	return t, err
}

func decodeSquad(ev events.Event) (any, error) {
	q, err := decode[model.Squad](ev, 1)
	if err == nil {
		err = checkIDs(ev, []int{q.TeamID})
	}
	return q, err
}

func decodeAdjustment(ev events.Event) (any, error) {
	a, err := decode[model.Adjustment](ev, 2)
	if err == nil {
		err = checkIDs(ev, []int{a.CompetitionID, a.ID}, a.TeamID)
	}
	return a, err
}

func decodeTieBreak(ev events.Event) (any, error) {
	o, err := decode[model.TieBreakOrder](ev, 1)
	if err == nil {
		err = checkIDs(ev, []int{o.CompetitionID}, o.TeamIDs...)
	}
	return o, err
}

func decodeTieBreakData(ev events.Event) (any, error) {
	d, err := decode[model.TieBreakData](ev, 1)
	if err == nil {
		err = checkIDs(ev, []int{d.CompetitionID}, d.Teams()...)
	}
	return d, err
}

func decodeClient(ev events.Event) (any, error) {
	c, err := decode[model.Client](ev, 1)
	if err == nil && ev.Key[0] != c.Name {
		err = fmt.Errorf("subject %s does not hold client %s", ev.Subject, c.Name)
	}
	return c, err
}

func decodeWebhook(ev events.Event) (any, error) {
	h, err := decode[model.Webhook](ev, 1)
	if err == nil && ev.Key[0] != h.Name {
		err = fmt.Errorf("subject %s does not hold webhook %s", ev.Subject, h.Name)
	}
	return h, err
}

func decodeLeague(ev events.Event) (any, error) {
	l, err := decode[model.League](ev, 1)
	if err == nil && ev.Key[0] != string(l.Code) {
		err = fmt.Errorf("subject %s does not hold league %s", ev.Subject, l.Code)
	}
	return l, err
}

func decodePerson(ev events.Event) (any, error) {
	p, err := decode[model.Person](ev, 1)
	if err == nil {
		err = checkIDs(ev, []int{p.ID}, p.TeamID)
	}
	return p, err
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

// checkIDs checks that the subject's key tokens are the entity's key ids
// and that every id fits the int32 the model stores.
// It runs for every message of a replay, so it allocates nothing: the ids
// are formatted into a buffer on the stack.
func checkIDs(ev events.Event, key []int, others ...int) error {
	var buf [20]byte
	for i, id := range key {
		if ev.Key[i] != string(strconv.AppendInt(buf[:0], int64(id), 10)) {
			return fmt.Errorf("subject %s does not hold entity %d", ev.Subject, id)
		}
	}
	for _, ids := range [][]int{key, others} {
		for _, id := range ids {
			if !fitsInt32(id) {
				return fmt.Errorf("subject %s: id %d out of range", ev.Subject, id)
			}
		}
	}
	return nil
}

// apply changes the writer's state by one decoded event. It returns
// errStale for an event not newer than its entity.
func (w *writer) apply(ev events.Event, v any) error {
	w.seq = ev.Seq
	var err error
	switch v := v.(type) {
	case *model.Fixture:
		err = w.applyFixture(ev, v)
	case *model.Competition:
		err = w.applyCompetition(ev, v)
	case *model.Team:
		err = w.applyTeam(ev, v)
	case *model.Squad:
		err = w.applySquad(ev, v)
	case *model.Adjustment:
		err = w.applyAdjustment(ev, v)
	case *model.TieBreakOrder:
		err = applyHeld(w, ev, v.CompetitionID, func(st *compState) *held[model.TieBreakOrder] { return &st.order }, v)
	case *model.TieBreakData:
		err = applyHeld(w, ev, v.CompetitionID, func(st *compState) *held[model.TieBreakData] { return &st.data }, v)
	case *model.Client:
		err = w.applyClient(ev, v)
	case *model.Webhook:
		err = w.applyWebhook(ev, v)
	case *model.League:
		err = w.applyLeague(ev, v)
	case *model.Person:
		err = w.applyPerson(ev, v)
	default:
		return nil
	}
	if err == nil {
		w.b.touch()
	}
	return err
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

func (w *writer) applyFixture(ev events.Event, f *model.Fixture) error {
	cid, id := int32(f.CompetitionID), int32(f.ID)
	old, _ := w.fixtures.get(id)
	if old != nil && old.seq >= ev.Seq {
		return errStale
	}
	rec := pack(f, ev.Seq, w.gen+1, &w.strs)
	goalsWere, goalsAre := w.noteExtras(old, rec, f)
	w.fixtures.set(id, rec)
	if old != nil && w.deriving() {
		if e, ok := w.fixtureEvent(ev.Seq, ev.Time, old, rec, goalsWere, goalsAre); ok {
			w.b.events = append(w.b.events, e)
		}
	}
	switch {
	case old == nil:
		w.b.added = append(w.b.added, rec)
	case old.gen <= w.gen:
		// old is published: readers hold it.
		w.b.fixtures[id] = fixChange{orig: old, cur: rec}
	default:
		// old is new in this batch too: replace it where it was noted.
		if ch, ok := w.b.fixtures[id]; ok {
			w.b.fixtures[id] = fixChange{orig: ch.orig, cur: rec}
		} else {
			w.b.added = append(w.b.added, rec)
			w.b.replaced++
		}
	}
	w.comp(cid).touched(ev.Time)
	if old != nil && old.comp != cid {
		w.comp(old.comp).touched(ev.Time)
	}
	return nil
}

func (w *writer) applyCompetition(ev events.Event, c *model.Competition) error {
	id := int32(c.ID)
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
	if old == nil || old.Year != c.Year || old.Type != c.Type || old.League != c.League || old.Tier != c.Tier {
		// The teams' latest competition (and its league) may have moved.
		w.b.seasonsMoved = true
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

func (w *writer) applyTeam(ev events.Event, t *model.Team) error {
	id := int32(t.ID)
	if err := hold(w.teamEnt, id, t, ev.Seq); err != nil {
		return err
	}
	if t.MergedInto != 0 {
		// A duplicate folded into another team is served no more.
		delete(w.teamEnt, id)
	}
	w.b.teams[id] = true
	w.b.renamed[id] = true
	w.b.teamsChanged = true
	w.b.calendar = true
	return nil
}

func (w *writer) applySquad(ev events.Event, s *model.Squad) error {
	id := int32(s.TeamID)
	old, ok := w.squads.get(id)
	if ok && old.seq >= ev.Seq {
		return errStale
	}
	var was *model.Squad
	if ok {
		was = old.squad
	}
	w.notePlayers(id, was, s)
	w.squads.set(id, &squadSnap{squad: s, seq: ev.Seq, version: w.gen + 1, at: ev.Time})
	return nil
}

func (w *writer) applyAdjustment(ev events.Event, a *model.Adjustment) error {
	cid, id := int32(a.CompetitionID), int32(a.ID)
	st := w.comp(cid)
	if err := hold(st.adjust, id, a, ev.Seq); err != nil {
		return err
	}
	st.touched(ev.Time)
	w.b.dirtyComp(cid, 1)
	return nil
}

// hold keeps v, the revision at seq, as key's entity in m, unless m holds
// the same or a later revision (errStale).
func hold[K comparable, T any](m map[K]held[T], key K, v *T, seq uint64) error {
	if h := m[key]; h.v != nil && h.seq >= seq {
		return errStale
	}
	m[key] = held[T]{v: v, seq: seq}
	return nil
}

// applyHeld sets the one entity of its kind a competition holds (its
// tie-break order, its tie-break data), through the field get returns.
func applyHeld[T any](w *writer, ev events.Event, competition int, get func(*compState) *held[T], v *T) error {
	cid := int32(competition)
	st := w.comp(cid)
	h := get(st)
	if h.v != nil && h.seq >= ev.Seq {
		return errStale
	}
	*h = held[T]{v: v, seq: ev.Seq}
	st.touched(ev.Time)
	w.b.dirtyComp(cid, 1)
	return nil
}

func (w *writer) applyClient(ev events.Event, c *model.Client) error {
	if err := hold(w.clientEnt, c.Name, c, ev.Seq); err != nil {
		return err
	}
	w.b.clientsChanged = true
	return nil
}

func (w *writer) applyWebhook(ev events.Event, h *model.Webhook) error {
	was := w.webhookEnt[h.Name].v
	if err := hold(w.webhookEnt, h.Name, h, ev.Seq); err != nil {
		return err
	}
	if was == nil || !was.Created.Equal(h.Created) {
		w.registered[h.Name] = ev.Seq
	}
	w.b.webhooksChanged = true
	return nil
}

func (w *writer) applyLeague(ev events.Event, l *model.League) error {
	if err := hold(w.leagueEnt, l.Code, l, ev.Seq); err != nil {
		return err
	}
	w.b.leaguesChanged = true
	return nil
}
