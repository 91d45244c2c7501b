package editor_test

import (
	"testing"

	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/model"
)

// TestLiveEdits: each change of a live match, the minute alone included,
// is one revision; the same state again is none; the minute goes once the
// match is over; a jump from before kick-off to half time records the
// kick-off.
func TestLiveEdits(t *testing.T) {
	ctx := ctxT(t)
	ed := natstest.Editor(t, natstest.MustOpen(t, natstest.MustStart(t)))
	_, id := league(t, ed)
	steps := []struct {
		name    string
		change  func(*model.Fixture)
		action  editor.Action
		revs    int
		status  model.Status
		minute  int
		running string
	}{
		{"to half time from before kick-off", func(f *model.Fixture) { f.Status, f.Minute, f.InjuryTime = model.Paused, 45, 1 },
			editor.Updated, 2, model.Paused, 45, "0-0"},
		{"the same again", func(f *model.Fixture) { f.Status, f.Minute, f.InjuryTime = model.Paused, 45, 1 }, editor.Unchanged, 0, model.Paused, 45, "0-0"},
		{"second half", func(f *model.Fixture) { f.Status, f.Minute, f.InjuryTime = model.InPlay, 46, 0 }, editor.Updated, 1, model.InPlay, 46, "0-0"},
		{"the minute alone", func(f *model.Fixture) { f.Minute = 47 }, editor.Updated, 1, model.InPlay, 47, "0-0"},
		{"a goal", func(f *model.Fixture) { f.Result.FullTime = &model.Score{Home: 1} }, editor.Updated, 1, model.InPlay, 47, "1-0"},
		{"full time with the last minute a source still sends", func(f *model.Fixture) { f.Status, f.Minute = model.Finished, 90 },
			editor.Updated, 1, model.Finished, 0, "1-0"},
	}
	for _, st := range steps {
		ch, f, err := ed.PutFixture(ctx, id, true, func(f *model.Fixture) error { st.change(f); return nil })
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if ch.Action != st.action || ch.Revisions != st.revs || f.Status != st.status || f.Minute != st.minute || f.Result.FullTime.String() != st.running {
			t.Errorf("%s: %s with %d revisions, %s minute %d score %s; want %s with %d, %s minute %d score %s", st.name,
				ch.Action, ch.Revisions, f.Status, f.Minute, f.Result.FullTime, st.action, st.revs, st.status, st.minute, st.running)
		}
	}
}
