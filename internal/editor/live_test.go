package editor_test

import (
	"reflect"
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

// TestLiveExtraTimeAndShootOut: a knock-out match going to extra time and
// a shoot-out starts each with its running score; a shoot-out under way
// is level, and over, it has a winner.
func TestLiveExtraTimeAndShootOut(t *testing.T) {
	ctx := ctxT(t)
	ed := natstest.Editor(t, natstest.MustOpen(t, natstest.MustStart(t)))
	_, id := league(t, ed)
	sc := func(h, a int) *model.Score { return &model.Score{Home: h, Away: a} }
	steps := []struct {
		name   string
		change func(*model.Fixture)
		want   model.Result
	}{
		{"level after 90 minutes", func(f *model.Fixture) {
			f.Stage, f.Status, f.Minute, f.Result.FullTime = model.Playoff, model.InPlay, 90, sc(1, 1)
		}, model.Result{FullTime: sc(1, 1)}},
		{"extra time", func(f *model.Fixture) { f.Status, f.Minute = model.ExtraTime, 91 }, model.Result{FullTime: sc(1, 1), ExtraTime: sc(1, 1)}},
		{"a goal in extra time", func(f *model.Fixture) { f.Minute, f.Result.ExtraTime = 104, sc(2, 1) },
			model.Result{FullTime: sc(1, 1), ExtraTime: sc(2, 1)}},
		{"an equaliser", func(f *model.Fixture) { f.Minute, f.Result.ExtraTime = 118, sc(2, 2) },
			model.Result{FullTime: sc(1, 1), ExtraTime: sc(2, 2)}},
		{"the shoot-out", func(f *model.Fixture) { f.Status = model.PenaltyShootout },
			model.Result{FullTime: sc(1, 1), ExtraTime: sc(2, 2), Penalties: sc(0, 0)}},
		{"level in the shoot-out", func(f *model.Fixture) { f.Result.Penalties = sc(3, 3) },
			model.Result{FullTime: sc(1, 1), ExtraTime: sc(2, 2), Penalties: sc(3, 3)}},
		{"over", func(f *model.Fixture) { f.Status, f.Result.Penalties = model.Finished, sc(4, 3) },
			model.Result{FullTime: sc(1, 1), ExtraTime: sc(2, 2), Penalties: sc(4, 3)}},
	}
	for _, st := range steps {
		_, f, err := ed.PutFixture(ctx, id, true, func(f *model.Fixture) error { st.change(f); return nil })
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if !reflect.DeepEqual(f.Result, st.want) {
			t.Errorf("%s: result %+v, want %+v", st.name, f.Result, st.want)
		}
	}
	if _, _, err := ed.PutFixture(ctx, id, true, func(f *model.Fixture) error { f.Result.Penalties = sc(4, 4); return nil }); model.ErrorCode(err) != model.Invalid {
		t.Errorf("a finished shoot-out level: %v, want refused", err)
	}
}
