package readmodel_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/readmodel"
)

// waitSeq waits until the model has published seq.
func waitSeq(ctx context.Context, t *testing.T, m *readmodel.Model, seq uint64) readmodel.Snapshot {
	t.Helper()
	for {
		s := m.Snapshot()
		if s.Seq() >= seq {
			return s
		}
		select {
		case <-s.Changed():
		case <-ctx.Done():
			t.Fatalf("seq %d never published (at %d)", seq, s.Seq())
		}
	}
}

func TestRunAgainstJetStream(t *testing.T) {
	store := natstest.MustOpen(t, natstest.MustStart(t))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	for _, v := range teams() {
		natstest.Put(t, store, v)
	}
	natstest.Put(t, store, league(10, 2017, gd))
	natstest.Put(t, store, timed(1, 10, 1, alpha, bravo, kickoff(1)))
	natstest.Put(t, store, timed(2, 10, 1, charlie, delta, kickoff(1)))
	// Several revisions: the replay delivers the last.
	natstest.Put(t, store, played(1, 10, 1, alpha, bravo, "0-0"))
	natstest.Put(t, store, played(1, 10, 1, alpha, bravo, "2-1"))
	if _, err := store.NextIDs(ctx, events.KindFixture, 10); err != nil {
		t.Fatal(err)
	}
	// A message no editor could write: the replica must skip it.
	if err := store.Conn().Publish("football.fixture.10.3", []byte("garbage")); err != nil {
		t.Fatal(err)
	}
	if err := store.Conn().Flush(); err != nil {
		t.Fatal(err)
	}

	m, err := readmodel.New(readmodel.Config{Now: func() time.Time { return t0.Add(time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- m.Run(runCtx, store) }()
	if err := m.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	st := m.Stats()
	if !st.Ready || st.DecodeErrors != 1 || st.ReplayDuration <= 0 || st.LastSeq == 0 {
		t.Errorf("stats after replay: %+v", st)
	}
	s := m.Snapshot()
	table, _ := s.Table(10, 1)
	if want := []string{"A 1 1 3", "C 2 2 0", "D 3 2 0", "B 4 4 0"}; !equalLines(rowLines(table), want) {
		t.Errorf("table after replay:\n got %q\nwant %q", rowLines(table), want)
	}

	// A live result is visible promptly, with a new version.
	start := time.Now()
	seq := natstest.Put(t, store, played(2, 10, 1, charlie, delta, "5-0"))
	live := waitSeq(ctx, t, m, seq)
	t.Logf("edit to visible: %s", time.Since(start))
	table2, _ := live.Table(10, 1)
	if want := []string{"C 1 1 3", "A 2 2 3", "B 3 3 0", "D 4 4 0"}; !equalLines(rowLines(table2), want) {
		t.Errorf("table after live result:\n got %q\nwant %q", rowLines(table2), want)
	}
	if table2.Version == table.Version {
		t.Error("version did not change")
	}
	if fx, _ := live.Fixture(2); fx.Status != model.Finished {
		t.Errorf("fixture: %+v", fx)
	}

	// A burst, as from an import while replicas run: every change arrives,
	// published in fewer steps than messages.
	pubs := m.Stats().Publications
	var burst []any
	for i := range 200 {
		burst = append(burst, played(1000+i, 10, 2+i%5, []int{alpha, bravo, charlie, delta}[i%4], []int{bravo, charlie, delta, alpha}[i%4], fmt.Sprintf("%d-%d", i%3, i%2)))
	}
	last := natstest.PutNew(t, store, burst...)
	after := waitSeq(ctx, t, m, last)
	if fs, _ := after.CompetitionFixtures(10, readmodel.FixtureFilter{}); len(fs) != 202 {
		t.Errorf("after the burst: %d fixtures, want 202", len(fs))
	}
	tb, _ := after.Table(10, 6)
	if msg := checkTable(tb, league(10, 2017).Rules); msg != "" {
		t.Error(msg)
	}
	t.Logf("a burst of 200 changes took %d publications", m.Stats().Publications-pubs)

	stop()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Run returned %v, want context.Canceled", err)
	}
}
