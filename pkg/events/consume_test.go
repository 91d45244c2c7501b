package events_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/nats-io/nats.go/jetstream"
)

// TestConsumerOutlivesItsNode: a consumer lives on one node of a cluster.
// When that node restarts, the consumer is gone, and the reader finds out
// only from missing heartbeats; it must resume and deliver what was
// written meanwhile. The time it took is logged, not asserted (a stream
// leader's election, 4 to 9 s, can come on top): about 1.5 s with the
// 1 s heartbeat, 9.5 s with the client's default of 5 s.
func TestConsumerOutlivesItsNode(t *testing.T) {
	c := natstest.StartCluster(t)
	natstest.MustProvisionEventually(t, c.URL(0), events.StreamConfig{Replicas: 3})
	open := func(i int) *events.Store {
		nc, err := events.Dial{URL: c.URL(i), Name: "test"}.Conn()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		s, err := events.Open(ctxT(t), nc, events.StreamConfig{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	writer, reader := open(1), open(2)
	var got atomic.Uint64
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go reader.Consume(ctx, "", func(ev events.Event, _ events.Progress) error {
		got.Store(ev.Seq)
		return nil
	}, nil, func(err error) { t.Logf("consumer replaced: %v", err) })
	first := natstest.Put(t, writer, team(1, "Arsenal"))
	delivered := func(seq uint64) func() error {
		return func() error {
			if n := got.Load(); n < seq {
				return fmt.Errorf("the consumer delivered up to %d of %d", n, seq)
			}
			return nil
		}
	}
	natstest.CheckFor(t, 10*time.Second, 10*time.Millisecond, delivered(first))

	host := consumerNode(t, c)
	c.Stop(host)
	// The node's outage, which the consumer must outlive: not a wait.
	time.Sleep(500 * time.Millisecond)
	c.Start(host)
	back := time.Now()
	var second uint64
	// The stream may be electing a leader: each write waits up to 5 s for
	// it, and is tried again.
	natstest.CheckFor(t, time.Minute, 10*time.Millisecond, func() error {
		pctx, pcancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer pcancel()
		var err error
		second, err = writer.Publish(pctx, msg(t, team(2, "Chelsea"), 0))
		if err != nil {
			return fmt.Errorf("a write after node %d came back: %w", host, err)
		}
		return nil
	})
	natstest.CheckFor(t, time.Minute, 10*time.Millisecond, delivered(second))
	t.Logf("consumer on node %d: seq %d delivered %s after the node came back", host, second, time.Since(back).Round(time.Millisecond))
}

// consumerNode is the index of the node holding the stream's one consumer.
func consumerNode(t *testing.T, c *natstest.Cluster) int {
	t.Helper()
	nc, err := events.Dial{URL: c.URL(0), Name: "test"}.Conn()
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	st, err := js.Stream(ctxT(t), "FOOTBALL")
	if err != nil {
		t.Fatal(err)
	}
	list := st.ListConsumers(ctxT(t))
	for ci := range list.Info() {
		if ci.Cluster != nil {
			if i := c.Node(ci.Cluster.Leader); i >= 0 {
				return i
			}
		}
	}
	t.Fatalf("no consumer found: %v", list.Err())
	return -1
}
