package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/pkg/model"
	"github.com/nats-io/nats.go"
	"github.com/valyala/fasthttp"
)

// paths are the resources the read rows ask for, found in the world.
type paths struct {
	table, compFixtures, fixture, teamFixtures string
	competition, team                          string
	// v4Standings and v4Matches are v4's table and season matches of the
	// same competition.
	v4Standings, v4Matches string
	fixtureID, matchdays   int
}

// discover picks a league competition of a middle season (real size, with
// head2head history before it) and one of its finished fixtures.
func discover(p *process, token string) (paths, error) {
	auth := map[string]string{"X-Auth-Token": token}
	type competition struct {
		ID                int    `json:"id"`
		League            string `json:"league"`
		Year              string `json:"year"`
		NumberOfTeams     int    `json:"numberOfTeams"`
		NumberOfMatchdays int    `json:"numberOfMatchdays"`
	}
	var comps []competition
	for _, season := range []int{2010, 2005, 2000} {
		if err := getJSON(p, fmt.Sprintf("/v1/competitions/?season=%d", season), auth, &comps); err != nil {
			return paths{}, err
		}
		// A league, not a tournament: 18 to 24 teams.
		comps = slices.DeleteFunc(comps, func(c competition) bool { return c.NumberOfTeams < 18 || c.NumberOfTeams > 24 })
		if len(comps) > 0 {
			break
		}
	}
	if len(comps) == 0 {
		return paths{}, fmt.Errorf("no league competition of 18 to 24 teams in seasons 2010, 2005 or 2000")
	}
	c := comps[0]
	base := fmt.Sprintf("/v1/competitions/%d", c.ID)
	var fx struct {
		Fixtures []struct {
			Links struct {
				Self     struct{ Href string } `json:"self"`
				HomeTeam struct{ Href string } `json:"homeTeam"`
			} `json:"_links"`
			Status string `json:"status"`
		} `json:"fixtures"`
	}
	if err := getJSON(p, base+"/fixtures", auth, &fx); err != nil {
		return paths{}, err
	}
	for _, f := range fx.Fixtures {
		if f.Status != string(model.Finished) {
			continue
		}
		id, err1 := lastID(f.Links.Self.Href)
		team, err2 := lastID(f.Links.HomeTeam.Href)
		if err1 != nil || err2 != nil {
			continue
		}
		return paths{table: base + "/leagueTable", compFixtures: base + "/fixtures", competition: base,
			team: fmt.Sprintf("/v1/teams/%d", team),
			// A team's fixtures default to the current season, which a
			// world of past seasons does not have: ask for the fixture's.
			fixture: fmt.Sprintf("/v1/fixtures/%d", id), teamFixtures: fmt.Sprintf("/v1/teams/%d/fixtures?season=%s", team, c.Year),
			v4Standings: fmt.Sprintf("/v4/competitions/%s/standings?season=%s", c.League, c.Year),
			v4Matches:   fmt.Sprintf("/v4/competitions/%s/matches?season=%s", c.League, c.Year),
			fixtureID:   id, matchdays: max(1, c.NumberOfMatchdays)}, nil
	}
	return paths{}, fmt.Errorf("no finished fixture in %s/fixtures", base)
}

func lastID(href string) (int, error) {
	return strconv.Atoi(href[strings.LastIndexByte(href, '/')+1:])
}

func getJSON(p *process, path string, hdr map[string]string, into any) error {
	code, _, body, err := p.get(path, hdr)
	if err != nil {
		return err
	}
	if code != fasthttp.StatusOK {
		return fmt.Errorf("GET %s: %d %s", path, code, body)
	}
	return json.Unmarshal(body, into)
}

// readTarget is one read row: a path asked the same way of our replica,
// the bare server and nginx; gzip rows accept gzip, the miss row asks
// for a new cache key every request.
type readTarget struct {
	name string
	path string
	gzip bool
	miss bool
}

func targets(ps paths) []readTarget {
	return []readTarget{
		{name: "cached league table", path: ps.table},
		{name: "cached v4 standings", path: ps.v4Standings},
		{name: "cached competition", path: ps.competition},
		{name: "cached team", path: ps.team},
		{name: "cached competition fixtures", path: ps.compFixtures},
		{name: "cached competition fixtures, gzip", path: ps.compFixtures, gzip: true},
		{name: "cached v4 competition matches", path: ps.v4Matches},
		{name: "cached fixture with head2head", path: ps.fixture},
		{name: "cached team fixtures", path: ps.teamFixtures},
		{name: "cached team fixtures, gzip", path: ps.teamFixtures, gzip: true},
		{name: "cache miss: league table, new key each request", path: ps.table, miss: true},
	}
}

// readRows measures every read target on our replica, on a bare fasthttp
// server serving the bytes and headers our replica sent, and on nginx
// serving the same bytes as static files with the same Content-Type, in
// interleaved rounds (the order rotates every round), then the latency of
// the cached table under open-loop load at half of its peak. Each server
// runs on the cores the split gives the server, the load generator on the
// others.
func readRows(env *benchEnv, p *process, ps paths, token string, cl callers) error {
	ts := targets(ps)
	captured, static, sizes, err := captureResponses(p, ts, token)
	if err != nil {
		return err
	}
	cs := splitCores(env.serverCores)
	bare, err := startBare(env, captured, cs, ps.table)
	if err != nil {
		return err
	}
	defer bare.stop()
	servers := []*process{p, bare}
	ngx, err := startNginx(env, static, cs)
	if err != nil {
		env.fail("nginx baseline (rows without it)", err)
	} else {
		defer ngx.stop()
		servers = append(servers, ngx)
	}
	if err := pinReplica(p, cs); err != nil {
		return err
	}
	if err := pin(os.Getpid(), cs.load); err != nil {
		return err
	}
	defer func() { _ = pin(os.Getpid(), cpuList(0, runtime.NumCPU())) }()
	defer quietCollector()()
	res, counts, err := readRounds(env, servers, ts, cl, ps.matchdays, cs)
	if err != nil {
		return err
	}
	for i, t := range ts {
		env.add(readRow(env, t, sizes[t.key()], res, i, counts[i], cs))
	}
	if smallMiss.Requests > 0 {
		m := res[0][len(ts)-1]
		ratio := m.rps() / smallMiss.rps()
		env.add(row{Section: "read", What: "cache miss on the big world vs the small world (same kind of table)",
			Ours: rate(m.rps(), "req/s"), Baseline: "small world " + rate(smallMiss.rps(), "req/s"), Ratio: ratio,
			Target: "grows with the answer, not the data set (≥ 0.8 counted as met)", Status: metIf(ratio >= 0.8),
			Note: "the small world's figure was taken while only its replica ran"})
	}
	return latencyRow(env, servers, ts[0], res[0][0].rps()/2, cl, cs)
}

// quietCollector keeps this process's garbage collector from running
// during the read and latency rows, and returns what puts it back. This
// process (the NATS server, the world) shares the load generator's cores,
// and at 1M fixtures a cycle took about 0.1 s of them every 30–40 s: the
// open loop then sent late, and since its latencies count from each
// request's scheduled time, every server's p99 in a window the cycle met
// was the cycle's (nginx's 87–94 ms in two of three runs). The heap the
// rows add (the NATS server's share of limit leases) is small; a memory
// limit 2 GiB above the live heap still bounds it.
func quietCollector() func() {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	limit := debug.SetMemoryLimit(int64(ms.HeapAlloc) + 2<<30)
	percent := debug.SetGCPercent(-1)
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}

// captureResponses GETs every target from our replica: the responses the
// bare server replays (by key: path, and " gzip" for a gzip row), the
// files nginx serves (by path, with the gzipped body beside it), and the
// bodies' sizes on the wire (by key).
func captureResponses(p *process, ts []readTarget, token string) (map[string]bareResponse, []staticFile, map[string]int, error) {
	captured := map[string]bareResponse{}
	files := map[string]*staticFile{}
	var order []string
	sizes := map[string]int{}
	for _, t := range ts {
		hdrs := map[string]string{"X-Auth-Token": token}
		if t.gzip {
			hdrs["Accept-Encoding"] = "gzip"
		}
		code, hdr, body, err := p.get(t.path, hdrs)
		if err != nil {
			return nil, nil, nil, err
		}
		if code != fasthttp.StatusOK {
			return nil, nil, nil, fmt.Errorf("GET %s: %d %s", t.path, code, body)
		}
		if t.gzip != (hdr["Content-Encoding"] == "gzip") {
			return nil, nil, nil, fmt.Errorf("GET %s (gzip %v): Content-Encoding %q", t.path, t.gzip, hdr["Content-Encoding"])
		}
		// Anonymous callers' answers may be cached apart (a tier sees
		// what it may): cached before the rows, as the clients' are.
		delete(hdrs, "X-Auth-Token")
		if code, _, body, err := p.get(t.path, hdrs); err != nil || code != fasthttp.StatusOK {
			return nil, nil, nil, fmt.Errorf("GET %s anonymously: %d %s %v", t.path, code, body, err)
		}
		// The server sets these itself.
		delete(hdr, "Content-Length")
		delete(hdr, "Date")
		// The bare server and nginx look responses up by path alone.
		path, _, _ := strings.Cut(t.path, "?")
		f := files[path]
		if f == nil {
			f = &staticFile{path: path, contentType: hdr["Content-Type"]}
			files[path] = f
			order = append(order, path)
		}
		if t.gzip {
			f.gzipped = body
		} else if f.body == nil {
			f.body = body
		}
		captured[bareKey(path, t.gzip)] = bareResponse{Headers: hdr, Body: body}
		sizes[t.key()] = len(body)
	}
	static := make([]staticFile, 0, len(order))
	for _, path := range order {
		static = append(static, *files[path])
	}
	return captured, static, sizes, nil
}

// key names a target's response: its path and query, and its encoding.
func (t readTarget) key() string { return bareKey(t.path, t.gzip) }

func bareKey(path string, gzip bool) string {
	if gzip {
		return path + " gzip"
	}
	return path
}

// startBare starts the bare baseline (the bench binary with --bare-serve)
// on the server's cores, serving the captured responses, and waits until
// it serves probe.
func startBare(env *benchEnv, captured map[string]bareResponse, cs cores, probe string) (*process, error) {
	raw, err := json.Marshal(captured)
	if err != nil {
		return nil, err
	}
	file := filepath.Join(env.tmp, "bare.json")
	if err := os.WriteFile(file, raw, 0o644); err != nil {
		return nil, err
	}
	argv := pinned(cs.server, env.self, "--bare-serve", file, "--listen", "127.0.0.1:0")
	bare, err := startListening(env.logPath("bare"), false, true, argv...)
	if err != nil {
		return nil, err
	}
	if err := waitServing(bare, probe); err != nil {
		bare.stop()
		return nil, err
	}
	return bare, nil
}

// readRounds warms every server, then runs every target on every server
// closed-loop in interleaved rounds. It returns the results by server,
// then target, and what our replica (servers[0]) counted during each
// target's runs: the cache misses, proof that the cached rows hit and the
// miss row misses, and its collector's cycles, whose marking of the whole
// read model is charged to the row they fall in.
func readRounds(env *benchEnv, servers []*process, ts []readTarget, cl callers, matchdays int, cs cores) ([][]loadResult, []replicaCounts, error) {
	p := servers[0]
	for _, s := range servers {
		if _, err := runLoad(env, cs, s, ts[0].job(s.addr, cl, matchdays, env.Conns, 300*time.Millisecond)); err != nil {
			return nil, nil, fmt.Errorf("warming %s: %w", s.addr, err)
		}
	}
	res := make([][]loadResult, len(servers))
	for i := range res {
		res[i] = make([]loadResult, len(ts))
	}
	counts := make([]replicaCounts, len(ts))
	for round := range env.Rounds {
		for i, t := range ts {
			for k := range servers {
				j := (k + round) % len(servers)
				s := servers[j]
				r, err := countedRun(env, cs, p, s, t.job(s.addr, cl, matchdays, env.Conns, env.ReadFor), &counts[i])
				if err != nil {
					return nil, nil, fmt.Errorf("%s on %s: %w", t.name, s.addr, err)
				}
				res[j][i] = res[j][i].merge(r)
			}
		}
	}
	return res, counts, nil
}

// replicaCounts are counters of our replica read from its metrics.
type replicaCounts struct {
	misses float64 // render cache misses
	gcs    float64 // the collector's cycles
}

func countsOf(p *process) (replicaCounts, error) {
	v, err := p.metrics(`fd_render_cache_total{result="miss"}`, "go_gc_duration_seconds_count")
	if err != nil {
		return replicaCounts{}, err
	}
	return replicaCounts{misses: v[0], gcs: v[1]}, nil
}

// countedRun runs job on s, and when s is our replica p adds what p
// counted during it to c.
func countedRun(env *benchEnv, cs cores, p, s *process, job loadJob, c *replicaCounts) (loadResult, error) {
	if s != p {
		return runLoad(env, cs, s, job)
	}
	before, err := countsOf(p)
	if err != nil {
		return loadResult{}, err
	}
	r, err := runLoad(env, cs, s, job)
	if err != nil {
		return r, err
	}
	after, err := countsOf(p)
	if err != nil {
		return r, err
	}
	*c = c.add(after.since(before))
	return r, nil
}

func (c replicaCounts) since(before replicaCounts) replicaCounts {
	return replicaCounts{misses: c.misses - before.misses, gcs: c.gcs - before.gcs}
}

func (c replicaCounts) add(d replicaCounts) replicaCounts {
	return replicaCounts{misses: c.misses + d.misses, gcs: c.gcs + d.gcs}
}

// job is a closed-loop run of the target on addr.
func (t readTarget) job(addr string, cl callers, matchdays, conns int, d time.Duration) loadJob {
	return loadJob{Addr: addr, Path: t.path, Callers: cl, Gzip: t.gzip, Miss: t.miss, Matchdays: matchdays, Conns: conns, For: d}
}

// readRow is target i's row: ours against bare, and against nginx when it
// ran (res[2]). A row where a server's cores were not saturated is
// invalid: the instrument or the machine, not the server, set its pace.
func readRow(env *benchEnv, t readTarget, size int, res [][]loadResult, i int, counts replicaCounts, cs cores) row {
	o, b := res[0][i], res[1][i]
	what := fmt.Sprintf("%s (%s, %d B)", t.name, t.path, size)
	if t.gzip {
		what = fmt.Sprintf("%s (%s, %d B gzipped)", t.name, t.path, size)
	}
	r := row{Section: "read", What: what,
		Ours:     fmt.Sprintf("%s, p50 %s p99 %s", rate(o.rps(), "req/s"), ms(o.pct(0.5)), ms(o.pct(0.99))),
		Baseline: fmt.Sprintf("bare %s, p50 %s p99 %s", rate(b.rps(), "req/s"), ms(b.pct(0.5)), ms(b.pct(0.99))),
		Ratio:    o.rps() / b.rps(),
		Note: fmt.Sprintf("%d connections, %d × %s interleaved; %.0f of %d requests missed the cache; our collector's cycles: %.0f; %s; "+
			"server CPU per request: ours %.1f µs, bare %.1f µs; server core busy: ours %.0f %%, bare %.0f %%; load generator's CPU per request: ours %.1f µs, bare %.1f µs",
			env.Conns, env.Rounds, env.ReadFor, counts.misses, o.answered(), counts.gcs, cs, o.cpuPerRequest(), b.cpuPerRequest(),
			100*o.busyShare(), 100*b.busyShare(), o.loadPerRequest(), b.loadPerRequest()),
		Values: map[string]float64{"ours_rps": o.rps(), "bare_rps": b.rps(), "ours_p50_ms": msf(o.pct(0.5)),
			"ours_p99_ms": msf(o.pct(0.99)), "bare_p50_ms": msf(b.pct(0.5)), "bare_p99_ms": msf(b.pct(0.99)),
			"ours_cpu_us": o.cpuPerRequest(), "bare_cpu_us": b.cpuPerRequest(),
			"ours_busy": o.busyShare(), "bare_busy": b.busyShare(), "ours_load_cpu_us": o.loadPerRequest(), "bare_load_cpu_us": b.loadPerRequest(),
			"ours_gc_cycles": counts.gcs}}
	valid := cs.shared || (o.saturated() && b.saturated())
	if len(res) < 3 {
		r.Target, r.Status = "needs nginx", "invalid"
		return r
	}
	n := res[2][i]
	valid = valid && (cs.shared || n.saturated())
	r.Nginx = fmt.Sprintf("%s, p50 %s p99 %s", rate(n.rps(), "req/s"), ms(n.pct(0.5)), ms(n.pct(0.99)))
	r.NginxRatio = o.rps() / n.rps()
	cpuRatio := o.cpuPerRequest() / n.cpuPerRequest()
	r.Values["nginx_rps"], r.Values["nginx_p50_ms"], r.Values["nginx_p99_ms"] = n.rps(), msf(n.pct(0.5)), msf(n.pct(0.99))
	r.Values["nginx_cpu_us"], r.Values["nginx_busy"], r.Values["nginx_load_cpu_us"] = n.cpuPerRequest(), n.busyShare(), n.loadPerRequest()
	r.Values["cpu_vs_nginx"] = cpuRatio
	r.Note += fmt.Sprintf("; nginx: CPU %.1f µs (ours %.2f×), core busy %.0f %%, load generator's CPU %.1f µs", n.cpuPerRequest(), cpuRatio, 100*n.busyShare(), n.loadPerRequest())
	switch {
	case t.miss && cs.shared:
		r.Note += "; bare and nginx serve one table's bytes"
		r.Target, r.Status = "≤ 2 × nginx's CPU per request (cores shared with the load generator)", metIf(cpuRatio <= 2)
	case t.miss:
		r.Note += "; bare and nginx serve one table's bytes"
		r.Target, r.Status = "≥ 0.5 of nginx", metIf(r.NginxRatio >= 0.5)
	case cs.shared:
		r.Target, r.Status = "≤ 1.1 × nginx's CPU per request (cores shared with the load generator)", metIf(cpuRatio <= 1.1)
	default:
		r.Target, r.Status = "≥ 0.9 of nginx, ≤ 1.1 × nginx's CPU per request", metIf(r.NginxRatio >= 0.9 && cpuRatio <= 1.1)
	}
	if !valid {
		r.Status = "invalid"
		r.Note += "; invalid: a server core was less than 90 % busy, so the instrument or the machine set the pace"
	}
	return r
}

// pinReplica moves a running replica onto the server's cores and waits
// until its Go runtime has followed with GOMAXPROCS, so that it runs with
// as many threads as the bare server and nginx have workers.
func pinReplica(p *process, cs cores) error {
	if err := pin(p.cmd.Process.Pid, cs.server); err != nil || cs.server == "" {
		return err
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		n, err := p.metric("go_sched_gomaxprocs_threads")
		if err == nil && int(n) == cs.serverCores {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("replica's GOMAXPROCS still %.0f (%v) 5 s after pinning it to %d cores", n, err, cs.serverCores)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// latencyRow runs the cached table open-loop at half of our measured peak,
// on every server at the same rate, in interleaved rounds (the order
// rotates every round, so that a disturbance of the machine does not fall
// on one server's whole run); the percentiles pool every round.
func latencyRow(env *benchEnv, servers []*process, t readTarget, rateHz float64, cl callers, cs cores) error {
	res := make([]loadResult, len(servers))
	var counts replicaCounts
	for round := range env.Rounds {
		for k := range servers {
			j := (k + round) % len(servers)
			s := servers[j]
			job := t.job(s.addr, cl, 1, env.OpenLoopWorker, env.LatencyFor/time.Duration(env.Rounds))
			job.Rate = rateHz
			r, err := countedRun(env, cs, servers[0], s, job, &counts)
			if err != nil {
				return fmt.Errorf("open loop on %s: %w", s.addr, err)
			}
			res[j] = res[j].merge(r)
		}
	}
	o, b := res[0], res[1]
	r := row{Section: "latency", What: fmt.Sprintf("cached league table, open loop at %s (half of peak)", rate(rateHz, "req/s")),
		Ours:     fmt.Sprintf("p99 %s (p50 %s, p99.9 %s)", ms(o.pct(0.99)), ms(o.pct(0.5)), ms(o.pct(0.999))),
		Baseline: fmt.Sprintf("bare p99 %s (p50 %s)", ms(b.pct(0.99)), ms(b.pct(0.5))),
		Ratio:    float64(o.pct(0.99)) / float64(b.pct(0.99)), Target: "p99 < 1 ms", Status: metIf(o.pct(0.99) < time.Millisecond),
		Note: fmt.Sprintf("%s each in %d interleaved rounds, %d connections, latency from each request's scheduled time; achieved %s; our collector's cycles: %.0f; %s; %s; %s",
			env.LatencyFor, env.Rounds, env.OpenLoopWorker, rate(o.rps(), "req/s"), counts.gcs, cs, lateness(res), openLoopCost(res)),
		Values: map[string]float64{"rate": rateHz, "ours_p99_ms": msf(o.pct(0.99)), "ours_p999_ms": msf(o.pct(0.999)), "bare_p99_ms": msf(b.pct(0.99)),
			"ours_gc_cycles": counts.gcs, "ours_late_p99_ms": msf(o.latePct(0.99)), "bare_late_p99_ms": msf(b.latePct(0.99)),
			"ours_cpu_us": o.cpuPerRequest(), "ours_busy": o.busyShare(), "bare_cpu_us": b.cpuPerRequest(), "bare_busy": b.busyShare()}}
	if len(res) == 3 {
		n := res[2]
		r.Nginx = fmt.Sprintf("p99 %s (p50 %s, p99.9 %s)", ms(n.pct(0.99)), ms(n.pct(0.5)), ms(n.pct(0.999)))
		r.NginxRatio = float64(o.pct(0.99)) / float64(n.pct(0.99))
		r.Values["nginx_p99_ms"] = msf(n.pct(0.99))
		r.Values["nginx_late_p99_ms"] = msf(n.latePct(0.99))
		r.Values["nginx_cpu_us"], r.Values["nginx_busy"] = n.cpuPerRequest(), n.busyShare()
		r.Target = "p99 ≤ 1.2 × nginx's, p99.9 ≤ 5 ms"
		r.Status = metIf(r.NginxRatio <= 1.2 && o.pct(0.999) <= 5*time.Millisecond)
	}
	env.add(r)
	return nil
}

// lateness says how late the load generator sent the open loop's requests
// to each server (p99 and p99.9): a request sent late counts its lateness
// in its latency, so a server's tail is its own only where it is well
// above the generator's.
func lateness(res []loadResult) string {
	return "sent late by the load generator: " + perServer(res, func(r loadResult) string {
		return fmt.Sprintf("p99 %s, p99.9 %s", ms(r.latePct(0.99)), ms(r.latePct(0.999)))
	})
}

// openLoopCost says what a request of the open loop cost each server and
// how busy its cores were. At half of peak a server's core has time to
// spare if a request costs what it cost at peak; where it costs more
// (each response then wakes a reader that was asleep, and the server
// itself sleeps and wakes between requests), the spare time shrinks and
// queues, the tail, grow with it.
func openLoopCost(res []loadResult) string {
	return "server CPU per request and core busy in the open loop: " + perServer(res, func(r loadResult) string {
		return fmt.Sprintf("%.1f µs, busy %.0f %%", r.cpuPerRequest(), 100*r.busyShare())
	})
}

// perServer joins what part says of each server's result (ours, bare,
// then nginx's when it ran).
func perServer(res []loadResult, part func(loadResult) string) string {
	names := []string{"ours", "bare", "nginx"}
	parts := make([]string, len(res))
	for i, r := range res {
		parts[i] = names[i] + " " + part(r)
	}
	return strings.Join(parts, "; ")
}

func msf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func waitServing(p *process, path string) error {
	for range 500 {
		if code, _, _, err := p.get(path, nil); err == nil && code == fasthttp.StatusOK {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return fmt.Errorf("bare server on %s does not answer", p.addr)
}

// missLoad measures cache-miss throughput alone (no baseline): the small
// world's figure for the scale comparison, on the same split of cores as
// the big world's.
func missLoad(env *benchEnv, p *process, ps paths, cl callers) (loadResult, error) {
	ts := targets(ps)
	t := ts[len(ts)-1] // the miss row
	cs := splitCores(env.serverCores)
	if err := pinReplica(p, cs); err != nil {
		return loadResult{}, err
	}
	var total loadResult
	for range env.Rounds {
		r, err := runLoad(env, cs, p, t.job(p.addr, cl, ps.matchdays, env.Conns, env.ReadFor))
		if err != nil {
			return total, err
		}
		total = total.merge(r)
	}
	return total, nil
}

// editTarget is what the edit rows share: a fixture with a score, edited
// through the editor (the code path of `ingest result`), and the baseline,
// a plain NATS subscriber on the fixture's subject.
type editTarget struct {
	ed   *editor.Editor
	f    *model.Fixture
	orig model.Score
	seen chan time.Time
	sub  *nats.Subscription
}

func newEditTarget(ctx context.Context, w *world, ps paths) (*editTarget, error) {
	ed := &editor.Editor{Store: w.store, Meta: benchMeta}
	f, _, err := ed.Fixture(ctx, ps.fixtureID)
	if err != nil {
		return nil, err
	}
	if f.Result.FullTime == nil {
		return nil, fmt.Errorf("fixture %d has no score", ps.fixtureID)
	}
	et := &editTarget{ed: ed, f: f, orig: *f.Result.FullTime, seen: make(chan time.Time, 4)}
	et.sub, err = w.store.Conn().Subscribe(fmt.Sprintf("football.fixture.%d.%d", f.CompetitionID, f.ID), func(*nats.Msg) { et.seen <- time.Now() })
	if err != nil {
		return nil, err
	}
	return et, nil
}

// want is the home score of the i-th edit: the original and one more
// goal in turn, so that every edit changes something.
func (et *editTarget) want(i int) int { return et.orig.Home + 1 - i%2 }

// edit publishes the i-th edit and returns how long after t0 the plain
// subscriber saw it.
func (et *editTarget) edit(ctx context.Context, i int, t0 time.Time) (time.Duration, error) {
	if _, _, err := et.ed.PutFixture(ctx, et.f.ID, true, func(f *model.Fixture) error {
		f.Result.FullTime = &model.Score{Home: et.want(i), Away: et.orig.Away}
		return nil
	}); err != nil {
		return 0, err
	}
	select {
	case t := <-et.seen:
		return t.Sub(t0), nil
	case <-time.After(5 * time.Second):
		return 0, fmt.Errorf("edit %d not seen by a plain subscriber", i)
	}
}

func (et *editTarget) close() { et.sub.Unsubscribe() }

// freshnessRows publishes edits of one fixture through the editor (the
// code path of `ingest result`) and times each until every replica serves
// the new score, polling each replica tightly from its own goroutine. The
// baseline is a plain NATS subscriber on the fixture's subject seeing the
// message, timed from the same instant.
func freshnessRows(ctx context.Context, env *benchEnv, w *world, reps []*process, ps paths, token string) error {
	et, err := newEditTarget(ctx, w, ps)
	if err != nil {
		return err
	}
	defer et.close()
	var all, raw []time.Duration
	for i := range env.Edits {
		want := et.want(i)
		var wg sync.WaitGroup
		lat := make([]time.Duration, len(reps))
		errs := make([]error, len(reps))
		t0 := time.Now()
		for j, p := range reps {
			wg.Go(func() { lat[j], errs[j] = pollGoals(p, ps.fixture, token, want, t0) })
		}
		d, err := et.edit(ctx, i, t0)
		if err != nil {
			return err
		}
		raw = append(raw, d)
		wg.Wait()
		worst := time.Duration(0)
		for j := range reps {
			if errs[j] != nil {
				return errs[j]
			}
			worst = max(worst, lat[j])
		}
		all = append(all, worst)
	}
	a, r := loadResult{lat: all}, loadResult{lat: raw}
	for _, q := range []struct {
		name   string
		p      float64
		target string
	}{{"p50", 0.5, ""}, {"p99", 0.99, "< 50 ms"}} {
		x := row{Section: "freshness", What: fmt.Sprintf("edit via editor → visible on all %d replicas, %s", len(reps), q.name),
			Ours: ms(a.pct(q.p)), Baseline: "plain NATS subscriber " + ms(r.pct(q.p)), Ratio: float64(a.pct(q.p)) / float64(r.pct(q.p)),
			Target: q.target, Note: fmt.Sprintf("%d edits of fixture %d, each replica polled tightly", len(all), ps.fixtureID),
			Values: map[string]float64{"ours_ms": msf(a.pct(q.p)), "baseline_ms": msf(r.pct(q.p))}}
		if q.target != "" {
			x.Status = metIf(a.pct(q.p) < 50*time.Millisecond)
		}
		env.add(x)
	}
	return nil
}

// pollGoals asks p for the fixture until its home goals are want and
// returns the time since t0.
func pollGoals(p *process, path, token string, want int, t0 time.Time) (time.Duration, error) {
	client := &fasthttp.HostClient{Addr: p.addr, MaxConns: 1, ReadBufferSize: 64 << 10}
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI("http://" + p.addr + path)
	req.Header.Set("X-Auth-Token", token)
	var body struct {
		Fixture struct {
			Result struct {
				GoalsHomeTeam *int `json:"goalsHomeTeam"`
			} `json:"result"`
		} `json:"fixture"`
	}
	for time.Since(t0) < 5*time.Second {
		if err := client.Do(req, resp); err != nil {
			return 0, err
		}
		if resp.StatusCode() != fasthttp.StatusOK {
			return 0, fmt.Errorf("GET %s: %d", path, resp.StatusCode())
		}
		body.Fixture.Result.GoalsHomeTeam = nil
		if err := json.Unmarshal(resp.Body(), &body); err != nil {
			return 0, err
		}
		if g := body.Fixture.Result.GoalsHomeTeam; g != nil && *g == want {
			return time.Since(t0), nil
		}
	}
	return 0, fmt.Errorf("%s did not show %d home goals within 5 s", p.addr, want)
}
