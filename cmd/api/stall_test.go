package main

import (
	"context"
	"flag"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

var stallRestarts = flag.Int("stall.restarts", 0, "NATS node restarts of TestReplicaKeepsUpThroughRestarts (default 6, 100 with -cluster.full)")

// TestReplicaKeepsUpThroughRestarts: a replica following a three-node
// cluster (R3) while edits flow and each node is restarted in turn is
// never further behind than the bound it states (events.StallBound of its
// --stall-after: 6 s for 2 s), and catches up with every acknowledged edit
// once the restarts end. Without the stall check its consumer stalled for
// good within a few restarts (applied 11 of 67 and stayed there;
// TestCluster: "applied 1167 and serves 1167" 30 s later); with
// jetstream's ordered consumer, which replaced itself with a 10 s request,
// it was 10.6 s behind; without reading from the stream's leader while no
// consumer could be made, up to 8.6 s. A hundred restarts with
// -cluster.full (make test-cluster), six otherwise, or -stall.restarts.
func TestReplicaKeepsUpThroughRestarts(t *testing.T) {
	restarts := 6
	if *clusterFull {
		restarts = 100
	}
	if *stallRestarts > 0 {
		restarts = *stallRestarts
	}
	const stallAfter = 2 * time.Second
	c := startNATSCluster(t)
	s := c.connect(0)
	r := launch(t, "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--nats", c.URL(1), "--drain", "0s",
		"--stall-after", stallAfter.String())
	r.waitReady()

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()

	// The edits, each recorded with the time it was acknowledged.
	type edit struct {
		seq uint64
		at  time.Time
	}
	var mu sync.Mutex
	var acked []edit
	wg.Go(func() {
		for i := 1; ctx.Err() == nil; i++ {
			m := natstest.Msg(t, &model.Team{ID: 100000 + i, Name: fmt.Sprint("Team ", i)})
			seq, err := s.Publish(ctx, m)
			if err != nil {
				// A publication that ran out of patience is not an
				// edit the replica must show.
				continue
			}
			mu.Lock()
			acked = append(acked, edit{seq, time.Now()})
			mu.Unlock()
			select {
			case <-ctx.Done():
			case <-time.After(20 * time.Millisecond):
			}
		}
	})

	// How far behind the replica is: the time since it last had applied
	// everything the stream had. The test is the stream's only writer, so
	// that is the time since the stream acknowledged the oldest edit the
	// replica has not applied, sampled every 50 ms (the time taken before
	// the applied sequence is read, so that a slow read never adds to it).
	var worst time.Duration
	var worstSeq, worstApplied uint64
	wg.Go(func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			now := time.Now()
			applied := uint64(r.metric("fd_stream_last_applied_sequence"))
			mu.Lock()
			for len(acked) > 0 && acked[0].seq <= applied {
				acked = acked[1:]
			}
			if len(acked) > 0 {
				if behind := now.Sub(acked[0].at); behind > worst {
					worst, worstSeq, worstApplied = behind, acked[0].seq, applied
				}
			}
			mu.Unlock()
		}
	})

	for i := range restarts {
		node := i % 3
		c.Stop(node)
		c.Start(node)
		c.waitCurrent(s)
	}
	// Every edit, within a few stall bounds (each replacement of a
	// consumer may wait out a request timeout while the cluster settles).
	mu.Lock()
	last := uint64(0)
	if len(acked) > 0 {
		last = acked[len(acked)-1].seq
	}
	mu.Unlock()
	natstest.CheckFor(t, 30*time.Second, 20*time.Millisecond, func() error {
		if got := uint64(r.metric("fd_stream_last_applied_sequence")); got < last {
			return fmt.Errorf("applied %d, want %d; the replica's log:\n%s", got, last, r.logs.String())
		}
		return nil
	})
	cancel()
	wg.Wait()
	stalls := r.metric("fd_stream_stalls_total")
	bound := events.StallBound(stallAfter)
	t.Logf("%d restarts: at worst %s behind (edit %d, applied %d), bound %s; %v stalled consumers replaced", restarts, worst, worstSeq, worstApplied, bound, stalls)
	if worst > bound {
		t.Errorf("the replica was %s behind (edit %d, applied %d), more than its bound %s (--stall-after %s); its log:\n%s",
			worst, worstSeq, worstApplied, bound, stallAfter, r.logs.String())
	}
}
