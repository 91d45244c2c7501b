package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/valyala/fasthttp"
)

// The fan-out part answers "what does one more replica cost the stream":
// nats-server runs as a process of its own (its CPU time and memory are
// then its own, not the bench's), a world is published to it, and N real
// replicas follow it while edits arrive at a steady rate. At each N it
// measures the server's CPU, memory and bytes sent, the time an edit takes
// to reach every replica's event stream, and the replay of one more
// replica joining. Then a region (region.go): a leaf node mirroring the
// stream, one replica reading it.

// fanoutSetup is one arrangement of NATS servers the levels run on.
type fanoutSetup struct {
	nodes    int // nats-server processes, a cluster when more than one
	replicas int // the stream's replicas
}

func (s fanoutSetup) String() string {
	if s.nodes == 1 {
		return "1 NATS node, R1"
	}
	return fmt.Sprintf("%d NATS nodes, R%d", s.nodes, s.replicas)
}

func fanoutWorld(ctx context.Context, env *benchEnv) error {
	bin, err := buildNATSServer(env)
	if err != nil {
		return err
	}
	for _, s := range env.FanoutSetups {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err := fanoutSeries(ctx, env, bin, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	if err := regionSeries(ctx, env, bin); err != nil {
		return fmt.Errorf("region: %w", err)
	}
	return nil
}

// buildNATSServer builds nats-server at the version go.mod requires, as
// the Makefile's deploy-tools does, so that the server measured is the one
// the tests embed.
func buildNATSServer(env *benchEnv) (string, error) {
	bin := filepath.Join(env.tmp, "nats-server")
	start := time.Now()
	out, err := exec.Command("go", "build", "-o", bin, "github.com/nats-io/nats-server/v2").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build nats-server: %v: %s", err, out)
	}
	fmt.Printf("  built nats-server in %s\n", secs(time.Since(start)))
	return bin, nil
}

// natsNodes are nats-server processes; each process's addr is its
// monitoring listener (/varz, /healthz).
type natsNodes struct {
	nodes []*process
	urls  []string
}

func (c *natsNodes) URL() string { return strings.Join(c.urls, ",") }

// Stop stops every node at once: one by one, the last ones would spend
// their time electing leaders for a cluster about to go.
func (c *natsNodes) Stop() {
	var wg sync.WaitGroup
	for _, n := range c.nodes {
		wg.Go(n.stop)
	}
	wg.Wait()
}

// startNATSNodes starts s.nodes nats-server processes on loopback, a
// cluster when more than one, with their storage under dir. The cluster
// flushes to disk every 10 s as deploy/nats/cluster.conf does; a single
// node keeps the server's default, as single-machine mode does. No TLS:
// the figures leave out what encryption costs. Every node takes its
// client and monitoring ports itself; a cluster's routes must be known to
// every node before it starts, so their ports are picked free.
func startNATSNodes(env *benchEnv, bin, dir string, s fanoutSetup) (*natsNodes, error) {
	routes := make([]string, s.nodes)
	for i := range routes {
		var err error
		if routes[i], err = freeAddr(); err != nil {
			return nil, err
		}
	}
	c := &natsNodes{}
	for i, route := range routes {
		js := fmt.Sprintf("jetstream {\n  store_dir: %q\n", filepath.Join(dir, strconv.Itoa(i+1)))
		extra := ""
		if s.nodes > 1 {
			js += "  sync_interval: 10s\n"
			urls := make([]string, len(routes))
			for j, r := range routes {
				urls[j] = "nats-route://" + r
			}
			extra = fmt.Sprintf("cluster {\n  name: fd-bench\n  listen: %s\n  routes: [%s]\n}\n", route, strings.Join(urls, ", "))
		}
		n, client, err := startNATSNode(env, bin, dir, fmt.Sprintf("%s-%d", filepath.Base(dir), i+1), extra+js+"}\n")
		if err != nil {
			c.Stop()
			return nil, err
		}
		c.nodes = append(c.nodes, n)
		c.urls = append(c.urls, client)
	}
	for _, n := range c.nodes {
		if err := waitHealthy(n, 30*time.Second); err != nil {
			c.Stop()
			return nil, err
		}
	}
	return c, nil
}

// startNATSNode starts one nats-server process named name, with the rest
// of its configuration in conf, and returns it with its client URL. It
// takes its client and monitoring ports itself and writes them to a ports
// file, read back here; the process's address is the monitoring one.
// Its configuration file, ports folder and log are named after it.
func startNATSNode(env *benchEnv, bin, dir, name, conf string) (*process, string, error) {
	conf = fmt.Sprintf("server_name: %s\nlisten: 127.0.0.1:-1\nhttp: 127.0.0.1:-1\nmax_payload: 8MB\n", name) + conf
	portsDir := filepath.Join(dir, name+"-ports")
	if err := os.MkdirAll(portsDir, 0o755); err != nil {
		return nil, "", err
	}
	file := filepath.Join(dir, name+".conf")
	if err := os.WriteFile(file, []byte(conf), 0o644); err != nil {
		return nil, "", err
	}
	p, err := startProcess(env.logPath(name), "", bin, "-c", file, "--ports_file_dir", portsDir)
	if err != nil {
		return nil, "", err
	}
	var ports struct {
		Nats       []string `json:"nats"`
		Monitoring []string `json:"monitoring"`
	}
	err = waitFor(context.Background(), 30*time.Second, func() (bool, error) {
		select {
		case <-p.exited:
			return false, fmt.Errorf("nats-server %s exited: %s", name, p.logTail())
		default:
		}
		files, _ := filepath.Glob(filepath.Join(portsDir, "*.ports"))
		if len(files) == 0 {
			return false, nil
		}
		b, err := os.ReadFile(files[0])
		if err != nil || json.Unmarshal(b, &ports) != nil {
			// Not written whole yet.
			return false, nil
		}
		return len(ports.Nats) > 0 && len(ports.Monitoring) > 0, nil
	})
	if err != nil {
		p.stop()
		return nil, "", fmt.Errorf("nats-server %s's ports: %w", name, err)
	}
	p.addr = strings.TrimPrefix(ports.Monitoring[0], "http://")
	p.client.Addr = p.addr
	return p, ports.Nats[0], nil
}

func waitHealthy(n *process, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case <-n.exited:
			return fmt.Errorf("nats-server exited: %s", n.logTail())
		default:
		}
		if code, _, _, err := n.get("/healthz", nil); err == nil && code == fasthttp.StatusOK {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("nats-server on %s not healthy after %s: %s", n.addr, timeout, n.logTail())
}

// usage is what the nodes had used at one instant.
type usage struct {
	at         time.Time
	cpu        time.Duration // the nodes' CPU time together
	nodeCPU    []time.Duration
	rss        float64       // the nodes' resident memory together
	out, in    varz          // the nodes' message counters together
	busy, all  uint64        // the machine's CPU ticks from /proc/stat
	replicaCPU time.Duration // the replicas' user + system time
}

type varz struct {
	InMsgs   float64 `json:"in_msgs"`
	OutMsgs  float64 `json:"out_msgs"`
	InBytes  float64 `json:"in_bytes"`
	OutBytes float64 `json:"out_bytes"`
}

func (c *natsNodes) usage(reps []*process) (usage, error) {
	u := usage{at: time.Now()}
	for _, n := range c.nodes {
		c := schedCPU(n.cmd.Process.Pid)
		u.cpu += c
		u.nodeCPU = append(u.nodeCPU, c)
		r, err := n.rss()
		if err != nil {
			return u, err
		}
		u.rss += r
		var v varz
		if err := getJSON(n, "/varz", nil, &v); err != nil {
			return u, err
		}
		u.in.InMsgs += v.InMsgs
		u.in.InBytes += v.InBytes
		u.out.OutMsgs += v.OutMsgs
		u.out.OutBytes += v.OutBytes
	}
	for _, p := range reps {
		u.replicaCPU += schedCPU(p.cmd.Process.Pid)
	}
	var err error
	u.busy, u.all, err = machineTicks()
	return u, err
}

// schedCPU is the time the threads of pid have run, summed over
// /proc/PID/task/*/schedstat, in nanoseconds: /proc/PID/stat counts in
// ticks of 10 ms, too coarse for an idle server over a window of a few
// seconds. Threads that have exited are not counted; Go programs keep
// theirs.
func schedCPU(pid int) time.Duration {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var total time.Duration
	for _, t := range tasks {
		raw, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		f := strings.Fields(string(raw))
		if len(f) == 0 {
			continue
		}
		if ns, err := strconv.ParseInt(f[0], 10, 64); err == nil {
			total += time.Duration(ns)
		}
	}
	return total
}

// machineTicks reads the machine's busy and total CPU time (all cores)
// from the first line of /proc/stat; idle and iowait are not busy.
func machineTicks() (busy, all uint64, err error) {
	raw, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	line, _, _ := strings.Cut(string(raw), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, 0, fmt.Errorf("/proc/stat: unexpected first line %q", line)
	}
	// user nice system idle iowait irq softirq steal; guest time is
	// already counted in user.
	for i := 1; i <= 8; i++ {
		v, err := strconv.ParseUint(f[i], 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("/proc/stat: %w", err)
		}
		all += v
		if i != 4 && i != 5 {
			busy += v
		}
	}
	return busy, all, nil
}

// window is what changed between two usages, per second.
type window struct {
	secs                  float64
	cpuMS                 float64 // the nodes' CPU, ms per second
	nodeCPUMS             []float64
	outBps, inMsgs, outMs float64 // bytes and messages per second
	replicaCPUMS          float64
	busy                  float64 // the machine's busy share, 0..1
	rss                   float64
}

func between(a, b usage) window {
	s := b.at.Sub(a.at).Seconds()
	var nodes []float64
	for i := range b.nodeCPU {
		nodes = append(nodes, msf(b.nodeCPU[i]-a.nodeCPU[i])/s)
	}
	return window{nodeCPUMS: nodes, secs: s, cpuMS: msf(b.cpu-a.cpu) / s, outBps: (b.out.OutBytes - a.out.OutBytes) / s,
		inMsgs: (b.in.InMsgs - a.in.InMsgs) / s, outMs: (b.out.OutMsgs - a.out.OutMsgs) / s,
		replicaCPUMS: msf(b.replicaCPU-a.replicaCPU) / s,
		busy:         float64(b.busy-a.busy) / float64(max(1, b.all-a.all)), rss: b.rss}
}

// seqWatch records when each edit, by its stream sequence, first reached
// one replica's event stream: the "id: <seq>.<n>" line of its events.
type seqWatch struct {
	mu   sync.Mutex
	seen map[uint64]time.Time
}

func (w *seqWatch) at(seq uint64) (time.Time, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	t, ok := w.seen[seq]
	return t, ok
}

// watchSeqs opens p's event stream, every event of every competition, and
// records arrivals until ctx ends.
func watchSeqs(ctx context.Context, p *process, token string) (*seqWatch, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", "http://"+p.addr+"/v1/events", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("X-Auth-Token", token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("GET /v1/events on %s: status %d", p.addr, resp.StatusCode)
	}
	w := &seqWatch{seen: map[uint64]time.Time{}}
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			id, ok := strings.CutPrefix(sc.Text(), "id: ")
			if !ok {
				continue
			}
			now := time.Now()
			seqText, _, _ := strings.Cut(id, ".")
			seq, err := strconv.ParseUint(seqText, 10, 64)
			if err != nil {
				continue
			}
			w.mu.Lock()
			if _, dup := w.seen[seq]; !dup {
				w.seen[seq] = now
			}
			w.mu.Unlock()
		}
	}()
	return w, nil
}

// editRecord is one published edit: its stream sequence, when the call began
// and when its acknowledgement came back, and the index of its message
// among those the plain subscriber saw.
type editRecord struct {
	seq      uint64
	t0, ack  time.Time
	plainIdx int
}

// editLoad publishes score edits of a few finished fixtures through the
// editor (the code path of `ingest result`) at a steady rate, one at a
// time, and records each; a plain NATS subscriber of the fixtures'
// subjects is the baseline.
type editLoad struct {
	ed       *editor.Editor
	fixtures []*model.Fixture
	sub      *nats.Subscription

	mu     sync.Mutex
	edits  []editRecord
	plain  []time.Time
	revs   int
	err    error
	stop   chan struct{}
	done   chan struct{}
	visits int
}

func newEditLoad(ctx context.Context, w *world, p *process, ps paths, token string) (*editLoad, error) {
	l := &editLoad{ed: &editor.Editor{Store: w.store, Meta: benchMeta}}
	var fx struct {
		Fixtures []struct {
			Links struct {
				Self struct{ Href string } `json:"self"`
			} `json:"_links"`
			Status string `json:"status"`
		} `json:"fixtures"`
	}
	if err := getJSON(p, ps.compFixtures, map[string]string{"X-Auth-Token": token}, &fx); err != nil {
		return nil, err
	}
	for _, f := range fx.Fixtures {
		if f.Status != string(model.Finished) || len(l.fixtures) == 10 {
			continue
		}
		id, err := lastID(f.Links.Self.Href)
		if err != nil {
			return nil, err
		}
		one, _, err := l.ed.Fixture(ctx, id)
		if err != nil {
			return nil, err
		}
		if one.Result.FullTime != nil {
			l.fixtures = append(l.fixtures, one)
		}
	}
	if len(l.fixtures) == 0 {
		return nil, fmt.Errorf("no finished fixture with a score in %s", ps.compFixtures)
	}
	var err error
	l.sub, err = w.store.Conn().Subscribe(events.Prefix+".fixture.>", func(*nats.Msg) {
		now := time.Now()
		l.mu.Lock()
		l.plain = append(l.plain, now)
		l.mu.Unlock()
	})
	return l, err
}

// run publishes rate edits per second until halt; an edit that takes
// longer than its interval delays the next (the achieved rate is
// reported).
func (l *editLoad) run(ctx context.Context, rate float64) {
	l.stop, l.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(l.done)
		tick := time.NewTicker(time.Duration(float64(time.Second) / rate))
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-l.stop:
				return
			case <-tick.C:
			}
			if err := l.one(ctx); err != nil {
				l.mu.Lock()
				l.err = err
				l.mu.Unlock()
				return
			}
		}
	}()
}

func (l *editLoad) one(ctx context.Context) error {
	f := l.fixtures[l.visits%len(l.fixtures)]
	// Each visit of a fixture moves its home score one goal away from
	// the original or back, so that every edit changes something.
	home := f.Result.FullTime.Home + 1 - (l.visits/len(l.fixtures))%2
	l.visits++
	t0 := time.Now()
	ch, _, err := l.ed.PutFixture(ctx, f.ID, true, func(x *model.Fixture) error {
		x.Result.FullTime = &model.Score{Home: home, Away: f.Result.FullTime.Away}
		return nil
	})
	if err != nil {
		return fmt.Errorf("edit fixture %d: %w", f.ID, err)
	}
	ack := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.edits = append(l.edits, editRecord{seq: ch.Seq, t0: t0, ack: ack, plainIdx: l.revs + ch.Revisions - 1})
	l.revs += ch.Revisions
	return nil
}

func (l *editLoad) halt() error {
	close(l.stop)
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

func (l *editLoad) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.edits)
}

func (l *editLoad) close() { _ = l.sub.Unsubscribe() }

// freshness is what the edits [from, to) took to reach every watcher.
type freshness struct {
	all, plain, ack loadResult
	missing         int
}

// measure waits (up to 5 s) until every watcher has seen the last of the
// edits, then times each edit from its call to its arrival on the last
// replica to get it.
func (l *editLoad) measure(watches []*seqWatch, from, to int) freshness {
	l.mu.Lock()
	es := append([]editRecord(nil), l.edits[from:to]...)
	l.mu.Unlock()
	var f freshness
	if len(es) == 0 {
		return f
	}
	last := es[len(es)-1].seq
	deadline := time.Now().Add(5 * time.Second)
	for _, w := range watches {
		for time.Now().Before(deadline) {
			if _, ok := w.at(last); ok {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	l.mu.Lock()
	plain := append([]time.Time(nil), l.plain...)
	l.mu.Unlock()
	for _, e := range es {
		worst, ok := time.Duration(0), true
		for _, w := range watches {
			t, seen := w.at(e.seq)
			if !seen {
				ok = false
				break
			}
			worst = max(worst, t.Sub(e.t0))
		}
		if !ok {
			f.missing++
			continue
		}
		f.all.lat = append(f.all.lat, worst)
		f.ack.lat = append(f.ack.lat, e.ack.Sub(e.t0))
		if e.plainIdx < len(plain) {
			f.plain.lat = append(f.plain.lat, plain[e.plainIdx].Sub(e.t0))
		}
	}
	return f
}

// fanoutSeries runs the levels on one arrangement of servers: a world
// published, then replicas added up to each level, the last one timed as
// it joins while edits flow, then a window of edits and an idle window.
func fanoutSeries(ctx context.Context, env *benchEnv, bin string, s fanoutSetup) error {
	name := fmt.Sprintf("fanout-%d", s.nodes)
	dir := filepath.Join(env.tmp, name)
	srv, err := startNATSNodes(env, bin, dir, s)
	if err != nil {
		return err
	}
	w := &world{name: name, srv: srv, dir: dir}
	defer w.close()
	if w.store, err = provisionedRetrying(ctx, srv.URL(), s.replicas); err != nil {
		return err
	}
	sum, err := generateWorld(ctx, w, env.FanoutFixtures, 0)
	if err != nil {
		return err
	}
	fmt.Printf("  %s: generated %d fixtures, %d messages in %s\n", s, sum.Fixtures, sum.Messages, secs(sum.Elapsed))
	token, err := addClient(ctx, w)
	if err != nil {
		return err
	}
	var reps []*process
	var watches []*seqWatch
	wctx, cancel := context.WithCancel(ctx)
	defer func() {
		cancel()
		var wg sync.WaitGroup
		for _, p := range reps {
			wg.Go(p.stop)
		}
		wg.Wait()
	}()
	add := func() (time.Duration, error) {
		p, err := startReplica(env, fmt.Sprintf("%s-replica-%d", name, len(reps)+1), srv.URL())
		if err != nil {
			return 0, err
		}
		reps = append(reps, p)
		d, err := p.waitReady(env.ReadyTimeout)
		if err != nil {
			return 0, err
		}
		sw, err := watchSeqs(wctx, p, token)
		if err != nil {
			return 0, err
		}
		watches = append(watches, sw)
		return d, nil
	}
	// The first replica finds the fixtures the edits change: it starts
	// alone, before any edit, and its start-up is the joins' baseline.
	join, err := add()
	if err != nil {
		return err
	}
	ps, err := discover(reps[0], token)
	if err != nil {
		return err
	}
	load, err := newEditLoad(ctx, w, reps[0], ps, token)
	if err != nil {
		return err
	}
	defer load.close()
	var levels []fanoutLevel
	for _, n := range env.FanoutLevels {
		for len(reps) < n-1 {
			if _, err := add(); err != nil {
				return err
			}
		}
		var joinCPU time.Duration
		if len(reps) < n {
			if join, joinCPU, err = joinUnderEdits(ctx, env, srv, load, add); err != nil {
				return err
			}
		}
		lv, err := fanoutMeasure(ctx, env, srv, reps, watches, load, join, joinCPU)
		if err != nil {
			return err
		}
		if s.nodes > 1 {
			lv.leader = streamLeader(ctx, w.store.Conn())
		}
		levels = append(levels, lv)
	}
	return fanoutRows(env, s, sum.Fixtures, levels)
}

// joinUnderEdits adds one replica while edits flow and returns its
// start-up and the NATS nodes' CPU time meanwhile.
func joinUnderEdits(ctx context.Context, env *benchEnv, srv *natsNodes, load *editLoad, add func() (time.Duration, error)) (time.Duration, time.Duration, error) {
	load.run(ctx, env.FanoutEditRate)
	u0, err := srv.usage(nil)
	if err != nil {
		return 0, 0, errors.Join(err, load.halt())
	}
	d, err := add()
	if err != nil {
		return 0, 0, errors.Join(err, load.halt())
	}
	u1, err := srv.usage(nil)
	if err != nil {
		return 0, 0, errors.Join(err, load.halt())
	}
	return d, u1.cpu - u0.cpu, load.halt()
}

// streamLeader names the node leading the stream FOOTBALL, or says why it
// cannot.
func streamLeader(ctx context.Context, nc *nats.Conn) string {
	js, err := jetstream.New(nc)
	if err != nil {
		return err.Error()
	}
	st, err := js.Stream(ctx, events.DefaultStream)
	if err != nil {
		return err.Error()
	}
	info, err := st.Info(ctx)
	if err != nil {
		return err.Error()
	}
	if info.Cluster == nil {
		return "none"
	}
	return info.Cluster.Leader
}

// provisionedRetrying sets up and opens the world's stream, trying again
// while a cluster has no meta leader yet.
func provisionedRetrying(ctx context.Context, url string, replicas int) (*events.Store, error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		store, err := provisioned(ctx, url, replicas)
		if err == nil || time.Now().After(deadline) {
			return store, err
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// fanoutLevel is what one level measured.
type fanoutLevel struct {
	replicas       int
	join           time.Duration
	joinNATSCPU    time.Duration
	load, idle     window
	fresh          freshness
	edits          int
	replicaRSS     float64 // the replicas' mean
	replicaHeap    float64
	achievedPerSec float64
	leader         string // the stream's leader in a cluster, by node name
}

// fanoutMeasure runs a window of edits at the set rate and then an idle
// window on the replicas running, and reads their memory.
func fanoutMeasure(ctx context.Context, env *benchEnv, srv *natsNodes, reps []*process, watches []*seqWatch, load *editLoad, join, joinCPU time.Duration) (fanoutLevel, error) {
	lv := fanoutLevel{replicas: len(reps), join: join, joinNATSCPU: joinCPU}
	from := load.count()
	load.run(ctx, env.FanoutEditRate)
	a, err := srv.usage(reps)
	if err != nil {
		return lv, errors.Join(err, load.halt())
	}
	time.Sleep(env.FanoutWindow)
	b, err := srv.usage(reps)
	if err != nil {
		return lv, errors.Join(err, load.halt())
	}
	to := load.count()
	if err := load.halt(); err != nil {
		return lv, err
	}
	lv.load = between(a, b)
	lv.edits = to - from
	lv.achievedPerSec = float64(lv.edits) / lv.load.secs
	lv.fresh = load.measure(watches, from, to)
	a, err = srv.usage(reps)
	if err != nil {
		return lv, err
	}
	time.Sleep(env.FanoutIdle)
	if b, err = srv.usage(reps); err != nil {
		return lv, err
	}
	lv.idle = between(a, b)
	for _, p := range reps {
		rss, err := p.rss()
		if err != nil {
			return lv, err
		}
		heap, err := p.metric("go_memstats_heap_inuse_bytes")
		if err != nil {
			return lv, err
		}
		lv.replicaRSS += rss / float64(len(reps))
		lv.replicaHeap += heap / float64(len(reps))
	}
	fmt.Printf("  %2d replicas: NATS %.0f ms/s CPU under edits (idle %.0f), out %.0f KB/s, p99 %s, machine %.0f%% busy, join %s\n",
		lv.replicas, lv.load.cpuMS, lv.idle.cpuMS, lv.load.outBps/1e3, ms(lv.fresh.all.pct(0.99)), 100*lv.load.busy, secs(join))
	return lv, nil
}

// fanoutRows reports each level and, over the levels, what one more
// replica adds (least-squares slopes over the number of replicas).
func fanoutRows(env *benchEnv, s fanoutSetup, fixtures int, levels []fanoutLevel) error {
	cores := runtime.NumCPU()
	first := levels[0]
	for _, lv := range levels {
		f := lv.fresh
		busy := fmt.Sprintf("machine %.0f%% busy (%d cores)", 100*lv.load.busy, cores)
		env.add(row{Section: "fanout", What: fmt.Sprintf("%s, %s, %.0f edits/s: NATS CPU, memory, bytes out", s, replicasText(lv.replicas), env.FanoutEditRate),
			Ours:     fmt.Sprintf("%.1f ms/s, RSS %.0f MiB, %.0f KB/s", lv.load.cpuMS, lv.load.rss/(1<<20), lv.load.outBps/1e3),
			Baseline: fmt.Sprintf("idle %.1f ms/s, %.0f KB/s", lv.idle.cpuMS, lv.idle.outBps/1e3),
			Note: fmt.Sprintf("%s window, %.1f edits/s achieved;%s NATS messages in %.0f/s, out %.0f/s; the replicas' CPU %.0f ms/s together; %s (idle window: %.0f%%)",
				secs(time.Duration(lv.load.secs*float64(time.Second))), lv.achievedPerSec, perNode(lv.load.nodeCPUMS, lv.leader), lv.load.inMsgs, lv.load.outMs, lv.load.replicaCPUMS, busy, 100*lv.idle.busy),
			Values: map[string]float64{"replicas": float64(lv.replicas), "nats_cpu_ms_per_s": lv.load.cpuMS, "idle_nats_cpu_ms_per_s": lv.idle.cpuMS,
				"nats_rss": lv.load.rss, "out_bytes_per_s": lv.load.outBps, "idle_out_bytes_per_s": lv.idle.outBps, "in_msgs_per_s": lv.load.inMsgs,
				"out_msgs_per_s": lv.load.outMs, "replicas_cpu_ms_per_s": lv.load.replicaCPUMS, "idle_replicas_cpu_ms_per_s": lv.idle.replicaCPUMS,
				"machine_busy": lv.load.busy, "idle_machine_busy": lv.idle.busy, "edits_per_s": lv.achievedPerSec,
				"replica_rss_mean": lv.replicaRSS, "replica_heap_mean": lv.replicaHeap}})
		r := row{Section: "fanout", What: fmt.Sprintf("%s, %s: edit → SSE event on every replica", s, replicasText(lv.replicas)),
			Ours:     fmt.Sprintf("p50 %s p99 %s max %s", ms(f.all.pct(0.5)), ms(f.all.pct(0.99)), ms(f.all.pct(1))),
			Baseline: fmt.Sprintf("plain NATS subscriber p50 %s p99 %s", ms(f.plain.pct(0.5)), ms(f.plain.pct(0.99))),
			Note: fmt.Sprintf("%d edits timed from the editor's call (its ack came back after p50 %s, p99 %s); %d never reached every replica; %s",
				len(f.all.lat), ms(f.ack.pct(0.5)), ms(f.ack.pct(0.99)), f.missing, busy),
			Values: map[string]float64{"replicas": float64(lv.replicas), "p50_ms": msf(f.all.pct(0.5)), "p99_ms": msf(f.all.pct(0.99)),
				"max_ms": msf(f.all.pct(1)), "plain_p50_ms": msf(f.plain.pct(0.5)), "plain_p99_ms": msf(f.plain.pct(0.99)),
				"ack_p50_ms": msf(f.ack.pct(0.5)), "ack_p99_ms": msf(f.ack.pct(0.99)), "missing": float64(f.missing), "edits": float64(len(f.all.lat))}}
		if p := f.plain.pct(0.99); p > 0 {
			r.Ratio = float64(f.all.pct(0.99)) / float64(p)
		}
		env.add(r)
		if f.missing > 0 {
			env.fail(fmt.Sprintf("fanout %s, %s", s, replicasText(lv.replicas)), fmt.Errorf("%d of %d edits never reached every replica's event stream", f.missing, f.missing+len(f.all.lat)))
		}
		what, note := fmt.Sprintf("%s: replica %d joins, start → /readyz", s, lv.replicas), "the first replica, alone and without edits"
		if lv.replicas > 1 {
			what += fmt.Sprintf(", %d running, edits flowing", lv.replicas-1)
			// The edits' own share, at the rate the level measured just
			// after, is taken out to leave the replay's.
			replay := lv.joinNATSCPU - time.Duration(lv.load.cpuMS*lv.join.Seconds()*float64(time.Millisecond))
			note = fmt.Sprintf("NATS CPU during the join %s, %s above the edits' own rate", ms(lv.joinNATSCPU), ms(replay))
		}
		values := map[string]float64{"replicas": float64(lv.replicas), "join_s": lv.join.Seconds()}
		if lv.replicas > 1 {
			values["join_nats_cpu_ms"] = msf(lv.joinNATSCPU)
			values["join_nats_cpu_above_edits_ms"] = msf(lv.joinNATSCPU) - lv.load.cpuMS*lv.join.Seconds()
		}
		env.add(row{Section: "fanout", What: what, Ours: secs(lv.join), Baseline: "first replica " + secs(first.join),
			Ratio: lv.join.Seconds() / first.join.Seconds(), Note: fmt.Sprintf("%s fixtures; %s", count(fixtures), note), Values: values})
	}
	xs := make([]float64, len(levels))
	cpu, idle, out, idleOut := make([]float64, len(levels)), make([]float64, len(levels)), make([]float64, len(levels)), make([]float64, len(levels))
	// rc and ri are one replica's CPU, under edits and idle, the mean of
	// the levels'.
	var rc, ri float64
	rate := 0.0
	for i, lv := range levels {
		xs[i], cpu[i], idle[i], out[i], idleOut[i] = float64(lv.replicas), lv.load.cpuMS, lv.idle.cpuMS, lv.load.outBps, lv.idle.outBps
		rc += lv.load.replicaCPUMS / xs[i] / float64(len(levels))
		ri += lv.idle.replicaCPUMS / xs[i] / float64(len(levels))
		rate += lv.achievedPerSec / float64(len(levels))
	}
	c, c0 := fit(xs, cpu)
	ic, _ := fit(xs, idle)
	o, o0 := fit(xs, out)
	io, _ := fit(xs, idleOut)
	env.add(row{Section: "fanout", What: fmt.Sprintf("%s: what one more replica costs the NATS nodes (slope over %s replicas)", s, levelList(levels)),
		Ours:     fmt.Sprintf("%.2f ms/s CPU, %.1f KB/s out at %.0f edits/s", c, o/1e3, rate),
		Baseline: fmt.Sprintf("idle %.2f ms/s CPU, %.1f KB/s out", ic, io/1e3),
		Note: fmt.Sprintf("least-squares fit over the levels: per edit and replica %.0f µs of NATS CPU and %.0f B out; the edits alone (the fit at 0 replicas) %.1f ms/s, %.1f KB/s; a replica spent %.2f ms/s under the edits (idle %.2f ms/s, means over the levels), %.0f µs per edit",
			(c-ic)*1e3/rate, (o-io)/rate, c0, o0/1e3, rc, ri, (rc-ri)*1e3/rate),
		Values: map[string]float64{"cpu_ms_per_s_per_replica": c, "idle_cpu_ms_per_s_per_replica": ic, "out_bytes_per_s_per_replica": o,
			"idle_out_bytes_per_s_per_replica": io, "edits_per_s": rate, "cpu_ms_per_s_at_0": c0, "out_bytes_per_s_at_0": o0,
			"replica_cpu_ms_per_s": rc, "idle_replica_cpu_ms_per_s": ri}})
	env.add(row{Section: "fanout", What: fmt.Sprintf("%s: one replica's memory at %s fixtures", s, count(fixtures)),
		Ours:     fmt.Sprintf("RSS %.0f MiB, heap in use %.0f MiB", first.replicaRSS/(1<<20), first.replicaHeap/(1<<20)),
		Baseline: fmt.Sprintf("mean of %d: RSS %.0f MiB", levels[len(levels)-1].replicas, levels[len(levels)-1].replicaRSS/(1<<20)),
		Note:     "after the level's edit and idle windows, no forced GC",
		Values:   map[string]float64{"fixtures": float64(fixtures), "rss": first.replicaRSS, "heap": first.replicaHeap}})
	return nil
}

// fit is the least-squares line through (xs, ys): its slope and its
// value at x = 0.
func fit(xs, ys []float64) (slope, intercept float64) {
	n := float64(len(xs))
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx, sy, sxx, sxy = sx+xs[i], sy+ys[i], sxx+xs[i]*xs[i], sxy+xs[i]*ys[i]
	}
	d := n*sxx - sx*sx
	if d == 0 {
		return 0, sy / n
	}
	slope = (n*sxy - sx*sy) / d
	return slope, (sy - slope*sx) / n
}

// perNode lists each node's CPU when there are several.
func perNode(ms []float64, leader string) string {
	if len(ms) < 2 {
		return ""
	}
	parts := make([]string, len(ms))
	for i, v := range ms {
		parts[i] = fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf(" CPU by node (-1, -2, …) %s ms/s, stream leader %s;", strings.Join(parts, ", "), leader)
}

func replicasText(n int) string {
	if n == 1 {
		return "1 replica"
	}
	return fmt.Sprintf("%d replicas", n)
}

func levelList(levels []fanoutLevel) string {
	parts := make([]string, len(levels))
	for i, lv := range levels {
		parts[i] = strconv.Itoa(lv.replicas)
	}
	return strings.Join(parts, ", ")
}
