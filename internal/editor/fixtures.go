package editor

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"sync"

	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// PutFixture creates a fixture or changes one: change is applied to its
// current state. Id 0 creates one with a new id, an id nobody has yet
// creates it with that id; with mustExist, a missing fixture is not found
// instead (a result or a status move). A status move that skips states is
// written as its chain of allowed moves, one revision each.
func (e *Editor) PutFixture(ctx context.Context, id int, mustExist bool, change func(*model.Fixture) error) (Change, *model.Fixture, error) {
	if id != 0 {
		if err := model.CheckID("id", id); err != nil {
			return Change{}, nil, err
		}
		ch, f, err := e.updateFixture(ctx, id, change)
		var nf *model.Error
		if !errors.As(err, &nf) || nf.Code != model.NotFound || nf.Field != "fixture" || mustExist {
			return ch, f, err
		}
	}
	f := model.Fixture{ID: id, Stage: model.Regular, Status: model.Timed}
	if err := change(&f); err != nil {
		return Change{}, nil, err
	}
	f.ID = id
	LiveFields(&f)
	c, err := e.competition(ctx, f.CompetitionID)
	if err != nil {
		return Change{}, nil, err
	}
	if err := model.CheckFixtureDraft(c, &f); err != nil {
		return Change{}, nil, err
	}
	if err := e.assignID(ctx, events.KindFixture, &f.ID, 0); err != nil {
		return Change{}, nil, err
	}
	ch, err := e.run(ctx, func(ctx context.Context) (plan, error) {
		states, err := fixtureStates(c, nil, f)
		if err != nil {
			return plan{}, err
		}
		return e.newPlan(ctx, nil, states...)
	}, false)
	return ch, &f, err
}

func (e *Editor) updateFixture(ctx context.Context, id int, change func(*model.Fixture) error) (Change, *model.Fixture, error) {
	return update[model.Fixture]{subject: fixtureSubject(id), field: "fixture", key: id, change: change,
		then: func(ctx context.Context, cur, next *model.Fixture) ([]any, error) {
			next.ID = id
			c, err := e.competition(ctx, cur.CompetitionID)
			if err != nil {
				return nil, err
			}
			// The states are settled in place: the caller gets the
			// fixture as written.
			wanted := []model.Fixture{*next}
			states, err := fixtureStates(c, cur, wanted...)
			*next = wanted[0]
			return states, err
		}}.run(ctx, e)
}

// fixtureStates checks each wanted state of a fixture of c against its
// competition and the state before it (old: the stored one, nil for a new
// fixture), and returns the revisions to write: every wanted state, each
// preceded by the steps of its status path. Steps before kick-off carry no
// result, and only a finished fixture its award. A live state's minute is
// dropped once the match is no longer live (a source may still send the
// last one), and a match that goes live without a score has 0-0, as v4
// shows it from kick-off.
func fixtureStates(c *model.Competition, old *model.Fixture, wanted ...model.Fixture) ([]any, error) {
	var out []any
	prev := old
	for i := range wanted {
		f := &wanted[i]
		LiveFields(f)
		if err := model.CheckFixture(c, f, prev); err != nil {
			return nil, err
		}
		if prev != nil {
			path, err := prev.Status.Path(f.Status)
			if err != nil {
				return nil, err
			}
			for _, st := range path[:len(path)-1] {
				step := *f
				step.Status = st
				step.Awarded = ""
				if st != model.InPlay {
					step.Result = model.Result{}
				}
				LiveFields(&step)
				if err := model.CheckFixture(c, &step, prev); err != nil {
					return nil, err
				}
				out = append(out, &step)
				prev = &step
			}
		}
		out = append(out, f)
		prev = f
	}
	return out, nil
}

// LiveFields keeps f's minute only while it is live, and gives a live
// match the running score of its phase when it has none: 0-0 from
// kick-off, extra time from the full-time score (ours counts on from it),
// a shoot-out from 0-0, as v4 shows each from its start. The importer
// compares what a feed's source says with the stored state through it.
func LiveFields(f *model.Fixture) {
	if !f.Status.Live() {
		f.Minute, f.InjuryTime = 0, 0
		return
	}
	r := &f.Result
	if r.FullTime == nil {
		r.FullTime = &model.Score{}
	}
	switch {
	case f.Status == model.ExtraTime && r.ExtraTime == nil:
		et := *r.FullTime
		r.ExtraTime = &et
	case f.Status == model.PenaltyShootout && r.Penalties == nil:
		r.Penalties = &model.Score{}
	}
}

// Stored is an entity as a writer read it: its state and revision.
type Stored[T any] struct {
	Value T
	Rev   events.Revision
}

// Fixture queues the edit of a fixture of competition c: want returns its
// wanted states given the current one (nil for a new fixture), in a slice
// of its own (they are checked in place), from (nil for a new fixture,
// whose id the caller reserved) is its state as read before. After a lost
// race the edit is decided again against the winner's state, so
// concurrent importers end with each fixture once.
func (b *Batch) Fixture(ctx context.Context, c *model.Competition, id int, from *Stored[model.Fixture],
	want func(cur *model.Fixture) ([]model.Fixture, error), done func(Change, error)) error {
	fe := &fixtureEdit{op: op{done: done}, e: b.e, c: c, subject: events.FixtureSubject(c.ID, id), want: want}
	var err error
	if from != nil {
		fe.plan, err = fe.decide(ctx, &from.Value, &from.Rev)
	} else {
		fe.plan, err = fe.decide(ctx, nil, nil)
	}
	if err != nil {
		done(Change{}, err)
		return nil
	}
	fe.op.redo = fe
	return b.add(ctx, &fe.op)
}

// fixtureEdit is an edit of one fixture in a batch: its op and what
// deciding it again takes, in one allocation.
type fixtureEdit struct {
	op
	e       *Editor
	c       *model.Competition
	subject string
	want    func(cur *model.Fixture) ([]model.Fixture, error)
}

func (fe *fixtureEdit) decide(ctx context.Context, cur *model.Fixture, rev *events.Revision) (plan, error) {
	wanted, err := fe.want(cur)
	if err != nil {
		return plan{}, err
	}
	states, err := fixtureStates(fe.c, cur, wanted...)
	if err != nil {
		return plan{}, err
	}
	return fe.e.newPlan(ctx, rev, states...)
}

func (fe *fixtureEdit) redo(ctx context.Context) (plan, error) {
	cur, rev, err := load[model.Fixture](ctx, fe.e, fe.subject)
	if err != nil {
		return plan{}, err
	}
	return fe.decide(ctx, cur, rev)
}

// Create queues the creation of v, a complete entity with its id (the
// generator's teams, names, squads, competitions and adjustments). It must
// not exist yet: a conflict is its done's error.
func (b *Batch) Create(ctx context.Context, v any, done func(Change, error)) error {
	p, err := b.e.newPlan(ctx, nil, v)
	if err != nil {
		done(Change{}, err)
		return nil
	}
	if t, ok := v.(*model.Team); ok {
		b.e.knowTeam(t.ID)
	}
	return b.add(ctx, &op{plan: p, done: done})
}

// SourceIDs returns the ids of a competition's imported entities of kind
// (fixtures, adjustments) by their source, claiming new ids for the sources
// it does not know yet: the natural key of an imported entity is its
// source, claimed with compare-and-set, so concurrent importers give a
// match one id. stored names the entities found in the stream by their
// source, which keep their ids (a stream written before sources were
// claimed).
func (e *Editor) SourceIDs(ctx context.Context, kind events.Kind, competition int, sources []string, stored map[string]int) (map[string]int, error) {
	claimed, err := e.ClaimSources(ctx, kind, []SourceClaim{{Competition: competition, Sources: sources, Stored: stored}})
	if err != nil {
		return nil, err
	}
	return claimed[0].IDs, nil
}

// SourceClaim asks for the ids of a competition's imported entities by
// their sources; Stored are those found in the stream (see SourceIDs);
// Own are the sources' own ids (football-data.org's match ids), given to
// the new ones where free (events.Store.TakeOwnIDs), new ids otherwise.
type SourceClaim struct {
	Competition int
	Sources     []string
	Stored      map[string]int
	Own         map[string]int
}

// Claimed is what ClaimSources gives for a claim: the ids of its
// sources, and the sources that were claimed before (by an earlier file
// or import, or one running at once), whose entities may exist.
type Claimed struct {
	IDs    map[string]int
	Before []string
}

// loadConcurrency bounds the reads in flight at once of a writer that
// reads many states.
const loadConcurrency = 16

// ClaimSources is SourceIDs for many competitions at once, with the
// round trips of all of them overlapping: their claims are read
// together, the new ids reserved with one counter update, and the
// claims written as one batch, each decided again after a lost race. It
// returns what each claim got, in the order of claims.
func (e *Editor) ClaimSources(ctx context.Context, kind events.Kind, claims []SourceClaim) ([]Claimed, error) {
	sc := &sourceClaims{e: e, kind: kind, claims: claims, out: make([]Claimed, len(claims)), pools: make([][]int, len(claims))}
	var todo []int // the claims with sources
	var subjects []string
	for i, c := range claims {
		sc.out[i].IDs = map[string]int{}
		if len(c.Sources) > 0 {
			todo = append(todo, i)
			subjects = append(subjects, events.Subject(events.KindSourceKeys, string(kind), strconv.Itoa(c.Competition)))
		}
	}
	revs, err := loadAll[model.SourceKeys](ctx, e, subjects)
	if err != nil {
		return nil, err
	}
	nexts := make([]*model.SourceKeys, len(todo))
	missing := make([][]string, len(todo))
	total := 0
	for k, i := range todo {
		nexts[k], missing[k] = sc.decide(i, revs[k].value)
		total += sc.needs(i, missing[k])
	}
	if err := sc.takeOwn(ctx, todo, missing); err != nil {
		return nil, err
	}
	fresh, err := e.newIDs(ctx, kind, total)
	if err != nil {
		return nil, err
	}
	for k, i := range todo {
		n := sc.needs(i, missing[k])
		sc.pools[i], fresh = fresh[:n], fresh[n:]
	}
	var failed error
	b := e.Batch()
	for k, i := range todo {
		subject := subjects[k]
		p, err := sc.build(ctx, i, subject, revs[k].rev, nexts[k], missing[k])
		if err != nil {
			return nil, err
		}
		redo := func(ctx context.Context) (plan, error) {
			cur, rev, err := load[model.SourceKeys](ctx, e, subject)
			if err != nil {
				return plan{}, err
			}
			next, missing := sc.decide(i, cur)
			return sc.build(ctx, i, subject, rev, next, missing)
		}
		err = b.add(ctx, &op{plan: p, redo: redoFunc(redo), done: func(_ Change, err error) {
			if err != nil && failed == nil {
				failed = fmt.Errorf("claim sources %s: %w", subject, err)
			}
		}})
		if err != nil {
			return nil, err
		}
	}
	if err := b.Flush(ctx); err != nil {
		return nil, err
	}
	return sc.out, failed
}

// sourceClaims is one ClaimSources call: the claims, what each got, and
// the ids reserved for each claim's missing sources (a round that loses
// a race only finds fewer missing).
type sourceClaims struct {
	e      *Editor
	kind   events.Kind
	claims []SourceClaim
	out    []Claimed
	pools  [][]int
	// owned are the sources' own ids taken for them (SourceClaim.Own).
	owned map[int]bool
}

// decide merges the sources of claim i into its current state; missing
// are those that need new ids, nil next that none is new.
func (sc *sourceClaims) decide(i int, cur *model.SourceKeys) (next *model.SourceKeys, missing []string) {
	c := sc.claims[i]
	next = &model.SourceKeys{Kind: string(sc.kind), CompetitionID: c.Competition, IDs: map[string]int{}}
	if cur != nil {
		maps.Copy(next.IDs, cur.IDs)
	}
	added := false
	sc.out[i].Before = nil
	for _, s := range c.Sources {
		if _, ok := next.IDs[s]; ok {
			sc.out[i].Before = append(sc.out[i].Before, s)
			continue
		}
		added = true
		if id, ok := c.Stored[s]; ok {
			next.IDs[s] = id
			continue
		}
		missing = append(missing, s)
	}
	sc.out[i].IDs = next.IDs
	if !added {
		return nil, nil
	}
	return next, missing
}

// build plans claim i's write: next with its missing sources given ids
// from the claim's pool (topped up if a lost race found more missing), or
// the current state kept when nothing is new.
func (sc *sourceClaims) build(ctx context.Context, i int, subject string, rev *events.Revision, next *model.SourceKeys, missing []string) (plan, error) {
	if next == nil {
		return keep(subject, rev), nil
	}
	missing = sc.giveOwn(i, next, missing)
	if short := len(missing) - len(sc.pools[i]); short > 0 {
		more, err := sc.e.newIDs(ctx, sc.kind, short)
		if err != nil {
			return plan{}, err
		}
		sc.pools[i] = append(sc.pools[i], more...)
	}
	for j, s := range missing {
		next.IDs[s] = sc.pools[i][j]
	}
	return sc.e.newPlan(ctx, rev, next)
}

// needs counts the missing sources of claim i without an own id: those
// that take ids from the counter's next ones.
func (sc *sourceClaims) needs(i int, missing []string) int {
	n := len(missing)
	for _, s := range missing {
		if sc.claims[i].Own[s] > 0 && !sc.e.DryRun {
			n--
		}
	}
	return n
}

// takeOwn takes the own ids of the missing sources of every claim
// (missing, in the order of todo) where they are free, with one counter
// update for them all.
func (sc *sourceClaims) takeOwn(ctx context.Context, todo []int, missing [][]string) error {
	var ids []int
	for k, i := range todo {
		for _, s := range missing[k] {
			if id := sc.claims[i].Own[s]; id > 0 && !sc.e.DryRun {
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	taken, err := sc.e.Store.TakeOwnIDs(ctx, sc.kind, ids)
	sc.owned = taken
	return err
}

// giveOwn gives the missing sources of claim i the own ids taken for them,
// and returns the sources left without one.
func (sc *sourceClaims) giveOwn(i int, next *model.SourceKeys, missing []string) []string {
	if len(sc.owned) == 0 {
		return missing
	}
	var rest []string
	for _, s := range missing {
		if id := sc.claims[i].Own[s]; sc.owned[id] {
			next.IDs[s] = id
			delete(sc.owned, id) // two sources with one own id: the first has it
			continue
		}
		rest = append(rest, s)
	}
	return rest
}

// loaded is a state read with its revision (nil ones: it does not exist).
type loaded[T any] struct {
	value *T
	rev   *events.Revision
}

// FixtureKey names a fixture by its competition and id.
type FixtureKey struct{ Competition, ID int }

// FixturesOf reads the current states of fixtures, many at once; those
// that do not exist are left out.
func (e *Editor) FixturesOf(ctx context.Context, keys []FixtureKey) ([]Stored[model.Fixture], error) {
	subjects := make([]string, len(keys))
	for i, k := range keys {
		subjects[i] = events.Subject(events.KindFixture, strconv.Itoa(k.Competition), strconv.Itoa(k.ID))
	}
	got, err := loadAll[model.Fixture](ctx, e, subjects)
	if err != nil {
		return nil, err
	}
	var out []Stored[model.Fixture]
	for _, l := range got {
		if l.rev != nil {
			out = append(out, Stored[model.Fixture]{Value: *l.value, Rev: *l.rev})
		}
	}
	return out, nil
}

// loadAll reads the states of subjects, many at once.
func loadAll[T any](ctx context.Context, e *Editor, subjects []string) ([]loaded[T], error) {
	out := make([]loaded[T], len(subjects))
	errs := make([]error, len(subjects))
	sem := make(chan struct{}, loadConcurrency)
	var wg sync.WaitGroup
	for i, subject := range subjects {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			out[i].value, out[i].rev, errs[i] = load[T](ctx, e, subject)
		})
	}
	wg.Wait()
	return out, errors.Join(errs...)
}
