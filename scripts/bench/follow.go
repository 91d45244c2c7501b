package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/internal/follow"
	"github.com/footdata/footballd/pkg/model"
)

// followFeeds is how many feeds the follower's row follows.
const followFeeds = 20

// followSeason is the file each feed follows: a season in progress.
const followSeason = "2025-26/en.1.json"

// followSource serves copies of the season file, one per feed
// (/fNN/2025-26/en.1.json), with an ETag, as a static file server does:
// 304 to a conditional request that matches.
func followSource(dir string) (*http.Server, string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(r.URL.Path, "/")))
		b, err := os.ReadFile(path)
		fi, serr := os.Stat(path)
		if err != nil || serr != nil {
			http.NotFound(w, r)
			return
		}
		sum := sha256.Sum256(b)
		w.Header().Set("ETag", `"`+hex.EncodeToString(sum[:8])+`"`)
		w.Header().Set("Content-Type", "application/json")
		http.ServeContent(w, r, "", fi.ModTime(), bytes.NewReader(b))
	}), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return srv, "http://" + ln.Addr().String(), nil
}

// followRows measures `ingest follow` (bin/ingest, a child process) on 20
// feeds polled every second: the CPU and time of a poll of all 20 while
// their files are unchanged (every fetch a 304), and of a poll of one file
// that changed (a result added: parsed and its one fixture written),
// beside plain GETs of the same files (a child process too, the bench
// binary with --plain-get).
func followRows(ctx context.Context, env *benchEnv) error {
	ingestBin := filepath.Join(filepath.Dir(env.apiBin), "ingest")
	if _, err := os.Stat(ingestBin); err != nil {
		return fmt.Errorf("%v: build it first with `go build -o bin/ ./cmd/...` (make bench does)", err)
	}
	body, err := os.ReadFile(filepath.Join(env.dataDir, "openfootball-football-json", followSeason))
	if err != nil {
		return err
	}
	dir := filepath.Join(env.tmp, "follow-source")
	srv, urls, err := serveFeeds(dir, body)
	if err != nil {
		return err
	}
	defer srv.Close()
	w, err := newWorld(ctx, env, "follow")
	if err != nil {
		return err
	}
	defer w.close()
	p, err := startFollower(env, w, ingestBin)
	if err != nil {
		return err
	}
	defer p.stop()
	ed := &editor.Editor{Store: w.store, Meta: benchMeta}
	for i, u := range urls {
		if _, err := ed.AddFeed(ctx, model.Feed{Name: fmt.Sprintf("f%02d", i), Format: "openfootball", URL: u, EverySeconds: 1, CreateTeams: true}); err != nil {
			return err
		}
	}
	state, err := follow.Open(ctx, w.store.Conn())
	if err != nil {
		return err
	}
	// Every feed imported once, then polled unchanged.
	if err := waitFor(ctx, 5*time.Minute, func() (bool, error) {
		n, err := p.metricSum("fd_feed_fetches_total", `result="not_modified"`)
		return n >= 2*followFeeds, err
	}); err != nil {
		return fmt.Errorf("the follower's first polls: %w; its log: %s", err, p.logTail())
	}
	if err := unchangedFeedRows(ctx, env, p, urls); err != nil {
		return err
	}
	return changedFeedRows(ctx, env, p, ed, state, dir, body, urls)
}

// serveFeeds writes a copy of the season file for every feed under dir and
// serves them (followSource); it returns the feeds' URLs.
func serveFeeds(dir string, body []byte) (*http.Server, []string, error) {
	srv, base, err := followSource(dir)
	if err != nil {
		return nil, nil, err
	}
	var urls []string
	for i := range followFeeds {
		p := filepath.Join(dir, fmt.Sprintf("f%02d", i), followSeason)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			srv.Close()
			return nil, nil, err
		}
		if err := os.WriteFile(p, body, 0o644); err != nil {
			srv.Close()
			return nil, nil, err
		}
		urls = append(urls, fmt.Sprintf("%s/f%02d/%s", base, i, followSeason))
	}
	return srv, urls, nil
}

// startFollower starts `ingest follow` on the world's stream, with an
// admin listener for its metrics.
func startFollower(env *benchEnv, w *world, ingestBin string) (*process, error) {
	return startBound(env.logPath("follow"), false, ingestBin, "--nats", w.url(), "follow",
		"--lease", "3s", "--log-level", "info", "--feed-allow", "127.0.0.1/32")
}

// unchangedFeedRows: all 20 feeds unchanged, every poll of the window a
// 304.
func unchangedFeedRows(ctx context.Context, env *benchEnv, p *process, urls []string) error {
	window := 5 * time.Second
	if env.Big >= fullScale.Big {
		window = 20 * time.Second
	}
	polls, cpu, took, err := p.followWindow(ctx, "not_modified", window, nil)
	if err != nil {
		return err
	}
	plain, err := plainGets(ctx, env, urls, 20)
	if err != nil {
		return err
	}
	ourCPU, ourTime := cpu/time.Duration(polls)*followFeeds, took/time.Duration(polls)
	env.add(row{Section: "follow", What: fmt.Sprintf("poll of %d unchanged feeds (all 304): CPU", followFeeds),
		Ours: ms(ourCPU), Baseline: "plain GET of the 20 files " + ms(plain.cpu), Ratio: ourCPU.Seconds() / plain.cpu.Seconds(),
		Note:   fmt.Sprintf("%d polls in %s; the follower's CPU between them included (lease renewals, the feed list)", polls, window),
		Values: map[string]float64{"polls": float64(polls), "oursCPUms": ourCPU.Seconds() * 1000, "plainCPUms": plain.cpu.Seconds() * 1000}})
	env.add(row{Section: "follow", What: "one unchanged feed's poll (304): time",
		Ours: ms(ourTime), Baseline: "plain GET of one file " + ms(plain.wall/followFeeds), Ratio: ourTime.Seconds() / (plain.wall / followFeeds).Seconds(),
		Note:   "a poll: the status read, a conditional GET, the status written",
		Values: map[string]float64{"oursMs": ourTime.Seconds() * 1000, "plainMs": (plain.wall / followFeeds).Seconds() * 1000}})
	return nil
}

// changedFeedRows: one feed's file changed (a result added), the other
// feeds paused.
func changedFeedRows(ctx context.Context, env *benchEnv, p *process, ed *editor.Editor, state *follow.State, dir string, body []byte, urls []string) error {
	for i := 1; i < followFeeds; i++ {
		if _, err := ed.PauseFeed(ctx, fmt.Sprintf("f%02d", i), true); err != nil {
			return err
		}
	}
	fd, err := ed.Feed(ctx, "f00")
	if err != nil {
		return err
	}
	changed := bytes.Replace(body, []byte(`"score": {
      }`), []byte(`"score": {"ft": [2, 1]}`), 1)
	polls, cpu, took, err := p.followWindow(ctx, "changed", 0, func() error {
		return os.WriteFile(filepath.Join(dir, "f00", followSeason), changed, 0o644)
	})
	if err != nil {
		return err
	}
	st, _, err := state.Status(ctx, fd.Name, fd.Created)
	if err != nil {
		return err
	}
	one, err := plainGets(ctx, env, urls[:1], 200)
	if err != nil {
		return err
	}
	env.add(row{Section: "follow", What: "poll of one changed file (a result added): CPU",
		Ours: ms(cpu), Baseline: "plain GET of the file " + ms(one.cpu), Ratio: cpu.Seconds() / one.cpu.Seconds(),
		Note: fmt.Sprintf("the follower's CPU from the change to its poll's end (status %s, %d change(s)); the file parsed and compared with the stream",
			st.Result, st.Changes), Values: map[string]float64{"oursCPUms": cpu.Seconds() * 1000, "plainCPUms": one.cpu.Seconds() * 1000}})
	env.add(row{Section: "follow", What: "poll of one changed file: time",
		Ours: ms(took / time.Duration(polls)), Baseline: "plain GET of the file " + ms(one.wall), Ratio: (took / time.Duration(polls)).Seconds() / one.wall.Seconds(),
		Values: map[string]float64{"oursMs": (took / time.Duration(polls)).Seconds() * 1000, "plainMs": one.wall.Seconds() * 1000}})
	return nil
}

// followWindow measures the follower's polls of result: over window, or
// (window 0) from change until the first such poll. It returns the polls,
// the process's CPU over the window and the polls' time in total.
func (p *process) followWindow(ctx context.Context, result string, window time.Duration, change func() error) (int, time.Duration, time.Duration, error) {
	label := `result="` + result + `"`
	n0, err := p.metricSum("fd_feed_poll_seconds_count", label)
	if err != nil {
		return 0, 0, 0, err
	}
	t0, err := p.metricSum("fd_feed_poll_seconds_sum", label)
	if err != nil {
		return 0, 0, 0, err
	}
	cpu0 := p.cpu()
	if change != nil {
		if err := change(); err != nil {
			return 0, 0, 0, err
		}
	}
	if window > 0 {
		select {
		case <-ctx.Done():
			return 0, 0, 0, ctx.Err()
		case <-time.After(window):
		}
	} else if err := waitFor(ctx, time.Minute, func() (bool, error) {
		n, err := p.metricSum("fd_feed_poll_seconds_count", label)
		return n > n0, err
	}); err != nil {
		return 0, 0, 0, fmt.Errorf("no %s poll: %w; its log: %s", result, err, p.logTail())
	}
	cpu := p.cpu() - cpu0
	n1, err := p.metricSum("fd_feed_poll_seconds_count", label)
	if err != nil {
		return 0, 0, 0, err
	}
	t1, err := p.metricSum("fd_feed_poll_seconds_sum", label)
	if err != nil {
		return 0, 0, 0, err
	}
	if n1 <= n0 {
		return 0, 0, 0, fmt.Errorf("no %s poll in the window", result)
	}
	return int(n1 - n0), cpu, time.Duration((t1 - t0) * float64(time.Second)), nil
}

// metricSum adds the samples of a metric of the admin listener's /metrics
// whose labels hold label.
func (p *process) metricSum(name, label string) (float64, error) {
	resp, err := http.Get("http://" + p.admin + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	sum := 0.0
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+"{") || !strings.Contains(line, label) {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			return 0, err
		}
		sum += v
	}
	return sum, sc.Err()
}

// waitFor polls done every 50 ms until it is true, for at most limit.
func waitFor(ctx context.Context, limit time.Duration, done func() (bool, error)) error {
	deadline := time.Now().Add(limit)
	for {
		ok, err := done()
		if ok || (err != nil && time.Now().After(deadline)) {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not within %s", limit)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// plainResult is a round of plain GETs: wall time and CPU of one round.
type plainResult struct{ wall, cpu time.Duration }

// plainGets runs the baseline in a child (the bench binary with
// --plain-get): rounds rounds of a GET of every URL in turn, bodies read
// whole, one keep-alive client; it returns one round's mean.
func plainGets(ctx context.Context, env *benchEnv, urls []string, rounds int) (plainResult, error) {
	cmd := exec.CommandContext(ctx, env.self, "--plain-get", strings.Join(urls, ","), "--plain-rounds", strconv.Itoa(rounds))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return plainResult{}, fmt.Errorf("plain GETs: %v: %s", err, stderr.Bytes())
	}
	var wall, cpu int64
	if _, err := fmt.Sscanf(string(out), "%d %d", &wall, &cpu); err != nil {
		return plainResult{}, fmt.Errorf("plain GETs printed %q: %w", out, err)
	}
	return plainResult{wall: time.Duration(wall) / time.Duration(rounds), cpu: time.Duration(cpu) / time.Duration(rounds)}, nil
}

// plainGetMain is the child's side of plainGets: it prints the wall time
// and its own CPU time (user and system, from getrusage) of all rounds, in
// nanoseconds; the first round, which connects, is not counted.
func plainGetMain(list string, rounds int) error {
	urls := strings.Split(list, ",")
	client := &http.Client{Timeout: time.Minute}
	round := func() error {
		for _, u := range urls {
			resp, err := client.Get(u)
			if err != nil {
				return err
			}
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK {
				return fmt.Errorf("GET %s: %d %v", u, resp.StatusCode, err)
			}
		}
		return nil
	}
	if err := round(); err != nil {
		return err
	}
	cpu0 := selfCPU()
	start := time.Now()
	for range rounds {
		if err := round(); err != nil {
			return err
		}
	}
	fmt.Println(int64(time.Since(start)), int64(selfCPU()-cpu0))
	return nil
}

// selfCPU is the process's user and system time so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
