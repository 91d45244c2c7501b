package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/internal/httpapi"
	"github.com/footdata/footballd/internal/importer"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/internal/provision"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/nats-io/nats.go/jetstream"
)

var clusterFull = flag.Bool("cluster.full", false, "run the cluster test at full size (make test-cluster)")

// clusterSize is what a run of TestCluster does: the files imported before
// the replicas start, those imported under the faults, and how many rounds
// of faults.
type clusterSize struct {
	seed, imported []string
	rounds         int
	loaders        int
}

func clusterPlan() clusterSize {
	of := func(season string, leagues ...string) []string {
		var out []string
		for _, l := range leagues {
			out = append(out, filepath.Join("openfootball-football-json", season, l+".json"))
		}
		return out
	}
	if !*clusterFull {
		return clusterSize{seed: of("2015-16", "en.1"), imported: of("2016-17", "en.1", "de.1"), rounds: 1, loaders: 2}
	}
	size := clusterSize{seed: of("2015-16", "en.1", "de.1", "es.1", "it.1", "fr.1"), rounds: 3, loaders: 4}
	for _, season := range []string{"2016-17", "2017-18", "2018-19"} {
		size.imported = append(size.imported, of(season, "en.1", "de.1", "de.2", "es.1", "it.1", "fr.1", "fr.2")...)
	}
	return size
}

// natsCluster is a three-node JetStream cluster (natstest.Cluster) with
// what the cluster test asks of it.
type natsCluster struct {
	*natstest.Cluster
	t *testing.T
}

func startNATSCluster(t *testing.T) *natsCluster {
	t.Helper()
	return &natsCluster{Cluster: natstest.StartCluster(t), t: t}
}

// connect sets the stream up at R3 (the code of `ingest stream init
// --replicas 3`) and connects a store to it, waiting for the cluster to
// elect its leaders.
func (c *natsCluster) connect(i int) *events.Store {
	c.t.Helper()
	var s *events.Store
	natstest.CheckFor(c.t, 60*time.Second, 250*time.Millisecond, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var err error
		if s, err = provisioned(ctx, c.URL(i)); err != nil {
			return fmt.Errorf("cluster: %w", err)
		}
		return nil
	})
	c.t.Cleanup(s.Close)
	return s
}

// provisioned runs provision at R3 as `ingest stream init --replicas 3`
// does and opens a store.
func provisioned(ctx context.Context, url string) (*events.Store, error) {
	nc, err := events.Dial{URL: url, Name: "cluster-test"}.Conn()
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	if _, err := provision.Run(ctx, nc, events.StreamConfig{Replicas: 3}); err != nil {
		return nil, err
	}
	return events.Connect(ctx, events.Dial{URL: url, Name: "cluster-test"}, events.StreamConfig{})
}

// waitStream polls the stream's cluster information for up to a minute
// until ok accepts it, failing the test with what otherwise.
func (c *natsCluster) waitStream(s *events.Store, what string, ok func(*jetstream.ClusterInfo) bool) {
	c.t.Helper()
	js, err := jetstream.New(s.Conn())
	if err != nil {
		c.t.Fatal(err)
	}
	natstest.CheckFor(c.t, 60*time.Second, 100*time.Millisecond, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		st, err := js.Stream(ctx, "FOOTBALL")
		var info *jetstream.StreamInfo
		if err == nil {
			info, err = st.Info(ctx)
		}
		switch {
		case err != nil:
			return fmt.Errorf("%s: %w", what, err)
		case info.Cluster == nil:
			return fmt.Errorf("%s: no cluster information", what)
		case !ok(info.Cluster):
			return fmt.Errorf("%s: %s", what, describeCluster(info.Cluster))
		}
		return nil
	})
}

// describeCluster is the stream's leader and each replica's state, for a
// failure's message.
func describeCluster(ci *jetstream.ClusterInfo) string {
	var b strings.Builder
	fmt.Fprintf(&b, "leader %q", ci.Leader)
	for _, p := range ci.Replicas {
		fmt.Fprintf(&b, "; %s current %v, lag %d, offline %v", p.Name, p.Current, p.Lag, p.Offline)
	}
	return b.String()
}

// waitCurrent waits until the stream has a leader and two followers that
// are current, with nothing left to catch up.
func (c *natsCluster) waitCurrent(s *events.Store) {
	c.t.Helper()
	c.waitStream(s, "the stream's replicas never caught up", func(ci *jetstream.ClusterInfo) bool {
		return ci.Leader != "" && len(ci.Replicas) == 2 &&
			!slices.ContainsFunc(ci.Replicas, func(p *jetstream.PeerInfo) bool { return !p.Current || p.Lag > 0 })
	})
}

// leader is the index of the running node leading the stream.
func (c *natsCluster) leader(s *events.Store) int {
	c.t.Helper()
	leader := -1
	c.waitStream(s, "the stream has no leader", func(ci *jetstream.ClusterInfo) bool {
		leader = c.Node(ci.Leader)
		return leader >= 0 && c.Nodes[leader] != nil
	})
	return leader
}

// balancer sends requests to the replicas it finds ready, as a load
// balancer checking /readyz does, and counts the requests it has sent
// each that are not answered yet.
type balancer struct {
	mu       sync.Mutex
	replicas []*replica
	ready    []bool
	inFlight map[*replica]int
	stop     chan struct{}
	done     chan struct{}
}

func newBalancer(rs []*replica) *balancer {
	b := &balancer{replicas: rs, ready: make([]bool, len(rs)), inFlight: map[*replica]int{}, stop: make(chan struct{}), done: make(chan struct{})}
	go b.poll()
	return b
}

func (b *balancer) poll() {
	defer close(b.done)
	client := &http.Client{Timeout: time.Second}
	for {
		for i := range b.ready {
			b.mu.Lock()
			r := b.replicas[i]
			b.mu.Unlock()
			ok := false
			if r != nil {
				if resp, err := client.Get(r.base + "/readyz"); err == nil {
					ok = resp.StatusCode == 200
					resp.Body.Close()
				}
			}
			b.mu.Lock()
			if b.replicas[i] == r {
				b.ready[i] = ok
			}
			b.mu.Unlock()
		}
		select {
		case <-b.stop:
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// pick returns a ready replica, nil if none is; the caller sends it a
// request and calls answered once the request is done.
func (b *balancer) pick() *replica {
	b.mu.Lock()
	defer b.mu.Unlock()
	var ready []*replica
	for i, ok := range b.ready {
		if ok {
			ready = append(ready, b.replicas[i])
		}
	}
	if len(ready) == 0 {
		return nil
	}
	r := ready[rand.IntN(len(ready))]
	b.inFlight[r]++
	return r
}

func (b *balancer) answered(r *replica) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.inFlight[r]--
}

// drained is nil once every request sent to r is answered, and says how
// many are not otherwise.
func (b *balancer) drained(r *replica) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n := b.inFlight[r]; n > 0 {
		return fmt.Errorf("%d requests sent to %s not answered", n, r.base)
	}
	return nil
}

// take removes replica i from rotation, as its failing /readyz would.
func (b *balancer) take(i int) *replica {
	b.mu.Lock()
	defer b.mu.Unlock()
	r := b.replicas[i]
	b.replicas[i], b.ready[i] = nil, false
	return r
}

func (b *balancer) put(i int, r *replica) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.replicas[i] = r
}

func (b *balancer) close() {
	close(b.stop)
	<-b.done
}

// tally counts what the load got.
type tally struct {
	mu        sync.Mutex
	statuses  map[int]int
	transport int
	failures  []string
}

func (t *tally) add(path string, status int, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err != nil {
		t.transport++
		if len(t.failures) < 5 {
			t.failures = append(t.failures, fmt.Sprintf("%s: %v", path, err))
		}
		return
	}
	t.statuses[status]++
	if status >= 500 && len(t.failures) < 5 {
		t.failures = append(t.failures, fmt.Sprintf("%s: %d", path, status))
	}
}

// TestCluster runs a three-node NATS cluster (the stream at R3) and three
// API replicas behind a balancer, under read load, an import and a stream
// of live edits, while it kills the stream's leader, kills and restarts a
// replica, and restarts a NATS node. Afterwards every replica serves the
// same bytes for a crawl of every endpoint, the data equals a clean import
// of the same files plus the edits acknowledged, no request got a 5xx, and
// a client's limit held across the replicas. `make test-cluster` runs it
// at full size (-cluster.full).
func TestCluster(t *testing.T) {
	plan := clusterPlan()
	nc := startNATSCluster(t)
	s := nc.connect(0)
	for _, f := range plan.seed {
		if sum := natstest.Import(t, s, "openfootball", importer.Options{}, natstest.SharedData(t, f)); len(sum.Rejected) > 0 {
			t.Fatalf("seed %s: %v", f, sum.Rejected)
		}
	}
	// The replicas run on the wall clock: a clock set with --now starts
	// when its replica does, so replicas started apart would disagree on
	// the windows of the limits.
	flags := []string{"--drain", "300ms", "--public-url", "http://api.test", "--anonymous-per-day", "100000000"}
	replicas := make([]*replica, 3)
	for i := range replicas {
		replicas[i] = startReplica(t, nc.URL(i), flags...)
	}
	lb := newBalancer(slices.Clone(replicas))
	defer lb.close()
	paths := crawlPaths(t, replicas[0])
	t.Logf("crawl of %d paths per replica", len(paths))

	// Read load until the faults are over.
	load := &tally{statuses: map[int]int{}}
	stopLoad := make(chan struct{})
	var loaders sync.WaitGroup
	client := &http.Client{Timeout: 30 * time.Second}
	for range plan.loaders {
		loaders.Go(func() {
			for {
				select {
				case <-stopLoad:
					return
				default:
				}
				r := lb.pick()
				if r == nil {
					// None in rotation: the load's pace until one is
					// back, in a goroutine CheckFor cannot serve.
					time.Sleep(10 * time.Millisecond)
					continue
				}
				p := paths[rand.IntN(len(paths))]
				resp, err := client.Get(r.base + p)
				if err == nil {
					resp.Body.Close()
					load.add(p, resp.StatusCode, nil)
				} else {
					load.add(p, 0, err)
				}
				lb.answered(r)
			}
		})
	}

	// An import and live edits, each retried as an editor would until
	// it goes through.
	var writers sync.WaitGroup
	var importAttempts atomic.Int32
	files := make([]string, len(plan.imported))
	for i, f := range plan.imported {
		files[i] = natstest.SharedData(t, f)
	}
	writers.Go(func() {
		for _, f := range files {
			for {
				importAttempts.Add(1)
				rejected, err := importOnce(s, f)
				if err == nil {
					if len(rejected) > 0 {
						t.Errorf("import %s: %v", f, rejected)
					}
					break
				}
				t.Logf("import %s: %v; again", f, err)
				time.Sleep(500 * time.Millisecond) // an editor's pause before trying again
			}
		}
	})
	edited := map[int]model.Score{}
	var editMu sync.Mutex
	var editRetries atomic.Int32
	original := fixturesOf(t, s)
	seedFixtures := slices.Sorted(maps.Keys(original))
	stopEdits := make(chan struct{})
	writers.Go(func() {
		ed := natstest.Editor(t, s)
		for k := 0; ; k++ {
			select {
			case <-stopEdits:
				return
			default:
			}
			id := seedFixtures[k%len(seedFixtures)]
			for {
				var score model.Score
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				_, _, err := ed.PutFixture(ctx, id, true, func(f *model.Fixture) error {
					score = model.Score{Home: k % 4, Away: k % 3}
					if ht := f.Result.HalfTime; ht != nil {
						score = model.Score{Home: ht.Home + k%4, Away: ht.Away + k%3}
					}
					f.Result.FullTime = &score
					return nil
				})
				cancel()
				if err == nil {
					editMu.Lock()
					edited[id] = score
					editMu.Unlock()
					break
				}
				editRetries.Add(1)
				time.Sleep(200 * time.Millisecond) // an editor's pause before trying again
			}
			time.Sleep(20 * time.Millisecond) // the rate of live edits
		}
	})

	// The faults.
	// The sleeps are the load's length before each round and the
	// outages' lengths: not waits.
	for round := range plan.rounds {
		time.Sleep(time.Second)
		leader := nc.leader(s)
		t.Logf("round %d: killing the stream leader n%d", round+1, leader+1)
		nc.Stop(leader)
		time.Sleep(2 * time.Second)
		nc.Start(leader)

		victim := round % len(replicas)
		t.Logf("round %d: killing replica %d and starting another", round+1, victim+1)
		old := lb.take(victim)
		// Out of rotation, it is stopped once it has answered what the
		// balancer sent it before, as a load balancer's drain does.
		natstest.CheckFor(t, 30*time.Second, 10*time.Millisecond, func() error { return lb.drained(old) })
		old.stop()
		replicas[victim] = startReplica(t, nc.URL(victim), flags...)
		lb.put(victim, replicas[victim])

		node := (nc.leader(s) + 1) % 3
		t.Logf("round %d: restarting NATS node n%d", round+1, node+1)
		nc.Stop(node)
		time.Sleep(500 * time.Millisecond)
		nc.Start(node)
	}
	close(stopEdits)
	writers.Wait()
	close(stopLoad)
	loaders.Wait()

	for _, r := range replicas {
		r.waitApplied(s)
	}
	t.Logf("load: %v, transport errors %d; import attempts %d for %d files; %d fixtures edited live, %d edit retries",
		load.statuses, load.transport, importAttempts.Load(), len(plan.imported), len(edited), editRetries.Load())
	for status, n := range load.statuses {
		if status >= 500 {
			t.Errorf("%d requests got %d: %v", n, status, load.failures)
		}
	}
	if load.transport > 0 {
		t.Errorf("%d requests to replicas in rotation failed: %v", load.transport, load.failures)
	}

	// Every replica serves the same bytes for every path.
	paths = crawlPaths(t, replicas[0])
	for _, p := range paths {
		want := replicas[0].do("GET", p, nil)
		if want.status != 200 {
			t.Errorf("%s: %d %s", p, want.status, want.body)
			continue
		}
		for i, r := range replicas[1:] {
			if got := r.do("GET", p, nil); got.status != want.status || !bytes.Equal(got.body, want.body) {
				t.Errorf("%s: replica %d answers %d, replica 1 %d (bodies equal: %v)", p, i+2, got.status, want.status, bytes.Equal(got.body, want.body))
			}
		}
	}
	t.Logf("crawl after the faults: %d paths, byte-identical on %d replicas", len(paths), len(replicas))

	// Nothing lost or doubled: the data equals a clean import of the same
	// files, but for the fixtures edited live, which hold the last score
	// acknowledged. Read once every node has caught up: a reader's
	// consumer may be placed on any of them.
	nc.waitCurrent(s)
	clean := natstest.MustOpen(t, natstest.MustStart(t))
	for _, f := range append(slices.Clone(plan.seed), plan.imported...) {
		natstest.Import(t, clean, "openfootball", importer.Options{}, natstest.SharedData(t, f))
	}
	lost := 0
	want, got := worldOf(t, clean, nil), worldOf(t, s, func(f *model.Fixture) {
		score, ok := edited[f.ID]
		if !ok {
			return
		}
		if f.Result.FullTime == nil || *f.Result.FullTime != score {
			if lost++; lost <= 5 {
				t.Errorf("fixture %d: %v in the stream, %v acknowledged last", f.ID, f.Result.FullTime, score)
			}
		}
		f.Result.FullTime = original[f.ID]
	})
	if len(got) != len(want) {
		t.Errorf("%d fixtures in the cluster, %d in a clean import", len(got), len(want))
	}
	diffs := 0
	for k, w := range want {
		if g, ok := got[k]; !ok || g != w {
			if diffs++; diffs <= 5 {
				t.Errorf("fixture %s: cluster %q, clean import %q", k, g, w)
			}
		}
	}
	t.Logf("data: %d fixtures, %d differ from a clean import; %d of %d live edits lost", len(got), diffs, lost, len(edited))

	// A client's limit holds across the replicas.
	token := addClient(t, s, "cluster", model.TierRegistered, 60)
	for _, r := range replicas {
		r.waitApplied(s)
	}
	for attempt := 0; ; attempt++ {
		minute := time.Now().Truncate(time.Minute)
		allowed := 0
		for i := range 90 {
			if replicas[i%3].do("GET", "/v1/competitions", map[string]string{"X-Auth-Token": token}).status == 200 {
				allowed++
			}
		}
		if !time.Now().Truncate(time.Minute).Equal(minute) && attempt < 2 {
			continue // the minute turned during the burst: again, in the next
		}
		t.Logf("limits: %d of 90 requests through three replicas for a limit of 60", allowed)
		if allowed > 60 || allowed < 60-3*httpapi.Lease(60) {
			t.Errorf("%d of 90 requests through three replicas for a limit of 60", allowed)
			for i, r := range replicas {
				t.Logf("replica %d:\n%s", i+1, r.logs.String())
			}
		}
		break
	}
}

// importOnce imports a file through its own importer, returning what it
// rejected, and what failed rather than failing the test: the caller tries
// again.
func importOnce(s *events.Store, path string) ([]importer.Rejection, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	f := importer.Formats["openfootball"]
	im := importer.New(&editor.Editor{Store: s, Meta: events.Meta{Editor: "test", Source: "cluster import"}}, nil)
	paths, err := f.Files([]string{path})
	if err != nil {
		return nil, err
	}
	err = im.Import(ctx, f, paths, importer.Options{})
	return im.Summary.Rejected, err
}

// fixturesOf maps the finished fixtures of s to their full-time scores.
func fixturesOf(t *testing.T, s *events.Store) map[int]*model.Score {
	out := map[int]*model.Score{}
	for _, f := range natstest.All[model.Fixture](t, s, events.KindFixture) {
		if f.Status == model.Finished {
			out[f.ID] = f.Result.FullTime
		}
	}
	return out
}

// worldOf describes every fixture of s by what identifies it beyond ids
// (league, season, matchday, team names) and what it holds, after fix, if
// not nil, has seen it.
func worldOf(t *testing.T, s *events.Store, fix func(*model.Fixture)) map[string]string {
	teams := map[int]string{}
	for _, tm := range natstest.All[model.Team](t, s, events.KindTeam) {
		teams[tm.ID] = tm.Name
	}
	comps := map[int]string{}
	for _, c := range natstest.All[model.Competition](t, s, events.KindCompetition) {
		comps[c.ID] = c.Key()
	}
	out := map[string]string{}
	for _, f := range natstest.All[model.Fixture](t, s, events.KindFixture) {
		key := fmt.Sprintf("%s/%d/%s-%s/%d", comps[f.CompetitionID], f.Matchday, teams[f.HomeTeamID], teams[f.AwayTeamID], f.Kickoff.Unix())
		if fix != nil {
			fix(&f)
		}
		body, err := json.Marshal(struct {
			Status model.Status
			Result model.Result
		}{f.Status, f.Result})
		if err != nil {
			t.Fatal(err)
		}
		if _, dup := out[key]; dup {
			t.Errorf("fixture %s twice", key)
		}
		out[key] = string(body)
	}
	return out
}

// crawlPaths lists a path for every endpoint of every competition, team
// and a sample of fixtures r serves, in the seasons it holds.
func crawlPaths(t *testing.T, r *replica) []string {
	t.Helper()
	var comps []int
	var paths []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	getJSON := func(p string, into any) {
		t.Helper()
		add(p)
		resp := r.do("GET", p, nil)
		if resp.status != 200 {
			t.Fatalf("crawl %s: %d %s", p, resp.status, resp.body)
		}
		if err := json.Unmarshal(resp.body, into); err != nil {
			t.Fatalf("crawl %s: %v", p, err)
		}
	}
	for year := 2010; year <= 2020; year++ {
		var cs []struct {
			ID int `json:"id"`
		}
		getJSON(fmt.Sprintf("/v1/competitions/?season=%d", year), &cs)
		for _, c := range cs {
			comps = append(comps, c.ID)
		}
	}
	for _, c := range comps {
		base := fmt.Sprintf("/v1/competitions/%d", c)
		for _, p := range []string{"", "/teams", "/leagueTable", "/leagueTable?matchday=1", "/leagueTable?matchday=10", "/fixtures?matchday=5"} {
			add(base + p)
		}
		var fx struct {
			Fixtures []struct {
				ID           int    `json:"id"`
				Date         string `json:"date"`
				HomeTeamName string `json:"homeTeamName"`
				Links        struct {
					Home struct{ Href string } `json:"homeTeam"`
				} `json:"_links"`
			} `json:"fixtures"`
		}
		getJSON(base+"/fixtures", &fx)
		for i, f := range fx.Fixtures {
			if i%25 == 0 {
				add(fmt.Sprintf("/v1/fixtures/%d?head2head=10", f.ID))
				add(fmt.Sprintf("/v1/fixtures?timeFrameStart=%s&timeFrameEnd=%s", f.Date[:10], f.Date[:10]))
			}
			team := f.Links.Home.Href[strings.LastIndex(f.Links.Home.Href, "/"):]
			for _, p := range []string{"/v1/teams" + team, "/v1/teams" + team + "/fixtures", "/v1/teams" + team + "/players",
				"/v1/teams?name=" + strings.ReplaceAll(f.HomeTeamName, " ", "%20")} {
				add(p)
			}
		}
	}
	return paths
}

// TestClusterStartsTogether: three replicas started at once against three
// fresh NATS nodes all become ready once the stream is set up, however
// the nodes' elections and the set-up interleave with their starts (a
// replica used to give up after 30 s creating FD_LIMITS in 11 of 18
// such starts). Each replica waits, with its reason in /readyz, and
// creates nothing. Ten starts with -cluster.full, two otherwise.
func TestClusterStartsTogether(t *testing.T) {
	starts := 2
	if *clusterFull {
		starts = 10
	}
	for i := range starts {
		t.Run(fmt.Sprint("start ", i+1), func(t *testing.T) {
			c := natstest.StartCluster(t)
			// launch returns once a replica listens, before it looks
			// for NATS: the three wait together.
			var replicas []*replica
			for n := range 3 {
				replicas = append(replicas, launch(t, "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--nats", c.URL(n), "--drain", "0s"))
			}
			// The operator's `ingest stream init --replicas 3`, while the
			// replicas wait.
			natstest.MustProvisionEventually(t, c.URL(0), events.StreamConfig{Replicas: 3})
			for _, r := range replicas {
				r.waitReady()
			}
		})
	}
}
