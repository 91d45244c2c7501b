package events_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/backup"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/internal/provision"
	"github.com/footdata/footballd/pkg/events"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestConsumeNoticesAReplacedStream: a consumption whose stream is
// replaced (deleted and made again, as a restore does) by one with more
// messages than the old one had tells onRetry ErrStreamReplaced, then
// delivers the new stream from its start, every entity once, and calls
// onReady again. Resuming after the old stream's last sequence would skip
// the new one's first messages for good.
func TestConsumeNoticesAReplacedStream(t *testing.T) {
	srv := natstest.MustStart(t)
	s := natstest.MustOpen(t, srv)
	natstest.Put(t, s, team(1, "Arsenal"), team(2, "Chelsea"))

	var mu sync.Mutex
	var seqs []uint64
	var readies, replaced int
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- s.Consume(ctx, "", func(ev events.Event, _ events.Progress) error {
			mu.Lock()
			defer mu.Unlock()
			seqs = append(seqs, ev.Seq)
			return nil
		}, func() {
			mu.Lock()
			defer mu.Unlock()
			readies++
		}, func(err error) {
			mu.Lock()
			defer mu.Unlock()
			if errors.Is(err, events.ErrStreamReplaced) {
				replaced++
				seqs = nil
			}
		})
	}()
	state := func(wantReadies, wantReplaced int, want []uint64) func() error {
		return func() error {
			mu.Lock()
			defer mu.Unlock()
			if readies != wantReadies || replaced != wantReplaced || !slices.Equal(seqs, want) {
				return fmt.Errorf("ready %d times, replaced %d, delivered %v; want %d, %d, %v", readies, replaced, seqs, wantReadies, wantReplaced, want)
			}
			return nil
		}
	}
	natstest.CheckFor(t, 10*time.Second, 10*time.Millisecond, state(1, 0, []uint64{1, 2}))

	nc, err := nats.Connect(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	if err := js.DeleteStream(ctx, events.DefaultStream); err != nil {
		t.Fatal(err)
	}
	natstest.MustProvision(t, srv.URL(), events.StreamConfig{})
	natstest.Put(t, s, team(3, "Everton"), team(4, "Fulham"), team(5, "Leeds"))
	natstest.CheckFor(t, 15*time.Second, 10*time.Millisecond, state(2, 1, []uint64{1, 2, 3}))

	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("consume ended with %v", err)
	}
}

// TestLeaderElsewhereIsNotAReplacement: on a three-node cluster, the
// stream's leader stopped and started again moves the leadership, and
// the stream, answered by another node, must not look replaced (its
// creation time and restore marker are the cluster's, not a node's): the
// consumption resumes without a replay. A stream restored from a backup
// (`ingest restore`) has no creation time of the cluster's: each node
// has its own (nats-server 2.15), so that a consumption begun on one
// leader and asked by the next after an election found the stream
// replaced, and a replica replayed a stream nobody had replaced.
func TestLeaderElsewhereIsNotAReplacement(t *testing.T) {
	tests := []struct {
		name     string
		restored bool
	}{
		{"made by stream init", false},
		{"restored from a backup", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { leaderElsewhere(t, tt.restored) })
	}
}

func leaderElsewhere(t *testing.T, restored bool) {
	c := natstest.StartCluster(t)
	natstest.MustProvisionEventually(t, c.URL(0), events.StreamConfig{Replicas: 3})
	nc, err := events.Dial{URL: c.URL(1), Name: "test"}.Conn()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	s, err := events.Open(ctxT(t), nc, events.StreamConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if restored {
		natstest.Put(t, s, team(3, "Everton"))
		restoreItself(t, nc)
	}
	var mu sync.Mutex
	var last uint64
	var replaced []error
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.Consume(ctx, "", func(ev events.Event, _ events.Progress) error {
		mu.Lock()
		defer mu.Unlock()
		last = ev.Seq
		return nil
	}, nil, func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if errors.Is(err, events.ErrStreamReplaced) {
			replaced = append(replaced, err)
		}
	})
	delivered := func(seq uint64) func() error {
		return func() error {
			mu.Lock()
			defer mu.Unlock()
			if last < seq {
				return fmt.Errorf("delivered up to %d of %d", last, seq)
			}
			return nil
		}
	}
	natstest.CheckFor(t, 30*time.Second, 10*time.Millisecond, delivered(natstest.Put(t, s, team(1, "Arsenal"))))

	js, _ := jetstream.New(nc)
	st, err := js.Stream(ctxT(t), events.DefaultStream)
	if err != nil {
		t.Fatal(err)
	}
	leader := c.Node(st.CachedInfo().Cluster.Leader)
	c.Stop(leader)
	c.Start(leader)
	natstest.CheckFor(t, 60*time.Second, 50*time.Millisecond, func() error {
		info, err := st.Info(ctxT(t))
		if err != nil || info.Cluster == nil || info.Cluster.Leader == "" {
			return fmt.Errorf("no stream leader yet: %v", err)
		}
		t.Logf("stream leader %s, then %s", c.Opts[leader].Name, info.Cluster.Leader)
		return nil
	})
	natstest.CheckFor(t, 60*time.Second, 10*time.Millisecond, delivered(natstest.Put(t, s, team(2, "Chelsea"))))
	mu.Lock()
	defer mu.Unlock()
	if len(replaced) > 0 {
		t.Errorf("the stream looked replaced after its leader moved: %v", replaced)
	}
}

// restoreItself backs the stream up and restores it in its own place, on
// three nodes, as `ingest restore --force` does.
func restoreItself(t *testing.T, nc *nats.Conn) {
	t.Helper()
	ctx := ctxT(t)
	file := filepath.Join(t.TempDir(), "stream.fdbackup")
	if _, err := backup.Write(ctx, nc, file, "test", []string{events.DefaultStream}, nil); err != nil {
		t.Fatal(err)
	}
	b, err := backup.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	staged, err := b.Stage(ctx, func(ctx context.Context, nc *nats.Conn) error {
		_, err := provision.Run(ctx, nc, events.StreamConfig{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := b.Plan(ctx, nc, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Restore(ctx, nc, plan, staged, 3, nil); err != nil {
		t.Fatal(err)
	}
}
