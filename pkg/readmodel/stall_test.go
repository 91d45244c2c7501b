package readmodel_test

import (
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/pkg/events"
)

// TestCatchingUpAfterAStall: once a stalled consumer was replaced, the
// model says it is catching up, with the reason, until it has applied
// the stream's last message as it was then, not one sequence before;
// a stream replaced meanwhile ends it (its replay is not ready anyway).
func TestCatchingUpAfterAStall(t *testing.T) {
	f := newFeed(t, t0)
	f.put(teams()[0], teams()[1])
	f.m.MarkReady()
	if st := f.m.Stats(); st.CatchingUp || st.Stalls != 0 {
		t.Fatalf("before any stall: catching up %v, stalls %d", st.CatchingUp, st.Stalls)
	}
	f.m.Stalled(&events.StallError{Delivered: 2, Last: 4, After: 5 * time.Second})
	for _, step := range []struct {
		put  bool
		want bool
	}{{false, true}, {true, true}, {true, false}} {
		if step.put {
			f.put(teams()[2])
		}
		st := f.m.Stats()
		if st.CatchingUp != step.want || st.Stalls != 1 {
			t.Fatalf("at %d: catching up %v, stalls %d; want %v, 1", st.LastSeq, st.CatchingUp, st.Stalls, step.want)
		}
		if want := "delivered up to sequence 2 of 4 and nothing more for over 5s, of the 9s a consumer may be behind"; step.want && !strings.Contains(st.CatchUpReason, want) {
			t.Errorf("reason %q, want it to say %q", st.CatchUpReason, want)
		}
	}

	f.m.Stalled(&events.StallError{Delivered: 4, Last: 9, After: 5 * time.Second})
	f.m.Restart()
	if st := f.m.Stats(); st.CatchingUp || st.Stalls != 2 {
		t.Errorf("after a restart: catching up %v, stalls %d; want false, 2", st.CatchingUp, st.Stalls)
	}
}
