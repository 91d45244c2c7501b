// Package natstest is the tests' and benchmarks' support: a real JetStream
// server (or a three-node cluster) embedded in-process on loopback ports
// it takes itself, with its storage in the test's temp dir; the shared
// data files, imports through a test editor, decoding what a stream
// holds, and the raw-publish baseline of every publishing benchmark.
package natstest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/internal/importer"
	"github.com/footdata/footballd/internal/natsembed"
	"github.com/footdata/footballd/internal/provision"
	"github.com/footdata/footballd/internal/relay"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// MustStart starts a server that stops when the test ends, with the
// stream, buckets and work queue provisioned (as `ingest stream init` does
// on a real one).
func MustStart(tb testing.TB) *natsembed.Server {
	tb.Helper()
	srv, err := natsembed.Start(natsembed.Options{Dir: tb.TempDir()})
	if err != nil {
		tb.Fatalf("start embedded nats: %v", err)
	}
	tb.Cleanup(srv.Stop)
	MustProvision(tb, srv.URL(), events.StreamConfig{})
	return srv
}

// MustProvision provisions the stream, buckets and work queue on the
// server at url as cfg says, as `ingest stream init` does.
func MustProvision(tb testing.TB, url string, cfg events.StreamConfig) {
	tb.Helper()
	nc, err := events.Dial{URL: url, Name: "provision"}.Conn()
	if err != nil {
		tb.Fatalf("provision: %v", err)
	}
	defer nc.Close()
	if _, err := provision.Run(context.Background(), nc, cfg); err != nil {
		tb.Fatalf("provision: %v", err)
	}
}

// MustOpen connects a new store to srv, closed when the test ends.
func MustOpen(tb testing.TB, srv *natsembed.Server) *events.Store {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The test's name names the connection and its inbox, one subject
	// token: a subtest's name may hold dots.
	name := strings.NewReplacer(".", "_", "*", "_", ">", "_", " ", "_").Replace(tb.Name())
	s, err := events.Connect(ctx, events.Dial{URL: srv.URL(), Name: name}, events.StreamConfig{})
	if err != nil {
		tb.Fatalf("open store: %v", err)
	}
	tb.Cleanup(s.Close)
	return s
}

// SharedDir is the real data beside the repository (../shared/data).
func SharedDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "data")
}

// SharedData returns the path of rel under the shared data folder, and
// fails the test naming the folder when it is missing: the tests that read
// real data need ../shared/data beside the repository.
func SharedData(tb testing.TB, rel ...string) string {
	tb.Helper()
	p := filepath.Join(append([]string{SharedDir()}, rel...)...)
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("this test reads real data from %s, which is missing: the real-data tests need the shared data beside the repository (../shared/data)", p)
	}
	return p
}

// Season returns the openfootball league files of a season folder
// ("2015-16"), sorted.
func Season(tb testing.TB, dir string) []string {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(SharedData(tb, "openfootball-football-json", dir), "*.json"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no openfootball files in %s: %v", dir, err)
	}
	sort.Strings(files)
	return files
}

// CountMatches counts the matches of an openfootball file, read here
// independently of the importer.
func CountMatches(tb testing.TB, path string) int {
	tb.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var f struct {
		Matches []json.RawMessage `json:"matches"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		tb.Fatal(err)
	}
	return len(f.Matches)
}

// Editor returns an editor on s that signs its changes as the test.
func Editor(tb testing.TB, s *events.Store) *editor.Editor {
	return &editor.Editor{Store: s, Meta: events.Meta{Editor: "test", Source: tb.Name()}}
}

// Import imports files of a format ("openfootball", "engsoccerdata")
// through a test editor and returns the summary; a file the stream failed
// on fails the test, rejections are the caller's to check.
func Import(tb testing.TB, s *events.Store, format string, opts importer.Options, files ...string) importer.Summary {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	f := importer.Formats[format]
	im := importer.New(Editor(tb, s), nil)
	paths, err := f.Files(files)
	if err != nil {
		tb.Fatal(err)
	}
	if err := im.Import(ctx, f, paths, opts); err != nil {
		tb.Fatal(err)
	}
	return im.Summary
}

// All decodes the current state of every entity of kind in s, by subject.
func All[T any](tb testing.TB, s *events.Store, kind events.Kind) map[string]T {
	tb.Helper()
	out := map[string]T{}
	err := s.Scan(context.Background(), events.All(kind), func(ev events.Event) error {
		v, err := events.Decode[T](ev.Data)
		out[ev.Subject] = v
		return err
	})
	if err != nil {
		tb.Fatalf("scan %s: %v", kind, err)
	}
	return out
}

// Put publishes entities as the next revision of each, as a writer that
// knows nothing of the rules would: straight to the stream, for tests of
// what readers do with whatever the stream holds. It returns the last
// sequence.
func Put(tb testing.TB, s *events.Store, vs ...any) uint64 {
	tb.Helper()
	var seq uint64
	for _, v := range vs {
		m := Msg(tb, v)
		rev, err := s.Get(context.Background(), m.Subject)
		if model.ErrorCode(err) != model.NotFound && err != nil {
			tb.Fatal(err)
		}
		m.Expected = rev.Seq
		if seq, err = s.Publish(context.Background(), m); err != nil {
			tb.Fatalf("put %s: %v", m.Subject, err)
		}
	}
	return seq
}

// PutNew publishes many new entities at once, as Put does one, and returns
// the last sequence.
func PutNew(tb testing.TB, s *events.Store, vs ...any) uint64 {
	tb.Helper()
	ctx := context.Background()
	b := s.Bulk()
	var last uint64
	for _, v := range vs {
		m := Msg(tb, v)
		err := b.Put(ctx, m, func(seq uint64, err error) {
			if err != nil {
				tb.Errorf("put %s: %v", m.Subject, err)
			}
			last = max(last, seq)
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
	if err := b.Flush(ctx); err != nil {
		tb.Fatal(err)
	}
	return last
}

// Msg encodes an entity as the message that writes it, new.
func Msg(tb testing.TB, v any) events.Msg {
	tb.Helper()
	subject, err := events.SubjectOf(v)
	if err != nil {
		tb.Fatal(err)
	}
	body, err := events.Encode(v)
	if err != nil {
		tb.Fatal(err)
	}
	return events.Msg{Subject: subject, Body: body, Meta: events.Meta{Editor: "test", Source: tb.Name()}}
}

// RawPublish is the baseline of the publishing benchmarks: it
// async-publishes n copies of a realistic fixture body, one subject each,
// to the server at url (whose stream exists), with the same 512-message
// window as the service's publisher, and returns the time it took.
func RawPublish(ctx context.Context, url string, n int) (time.Duration, error) {
	nc, err := nats.Connect(url)
	if err != nil {
		return 0, err
	}
	defer nc.Close()
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(512))
	if err != nil {
		return 0, err
	}
	f := model.Fixture{ID: 1234567, CompetitionID: 1234, Matchday: 17, Stage: model.Regular, Round: "Matchday 17",
		Kickoff: time.Date(2015, 8, 8, 14, 0, 0, 0, time.UTC), HomeTeamID: 1234, AwayTeamID: 2345, Status: model.Finished,
		Result: model.Result{FullTime: &model.Score{Home: 1, Away: 3}, HalfTime: &model.Score{Home: 0, Away: 1}},
		Source: "openfootball:PL:2015:Matchday 17|Norwich City|Crystal Palace"}
	body, err := events.Encode(&f)
	if err != nil {
		return 0, err
	}
	start := time.Now()
	for i := range n {
		// A full window blocks the publisher until acks free a slot, as
		// the service's publisher does, instead of failing.
		if _, err := js.PublishAsync(fmt.Sprintf("football.fixture.1.%d", i+1), body, jetstream.WithStallWait(time.Minute)); err != nil {
			return 0, err
		}
	}
	select {
	case <-js.PublishAsyncComplete():
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	return time.Since(start), nil
}

// MustRawPublish runs RawPublish against a fresh server with the stream as
// the service creates it.
func MustRawPublish(tb testing.TB, n int) time.Duration {
	tb.Helper()
	srv := MustStart(tb)
	MustOpen(tb, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	d, err := RawPublish(ctx, srv.URL(), n)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// Cluster is three embedded servers routed to each other on loopback, each
// with its own storage: a JetStream cluster, nothing provisioned on it.
type Cluster struct {
	tb    testing.TB
	Opts  []natsembed.Options
	Nodes []*natsembed.Server // nil: stopped
	urls  []string
	logs  []*NATSLog // each node's, shown when it does not come up
}

// StartCluster starts a three-node cluster that stops when the test ends.
// Each node takes free ports of its own choosing (a node started again
// comes back on them). JetStream will not start a node of a cluster
// without routes to solicit, and before it starts no node knows the
// others' ports: every node is routed, as in production, to the three
// nodes, each through a relay the test holds, which leads to its node once
// that node is up.
func StartCluster(tb testing.TB) *Cluster {
	tb.Helper()
	SkipShort(tb, "a three-node NATS cluster")
	c := &Cluster{tb: tb, Nodes: make([]*natsembed.Server, 3), Opts: make([]natsembed.Options, 3), logs: make([]*NATSLog, 3)}
	// The directories first: cleanups run last registered first, so the
	// nodes stop before their directories are removed (a node still
	// running writes into a directory RemoveAll is emptying).
	dirs := make([]string, len(c.Nodes))
	for i := range dirs {
		dirs[i] = tb.TempDir()
	}
	tb.Cleanup(func() {
		for _, n := range c.Nodes {
			if n != nil {
				n.Stop()
			}
		}
	})
	relays := make([]*relay.Relay, len(c.Nodes))
	var routes []string
	for i := range relays {
		relays[i] = relay.Start(tb)
		routes = append(routes, "nats://"+relays[i].Addr())
	}
	for i := range c.Nodes {
		c.logs[i] = &NATSLog{}
		c.Opts[i] = natsembed.Options{Dir: dirs[i], Name: fmt.Sprintf("n%d", i+1),
			Cluster: &natsembed.Cluster{Name: "football", Routes: routes}, Log: c.logs[i]}
		c.Start(i)
		c.Opts[i] = c.Nodes[i].Options()
		relays[i].Forward(c.Nodes[i].ClusterAddr().String())
		c.urls = append(c.urls, c.Nodes[i].URL())
	}
	return c
}

// Start starts node i (again).
func (c *Cluster) Start(i int) {
	c.tb.Helper()
	n, err := natsembed.Start(c.Opts[i])
	if err != nil {
		c.tb.Fatalf("node %s: %v; its log:\n%s", c.Opts[i].Name, err, c.logs[i].String())
	}
	c.Nodes[i] = n
}

// Stop stops node i.
func (c *Cluster) Stop(i int) {
	c.Nodes[i].Stop()
	c.Nodes[i] = nil
}

// URL lists every node, starting from the i-th, so that clients spread.
func (c *Cluster) URL(i int) string {
	var out []string
	for k := range c.urls {
		out = append(out, c.urls[(i+k)%len(c.urls)])
	}
	return strings.Join(out, ",")
}

// Node is the index of the node named name, -1 if none.
func (c *Cluster) Node(name string) int {
	for i, o := range c.Opts {
		if o.Name == name {
			return i
		}
	}
	return -1
}

// MustProvisionEventually provisions as MustProvision does, trying for up
// to a minute while a new cluster elects its leaders.
func MustProvisionEventually(tb testing.TB, url string, cfg events.StreamConfig) {
	tb.Helper()
	nc, err := events.Dial{URL: url, Name: "provision"}.Conn()
	if err != nil {
		tb.Fatalf("provision: %v", err)
	}
	defer nc.Close()
	CheckFor(tb, time.Minute, 250*time.Millisecond, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := provision.Run(ctx, nc, cfg); err != nil {
			return fmt.Errorf("provision: %w", err)
		}
		return nil
	})
}

// StreamLeader is the name of the node that leads the stream.
func StreamLeader(tb testing.TB, url string) string {
	tb.Helper()
	nc, err := events.Dial{URL: url, Name: "leader"}.Conn()
	if err != nil {
		tb.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := js.Stream(ctx, events.DefaultStream)
	if err != nil {
		tb.Fatal(err)
	}
	if ci := st.CachedInfo().Cluster; ci != nil && ci.Leader != "" {
		return ci.Leader
	}
	tb.Fatal("the stream has no leader")
	return ""
}

// SkipShort skips, under go test -short (make check, the fast loop), a
// test that make test runs: a multi-node cluster, the runbook, a live
// source paced at a real plan's rate. why says what makes it slow.
func SkipShort(tb testing.TB, why string) {
	tb.Helper()
	if testing.Short() {
		tb.Skipf("%s: make test runs it, -short does not", why)
	}
}

// SkipMissing skips a test that needs a real part this machine lacks (a
// browser, a system tool), saying what to install: in the test's output
// and, when FD_SKIPPED names a file (make test sets it), in a line there
// that make test prints at its end, so that no such skip goes unseen.
// Under CI it fails instead: .ci/run installs every part.
func SkipMissing(tb testing.TB, what, install string) {
	tb.Helper()
	msg := fmt.Sprintf("%s: %s (%s to run it)", tb.Name(), what, install)
	if os.Getenv("CI") != "" {
		tb.Fatalf("%s: .ci/run installs it", msg)
	}
	if path := os.Getenv("FD_SKIPPED"); path != "" {
		if f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644); err == nil {
			fmt.Fprintf(f, "skipped: %s\n", msg)
			f.Close()
		}
	}
	tb.Skip(msg)
}

// Buffer is an output a process or server writes while a test reads it:
// a bytes.Buffer behind a lock.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
