package editor

import (
	"context"
	"errors"
	"maps"
	"strconv"

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
	var next model.Fixture
	ch, err := e.run(ctx, func(ctx context.Context) (plan, error) {
		cur, rev, err := mustLoad[model.Fixture](ctx, e.Store, fixtureSubject(id), "fixture", id)
		if err != nil {
			return plan{}, err
		}
		next = *cur
		if err := change(&next); err != nil {
			return plan{}, err
		}
		next.ID = id
		c, err := e.competition(ctx, cur.CompetitionID)
		if err != nil {
			return plan{}, err
		}
		states, err := fixtureStates(c, cur, next)
		if err != nil {
			return plan{}, err
		}
		return e.newPlan(ctx, rev, states...)
	}, false)
	return ch, &next, err
}

// fixtureStates checks each wanted state of a fixture of c against its
// competition and the state before it (old: the stored one, nil for a new
// fixture), and returns the revisions to write: every wanted state, each
// preceded by the steps of its status path. Steps before kick-off carry no
// result, and only a finished fixture its award.
func fixtureStates(c *model.Competition, old *model.Fixture, wanted ...model.Fixture) ([]any, error) {
	var out []any
	prev := old
	for i := range wanted {
		f := wanted[i]
		if err := model.CheckFixture(c, &f, prev); err != nil {
			return nil, err
		}
		if prev != nil {
			path, err := prev.Status.Path(f.Status)
			if err != nil {
				return nil, err
			}
			for _, st := range path[:len(path)-1] {
				step := f
				step.Status = st
				step.Awarded = ""
				if st != model.InPlay {
					step.Result = model.Result{}
				}
				if err := model.CheckFixture(c, &step, prev); err != nil {
					return nil, err
				}
				out = append(out, &step)
				prev = &step
			}
		}
		out = append(out, &f)
		prev = &f
	}
	return out, nil
}

// Stored is an entity as a writer read it: its state and revision.
type Stored[T any] struct {
	Value T
	Rev   events.Revision
}

// Fixture queues the edit of a fixture of competition c: want returns its
// wanted states given the current one (nil for a new fixture), from (nil
// for a new fixture, whose id the caller reserved) is its state as read
// before. After a lost race the edit is decided again against the
// winner's state, so concurrent importers end with each fixture once.
func (b *Batch) Fixture(ctx context.Context, c *model.Competition, id int, from *Stored[model.Fixture],
	want func(cur *model.Fixture) ([]model.Fixture, error), done func(Change, error)) error {
	decide := func(cur *model.Fixture, rev *events.Revision) (plan, error) {
		wanted, err := want(cur)
		if err != nil {
			return plan{}, err
		}
		states, err := fixtureStates(c, cur, wanted...)
		if err != nil {
			return plan{}, err
		}
		return b.e.newPlan(ctx, rev, states...)
	}
	var p plan
	var err error
	if from != nil {
		p, err = decide(&from.Value, &from.Rev)
	} else {
		p, err = decide(nil, nil)
	}
	if err != nil {
		done(Change{}, err)
		return nil
	}
	subject := events.Subject(events.KindFixture, strconv.Itoa(c.ID), strconv.Itoa(id))
	redo := func(ctx context.Context) (plan, error) {
		cur, rev, err := load[model.Fixture](ctx, b.e.Store, subject)
		if err != nil {
			return plan{}, err
		}
		return decide(cur, rev)
	}
	return b.add(ctx, &op{plan: p, redo: redo, done: done})
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
	if len(sources) == 0 {
		return map[string]int{}, nil
	}
	subject := events.Subject(events.KindSourceKeys, string(kind), strconv.Itoa(competition))
	var ids map[string]int
	// pool holds the ids reserved for the sources missing in the first
	// round: a round that loses a race only finds fewer missing.
	var pool []int
	_, err := e.run(ctx, func(ctx context.Context) (plan, error) {
		cur, rev, err := load[model.SourceKeys](ctx, e.Store, subject)
		if err != nil {
			return plan{}, err
		}
		next := model.SourceKeys{Kind: string(kind), CompetitionID: competition, IDs: map[string]int{}}
		if cur != nil {
			maps.Copy(next.IDs, cur.IDs)
		}
		var missing []string
		added := false
		for _, s := range sources {
			if _, ok := next.IDs[s]; ok {
				continue
			}
			added = true
			if id, ok := stored[s]; ok {
				next.IDs[s] = id
				continue
			}
			missing = append(missing, s)
		}
		ids = next.IDs
		if !added {
			return keep(subject, rev), nil
		}
		if len(pool) < len(missing) {
			more, err := e.newIDs(ctx, kind, len(missing)-len(pool))
			if err != nil {
				return plan{}, err
			}
			pool = append(pool, more...)
		}
		for i, s := range missing {
			next.IDs[s] = pool[i]
		}
		return e.newPlan(ctx, rev, &next)
	}, true)
	return ids, err
}
