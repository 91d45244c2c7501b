package events_test

import (
	"context"
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
	for got.Load() < first {
		time.Sleep(10 * time.Millisecond)
	}

	host := consumerNode(t, c)
	c.Stop(host)
	time.Sleep(500 * time.Millisecond)
	c.Start(host)
	back := time.Now()
	var second uint64
	for second == 0 {
		// The stream may be electing a leader: the write waits for it.
		pctx, pcancel := context.WithTimeout(context.Background(), 5*time.Second)
		second, _ = writer.Publish(pctx, msg(t, team(2, "Chelsea"), 0))
		pcancel()
	}
	for got.Load() < second && time.Since(back) < time.Minute {
		time.Sleep(10 * time.Millisecond)
	}
	took := time.Since(back).Round(time.Millisecond)
	t.Logf("consumer on node %d: seq %d delivered %s after the node came back", host, second, took)
	if got.Load() < second {
		t.Errorf("after its node restarted the consumer delivered up to %d of %d in %s", got.Load(), second, took)
	}
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
