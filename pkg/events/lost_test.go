package events_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/nats-io/nats.go/jetstream"
)

// TestScanRidesOutALostConsumer: a one-off read whose consumer is lost on
// the server midway (here deleted; on a loaded cluster, one that missed
// its heartbeats) reads on with another, from where it was, and sees
// every entity once. Before, Scan failed with the loss ("nats: no
// heartbeat received" failed the runbook's import and a follower's read
// of its feeds), which jetstream's ordered consumers used to ride out.
func TestScanRidesOutALostConsumer(t *testing.T) {
	s := natstest.MustOpen(t, natstest.MustStart(t))
	// More than a pull's batch (1024), so that the scan must ask the
	// server for more after the loss.
	const teams = 1500
	for i := 1; i <= teams; i++ {
		natstest.Put(t, s, team(i, fmt.Sprintf("Team %d", i)))
	}
	js, err := jetstream.New(s.Conn())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	seen := map[string]int{}
	deleted := 0
	err = s.Scan(ctx, "", func(ev events.Event) error {
		seen[ev.Key[0]]++
		if len(seen) != 2 || seen[ev.Key[0]] > 1 {
			return nil
		}
		stream, err := js.Stream(ctx, events.DefaultStream)
		if err != nil {
			return err
		}
		for name := range stream.ConsumerNames(ctx).Name() {
			if err := stream.DeleteConsumer(ctx, name); err != nil {
				return err
			}
			deleted++
		}
		return nil
	})
	if err != nil || deleted == 0 {
		t.Fatalf("scan: %v, having deleted %d consumers", err, deleted)
	}
	for i := 1; i <= teams; i++ {
		if n := seen[fmt.Sprint(i)]; n != 1 {
			t.Errorf("team %d seen %d times, want once", i, n)
		}
	}
}
