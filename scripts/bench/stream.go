package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/footdata/footballd/internal/generate"
	"github.com/footdata/footballd/internal/natsembed"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/internal/provision"
	"github.com/footdata/footballd/pkg/events"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// world is a NATS server with its own storage holding one stream.
type world struct {
	name  string
	srv   natsServer
	store *events.Store
	dir   string
}

// natsServer is where a world's stream lives: a server in this process
// (natsembed) or nats-server processes of their own (fanout.go).
type natsServer interface {
	URL() string
	Stop()
}

// newWorld starts an empty server with the stream set up as `ingest stream
// init` sets it up (events.StreamConfig defaults: file storage).
func newWorld(ctx context.Context, env *benchEnv, name string) (*world, error) {
	dir := filepath.Join(env.tmp, name)
	srv, err := natsembed.Start(natsembed.Options{Dir: dir})
	if err != nil {
		return nil, err
	}
	store, err := provisioned(ctx, srv.URL(), 0)
	if err != nil {
		srv.Stop()
		return nil, err
	}
	return &world{name: name, srv: srv, store: store, dir: dir}, nil
}

// provisioned sets up the stream, buckets and queue on the server at url,
// at the replication given (0: 1), and opens a store on the stream.
func provisioned(ctx context.Context, url string, replicas int) (*events.Store, error) {
	dial := events.Dial{URL: url, Name: "bench"}
	nc, err := dial.Conn()
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	if _, err := provision.Run(ctx, nc, events.StreamConfig{Replicas: replicas}); err != nil {
		return nil, err
	}
	return events.Connect(ctx, dial, events.StreamConfig{})
}

func (w *world) url() string { return w.srv.URL() }

// close stops the server and removes its storage: the big worlds take
// gigabytes of disk.
func (w *world) close() {
	if w.store != nil {
		w.store.Close()
	}
	w.srv.Stop()
	_ = os.RemoveAll(w.dir)
}

// generateWorld publishes a deterministic synthetic world of at least
// fixtures fixtures, each going through extraEdits revisions first.
func generateWorld(ctx context.Context, w *world, fixtures, extraEdits int) (generate.Summary, error) {
	return generate.Run(ctx, w.store, generate.Config{Seed: 1, Fixtures: fixtures, ExtraEdits: extraEdits,
		Meta: events.Meta{Editor: "bench", Source: "generate"}}, nil)
}

// rawPublish is the ingest baseline: natstest.RawPublish of n fixture-sized
// messages to a fresh server with the same stream configuration.
func rawPublish(ctx context.Context, env *benchEnv, n int) (time.Duration, error) {
	w, err := newWorld(ctx, env, "raw-publish")
	if err != nil {
		return 0, err
	}
	defer w.close()
	return natstest.RawPublish(ctx, w.url(), n)
}

// rawReplayIn runs rawReplay in a child process (the bench binary started
// again with --raw-replay), as the replica it is compared with runs in one:
// in the bench process it would share a collector with the NATS server
// and the world.
func rawReplayIn(ctx context.Context, env *benchEnv, url string) (time.Duration, int, error) {
	// Only standard output is read: a runtime trace (GODEBUG) goes to
	// standard error.
	cmd := exec.CommandContext(ctx, env.self, "--raw-replay", url)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return 0, 0, fmt.Errorf("raw replay: %v: %s", err, stderr.Bytes())
	}
	var d time.Duration
	var n int
	if _, err := fmt.Sscanf(string(out), "%d %d", &d, &n); err != nil {
		return 0, 0, fmt.Errorf("raw replay printed %q: %w", out, err)
	}
	return d, n, nil
}

// rawReplayMain is the child's side of rawReplayIn.
func rawReplayMain(url string) error {
	d, n, err := rawReplay(context.Background(), url)
	if err != nil {
		return err
	}
	fmt.Println(int64(d), n)
	return nil
}

// rawReplay reads the last message of every subject with an ordered
// consumer, as Store.Consume does (same policy, same pull batch), and only
// counts them: the floor for a replica's replay. Connecting is included,
// as it is in a replica's start-up.
func rawReplay(ctx context.Context, url string) (time.Duration, int, error) {
	start := time.Now()
	nc, err := nats.Connect(url)
	if err != nil {
		return 0, 0, err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return 0, 0, err
	}
	cons, err := js.OrderedConsumer(ctx, "FOOTBALL", jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{events.Prefix + ".>"}, DeliverPolicy: jetstream.DeliverLastPerSubjectPolicy})
	if err != nil {
		return 0, 0, err
	}
	it, err := cons.Messages(jetstream.PullMaxMessages(1024))
	if err != nil {
		return 0, 0, err
	}
	defer it.Stop()
	n := 0
	for {
		msg, err := it.Next()
		if err != nil {
			return 0, n, err
		}
		n++
		md, err := msg.Metadata()
		if err != nil {
			return 0, n, err
		}
		if md.NumPending == 0 {
			return time.Since(start), n, nil
		}
	}
}
