package events_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
)

// TestTakeOwnIDs: a source's own ids are taken where they were never
// handed out: above the counter, which moves past them, or among the ids
// it skipped doing so, in any order; an id handed out (NextIDs), reserved
// by an editor or taken before is not; NextIDs never hands out a taken
// or skipped one.
func TestTakeOwnIDs(t *testing.T) {
	ctx := ctxT(t)
	srv := natstest.MustStart(t)
	s := natstest.MustOpen(t, srv)
	steps := []struct {
		name    string
		next    int   // NextIDs of 1 first (0: none), and the id it must give
		reserve int   // Reserve first (0: none)
		take    []int // then TakeOwnIDs
		want    []int
	}{
		{name: "above the counter", next: 1, take: []int{100, 50}, want: []int{50, 100}},
		{name: "skipped ones, read later", take: []int{70, 20, 100, 1}, want: []int{20, 70}},
		{name: "the counter goes on above them", next: 101, take: []int{101, 150}, want: []int{150}},
		{name: "an editor's id is not free", reserve: 30, take: []int{29, 30, 31}, want: []int{29, 31}},
		{name: "nor one reserved above", reserve: 200, take: []int{199, 201}, want: []int{201}},
	}
	for _, st := range steps {
		if st.next > 0 {
			if got, err := s.NextIDs(ctx, events.KindFixture, 1); err != nil || got != st.next {
				t.Fatalf("%s: NextIDs %d, %v; want %d", st.name, got, err, st.next)
			}
		}
		if st.reserve > 0 {
			if err := s.Reserve(ctx, events.KindFixture, st.reserve); err != nil {
				t.Fatal(err)
			}
		}
		taken, err := s.TakeOwnIDs(ctx, events.KindFixture, st.take)
		if err != nil {
			t.Fatal(err)
		}
		if got := slices.Sorted(maps.Keys(taken)); !slices.Equal(got, st.want) {
			t.Errorf("%s: took %v of %v, want %v", st.name, got, st.take, st.want)
		}
	}
	// Another store, which never wrote the counter, takes a skipped id
	// and hands out the next ones as the first would.
	other := natstest.MustOpen(t, srv)
	if taken, err := other.TakeOwnIDs(ctx, events.KindFixture, []int{60, 160}); err != nil || !taken[60] || taken[160] {
		t.Errorf("another store took %v, %v; want 60 (skipped) and not 160 (passed over by a reservation)", taken, err)
	}
	if got, err := s.NextIDs(ctx, events.KindFixture, 1); err != nil || got != 202 {
		t.Errorf("NextIDs after the steps: %d, %v; want 202", got, err)
	}
}
