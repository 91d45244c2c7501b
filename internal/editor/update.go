package editor

import (
	"context"
)

// update is the one way an existing entity is changed. Inside run (so that
// with merge a lost race is decided again on the winner's state) it loads
// the entity's current state at subject (missing: not found, naming field
// and key), copies it (clone copies what the copy must not share, such as
// a competition's teams; nil for a plain copy), applies change, and has
// then settle the copy: put back what identifies it (an id the change may
// not move) and check what the change may not do against cur, returning
// the states to write (nil: the copy alone). The copy as written is in
// the returned value once run is done.
type update[T any] struct {
	subject, field string
	key            any
	clone          func(cur *T) T
	change         func(*T) error
	then           func(ctx context.Context, cur, next *T) ([]any, error)
	merge          bool
}

func (u update[T]) run(ctx context.Context, e *Editor) (Change, *T, error) {
	var next T
	ch, err := e.run(ctx, func(ctx context.Context) (plan, error) {
		cur, rev, err := mustLoad[T](ctx, e, u.subject, u.field, u.key)
		if err != nil {
			return plan{}, err
		}
		next = *cur
		if u.clone != nil {
			next = u.clone(cur)
		}
		if err := u.change(&next); err != nil {
			return plan{}, err
		}
		states := []any{&next}
		if u.then != nil {
			more, err := u.then(ctx, cur, &next)
			if err != nil {
				return plan{}, err
			}
			if more != nil {
				states = more
			}
		}
		return e.newPlan(ctx, rev, states...)
	}, u.merge)
	return ch, &next, err
}
