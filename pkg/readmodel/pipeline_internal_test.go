package readmodel

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// TestHeldBackChangeIsPublished checks the path of a live change that Run
// holds back because the stream said more was waiting, and whose follower
// never came: the background goroutine publishes it after MaxDelay.
func TestHeldBackChangeIsPublished(t *testing.T) {
	// Long enough that the race detector and a loaded machine cannot make
	// the held-back change look late at once.
	m, err := New(Config{MaxDelay: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	m.MarkReady()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { m.background(ctx) })
	defer wg.Wait()
	defer cancel()

	data, err := events.Encode(&model.Team{ID: 7, Name: "Seven"})
	if err != nil {
		t.Fatal(err)
	}
	ev := events.Event{Kind: events.KindTeam, Key: []string{"7"}, Subject: "football.team.7", Seq: 42, Data: data}
	v, derr := decodeEvent(ev)
	before := m.Snapshot()
	m.applyChunk(&chunk{evs: []events.Event{ev}, pending: []uint64{5}, vals: []any{v}, errs: []error{derr}})
	if s := m.Snapshot(); s.Seq() == 42 {
		t.Fatal("published at once although more was pending")
	}
	// Applied but not served: a reader that waits for the served sequence
	// (tests, operators) must not take the change for visible yet.
	if st := m.Stats(); st.LastSeq != 42 || st.ServedSeq == 42 {
		t.Errorf("held back: last applied %d, served %d; want 42 applied, not served", st.LastSeq, st.ServedSeq)
	}
	select {
	case <-before.Changed():
	case <-time.After(5 * time.Second):
		t.Fatal("held-back change never published")
	}
	if tm, ok := m.Snapshot().Team(7); !ok || tm.Name != "Seven" {
		t.Errorf("team after publication: %+v %v", tm, ok)
	}
	if st := m.Stats(); st.ServedSeq != 42 {
		t.Errorf("published: served %d, want 42", st.ServedSeq)
	}
}

// TestServedSeqPassesEventsWithNothingToPublish: an event that changes
// nothing served (here one rejected) is behind the served data as soon
// as it is applied, although no snapshot is published for it; a reader
// waiting for the served sequence to reach the stream's last message
// would otherwise wait for ever.
func TestServedSeqPassesEventsWithNothingToPublish(t *testing.T) {
	m, err := New(Config{MaxDelay: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	m.MarkReady()
	team, err := events.Encode(&model.Team{ID: 7, Name: "Seven"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		ev   events.Event
	}{
		{"rejected", events.Event{Kind: events.KindTeam, Key: []string{"7"}, Subject: "football.team.7", Seq: 50, Data: []byte("{not json")}},
		{"applied", events.Event{Kind: events.KindTeam, Key: []string{"7"}, Subject: "football.team.7", Seq: 51, Data: team}},
	}
	for _, tc := range cases {
		v, derr := decodeEvent(tc.ev)
		m.applyChunk(&chunk{evs: []events.Event{tc.ev}, pending: []uint64{0}, vals: []any{v}, errs: []error{derr}})
		if st := m.Stats(); st.ServedSeq != tc.ev.Seq || st.LastSeq != tc.ev.Seq {
			t.Errorf("%s event %d: last applied %d, served %d; want both %d", tc.name, tc.ev.Seq, st.LastSeq, st.ServedSeq, tc.ev.Seq)
		}
	}
}
