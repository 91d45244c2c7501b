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

	var mu sync.Mutex
	var last uint64
	var stalls []*events.StallError
	var stallAt time.Time
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- s.Consume(ctx, "", func(ev events.Event, _ events.Progress) error {
			mu.Lock()
			defer mu.Unlock()
			last = ev.Seq
			return nil
		}, nil, func(err error) {
			mu.Lock()
			defer mu.Unlock()
			if serr := (*events.StallError)(nil); errors.As(err, &serr) {
				stalls = append(stalls, serr)
				stallAt = time.Now()
			}
		})
	}()
	delivered := func(want uint64) func() error {
		return func() error {
			mu.Lock()
			defer mu.Unlock()
			if last != want {
				return fmt.Errorf("delivered up to %d, want %d", last, want)
			}
			return nil
		}
	}
	natstest.CheckFor(t, 10*time.Second, 10*time.Millisecond, delivered(1))

	nc, err := nats.Connect(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
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
	published := time.Now()
	natstest.Put(t, s, team(2, "Chelsea"))
	natstest.CheckFor(t, bound+5*time.Second, 10*time.Millisecond, delivered(2))
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
