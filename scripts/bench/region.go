package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/footdata/footballd/internal/webhook"
	"github.com/footdata/footballd/pkg/events"
	"github.com/nats-io/nats.go/jetstream"
)

// regionSeries measures deploy/README.md's "Several regions" on one
// machine: a home server (JetStream domain hub) holding the world and
// taking the edits, a leaf node of it in a domain of its own (eu) holding
// a mirror of the stream under the same name, one replica on each. The
// leaf's mirror is the one thing between the edits and the regional
// replica, so the difference between the two replicas' freshness is what
// the mirror costs on loopback; across regions the network's latency
// comes on top.
func regionSeries(ctx context.Context, env *benchEnv, bin string) error {
	dir := filepath.Join(env.tmp, "fanout-region")
	both := &natsNodes{}
	w := &world{name: "region", srv: both, dir: dir}
	defer w.close()
	home, region, err := startRegionNodes(env, bin, dir, both)
	if err != nil {
		return err
	}
	if w.store, err = provisionedRetrying(ctx, home.URL(), 0); err != nil {
		return err
	}
	sum, err := generateWorld(ctx, w, env.FanoutFixtures, 0)
	if err != nil {
		return err
	}
	fmt.Printf("  region: generated %d fixtures, %d messages in %s\n", sum.Fixtures, sum.Messages, secs(sum.Elapsed))
	token, err := addClient(ctx, w)
	if err != nil {
		return err
	}
	copied, msgs, err := mirrorInRegion(ctx, w.store, region.URL())
	if err != nil {
		return err
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	reps, starts, watches, err := startRegionReplicas(wctx, env, token, home, region)
	defer func() {
		cancel()
		for _, p := range reps {
			p.stop()
		}
	}()
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
	load.run(ctx, env.FanoutEditRate)
	h0, err1 := home.usage(nil)
	e0, err2 := region.usage(nil)
	time.Sleep(env.FanoutWindow)
	h1, err3 := home.usage(nil)
	e1, err4 := region.usage(nil)
	n := load.count()
	if err := errors.Join(err1, err2, err3, err4, load.halt()); err != nil {
		return err
	}
	hf, ef := load.measure(watches[:1], 0, n), load.measure(watches[1:], 0, n)
	lag := load.lag(watches[0], watches[1], 0, n)
	hw, ew := between(h0, h1), between(e0, e1)
	env.add(row{Section: "fanout", What: "region: a mirror of FOOTBALL in a leaf node's own JetStream domain, its first copy",
		Ours:   secs(copied),
		Note:   fmt.Sprintf("%s messages (%s fixtures) from the home server (domain hub) to the leaf node (domain eu) on loopback", count(int(msgs)), count(sum.Fixtures)),
		Values: map[string]float64{"copy_s": copied.Seconds(), "messages": float64(msgs)}})
	env.add(row{Section: "fanout", What: "region: replica start → /readyz, on the leaf node's mirror", Ours: secs(starts[1]),
		Baseline: "on the home server " + secs(starts[0]), Ratio: starts[1].Seconds() / starts[0].Seconds(),
		Note:   "the replica as it is: it finds FOOTBALL (the mirror), FD_LIMITS and the webhook queue in the leaf node's domain",
		Values: map[string]float64{"region_s": starts[1].Seconds(), "home_s": starts[0].Seconds()}})
	r := row{Section: "fanout", What: "region: edit at home → SSE event on the replica reading the leaf node's mirror",
		Ours:     fmt.Sprintf("p50 %s p99 %s max %s", ms(ef.all.pct(0.5)), ms(ef.all.pct(0.99)), ms(ef.all.pct(1))),
		Baseline: fmt.Sprintf("replica on the home server p50 %s p99 %s", ms(hf.all.pct(0.5)), ms(hf.all.pct(0.99))),
		Note: fmt.Sprintf("%d edits at %.0f/s from the editor's call, on loopback: across regions the one-way latency from home comes on top; each edit on the regional replica after the home one by p50 %s, p99 %s; NATS CPU under the edits: home %.1f ms/s, leaf node %.1f ms/s; machine %.0f%% busy; %d and %d edits never arrived",
			len(ef.all.lat), env.FanoutEditRate, ms(lag.pct(0.5)), ms(lag.pct(0.99)), hw.cpuMS, ew.cpuMS, 100*hw.busy, hf.missing, ef.missing),
		Values: map[string]float64{"region_p50_ms": msf(ef.all.pct(0.5)), "region_p99_ms": msf(ef.all.pct(0.99)), "region_max_ms": msf(ef.all.pct(1)),
			"home_p50_ms": msf(hf.all.pct(0.5)), "lag_p50_ms": msf(lag.pct(0.5)), "lag_p99_ms": msf(lag.pct(0.99)), "home_p99_ms": msf(hf.all.pct(0.99)), "home_nats_cpu_ms_per_s": hw.cpuMS, "leaf_nats_cpu_ms_per_s": ew.cpuMS}}
	if p := hf.all.pct(0.99); p > 0 {
		r.Ratio = float64(ef.all.pct(0.99)) / float64(p)
	}
	env.add(r)
	if hf.missing+ef.missing > 0 {
		env.fail("fanout region", fmt.Errorf("%d edits never reached the home replica, %d the regional one", hf.missing, ef.missing))
	}
	return nil
}

// startRegionNodes starts the home server (domain hub, listening for leaf
// nodes) and its leaf node (domain eu), adding both to both so that the
// caller stops them, and waits until the leaf node is connected. It
// returns each as the nodes a replica follows.
func startRegionNodes(env *benchEnv, bin, dir string, both *natsNodes) (home, region *natsNodes, err error) {
	hub, hubURL, err := startNATSNode(env, bin, dir, "hub", fmt.Sprintf(
		"jetstream {\n  store_dir: %q\n  domain: hub\n}\nleafnodes {\n  listen: 127.0.0.1:-1\n}\n", filepath.Join(dir, "hub")))
	if err != nil {
		return nil, nil, err
	}
	both.nodes = append(both.nodes, hub)
	if err := waitHealthy(hub, 30*time.Second); err != nil {
		return nil, nil, err
	}
	// The ports file leaves out the leaf node port the hub took: /varz
	// has it.
	var vz struct {
		Leaf struct {
			Port int `json:"port"`
		} `json:"leaf"`
	}
	if err := getJSON(hub, "/varz", nil, &vz); err != nil || vz.Leaf.Port == 0 {
		return nil, nil, fmt.Errorf("the hub's leaf node port: %v (/varz leaf.port %d)", err, vz.Leaf.Port)
	}
	eu, euURL, err := startNATSNode(env, bin, dir, "eu", fmt.Sprintf(
		"jetstream {\n  store_dir: %q\n  domain: eu\n}\nleafnodes {\n  remotes [ { url: \"nats-leaf://127.0.0.1:%d\" } ]\n}\n", filepath.Join(dir, "eu"), vz.Leaf.Port))
	if err != nil {
		return nil, nil, err
	}
	both.nodes = append(both.nodes, eu)
	if err := waitHealthy(eu, 30*time.Second); err != nil {
		return nil, nil, err
	}
	if err := waitLeafConnected(eu, 30*time.Second); err != nil {
		return nil, nil, err
	}
	return &natsNodes{nodes: both.nodes[:1], urls: []string{hubURL}}, &natsNodes{nodes: both.nodes[1:], urls: []string{euURL}}, nil
}

// startRegionReplicas starts one replica on the home server and one on the
// leaf node, in turn, each watched (watchSeqs) until ctx ends. It returns
// the replicas it started, also on error, for the caller to stop, and
// each one's start to /readyz.
func startRegionReplicas(ctx context.Context, env *benchEnv, token string, home, region *natsNodes) ([]*process, [2]time.Duration, [2]*seqWatch, error) {
	var reps []*process
	var starts [2]time.Duration
	var watches [2]*seqWatch
	for i, srv := range []*natsNodes{home, region} {
		p, err := startReplica(env, fmt.Sprintf("region-replica-%d", i+1), srv.URL())
		if err != nil {
			return reps, starts, watches, err
		}
		reps = append(reps, p)
		if starts[i], err = p.waitReady(env.ReadyTimeout); err != nil {
			return reps, starts, watches, err
		}
		if watches[i], err = watchSeqs(ctx, p, token); err != nil {
			return reps, starts, watches, err
		}
	}
	return reps, starts, watches, nil
}

// lag is, for each of the edits [from, to) both watchers saw, how much
// later b saw it than a.
func (l *editLoad) lag(a, b *seqWatch, from, to int) loadResult {
	l.mu.Lock()
	es := append([]editRecord(nil), l.edits[from:to]...)
	l.mu.Unlock()
	var r loadResult
	for _, e := range es {
		ta, okA := a.at(e.seq)
		tb, okB := b.at(e.seq)
		if okA && okB {
			r.lat = append(r.lat, tb.Sub(ta))
		}
	}
	return r
}

// waitLeafConnected polls the node's /leafz until it has a leaf node
// connection.
func waitLeafConnected(n *process, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		var lz struct {
			Leafs int `json:"leafnodes"`
		}
		if err := getJSON(n, "/leafz", nil, &lz); err == nil && lz.Leafs > 0 {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("leaf node on %s not connected after %s", n.addr, timeout)
}

// mirrorInRegion sets up what a region's leaf node holds, as an operator
// would: a mirror of the home stream under the name the replicas look up,
// and the replicas' own bucket and work queue. It waits until the mirror
// has every message the home stream has, and returns how long that took.
func mirrorInRegion(ctx context.Context, home *events.Store, url string) (time.Duration, uint64, error) {
	last, err := home.LastSeq(ctx)
	if err != nil {
		return 0, 0, err
	}
	nc, err := events.Dial{URL: url, Name: "bench"}.Conn()
	if err != nil {
		return 0, 0, err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return 0, 0, err
	}
	start := time.Now()
	mirror, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: events.DefaultStream, Storage: jetstream.FileStorage,
		MaxMsgsPerSubject: 64,
		Mirror:            &jetstream.StreamSource{Name: events.DefaultStream, External: &jetstream.ExternalStream{APIPrefix: "$JS.hub.API"}}})
	if err != nil {
		return 0, 0, fmt.Errorf("mirror: %w", err)
	}
	for {
		info, err := mirror.Info(ctx)
		if err != nil {
			return 0, 0, err
		}
		if info.State.LastSeq >= last {
			break
		}
		if time.Since(start) > time.Minute {
			return 0, 0, fmt.Errorf("mirror at %d of %d after a minute", info.State.LastSeq, last)
		}
		time.Sleep(10 * time.Millisecond)
	}
	copied := time.Since(start)
	if _, err := events.ProvisionBudgets(ctx, nc, 1); err != nil {
		return 0, 0, err
	}
	if _, _, err := webhook.Provision(ctx, nc, 1); err != nil {
		return 0, 0, err
	}
	return copied, last, nil
}
