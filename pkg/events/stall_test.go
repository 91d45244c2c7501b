package events_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestConsumeReplacesAStalledConsumer: a consumer that goes on sending
// heartbeats but stops delivering (paused server-side, as deterministic a
// stand-in as there is for one whose node restarted under it: the
// replica applied 1167 of 1168 and stayed there) is noticed once it has
// been behind for StallAfter, reported to onRetry as a *StallError, and
// replaced by one that delivers what it missed. Without the stall check
// the message is never delivered.
func TestConsumeReplacesAStalledConsumer(t *testing.T) {
	srv := natstest.MustStart(t)
	const bound = events.MinStallAfter
	s, err := events.Connect(ctxT(t), events.Dial{URL: srv.URL(), Name: "stall"}, events.StreamConfig{StallAfter: bound})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	natstest.Put(t, s, team(1, "Arsenal"))

	var got lastDelivered
	var mu sync.Mutex
	var stalls []*events.StallError
	var stallAt time.Time
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		_ = s.Consume(ctx, "", got.handle, nil, func(err error) {
			mu.Lock()
			defer mu.Unlock()
			if serr := (*events.StallError)(nil); errors.As(err, &serr) {
				stalls = append(stalls, serr)
				stallAt = time.Now()
			}
		})
	}()
	natstest.CheckFor(t, 10*time.Second, 10*time.Millisecond, got.upTo(1))
	pauseConsumers(t, srv.URL())
	published := time.Now()
	natstest.Put(t, s, team(2, "Chelsea"))
	natstest.CheckFor(t, bound+5*time.Second, 10*time.Millisecond, got.upTo(2))
	took := time.Since(published)

	mu.Lock()
	defer mu.Unlock()
	if len(stalls) != 1 || stalls[0].Delivered != 1 || stalls[0].Last != 2 || stalls[0].After != bound {
		t.Fatalf("stalls %v; want one, delivered 1 of 2 for %s", stalls, bound)
	}
	// Noticed after the bound, within a second's ask more (and the
	// second the message may have waited for the first ask).
	if since := stallAt.Sub(published); since < bound || since > bound+2*time.Second+time.Second/2 {
		t.Errorf("stall reported %s after the publication; want from %s to %s", since, bound, bound+2*time.Second)
	}
	t.Logf("published message delivered %s after its publication, through a new consumer", took)
}

// TestConsumeCatchesUpWithoutANewConsumer: a consumer that stalls where no
// other can be made (here the stream allows one consumer, and the stalled
// one keeps its place until it expires; on a cluster, a meta leader being
// elected) is stood in for by reads from the stream's leader, so that
// what was published is delivered within the stall bound. That held for a
// consumption that had delivered something, not for one that became ready
// on an empty stream: it made its first consumer again, with the patience
// of a replay (a minute) and nothing read meanwhile. A replica of
// deploy/local-cluster.sh whose first consumer lost its heartbeats while
// the cluster formed served nothing of an import for over ten seconds
// while /readyz said ready (the runbook's 404).
func TestConsumeCatchesUpWithoutANewConsumer(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before int // teams in the stream before the consumption starts
	}{
		{"ready after one entity", 1},
		{"ready on an empty stream", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := natstest.MustStart(t)
			nc, err := nats.Connect(srv.URL())
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			js, _ := jetstream.New(nc)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			stream, err := js.Stream(ctx, events.DefaultStream)
			if err != nil {
				t.Fatal(err)
			}
			cfg := stream.CachedInfo().Config
			cfg.MaxConsumers = 1
			if _, err := js.UpdateStream(ctx, cfg); err != nil {
				t.Fatalf("allow one consumer: %v", err)
			}

			const bound = events.MinStallAfter
			s, err := events.Connect(ctxT(t), events.Dial{URL: srv.URL(), Name: "catchup"}, events.StreamConfig{StallAfter: bound})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(s.Close)
			for i := 1; i <= tc.before; i++ {
				natstest.Put(t, s, team(i, fmt.Sprint("Team ", i)))
			}
			var got lastDelivered
			ready := make(chan struct{})
			done := make(chan error, 1)
			go func() { done <- s.Consume(ctx, "", got.handle, func() { close(ready) }, func(error) {}) }()
			select {
			case <-ready:
			case err := <-done:
				t.Fatalf("consume ended before ready: %v", err)
			case <-time.After(10 * time.Second):
				t.Fatal("not ready within 10 s")
			}
			// The consumer that made it ready, paused: it goes on sending
			// heartbeats and delivers nothing.
			pauseConsumers(t, srv.URL())
			published := time.Now()
			want := natstest.Put(t, s, team(tc.before+1, "Chelsea"))
			// Within the bound, with the pause before the replacement and
			// a busy machine's grace: far from the half minute the stalled
			// consumer holds its place (consumerIdle), which the first
			// consumer made again waited for, with a minute's patience.
			natstest.CheckFor(t, events.StallBound(bound)+5*time.Second, 10*time.Millisecond, got.upTo(want))
			t.Logf("delivered %s after its publication, with no new consumer", time.Since(published).Round(time.Millisecond))
		})
	}
}

// lastDelivered records the last sequence a consumption delivered.
type lastDelivered struct {
	mu   sync.Mutex
	last uint64
}

func (d *lastDelivered) handle(ev events.Event, _ events.Progress) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.last = ev.Seq
	return nil
}

// upTo checks that the last sequence delivered is want.
func (d *lastDelivered) upTo(want uint64) func() error {
	return func() error {
		d.mu.Lock()
		defer d.mu.Unlock()
		if d.last != want {
			return fmt.Errorf("delivered up to %d, want %d", d.last, want)
		}
		return nil
	}
}

// pauseConsumers pauses every consumer of the stream on the server at url
// for an hour: a paused consumer goes on sending heartbeats and delivers
// nothing, as deterministic a stand-in as there is for one whose node
// restarted under it. It fails the test if there is none.
func pauseConsumers(t *testing.T, url string) {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx := ctxT(t)
	stream, err := js.Stream(ctx, events.DefaultStream)
	if err != nil {
		t.Fatal(err)
	}
	names := stream.ConsumerNames(ctx)
	paused := 0
	for name := range names.Name() {
		if _, err := js.PauseConsumer(ctx, events.DefaultStream, name, time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		paused++
	}
	if paused == 0 {
		t.Fatalf("no consumer to pause: %v", names.Err())
	}
}
