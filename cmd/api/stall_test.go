package main

import (
	"context"
	"flag"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/model"
)

var stallRestarts = flag.Int("stall.restarts", 0, "NATS node restarts of TestReplicaKeepsUpThroughRestarts (default 6, 100 with -cluster.full)")

// TestReplicaKeepsUpThroughRestarts: a replica following a three-node
// cluster (R3) while edits flow and each node is restarted in turn
// catches up with every acknowledged edit once the restarts end, and
// reports how far behind it was at worst. Without the stall check its
// consumer stalls for good within a few restarts (applied 11 of 67 and
// stayed there; TestCluster: "applied 1167 and serves 1167" 30 s later).
// A hundred restarts with -cluster.full (make test-cluster), six
// otherwise, or -stall.restarts.
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

	// The replica's applied sequence, sampled against the oldest
	// acknowledged edit it has not applied.
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
			applied := uint64(r.metric("fd_stream_last_applied_sequence"))
			now := time.Now()
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
	t.Logf("%d restarts: at worst %s behind (edit %d, applied %d); %v stalled consumers replaced", restarts, worst, worstSeq, worstApplied, stalls)
}
