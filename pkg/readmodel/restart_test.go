package readmodel_test

import (
	"testing"

	"github.com/footdata/footballd/pkg/model"
)

// TestRestartForgetsTheReplacedStream: after Restart the model is not
// ready and says it replays a replaced stream, while readers keep the
// world published before; the replay's MarkReady makes it ready with the
// new stream's entities only, and the versions responses are cached under
// go on from the old stream's instead of starting again (a version used
// again would serve a response of the replaced stream).
func TestRestartForgetsTheReplacedStream(t *testing.T) {
	f := newFeed(t, t0)
	f.put(teams()...)
	f.m.MarkReady()
	oldVersion, _ := f.snap().TeamVersion(alpha)

	f.m.Restart()
	if st := f.m.Stats(); f.m.Ready() || !st.Replaying || st.Replaced != 1 || st.LastSeq != 0 {
		t.Errorf("after Restart: ready %v, stats %+v; want not ready, replaying, replaced once, nothing applied", f.m.Ready(), st)
	}
	if _, ok := f.snap().Team(alpha); !ok {
		t.Error("readers lost the published world before the replay was published")
	}

	// The new stream: other teams, from sequence 1 again.
	f.seq = 0
	f.put(&model.Team{ID: 9, Name: "India FC"}, &model.Team{ID: alpha, Name: "Alpha United"})
	f.m.MarkReady()
	st := f.m.Stats()
	if !f.m.Ready() || st.Replaying || st.ReadySeq != 2 {
		t.Errorf("after the replay: ready %v, stats %+v; want ready at sequence 2", f.m.Ready(), st)
	}
	s := f.snap()
	if _, ok := s.Team(bravo); ok {
		t.Error("a team only the replaced stream had is still served")
	}
	if tm, ok := s.Team(alpha); !ok || tm.Name != "Alpha United" {
		t.Errorf("team %d after the replay: %+v, %v; want the new stream's", alpha, tm, ok)
	}
	if v, _ := s.TeamVersion(alpha); v <= oldVersion {
		t.Errorf("team %d's version after the replay is %d, before %d: a version used again", alpha, v, oldVersion)
	}
}
