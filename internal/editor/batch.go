package editor

import (
	"context"

	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// maxRedo bounds how often one edit is decided again after losing races.
const maxRedo = 10

// op is a plan on its way to the stream.
type op struct {
	plan plan
	// redo decides the edit again from the entity's current state after a
	// lost race; nil when the conflict is the answer.
	redo  redoer
	done  func(Change, error)
	next  int    // the state to publish next
	seq   uint64 // revision of the last state published
	lost  bool   // lost a race: redo before anything else
	redos int
	// then is an edit to start once this one is done without an error
	// (a team once its name is claimed for it); it starts lost, so that
	// its redo decides it then.
	then *op
}

// redoer decides an edit again after a lost race. It is an interface, not
// a func, so that an edit's state can be the redoer itself instead of
// closures allocated for every fixture an import writes.
type redoer interface {
	redo(ctx context.Context) (plan, error)
}

// redoFunc is a func as a redoer.
type redoFunc func(ctx context.Context) (plan, error)

func (f redoFunc) redo(ctx context.Context) (plan, error) { return f(ctx) }

// Batch publishes many edits with a bounded window of messages in flight:
// the importers' and the generator's way to write, and a single edit's (a
// batch of one). An edit's states go one after the other, each naming the
// revision before it; many edits are in flight at once. Outcomes reach
// each edit's done, from Add or Flush; Add and Flush return an error only
// when the stream cannot be reached, and the batch must then stop.
type Batch struct {
	e    *Editor
	bulk *events.Bulk
	// ready are edits whose next state may go (the previous one is
	// acknowledged) or that lost a race and are to be decided again.
	ready []*op
}

// Batch starts a batch.
func (e *Editor) Batch() *Batch { return &Batch{e: e, bulk: e.Store.Bulk()} }

func (b *Batch) add(ctx context.Context, o *op) error {
	if err := b.drain(ctx); err != nil {
		return err
	}
	return b.start(ctx, o)
}

// Flush waits until every edit added is done.
func (b *Batch) Flush(ctx context.Context) error {
	for {
		if err := b.drain(ctx); err != nil {
			return err
		}
		if err := b.bulk.Flush(ctx); err != nil {
			return err
		}
		if len(b.ready) == 0 {
			return nil
		}
	}
}

func (b *Batch) start(ctx context.Context, o *op) error {
	if o.plan.unchanged() || b.e.DryRun {
		if !o.plan.unchanged() {
			b.e.pretend(o.plan)
		}
		b.finish(o, o.plan.change(0, b.e.DryRun))
		return nil
	}
	return b.send(ctx, o)
}

// finish reports an edit done and starts the edit that follows it.
func (b *Batch) finish(o *op, ch Change) {
	o.done(ch, nil)
	if o.then != nil {
		b.ready = append(b.ready, o.then)
	}
}

func (b *Batch) send(ctx context.Context, o *op) error {
	p := o.plan
	expected := o.seq
	if o.next == 0 && p.prev != nil {
		expected = p.prev.Seq
	}
	m := events.Msg{Subject: p.subject, Body: p.bodies[o.next], Expected: expected, Meta: b.e.Meta}
	return b.bulk.Put(ctx, m, func(seq uint64, err error) {
		switch {
		case err == nil:
			o.seq = seq
			o.next++
			if o.next < len(p.bodies) {
				b.ready = append(b.ready, o)
				return
			}
			b.finish(o, p.change(seq, false))
		case model.ErrorCode(err) == model.Conflict && o.redo != nil && o.redos < maxRedo:
			o.redos++
			o.lost = true
			b.ready = append(b.ready, o)
		default:
			o.done(Change{}, err)
		}
	})
}

// drain sends the next state of every edit whose previous state is in, and
// decides again the edits that lost a race.
func (b *Batch) drain(ctx context.Context) error {
	for len(b.ready) > 0 {
		o := b.ready[0]
		b.ready[0] = nil
		b.ready = b.ready[1:]
		if !o.lost {
			if err := b.send(ctx, o); err != nil {
				return err
			}
			continue
		}
		p, err := o.redo.redo(ctx)
		if err != nil {
			o.done(Change{}, err)
			continue
		}
		o.plan, o.next, o.seq, o.lost = p, 0, 0, false
		if err := b.start(ctx, o); err != nil {
			return err
		}
	}
	return nil
}
