// Command bench measures the whole system against baselines measured in the
// same run: read throughput and latency of an API replica beside a bare
// fasthttp server writing the same bytes, start-up replay beside a raw
// JetStream replay, edit-to-visible freshness on three replicas, memory per
// fixture, bulk ingest beside a raw async publish, what 1 to 20 replicas
// cost the NATS servers they follow (fanout.go), and the live sources'
// follower: change to event stream against the poll interval, calls an
// hour against the plan's budget, CPU a poll against a plain GET
// (live.go). It prints a table and writes it as JSON and Markdown (see
// docs/performance.md).
//
//	go run ./scripts/bench [--quick] [--out bench/runs]
//
// bin/api must be built first (make bench and make bench-quick do).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// scale holds what differs between a quick and a full run.
type scale struct {
	Small, Big     int           // fixtures of the two generated worlds
	ExtraEdits     int           // revisions per fixture in the edits world (built at Small)
	ReadFor        time.Duration // one closed-loop load run
	Rounds         int           // interleaved rounds of every read row
	Conns          int           // connections of the closed-loop load
	LatencyFor     time.Duration // the open-loop run at half of peak
	Edits          int           // freshness samples
	ReplayRounds   int
	EngSoccer      bool
	SeasonDir      string // openfootball season imported for the ingest row
	ReadyTimeout   time.Duration
	MemorySettle   time.Duration
	OpenLoopWorker int
	// The fan-out part (fanout.go): its world, the numbers of replicas
	// measured, the edit rate, and the length of each level's windows.
	FanoutFixtures int
	FanoutLevels   []int
	FanoutEditRate float64
	FanoutWindow   time.Duration
	FanoutIdle     time.Duration
	FanoutSetups   []fanoutSetup
	// The live part (live.go): the window of unchanged polls, the goals
	// timed to the event stream, and how long three live competitions
	// are followed at the free plan's budget.
	LiveIdle    time.Duration
	LiveChanges int
	LiveFor     time.Duration
}

var (
	quickScale = scale{Small: 20_000, Big: 100_000, ExtraEdits: 10, ReadFor: time.Second, Rounds: 2, Conns: 32,
		LatencyFor: 3 * time.Second, Edits: 50, ReplayRounds: 1, SeasonDir: "2015-16",
		ReadyTimeout: 2 * time.Minute, MemorySettle: time.Second, OpenLoopWorker: 64,
		FanoutFixtures: 20_000, FanoutLevels: []int{1, 5, 10, 20}, FanoutEditRate: 20, FanoutWindow: 2 * time.Second,
		FanoutIdle: time.Second, FanoutSetups: []fanoutSetup{{nodes: 1, replicas: 1}},
		LiveIdle: 5 * time.Second, LiveChanges: 6, LiveFor: 20 * time.Second}
	fullScale = scale{Small: 100_000, Big: 1_000_000, ExtraEdits: 10, ReadFor: 3 * time.Second, Rounds: 3, Conns: 32,
		LatencyFor: 10 * time.Second, Edits: 200, ReplayRounds: 3, EngSoccer: true, SeasonDir: "2015-16",
		ReadyTimeout: 10 * time.Minute, MemorySettle: 3 * time.Second, OpenLoopWorker: 64,
		FanoutFixtures: 100_000, FanoutLevels: []int{1, 5, 10, 20}, FanoutEditRate: 20, FanoutWindow: 5 * time.Second,
		FanoutIdle: 2 * time.Second, FanoutSetups: []fanoutSetup{{nodes: 1, replicas: 1}, {nodes: 3, replicas: 3}},
		LiveIdle: 15 * time.Second, LiveChanges: 20, LiveFor: 2 * time.Minute}
)

// benchEnv is what every step shares.
type benchEnv struct {
	scale
	apiBin  string
	self    string
	tmp     string
	dataDir string
	rep     *report
	// serverCores is --server-cores: the cores the read rows give each
	// server, 0 for half of the machine's.
	serverCores int
}

func (e *benchEnv) logPath(name string) string { return filepath.Join(e.tmp, name+".log") }

func (e *benchEnv) add(r row) {
	e.rep.Rows = append(e.rep.Rows, r)
	fmt.Printf("  %-9s %-52s %-26s | %-26s %6s", r.Section, r.What, r.Ours, r.Baseline, ratioText(r.Ratio))
	if r.Nginx != "" {
		fmt.Printf(" | nginx %s %s", r.Nginx, ratioText(r.NginxRatio))
	}
	fmt.Printf(" %s\n", r.Status)
}

func (e *benchEnv) fail(step string, err error) {
	msg := fmt.Sprintf("%s: %v", step, err)
	e.rep.Failures = append(e.rep.Failures, msg)
	fmt.Println("  FAILED", msg)
}

func main() {
	quick := flag.Bool("quick", false, "small scale, about 2.5 minutes")
	// Ignored by git: a run leaves the checkout clean. The results the
	// docs quote are copied to bench/results when a round is published.
	out := flag.String("out", "bench/runs", "directory for the result files")
	api := flag.String("api", "bin/api", "the API replica binary")
	data := flag.String("data", "../shared/data", "directory holding openfootball-football-json and engsoccerdata")
	noEng := flag.Bool("no-engsoccer", false, "skip the engsoccerdata rows of a full run")
	only := flag.String("only", "", "run only these steps, comma-separated: ingest, follow, live, empty, small, edits, big, engsoccer, fanout (rows compared with a skipped step's figure are left out or shown without it)")
	serverCores := flag.Int("server-cores", 0, "cores the read rows give each server (GOMAXPROCS, nginx workers): 0 is half of the machine's, the load generator having the others; all of them shares them with the load generator, and the rows are judged by CPU per request")
	var in internalFlags
	flag.StringVar(&in.bareFile, "bare-serve", "", "internal: serve the captured responses in this file as the bare baseline")
	flag.StringVar(&in.listen, "listen", "", "internal: address of the bare baseline server")
	flag.StringVar(&in.loadFile, "load", "", "internal: run the load described in this file")
	flag.StringVar(&in.loadOut, "load-out", "", "internal: where --load writes what it measured")
	flag.StringVar(&in.rawReplayURL, "raw-replay", "", "internal: run the raw replay baseline against this NATS URL")
	flag.StringVar(&in.plainGet, "plain-get", "", "internal: GET these URLs (comma-separated), the follower's baseline")
	flag.IntVar(&in.plainRounds, "plain-rounds", 1, "internal: rounds of --plain-get")
	flag.Parse()
	if ran, err := in.run(); ran {
		if err != nil {
			log.Fatal(err)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	if *serverCores < 0 || *serverCores > runtime.NumCPU() {
		log.Fatalf("--server-cores %d: must be 0 (half of the cores) to %d (every core)", *serverCores, runtime.NumCPU())
	}
	env, err := newBenchEnv(*quick, *noEng, *api, *data)
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(env.tmp)
	env.serverCores = *serverCores
	env.rep.Params["serverCores"] = splitCores(*serverCores).serverCores
	fmt.Printf("footballd bench, %s mode; logs of child processes in %s (removed at the end)\n", env.rep.Mode, env.tmp)

	chosen, err := chooseSteps(*only)
	if err != nil {
		log.Fatal(err)
	}
	env.rep.Params["only"] = *only
	runSteps(ctx, env, chosen)
	env.rep.Elapsed = time.Since(env.rep.Started).Round(time.Second).String()
	fmt.Println()
	env.rep.markdown(os.Stdout)
	if err := env.rep.write(*out); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("\nwritten to %s/latest.{json,md}\n", *out)
	if len(env.rep.Failures) > 0 {
		os.Exit(1)
	}
}

// internalFlags are the modes in which the bench binary runs as a child of
// the bench: a baseline or the load generator, kept out of the measuring
// process so that they share neither its CPU accounting nor its collector.
type internalFlags struct {
	bareFile, listen  string
	loadFile, loadOut string
	rawReplayURL      string
	plainGet          string
	plainRounds       int
}

// run runs the one internal mode given, if any; ran says whether one was.
func (in internalFlags) run() (ran bool, err error) {
	switch {
	case in.plainGet != "":
		return true, plainGetMain(in.plainGet, in.plainRounds)
	case in.rawReplayURL != "":
		return true, rawReplayMain(in.rawReplayURL)
	case in.loadFile != "":
		return true, loadMain(in.loadFile, in.loadOut)
	case in.bareFile != "":
		return true, serveBare(in.bareFile, in.listen)
	}
	return false, nil
}

// newBenchEnv sets up what every step shares: the scale, the binaries,
// a temporary directory (the caller removes it) and the report with the
// run's parameters.
func newBenchEnv(quick, noEng bool, api, data string) (*benchEnv, error) {
	env := &benchEnv{scale: fullScale, dataDir: data}
	mode := "full"
	if quick {
		env.scale, mode = quickScale, "quick"
	}
	if noEng {
		env.EngSoccer = false
	}
	var err error
	if env.apiBin, err = filepath.Abs(api); err != nil {
		return nil, err
	}
	if _, err := os.Stat(env.apiBin); err != nil {
		return nil, fmt.Errorf("%v: build it first with `go build -o bin/ ./cmd/...` (make bench does)", err)
	}
	if env.self, err = os.Executable(); err != nil {
		return nil, err
	}
	if env.tmp, err = os.MkdirTemp("", "footballd-bench-"); err != nil {
		return nil, err
	}
	env.rep = &report{Started: time.Now(), Mode: mode, Machine: describeMachine(), Params: map[string]any{
		"smallFixtures": env.Small, "bigFixtures": env.Big, "extraEdits": env.ExtraEdits, "readSeconds": env.ReadFor.Seconds(),
		"rounds": env.Rounds, "connections": env.Conns, "latencySeconds": env.LatencyFor.Seconds(), "edits": env.Edits,
		"replayRounds": env.ReplayRounds, "engsoccer": env.EngSoccer, "openfootballSeason": env.SeasonDir,
		"fanoutFixtures": env.FanoutFixtures, "fanoutLevels": env.FanoutLevels, "fanoutEditsPerSecond": env.FanoutEditRate,
		"fanoutWindowSeconds": env.FanoutWindow.Seconds(), "fanoutIdleSeconds": env.FanoutIdle.Seconds(), "fanoutSetups": fmt.Sprint(env.FanoutSetups),
		"liveIdleSeconds": env.LiveIdle.Seconds(), "liveChanges": env.LiveChanges, "liveSeconds": env.LiveFor.Seconds()}}
	return env, nil
}

// steps are the run's parts, in the order they run.
var steps = []step{
	{"ingest", "ingest openfootball", ingestOpenFootball},
	{"follow", "ingest follow", followRows},
	{"live", "live sources", liveRows},
	{"empty", "empty replica", emptyReplica},
	{"small", "small world", smallWorld},
	{"edits", "edits world", editsWorld},
	{"big", "big world", bigWorld},
	{"engsoccer", "engsoccerdata", engSoccerWorld},
	{"fanout", "fan-out to many replicas", fanoutWorld},
}

// chooseSteps reads --only: the steps named, none meaning all.
func chooseSteps(only string) (map[string]bool, error) {
	chosen := map[string]bool{}
	for _, name := range strings.Split(only, ",") {
		if name = strings.TrimSpace(name); name != "" {
			chosen[name] = true
		}
	}
	for name := range chosen {
		if !slices.ContainsFunc(steps, func(s step) bool { return s.short == name }) {
			return nil, fmt.Errorf("--only %s: no such step (ingest, follow, live, empty, small, edits, big, engsoccer, fanout)", name)
		}
	}
	return chosen, nil
}

// runSteps runs the chosen steps until an interrupt; a step that fails is
// recorded in the report and the next one runs.
func runSteps(ctx context.Context, env *benchEnv, chosen map[string]bool) {
	for _, s := range steps {
		if ctx.Err() != nil {
			break
		}
		if (len(chosen) > 0 && !chosen[s.short]) || (s.short == "engsoccer" && !env.EngSoccer) {
			continue
		}
		fmt.Printf("== %s (%s)\n", s.name, time.Since(env.rep.Started).Round(time.Second))
		if err := s.fn(ctx, env); err != nil {
			env.fail(s.name, err)
		}
	}
}

// step is one part of the run; short is its name for --only.
type step struct {
	short, name string
	fn          func(context.Context, *benchEnv) error
}

func describeMachine() machine {
	m := machine{Cores: runtime.NumCPU(), Go: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH}
	if raw, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.Lines(string(raw)) {
			if v, ok := strings.CutPrefix(line, "model name"); ok {
				m.CPU = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
				break
			}
		}
	}
	if raw, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb float64
		if _, err := fmt.Sscanf(string(raw), "MemTotal: %f kB", &kb); err == nil {
			m.MemGiB = kb / (1 << 20)
		}
	}
	return m
}
