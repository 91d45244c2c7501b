package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
)

// v4ClientsDir is where `make v4-clients` installs the libraries pinned in
// testdata/v4clients (package.json, package-lock.json).
const v4ClientsDir = "../../.tools/v4clients"

// v4ClientCall is one call through a library: its method, arguments,
// the v4 route it requests, the top-level field of the answer that must be
// non-empty ("" when the seasons hold nothing for it, as today's matches
// on a day without any), and the error status of a call that breaks the
// v4 contract (0: it must succeed).
type v4ClientCall struct {
	method  string
	args    []any
	route   string
	field   string
	refused int
}

// v4ClientLibrary is a client library from npm and every method it has:
// those that request a v4 route are called, the others are listed with
// the path they request, which v4 does not have.
type v4ClientLibrary struct {
	name       string
	hardCoded  bool // base URL https://api.football-data.org/v4, no option
	calls      []v4ClientCall
	notV4Route map[string]string
}

func v4ClientLibraries(w *v4World, person int) []v4ClientLibrary {
	const (
		comps, comp        = "/v4/competitions", "/v4/competitions/{id}"
		standings, scorers = comp + "/standings", comp + "/scorers"
		compMatches        = comp + "/matches"
		compTeams          = comp + "/teams"
		matches, match     = "/v4/matches", "/v4/matches/{id}"
		teams, team        = "/v4/teams", "/v4/teams/{id}"
		teamMatches        = team + "/matches"
	)
	bl1Day := map[string]any{"competitions": "BL1", "dateFrom": "2023-03-10", "dateTo": "2023-03-13"}
	return []v4ClientLibrary{{
		name: "football-data-api-client",
		calls: []v4ClientCall{
			{"competitions.list", nil, comps, "competitions", 0},
			{"competitions.get", []any{map[string]any{"id": "PL"}}, comp, "seasons", 0},
			{"competitions.getStandings", []any{"BL1"}, standings, "standings", 0},
			{"competitions.getScorers", []any{"WC", 10}, scorers, "scorers", 0},
			{"competitions.getMatches", []any{"WC", map[string]any{"stage": "FINAL"}}, compMatches, "matches", 0},
			{"competitions.getTeams", []any{"PL", 2025}, compTeams, "teams", 0},
			{"matches.list", []any{bl1Day}, matches, "matches", 0},
			{"matches.get", []any{map[string]any{"id": w.match}}, match, "homeTeam", 0},
			{"matches.getToday", nil, matches, "", 0},
			{"matches.getByCompetition", []any{"PL", map[string]any{"matchday": 1}}, compMatches, "matches", 0},
			// teams= is no v4 filter: the matches of the server's today.
			{"matches.getHeadToHead", []any{w.koeln, w.koeln + 1, 5}, matches, "", 0},
			{"matches.getByTeam", []any{w.koeln, map[string]any{"season": 2022}}, teamMatches, "matches", 0},
			{"matches.getByStatus", []any{"FINISHED", map[string]any{"competitions": "WC", "dateFrom": "2022-12-01", "dateTo": "2022-12-19"}}, matches, "matches", 0},
			// SCHEDULED is a kick-off not yet known: our seasons' are all
			// known, so TIMED.
			{"matches.getUpcoming", []any{10}, matches, "", 0},
			// dateFrom without dateTo: v4 takes both or neither (spec
			// football-data-v4.md, section 2), so 400 with a hint.
			{"matches.getFinished", []any{10, "2023-03-01"}, matches, "", http.StatusBadRequest},
			{"matches.getLive", nil, matches, "", 0},
			{"matches.getByDate", []any{"2023-03-11"}, matches, "", 0},
			{"matches.getByDateRange", []any{"2023-03-10", "2023-03-13", map[string]any{"competitions": "BL1"}}, matches, "matches", 0},
			{"players.get", []any{map[string]any{"id": person}}, "/v4/players/{id}", "name", 0},
			{"players.getMatches", []any{person, map[string]any{"limit": 5}}, "/v4/players/{id}/matches", "matches", 0},
			{"teams.list", []any{map[string]any{"limit": 50, "offset": 0}}, teams, "teams", 0},
			{"teams.get", []any{map[string]any{"id": w.koeln}}, team, "name", 0},
			{"teams.getMatches", []any{w.koeln, map[string]any{"status": "FINISHED"}}, teamMatches, "matches", 0},
			{"teams.getSquad", []any{w.koeln}, team, "name", 0},
			{"teams.getByCompetition", []any{"WC", 2022}, compTeams, "teams", 0},
			// name=, country=, city= are no v4 filters: the first teams.
			{"teams.search", []any{"Köln", 5}, teams, "teams", 0},
			{"teams.getByCountry", []any{"Germany", 5}, teams, "teams", 0},
			{"teams.getByCity", []any{"Köln", 5}, teams, "teams", 0},
			{"teams.getUpcomingMatches", []any{w.koeln, 5}, teamMatches, "", 0},
			{"teams.getLastMatches", []any{w.koeln, 5}, teamMatches, "matches", 0},
		},
		notV4Route: map[string]string{
			"competitions.getMatchday":   comp + "/matchday",
			"matches.getStatistics":      match + "/statistics",
			"matches.getEvents":          match + "/events",
			"matches.getLineups":         match + "/lineups",
			"players.search":             "/v4/players",
			"players.getByNationality":   "/v4/players",
			"players.getByPosition":      "/v4/players",
			"players.getByAge":           "/v4/players",
			"players.getByTeam":          team + "/players",
			"players.getStatistics":      "/v4/players/{id}/statistics",
			"players.getTransfers":       "/v4/players/{id}/transfers",
			"players.getTrophies":        "/v4/players/{id}/trophies",
			"players.getGoalStatistics":  "/v4/players/{id}/goals",
			"players.getContractHistory": "/v4/players/{id}/contracts",
			"teams.getStatistics":        team + "/statistics",
			"teams.getTransfers":         team + "/transfers",
			"teams.getTrophies":          team + "/trophies",
			"teams.getFixtures":          team + "/fixtures",
			"teams.getStandings":         team + "/standings",
		},
	}, {
		name:      "football-data-node",
		hardCoded: true,
		calls: []v4ClientCall{
			{"areas", nil, "/v4/areas", "areas", 0},
			{"areasById", []any{2088}, "/v4/areas/{id}", "name", 0},
			{"competitions", nil, comps, "competitions", 0},
			{"competition", []any{"PL"}, comp, "seasons", 0},
			{"standingsOfCompetition", []any{"WC", map[string]any{"season": 2022}}, standings, "standings", 0},
			{"scorersOfCompetition", []any{"WC", map[string]any{"season": 2022}}, scorers, "scorers", 0},
			// Two filters: the library joins them with "&&".
			{"matchesOfCompetition", []any{"BL1", map[string]any{"season": 2022, "matchday": 24}}, compMatches, "matches", 0},
			{"teamsOfCompetition", []any{"FL1", map[string]any{"season": 2021}}, compTeams, "teams", 0},
			{"matches", []any{w.match}, matches, "matches", 0},
			{"teams", nil, teams, "teams", 0},
			{"team", []any{w.koeln}, team, "name", 0},
			{"matchesOfTeam", []any{w.koeln, map[string]any{"season": 2022, "status": "FINISHED", "limit": 5}}, teamMatches, "matches", 0},
			{"person", []any{person}, "/v4/persons/{id}", "name", 0},
			{"matchesOfPerson", []any{person, map[string]any{"limit": 5}}, "/v4/persons/{id}/matches", "matches", 0},
		},
	}}
}

// v4ClientResult is what calls.mjs printed for one call.
type v4ClientResult struct {
	Method string         `json:"method"`
	Status int            `json:"status"`
	Sizes  map[string]int `json:"sizes"`
	Error  string         `json:"error"`
}

// TestV4ClientLibraries runs v4 client libraries from npm, unchanged,
// against a replica with real seasons imported: every call to a served
// route succeeds, with data where the seasons have some. The library with
// a base URL of its own is given the replica's; the one with
// https://api.football-data.org written in reaches it as docs/v4.md says
// (a hosts entry, a certificate from a CA of one's own, a TLS front), in a
// mount namespace of its own so that the machine's /etc/hosts is left alone.
func TestV4ClientLibraries(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		natstest.SkipMissing(t, "node is not installed, so no v4 client library was run", "apt-get install npm; make v4-clients")
	}
	if _, err := os.Stat(filepath.Join(v4ClientsDir, "node_modules", "football-data-node")); err != nil {
		natstest.SkipMissing(t, "the v4 client libraries are not installed in .tools/v4clients", "make v4-clients")
	}
	script, err := os.ReadFile("testdata/v4clients/calls.mjs")
	if err != nil {
		t.Fatal(err)
	}
	w := theV4World(t)
	person := v4Person(t, w)

	for _, lib := range v4ClientLibraries(w, person) {
		t.Run(lib.name, func(t *testing.T) {
			env := []string{"FD_TOKEN=" + w.token, "FD_LIBRARY=" + lib.name}
			var wrap func(*exec.Cmd) *exec.Cmd
			var served atomic.Int64
			if lib.hardCoded {
				env, wrap = redirectFootballData(t, w.r.base, env, &served)
			} else {
				env = append(env, "FD_BASE="+w.r.base+"/v4")
			}

			methods := runCalls(t, node, script, append(env, "FD_LIST=1"), wrap)
			var listed []string
			for _, c := range lib.calls {
				listed = append(listed, c.method)
			}
			for m := range lib.notV4Route {
				listed = append(listed, m)
			}
			slices.Sort(listed)
			if got := slices.Compact(listed); !slices.Equal(got, methodNames(methods)) {
				t.Fatalf("the library's methods are %v; the test calls or lists %v", methodNames(methods), got)
			}

			todo := lib.calls
			calls, err := json.Marshal(callsJSON(todo))
			if err != nil {
				t.Fatal(err)
			}
			results := runCalls(t, node, script, append(env, "FD_CALLS="+string(calls)), wrap)
			byMethod := map[string]v4ClientResult{}
			for _, r := range results {
				byMethod[r.Method] = r
			}
			if len(byMethod) != len(todo) {
				t.Fatalf("%d results for %d calls: %+v", len(byMethod), len(todo), results)
			}
			if lib.hardCoded && served.Load() != int64(len(todo)) {
				t.Errorf("the TLS front passed on %d requests for api.football-data.org, want %d", served.Load(), len(todo))
			}
			for _, c := range lib.calls {
				t.Run(c.method, func(t *testing.T) {
					got := byMethod[c.method]
					if c.refused != 0 {
						if got.Status != c.refused || !strings.Contains(got.Error, "dateTo") {
							t.Errorf("%s (%s): status %d, %s; want %d naming dateTo", c.method, c.route, got.Status, got.Error, c.refused)
						}
						return
					}
					if got.Error != "" || (lib.hardCoded && got.Status != http.StatusOK) {
						t.Fatalf("%s (%s): status %d, %s", c.method, c.route, got.Status, got.Error)
					}
					t.Logf("%s: status %d, sizes %v", c.route, got.Status, got.Sizes)
					if c.field != "" && got.Sizes[c.field] == 0 {
						t.Errorf("%s (%s): %q is empty: %v", c.method, c.route, c.field, got.Sizes)
					}
				})
			}
		})
	}
}

// v4Person is a player for the person calls: the World Cup's top scorer.
func v4Person(t *testing.T, w *v4World) int {
	t.Helper()
	var top struct {
		Scorers []struct {
			Player struct {
				ID int `json:"id"`
			} `json:"player"`
		} `json:"scorers"`
	}
	w.getJSON(t, "/v4/competitions/WC/scorers", &top)
	if len(top.Scorers) == 0 {
		t.Fatal("the World Cup has no scorers")
	}
	return top.Scorers[0].Player.ID
}

func callsJSON(calls []v4ClientCall) []map[string]any {
	out := make([]map[string]any, len(calls))
	for i, c := range calls {
		args := c.args
		if args == nil {
			args = []any{}
		}
		out[i] = map[string]any{"method": c.method, "args": args}
	}
	return out
}

func methodNames(rs []v4ClientResult) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Method)
	}
	slices.Sort(out)
	return out
}

// runCalls runs calls.mjs from the libraries' folder, its lines parsed.
func runCalls(t *testing.T, node string, script []byte, env []string, wrap func(*exec.Cmd) *exec.Cmd) []v4ClientResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// The script comes on stdin so that its imports resolve from the
	// libraries' folder.
	cmd := exec.CommandContext(ctx, node, "--input-type=module")
	cmd.Dir = v4ClientsDir
	cmd.Stdin = bytes.NewReader(script)
	cmd.Env = append(withoutProxies(os.Environ()), env...)
	if wrap != nil {
		cmd = wrap(cmd)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	var out []v4ClientResult
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		var r v4ClientResult
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("node printed %q: %v\n%s", sc.Text(), err, stderr.String())
		}
		out = append(out, r)
	}
	return out
}

// withoutProxies drops the proxy variables the libraries' HTTP client
// (axios) would follow, so that the machine's proxy settings do not decide
// where the calls go.
func withoutProxies(env []string) []string {
	return slices.DeleteFunc(env, func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		switch strings.ToLower(name) {
		case "http_proxy", "https_proxy", "all_proxy", "no_proxy", "node_use_env_proxy":
			return true
		}
		return false
	})
}

// privateHosts is a folder for a test and, in it, a copy of /etc/hosts
// that a command run in a mount namespace of its own (unshare -m) sees
// as /etc/hosts, so that entry (what the test adds to it) stays out of
// the machine's own.
func privateHosts(t *testing.T, entry string) (dir, hosts string) {
	t.Helper()
	if _, err := exec.LookPath("unshare"); err != nil {
		natstest.SkipMissing(t, "unshare is not installed, so "+entry+" cannot be private", "apt-get install util-linux")
	}
	dir = t.TempDir()
	hosts = filepath.Join(dir, "hosts")
	orig, err := os.ReadFile("/etc/hosts")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hosts, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, hosts
}

// redirectFootballData does what docs/v4.md's "Pointing v4 clients at
// footballd" tells a user whose client has https://api.football-data.org
// written in: its sh block makes the CA and the certificate and adds the
// hosts entry, run in a mount namespace whose /etc/hosts is a copy, and a
// TLS front with that certificate forwards to base. It returns the
// client's environment and the wrapper that runs a command in such a
// namespace; served counts the requests for api.football-data.org the
// front passed on. It needs root (the front listens on port 443, as the
// client's URL says) and unshare(1).
func redirectFootballData(t *testing.T, base string, env []string, served *atomic.Int64) ([]string, func(*exec.Cmd) *exec.Cmd) {
	t.Helper()
	if os.Geteuid() != 0 {
		natstest.SkipMissing(t, "not root, so no TLS front on port 443 for the hard-coded client", "run the test as root")
	}
	dir, hosts := privateHosts(t, "the hard-coded client's hosts entry")
	// The front: port 443 on a loopback address of its own, so that runs
	// side by side (or a web server on 127.0.0.1:443) do not collide.
	var ln net.Listener
	var ip string
	var err error
	for range 20 {
		ip = fmt.Sprintf("127.%d.%d.%d", 1+rand.IntN(250), rand.IntN(250), 1+rand.IntN(250))
		if ln, err = net.Listen("tcp", ip+":443"); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("no loopback address free on port 443: %v", err)
	}
	wrap := func(cmd *exec.Cmd) *exec.Cmd {
		args := append([]string{"-m", "sh", "-c", `mount --bind "$0" /etc/hosts && exec "$@"`, hosts}, cmd.Args...)
		c := exec.CommandContext(context.Background(), "unshare", args...)
		c.Dir, c.Env, c.Stdin = cmd.Dir, cmd.Env, cmd.Stdin
		return c
	}

	block := strings.ReplaceAll(natstest.BlockAfter(t, "../../docs/v4.md", "written in (", "sh").Text, "127.0.0.1 ", ip+" ")
	mk := wrap(exec.Command("bash", "-euo", "pipefail", "-c", block))
	mk.Dir = dir
	if out, err := mk.CombinedOutput(); err != nil {
		t.Fatalf("docs/v4.md's block: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(hosts); !strings.Contains(string(b), ip+" api.football-data.org") {
		t.Fatalf("docs/v4.md's block added no hosts entry for %s:\n%s", ip, b)
	}

	cert, err := tls.LoadX509KeyPair(filepath.Join(dir, "api.pem"), filepath.Join(dir, "api.key"))
	if err != nil {
		t.Fatalf("docs/v4.md's certificate: %v", err)
	}
	target, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	// The front passes the Host the client sent, as deploy/nginx's does.
	proxy := httputil.NewSingleHostReverseProxy(target)
	front := &http.Server{Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Host == "api.football-data.org" {
			served.Add(1)
		}
		proxy.ServeHTTP(rw, r)
	}), TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}}, ReadHeaderTimeout: 10 * time.Second}
	go front.ServeTLS(ln, "", "")
	t.Cleanup(func() { front.Close() })
	return append(env, "NODE_EXTRA_CA_CERTS="+filepath.Join(dir, "ca.pem")), wrap
}
