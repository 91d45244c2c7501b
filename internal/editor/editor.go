// Package editor is the write side of the service and the only place that
// decides an edit: it checks a change against the rules of pkg/model and the
// current state of the stream, claims natural keys, walks status paths,
// decides whether anything changed, reserves ids once the change is valid,
// and publishes with compare-and-set. The CLI, the importers and the
// generator all write through it, one entity at a time or in batches, so a
// change is decided the same way whatever its origin.
//
// Every edit becomes a plan: the revisions that take one entity from the
// revision it was decided on to its new state, each encoded once. A Batch
// publishes plans; a single edit is a batch of one. A plan that loses a
// compare-and-set race is either decided again against the winner's state
// (imports and natural-key claims: any number of writers end with each
// entity once) or reported as a conflict (an editor's edit of what they
// saw: nobody silently overwrites anybody).
package editor

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// Editor writes changes on behalf of one person or program. It is not
// safe for concurrent use; give each writer its own.
type Editor struct {
	Store *events.Store
	Meta  events.Meta
	// DryRun decides and reports changes without reserving ids or
	// publishing anything; the edits after one decide against the state
	// it would have written (dry).
	DryRun bool
	// Now is the clock that dates what an edit creates (nil: the wall
	// clock).
	Now func() time.Time

	dryNext map[events.Kind]int // next id of each counter in a dry run
	// dry holds, in a dry run, the last state each edit would have
	// written, by subject: the edits that follow decide against it, as
	// they would against the stream in a real run (a merge adds a team to
	// a competition, then moves fixtures into it). Guarded by dryMu:
	// loadAll reads concurrently.
	dryMu   sync.RWMutex
	dry     map[string]events.Revision
	teams   map[int]bool // teams seen to exist
	leagues map[model.LeagueCode]model.League
}

// Action says what a change did (or, in a dry run, would do).
type Action string

// Actions.
const (
	Created   Action = "created"
	Updated   Action = "updated"
	Unchanged Action = "unchanged"
)

// Change describes one entity written.
type Change struct {
	Subject string
	Action  Action
	Seq     uint64
	DryRun  bool
	// Revisions is the number of revisions published (a status path
	// writes one per step).
	Revisions int
	// before and after are the bodies of the revision the edit started
	// from (nil when created) and of its result, for Diff.
	before, after []byte
}

// Diff lists the fields the change changed, "path: old → new".
func (c Change) Diff() []string {
	if c.Action == Unchanged {
		return nil
	}
	lines, err := Diff(c.before, c.after)
	if err != nil {
		return []string{err.Error()}
	}
	return lines
}

func (c Change) String() string {
	kind, key, _ := events.KeyOf(c.Subject)
	verb := string(c.Action)
	if c.DryRun && c.Action != Unchanged {
		verb = "would be " + verb
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s", kind, strings.Join(key, "/"), verb)
	if c.Seq > 0 && !c.DryRun {
		fmt.Fprintf(&b, " (revision %d)", c.Seq)
	}
	for _, d := range c.Diff() {
		b.WriteString("\n  " + d)
	}
	return b.String()
}

// plan is an edit decided against the current state of one entity: the
// states that take it from prev (nil: it does not exist yet) to its new
// state, in order, each encoded once. Intermediate states are the steps of
// a status path (TIMED → IN_PLAY → FINISHED), each a revision of its own.
type plan struct {
	subject string
	prev    *events.Revision
	bodies  [][]byte
}

// newPlan checks and encodes states, the revisions an edit writes from
// prev, after e.check has passed each.
func (e *Editor) newPlan(ctx context.Context, prev *events.Revision, states ...any) (plan, error) {
	p := plan{prev: prev}
	for _, v := range states {
		if err := e.check(ctx, v); err != nil {
			return plan{}, err
		}
		subject, err := events.SubjectOf(v)
		if err != nil {
			return plan{}, err
		}
		if p.subject != "" && subject != p.subject {
			return plan{}, fmt.Errorf("edit of %s moves it to %s", p.subject, subject)
		}
		if prev != nil && prev.Subject != "" && subject != prev.Subject {
			return plan{}, fmt.Errorf("edit of %s from a revision of %s", subject, prev.Subject)
		}
		body, err := events.Encode(v)
		if err != nil {
			return plan{}, err
		}
		p.subject = subject
		p.bodies = append(p.bodies, body)
	}
	return p, nil
}

// unchanged is the one place that decides an edit changes nothing: its
// only state is the one it was decided on.
func (p plan) unchanged() bool {
	return p.prev != nil && len(p.bodies) == 1 && bytes.Equal(p.bodies[0], p.prev.Data)
}

func (p plan) change(seq uint64, dry bool) Change {
	c := Change{Subject: p.subject, Action: Created, Seq: seq, DryRun: dry, after: p.bodies[len(p.bodies)-1]}
	if !dry {
		c.Revisions = len(p.bodies)
	}
	if p.prev != nil {
		c.Action, c.before = Updated, p.prev.Data
		if p.unchanged() {
			c.Action, c.Seq, c.Revisions = Unchanged, p.prev.Seq, 0
		}
	}
	return c
}

// run publishes one edit: a batch of one. decide makes the plan from the
// entity's current state; when merge is set, a lost race decides it again
// against the winner's state, otherwise the conflict is the answer.
func (e *Editor) run(ctx context.Context, decide func(ctx context.Context) (plan, error), merge bool) (Change, error) {
	p, err := decide(ctx)
	if err != nil {
		return Change{}, err
	}
	var ch Change
	var cerr error
	o := &op{plan: p, done: func(c Change, err error) { ch, cerr = c, err }}
	if merge {
		o.redo = redoFunc(decide)
	}
	b := e.Batch()
	if err := b.add(ctx, o); err != nil {
		return Change{}, err
	}
	if err := b.Flush(ctx); err != nil {
		return Change{}, err
	}
	return ch, cerr
}

func (e *Editor) now() time.Time {
	if e.Now == nil {
		return time.Now()
	}
	return e.Now()
}

// load reads the current state of subject; rev is nil when it does not
// exist.
func load[T any](ctx context.Context, e *Editor, subject string) (*T, *events.Revision, error) {
	if r, ok := e.wouldBe(subject); ok {
		v, err := events.Decode[T](r.Data)
		if err != nil {
			return nil, nil, err
		}
		return &v, &r, nil
	}
	v, r, err := events.Load[T](ctx, e.Store, subject)
	if model.ErrorCode(err) == model.NotFound {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	return &v, &r, nil
}

// mustLoad reads subject or fails with a not-found error naming field.
func mustLoad[T any](ctx context.Context, e *Editor, subject, field string, id any) (*T, *events.Revision, error) {
	v, rev, err := load[T](ctx, e, subject)
	if err == nil && rev == nil {
		err = &model.Error{Code: model.NotFound, Field: field, Value: fmt.Sprint(id), Message: "no such " + field}
	}
	return v, rev, err
}

// wouldBe is the state a dry run would have written to subject, if any.
func (e *Editor) wouldBe(subject string) (events.Revision, bool) {
	e.dryMu.RLock()
	defer e.dryMu.RUnlock()
	r, ok := e.dry[subject]
	return r, ok
}

// pretend records, in a dry run, the state p would have written.
func (e *Editor) pretend(p plan) {
	r := events.Revision{Subject: p.subject, Data: p.bodies[len(p.bodies)-1]}
	if p.prev != nil {
		r.Seq = p.prev.Seq
	}
	e.dryMu.Lock()
	defer e.dryMu.Unlock()
	if e.dry == nil {
		e.dry = map[string]events.Revision{}
	}
	e.dry[p.subject] = r
}

// newIDs reserves n ids of kind, once what they are for is valid. The
// historic v1 service's ranges of ids (model.Reserved*IDs) are never handed
// out: they go to its competitions and teams only, and a counter that
// reaches one jumps past it. A dry run reserves nothing: it hands out the
// ids a real run would, counting them locally.
func (e *Editor) newIDs(ctx context.Context, kind events.Kind, n int) ([]int, error) {
	lo, hi := reservedIDs(kind)
	out := make([]int, 0, n)
	for len(out) < n {
		want := n - len(out)
		first, err := e.takeIDs(ctx, kind, want)
		if err != nil {
			return nil, err
		}
		last := first + want - 1
		for id := first; id <= last; id++ {
			if id < lo || id > hi {
				out = append(out, id)
			}
		}
		if first <= hi && last >= lo {
			if err := e.skipIDs(ctx, kind, hi); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// takeIDs moves kind's counter on by n, or in a dry run a local cursor.
func (e *Editor) takeIDs(ctx context.Context, kind events.Kind, n int) (int, error) {
	if !e.DryRun {
		return e.Store.NextIDs(ctx, kind, n)
	}
	if err := e.dryCursor(ctx, kind); err != nil {
		return 0, err
	}
	first := e.dryNext[kind]
	e.dryNext[kind] += n
	return first, nil
}

// skipIDs makes kind's counter (or a dry run's cursor) hand out ids above
// id only.
func (e *Editor) skipIDs(ctx context.Context, kind events.Kind, id int) error {
	if !e.DryRun {
		return e.Store.Reserve(ctx, kind, id)
	}
	if err := e.dryCursor(ctx, kind); err != nil {
		return err
	}
	e.dryNext[kind] = max(e.dryNext[kind], id+1)
	return nil
}

// dryCursor starts a dry run's cursor of kind at the counter's next id.
func (e *Editor) dryCursor(ctx context.Context, kind events.Kind) error {
	if _, ok := e.dryNext[kind]; ok {
		return nil
	}
	next, err := e.Store.NextIDs(ctx, kind, 0)
	if err != nil {
		return err
	}
	if e.dryNext == nil {
		e.dryNext = map[events.Kind]int{}
	}
	e.dryNext[kind] = next
	return nil
}

// reservedIDs is the range of ids of kind that counters never hand out
// (empty, lo > hi, for kinds the historic service's ids do not bind).
func reservedIDs(kind events.Kind) (lo, hi int) {
	switch kind {
	case events.KindCompetition:
		return model.ReservedCompetitionIDs()
	case events.KindTeam:
		return model.ReservedTeamIDs()
	}
	return 1, 0
}

// assignID gives a new entity of kind an id: the one an editor chose
// (making sure the counter never hands it out), else historic, the
// entity's id in the historic v1 service when it has one (0 if not), else
// a new one.
func (e *Editor) assignID(ctx context.Context, kind events.Kind, id *int, historic int) error {
	if *id == 0 && historic != 0 {
		*id = historic
		return nil
	}
	if *id == 0 {
		ids, err := e.newIDs(ctx, kind, 1)
		if err == nil {
			*id = ids[0]
		}
		return err
	}
	if err := model.CheckID("id", *id); err != nil {
		return err
	}
	if lo, hi := reservedIDs(kind); e.DryRun || *id >= lo && *id <= hi {
		return nil
	}
	return e.Store.Reserve(ctx, kind, *id)
}
