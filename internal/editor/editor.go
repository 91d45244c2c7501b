// Package editor is the write side of the service: it checks an editor's
// change against the rules and the current state of the stream, then
// publishes it with compare-and-set. The CLI and the importers both write
// through it, so a change is validated the same way whatever its origin.
package editor

import (
	"context"
	"fmt"
	"strings"

	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// Editor writes changes on behalf of one person or program.
type Editor struct {
	Store *events.Store
	Meta  events.Meta
	// DryRun validates and reports changes without publishing them.
	DryRun bool

	dryTaken   map[events.Kind]int // ids handed out by a dry run
	knownTeams map[int]bool        // teams seen to exist
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
	// Diff lists the fields that changed, "path: old → new".
	Diff []string
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
	for _, d := range c.Diff {
		b.WriteString("\n  " + d)
	}
	return b.String()
}

// put writes value from prev (nil to create) and describes the change.
func (e *Editor) put(ctx context.Context, value any, prev *events.Revision) (Change, error) {
	subject, err := events.SubjectOf(value)
	if err != nil {
		return Change{}, err
	}
	body, err := events.Encode(value)
	if err != nil {
		return Change{}, err
	}
	ch := Change{Subject: subject, Action: Created, DryRun: e.DryRun}
	var old []byte
	if prev != nil {
		old = prev.Data
		ch.Action = Updated
		ch.Seq = prev.Seq
	}
	ch.Diff, err = Diff(old, body)
	if err != nil {
		return Change{}, err
	}
	if len(ch.Diff) == 0 {
		ch.Action = Unchanged
		return ch, nil
	}
	if e.DryRun {
		return ch, nil
	}
	res, err := e.Store.Put(ctx, events.Write{Value: value, Prev: prev, Meta: e.Meta})
	if err != nil {
		return Change{}, err
	}
	ch.Seq = res.Seq
	return ch, nil
}

// current loads the current state of subject; found is false if it does not
// exist.
func current[T any](ctx context.Context, s *events.Store, subject string) (v T, rev *events.Revision, err error) {
	v, r, err := events.Load[T](ctx, s, subject)
	if model.ErrorCode(err) == model.NotFound {
		return v, nil, nil
	}
	if err != nil {
		return v, nil, err
	}
	return v, &r, nil
}

// mustExist loads subject or fails with a not-found error naming field.
func mustExist[T any](ctx context.Context, s *events.Store, subject, field string, id any) (T, *events.Revision, error) {
	v, rev, err := current[T](ctx, s, subject)
	if err == nil && rev == nil {
		err = &model.Error{Code: model.NotFound, Field: field, Value: fmt.Sprint(id), Message: "no such " + field}
	}
	return v, rev, err
}
