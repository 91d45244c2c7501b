package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/internal/follow"
	"github.com/footdata/footballd/internal/livefake"
	"github.com/footdata/footballd/pkg/model"
)

// The live step's OpenLigaDB: the recorded 2. Bundesliga season with
// matchday 27 in play, of which liveMatches are the three matches being
// played; the follower's budget is the fake's 60 calls a minute (a poll
// about every second), as in `make live-demo`.
const (
	liveRecording = "getmatchdata-bl2-2023.live-2024-03-30T1332.json"
	livePerMinute = 60
	liveV4Token   = "bench-token-0123456789"
)

var liveMatches = []int{67174, 67175, 67178}

// liveV4Lists are the football-data.org competitions played live at once:
// Bundesliga, Champions League, Brasileirão (recorded match lists).
var liveV4Lists = []string{"competitions-2002-matches.json", "competitions-2001-matches.json", "competitions-2013-matches.json"}

// liveRows measures the live sources' follower (bin/ingest follow, a
// child) through the fakes of internal/livefake, served in this process:
// the CPU of its polls of an OpenLigaDB matchday in play beside plain
// GETs of the same calls, the time from a change upstream to its event on
// the stream of two replicas (children) against the poll interval, and
// the calls a football-data.org feed of three live competitions makes an
// hour against the free plan's budget.
func liveRows(ctx context.Context, env *benchEnv) error {
	ingestBin := filepath.Join(filepath.Dir(env.apiBin), "ingest")
	season, err := os.ReadFile(filepath.Join(env.dataDir, "..", "spec", "openligadb", liveRecording))
	if err != nil {
		return fmt.Errorf("the recorded OpenLigaDB season (../shared/spec): %w", err)
	}
	fk, err := livefake.NewOpenLigaDB(season, 1<<30, time.Minute)
	if err != nil {
		return err
	}
	defer fk.Close()
	w, err := newWorld(ctx, env, "live")
	if err != nil {
		return err
	}
	defer w.close()
	ed := &editor.Editor{Store: w.store, Meta: benchMeta}
	if _, err := ed.AddFeed(ctx, model.Feed{Name: "bl2", Format: "openligadb", URL: fk.URL, SourceLeague: "bl2", Season: 2023, League: "BL2",
		EverySeconds: 3600, CreateTeams: true, UpstreamPerMinute: livePerMinute, UpstreamPerDay: 10_000_000}); err != nil {
		return err
	}
	p, err := startBound(env.logPath("live-follow"), false, ingestBin, "--nats", w.url(), "follow", "--lease", "3s",
		"--log-level", "info", "--feed-allow", "127.0.0.1/32", "--token-files", env.tmp)
	if err != nil {
		return err
	}
	defer p.stop()
	if err := waitLiveImport(ctx, w, ed, p); err != nil {
		return err
	}
	idle, err := idleLive(ctx, env, p, fk)
	if err != nil {
		return err
	}
	changes, err := changeRows(ctx, env, w, p, fk)
	if err != nil {
		return err
	}
	if _, err := ed.PauseFeed(ctx, "bl2", true); err != nil {
		return err
	}
	if err := pollCPURows(ctx, env, p, fk, idle, changes); err != nil {
		return err
	}
	return callsRow(ctx, env, ed, p)
}

// liveIdle is the follower over env.LiveIdle while nothing changes
// upstream: every poll one "last changed" call.
type liveIdle struct {
	polls, calls int
	cpu          time.Duration
	// interval is the follower's pace: the budget's calls a minute over
	// what a poll may spend.
	interval time.Duration
}

// liveChanges is the follower over the goals of changeRows: its polls, CPU
// and the time they took.
type liveChanges struct {
	polls     int
	cpu, took time.Duration
}

func idleLive(ctx context.Context, env *benchEnv, p *process, fk *livefake.OpenLigaDB) (liveIdle, error) {
	// The season's import has just been written: its garbage is not an
	// unchanged poll's.
	select {
	case <-ctx.Done():
		return liveIdle{}, ctx.Err()
	case <-time.After(env.MemorySettle):
	}
	calls := len(fk.Times())
	polls, cpu, err := p.pollsOver(ctx, env.LiveIdle, nil)
	if err != nil {
		return liveIdle{}, err
	}
	return liveIdle{polls: polls, calls: len(fk.Times()) - calls, cpu: cpu, interval: env.LiveIdle / time.Duration(polls)}, nil
}

// waitLiveImport waits for the season's import and the matchday in play.
func waitLiveImport(ctx context.Context, w *world, ed *editor.Editor, p *process) error {
	state, err := follow.Open(ctx, w.store.Conn())
	if err != nil {
		return err
	}
	fd, err := ed.Feed(ctx, "bl2")
	if err != nil {
		return err
	}
	if err := waitFor(ctx, 2*time.Minute, func() (bool, error) {
		st, _, err := state.Status(ctx, fd.Name, fd.Created)
		return err == nil && st.Live != nil && st.Live.Matchday != 0, nil
	}); err != nil {
		return fmt.Errorf("the live season's import: %w; the follower's log: %s", err, p.logTail())
	}
	return nil
}

// pollCPURows reports the CPU of a poll, unchanged and changed: the
// follower's over the idle window and over the goals, less what it spends
// between polls (lease renewals, the feed list, its runtime) at the rate
// it spends it with the feed paused, measured now over env.LiveIdle. A
// changed poll: the "last changed" call, the matchday fetched, parsed,
// compared and its one change published.
func pollCPURows(ctx context.Context, env *benchEnv, p *process, fk *livefake.OpenLigaDB, idle liveIdle, ch liveChanges) error {
	cpu0 := p.cpu()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(env.LiveIdle):
	}
	rate := (p.cpu() - cpu0).Seconds() / env.LiveIdle.Seconds()
	md := fk.Matchday(liveMatches[0])
	last, day := fmt.Sprintf("%s/getlastchangedate/bl2/2023/%d", fk.URL, md), fmt.Sprintf("%s/getmatchdata/bl2/2023/%d", fk.URL, md)
	one, err := plainGets(ctx, env, []string{last}, 200)
	if err != nil {
		return err
	}
	two, err := plainGets(ctx, env, []string{last, day}, 200)
	if err != nil {
		return err
	}
	gross := idle.cpu / time.Duration(idle.polls)
	per := max(0, idle.cpu-time.Duration(rate*float64(env.LiveIdle))) / time.Duration(idle.polls)
	env.add(row{Section: "live", What: "OpenLigaDB poll, matchday in play, unchanged: CPU",
		Ours: ms(per), Baseline: "plain GET of the call " + ms(one.cpu), Ratio: per.Seconds() / one.cpu.Seconds(),
		Note: fmt.Sprintf("%d polls in %s (one every %s), %d calls upstream; %s each with what the follower does between polls (%.2f ms a second with the feed paused)",
			idle.polls, env.LiveIdle, idle.interval.Round(time.Millisecond), idle.calls, ms(gross), rate*1000),
		Values: map[string]float64{"polls": float64(idle.polls), "oursCPUms": msf(per), "grossCPUms": msf(gross), "betweenCPUmsPerSecond": rate * 1000, "plainCPUms": msf(one.cpu)}})
	unchanged := ch.polls - env.LiveChanges
	changed := max(0, ch.cpu-time.Duration(rate*float64(ch.took))-time.Duration(unchanged)*per) / time.Duration(env.LiveChanges)
	env.add(row{Section: "live", What: "OpenLigaDB poll, a goal in the matchday: CPU",
		Ours: ms(changed), Baseline: "plain GET of its two calls " + ms(two.cpu), Ratio: changed.Seconds() / two.cpu.Seconds(),
		Note: fmt.Sprintf("%d changed polls over %s, less %d unchanged polls at the row above's figure and what the follower does between polls",
			env.LiveChanges, ch.took.Round(time.Second), unchanged),
		Values: map[string]float64{"oursCPUms": msf(changed), "plainCPUms": msf(two.cpu), "unchangedPolls": float64(unchanged)}})
	return nil
}

// pollsOver counts the follower's polls (any result) and its CPU over
// window, or while during runs if it is not nil.
func (p *process) pollsOver(ctx context.Context, window time.Duration, during func() error) (int, time.Duration, error) {
	n0, err := p.metricSum("fd_feed_poll_seconds_count", "result=")
	if err != nil {
		return 0, 0, err
	}
	cpu0 := p.cpu()
	if during != nil {
		err = during()
	} else {
		select {
		case <-ctx.Done():
			err = ctx.Err()
		case <-time.After(window):
		}
	}
	if err != nil {
		return 0, 0, err
	}
	cpu := p.cpu() - cpu0
	n1, err := p.metricSum("fd_feed_poll_seconds_count", "result=")
	if err != nil {
		return 0, 0, err
	}
	if n1 <= n0 {
		return 0, 0, fmt.Errorf("no poll in %s; the follower's log: %s", window, p.logTail())
	}
	return int(n1 - n0), cpu, nil
}

// changeRows makes env.LiveChanges goals upstream, one at a time at a
// random point of the poll interval, and times each to its event on the
// stream of two replicas; it returns the follower's polls and CPU over
// them.
func changeRows(ctx context.Context, env *benchEnv, w *world, p *process, fk *livefake.OpenLigaDB) (liveChanges, error) {
	token, err := addClient(ctx, w)
	if err != nil {
		return liveChanges{}, err
	}
	var streams []chan time.Time
	for i := range 2 {
		r, err := startBound(env.logPath(fmt.Sprintf("live-api-%d", i)), true, env.apiBin, "--nats", w.url(),
			"--log-level", "info", "--drain", "0s")
		if err != nil {
			return liveChanges{}, err
		}
		defer r.stop()
		if _, err := r.waitReady(env.ReadyTimeout); err != nil {
			return liveChanges{}, err
		}
		c, err := watchEvents(ctx, r, "", token)
		if err != nil {
			return liveChanges{}, err
		}
		streams = append(streams, c)
	}
	lat := make([][]time.Duration, len(streams))
	start := time.Now()
	polls, cpu, err := p.pollsOver(ctx, 0, func() error {
		for i := range env.LiveChanges {
			for _, c := range streams {
				drain(c)
			}
			// A point of the interval while goals come: the budget's
			// pace at two calls a poll, the matchday fetched every time.
			time.Sleep(rand.N(2 * time.Minute / livePerMinute))
			m, goals := liveMatches[i%len(liveMatches)], 2+i/len(liveMatches)
			scores := make([]int, 0, 2*goals)
			for g := range goals {
				scores = append(scores, g+1, 0)
			}
			at, err := fk.Edit(m, livefake.Goals(scores...))
			if err != nil {
				return err
			}
			for r, c := range streams {
				select {
				case got := <-c:
					lat[r] = append(lat[r], got.Sub(at))
				case <-time.After(30 * time.Second):
					return fmt.Errorf("change %d (match %d, %d goals): no event on replica %d within 30s; the follower's log: %s", i, m, goals, r, p.logTail())
				case <-ctx.Done():
					return ctx.Err()
				}
			}
		}
		return nil
	})
	if err != nil {
		return liveChanges{}, err
	}
	took := time.Since(start)
	// The interval in force: the follower's own pace over the changes.
	inForce := took / time.Duration(polls)
	for r, ls := range lat {
		p50, p99 := percentile(ls, 0.50), percentile(ls, 0.99)
		env.add(row{Section: "live", What: fmt.Sprintf("change upstream → replica %d's event stream: p50 (p99)", r+1),
			Ours: secs(p50) + " (" + secs(p99) + ")", Baseline: "poll interval " + secs(inForce), Ratio: p50.Seconds() / inForce.Seconds(),
			Note: fmt.Sprintf("%d goals at random points of the interval (the budget's %d calls a minute, two a poll that fetches); p99 %.2f× the interval",
				len(ls), livePerMinute, p99.Seconds()/inForce.Seconds()),
			Values: map[string]float64{"p50ms": msf(p50), "p99ms": msf(p99), "intervalMs": msf(inForce), "changes": float64(len(ls))}})
	}
	return liveChanges{polls: polls, cpu: cpu, took: took}, nil
}

// callsRow follows three football-data.org competitions with a match in
// play in each, at the free plan's 10 calls a minute, for env.LiveFor
// (whole windows of upstream's minute, from its first call) and reports
// the calls an hour that makes.
func callsRow(ctx context.Context, env *benchEnv, ed *editor.Editor, follower *process) error {
	fk, err := liveV4Fake(env)
	if err != nil {
		return err
	}
	defer fk.Close()
	tokenFile := filepath.Join(env.tmp, "football-data.token")
	if err := os.WriteFile(tokenFile, []byte(liveV4Token+"\n"), 0o600); err != nil {
		return err
	}
	if _, err := ed.AddFeed(ctx, model.Feed{Name: "v4", Format: "football-data-org", URL: fk.URL, Competitions: []model.LeagueCode{"BL1", "CL", "BSA"},
		TokenFile: tokenFile, EverySeconds: 600, CreateTeams: true, UpstreamPerMinute: livefake.FootballDataOrgFreePlan}); err != nil {
		return err
	}
	if err := waitFor(ctx, time.Minute, func() (bool, error) { return len(liveCalls(fk)) > 0, nil }); err != nil {
		return fmt.Errorf("no call to football-data.org: %w; the follower's log: %s", err, follower.logTail())
	}
	first := liveCalls(fk)[0]
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(time.Until(first.Add(env.LiveFor))):
	}
	n := 0
	for _, t := range liveCalls(fk) {
		if t.Before(first.Add(env.LiveFor)) {
			n++
		}
	}
	perHour := float64(n) / env.LiveFor.Hours()
	budget := float64(livefake.FootballDataOrgFreePlan * 60)
	env.add(row{Section: "live", What: "football-data.org, 3 competitions live: calls an hour",
		Ours: fmt.Sprintf("%.0f", perHour), Baseline: fmt.Sprintf("plan's budget %.0f", budget), Ratio: perHour / budget,
		Note:   fmt.Sprintf("%d calls in %s from the first (%v), %d answered 429", n, env.LiveFor, fk.Calls(), fk.Refused()),
		Values: map[string]float64{"callsPerHour": perHour, "budget": budget, "refused429": float64(fk.Refused())}})
	if fk.Refused() != 0 {
		return fmt.Errorf("football-data.org answered 429 %d times", fk.Refused())
	}
	return nil
}

// liveV4Fake serves liveV4Lists at the free plan's limit with the first
// unplayed match of each kicked off: three competitions live.
func liveV4Fake(env *benchEnv) (*livefake.FootballDataOrg, error) {
	var bodies [][]byte
	var ids []int
	for _, name := range liveV4Lists {
		b, err := os.ReadFile(filepath.Join(env.dataDir, "..", "spec", "v4-samples", name))
		if err != nil {
			return nil, err
		}
		var rec struct{ Body json.RawMessage }
		if err := json.Unmarshal(b, &rec); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		var l struct {
			Matches []struct {
				ID     int
				Status string
			}
		}
		if err := json.Unmarshal(rec.Body, &l); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		i := slices.IndexFunc(l.Matches, func(m struct {
			ID     int
			Status string
		}) bool {
			return m.Status == "TIMED" || m.Status == "SCHEDULED"
		})
		if i < 0 {
			return nil, fmt.Errorf("%s: no match to play", name)
		}
		bodies, ids = append(bodies, rec.Body), append(ids, l.Matches[i].ID)
	}
	fk, err := livefake.NewFootballDataOrg(liveV4Token, livefake.FootballDataOrgFreePlan, bodies...)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if _, err := fk.Edit(id, livefake.V4Script()[0].Change); err != nil {
			fk.Close()
			return nil, err
		}
	}
	return fk, nil
}

// liveCalls are the times of the calls football-data.org answered, in
// order.
func liveCalls(fk *livefake.FootballDataOrg) []time.Time {
	ts := append(fk.Times("day"), fk.Times("season")...)
	slices.SortFunc(ts, time.Time.Compare)
	return ts
}

func drain(c chan time.Time) {
	for {
		select {
		case <-c:
		default:
			return
		}
	}
}

// percentile is the p-th of ds by nearest rank (p99 of fewer than 100
// samples: the largest), 0 of none.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s))*p+0.999999) - 1
	return s[max(0, min(i, len(s)-1))]
}

// startBound runs a server binary with its listeners on ports it binds
// itself (127.0.0.1:0) and reads the addresses it got from its log: the
// API's "listening" (api) and the admin listener's "admin listening".
// The log level must be info or lower.
func startBound(logPath string, api bool, argv ...string) (*process, error) {
	argv = append(argv, "--admin-listen", "127.0.0.1:0")
	if api {
		argv = append(argv, "--listen", "127.0.0.1:0")
	}
	return startListening(logPath, true, api, argv...)
}

// startListening runs argv, which binds its listeners itself and logs
// where (JSON lines "admin listening" with admin, "listening" with api),
// and returns once it has logged them.
func startListening(logPath string, admin, api bool, argv ...string) (*process, error) {
	p, err := startProcess(logPath, "", argv...)
	if err != nil {
		return nil, err
	}
	err = waitFor(context.Background(), 30*time.Second, func() (bool, error) {
		select {
		case <-p.exited:
			return false, fmt.Errorf("%s exited: %s", argv[0], p.logTail())
		default:
		}
		p.admin, p.addr = boundAddrs(logPath)
		return (!admin || p.admin != "") && (!api || p.addr != ""), nil
	})
	if err != nil {
		p.stop()
		return nil, fmt.Errorf("%s's addresses: %w", argv[0], err)
	}
	p.client.Addr = p.addr
	return p, nil
}

// boundAddrs reads the addresses a process logged (JSON lines).
func boundAddrs(logPath string) (admin, listen string) {
	f, err := os.Open(logPath)
	if err != nil {
		return "", ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var line struct{ Msg, Addr string }
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			continue
		}
		switch strings.TrimSpace(line.Msg) {
		case "admin listening":
			admin = line.Addr
		case "listening":
			listen = line.Addr
		}
	}
	return admin, listen
}
