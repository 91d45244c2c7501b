package httpapi

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/internal/generate"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/readmodel"
	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
)

// cpuTime is the CPU time, user and system, the process has used so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// generatedWorld is a replica's server over a generated world of about
// 5,000 fixtures replayed from a real stream, a registered client's token
// of the highest tier, and the paths of one league competition of it: its
// id, a fixture, a team, the season and the league's code.
type generatedWorld struct {
	s                           *Server
	token                       string
	comp, fixture, team, season int
	league                      model.LeagueCode
	// tokens are the clients newClientsWorld added besides token's.
	tokens []string
}

func newGeneratedWorld(tb testing.TB) generatedWorld { return newClientsWorld(tb, 0, Options{}) }

// newClientsWorld is newGeneratedWorld with clients more registered
// clients of the highest tier, added as `ingest client add` adds them
// (their tokens in tokens), and a server of opts (its Model set here).
func newClientsWorld(tb testing.TB, clients int, opts Options) generatedWorld {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	tb.Cleanup(cancel)
	store := natstest.MustOpen(tb, natstest.MustStart(tb))
	if _, err := generate.Run(ctx, store, generate.Config{Seed: 1, Fixtures: 5000, Meta: events.Meta{Editor: "bench", Source: "bench"}}, nil); err != nil {
		tb.Fatal(err)
	}
	ed := &editor.Editor{Store: store, Meta: events.Meta{Editor: "bench", Source: "bench"}}
	token, _, err := ed.AddClient(ctx, model.Client{Name: "bench", Tier: model.TierDonating, PerMinute: 1_000_000_000})
	if err != nil {
		tb.Fatal(err)
	}
	tokens := make([]string, clients)
	for i := range tokens {
		if tokens[i], _, err = ed.AddClient(ctx, model.Client{Name: "bench-" + strconv.Itoa(i), Tier: model.TierDonating, PerMinute: 1_000_000_000}); err != nil {
			tb.Fatal(err)
		}
	}
	m := replayedModel(tb, ctx, store)
	opts.Model = m
	s, err := New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	w := generatedWorld{s: s, token: token, tokens: tokens}
	snap := m.Snapshot()
	for id := 1; w.comp == 0 && id < 10_000; id++ {
		c, ok := snap.Competition(id)
		if !ok || c.Type != model.TypeLeague {
			continue
		}
		if fs, _ := snap.CompetitionFixtures(id, readmodel.FixtureFilter{}); len(fs) > 0 {
			w.comp, w.fixture, w.team, w.season, w.league = id, fs[len(fs)/2].ID, fs[len(fs)/2].HomeTeamID, c.Year, c.League
		}
	}
	return w
}

// replayedModel is a read model that has replayed store and follows it
// until ctx ends.
func replayedModel(tb testing.TB, ctx context.Context, store *events.Store) *readmodel.Model {
	tb.Helper()
	m, err := readmodel.New(readmodel.Config{})
	if err != nil {
		tb.Fatal(err)
	}
	go func() { _ = m.Run(ctx, store) }()
	if err := m.WaitReady(ctx); err != nil {
		tb.Fatal(err)
	}
	return m
}

// BenchmarkHandler measures the replica's own work per request, in
// process: the handler chain (Fiber, auth, limits, metrics, cache lookup or
// render) on a request context, without the network or the load generator,
// so that ns/op and allocs/op are steady on a busy machine. The world is a
// generated one of about 5,000 fixtures replayed from a real stream.
func BenchmarkHandler(b *testing.B) {
	w := newGeneratedWorld(b)
	s, token := w.s, w.token
	comp, fixture, team, season, league := w.comp, w.fixture, w.team, w.season, w.league
	handler := s.App().Handler()
	for _, bc := range []struct {
		name string
		path string
		miss bool
	}{
		{"table", fmt.Sprintf("/v1/competitions/%d/leagueTable", comp), false},
		// v4's counterparts of the table and the season's fixtures: the
		// same answers in v4's shapes, through the same cache.
		{"v4-standings", fmt.Sprintf("/v4/competitions/%s/standings?season=%d", league, season), false},
		{"fixture", fmt.Sprintf("/v1/fixtures/%d", fixture), false},
		{"competition", fmt.Sprintf("/v1/competitions/%d", comp), false},
		{"season-fixtures", fmt.Sprintf("/v1/competitions/%d/fixtures", comp), false},
		{"v4-matches", fmt.Sprintf("/v4/competitions/%s/matches?season=%d", league, season), false},
		{"team-fixtures", fmt.Sprintf("/v1/teams/%d/fixtures?season=%d", team, season), false},
		{"players", fmt.Sprintf("/v1/teams/%d/players", team), false},
		{"table-miss", fmt.Sprintf("/v1/competitions/%d/leagueTable", comp), true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var rc fasthttp.RequestCtx
			n := 0
			cpu0 := cpuTime(b)
			for b.Loop() {
				// What fasthttp's server does once a response is
				// written: user values closed (the request's hold on
				// its cache entry), request and response reset.
				rc.ResetUserValues()
				rc.Request.Reset()
				rc.Response.Reset()
				host := "api.test"
				if bc.miss {
					n++
					host = "h" + strconv.Itoa(n) + ".test"
				}
				// A parsed request always has its method; without one,
				// fasthttp allocates "GET" on every call of Method.
				rc.Request.Header.SetMethod(fasthttp.MethodGet)
				rc.Request.SetRequestURI(bc.path)
				rc.Request.Header.SetHost(host)
				rc.Request.Header.Set("X-Auth-Token", token)
				handler(&rc)
				if rc.Response.StatusCode() != fasthttp.StatusOK {
					b.Fatalf("%s: %d %s", bc.path, rc.Response.StatusCode(), rc.Response.Body())
				}
			}
			// The process's CPU time, the cache's policy goroutine and the
			// collector included, is steadier than ns/op on a shared
			// machine, where the wall clock counts time spent waiting for
			// a core.
			b.ReportMetric(float64((cpuTime(b)-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkHandlerClients is BenchmarkHandler's cached reads as a replica
// meets them: many clients at once (b.RunParallel, a request context a
// goroutine, so that -cpu 1,2 shows what a second core adds and what the
// cores share), every other request from one of a thousand registered
// clients and the others anonymous, from a thousand addresses behind a
// trusted proxy (X-Forwarded-For, as docs/api.md has it). Whatever
// per-client state a request touches (auth, limits, metrics) is then in
// the figure, as in make bench's read rows.
func BenchmarkHandlerClients(b *testing.B) {
	const clients = 1000
	w := newClientsWorld(b, clients, Options{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
		AnonymousPerDay: 1_000_000_000})
	handler := w.s.App().Handler()
	addrs := make([]string, clients)
	for i := range addrs {
		addrs[i] = fmt.Sprintf("10.0.%d.%d", i>>8, i&0xff)
	}
	proxy := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}
	for _, bc := range []struct{ name, path string }{
		{"table", fmt.Sprintf("/v1/competitions/%d/leagueTable", w.comp)},
		{"v4-standings", fmt.Sprintf("/v4/competitions/%s/standings?season=%d", w.league, w.season)},
		{"competition", fmt.Sprintf("/v1/competitions/%d", w.comp)},
		{"season-fixtures", fmt.Sprintf("/v1/competitions/%d/fixtures", w.comp)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var workers atomic.Int64
			cpu0 := cpuTime(b)
			b.RunParallel(func(pb *testing.PB) {
				var rc fasthttp.RequestCtx
				rc.SetRemoteAddr(proxy)
				// Each goroutine starts at clients of its own.
				n := int(workers.Add(1)) * 7919
				for pb.Next() {
					n++
					rc.ResetUserValues()
					rc.Request.Reset()
					rc.Response.Reset()
					rc.Request.Header.SetMethod(fasthttp.MethodGet)
					rc.Request.SetRequestURI(bc.path)
					rc.Request.Header.SetHost("api.test")
					if c := n / 2 % clients; n%2 == 0 {
						rc.Request.Header.Set("X-Auth-Token", w.tokens[c])
					} else {
						rc.Request.Header.Set(fiber.HeaderXForwardedFor, addrs[c])
					}
					handler(&rc)
					if rc.Response.StatusCode() != fasthttp.StatusOK {
						b.Errorf("%s: %d %s", bc.path, rc.Response.StatusCode(), rc.Response.Body())
						return
					}
				}
			})
			b.ReportMetric(float64((cpuTime(b)-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkLimiterTake measures the limiter's count of one request among
// 10,000 callers: a registered client with two rules, an anonymous
// address with one.
func BenchmarkLimiterTake(b *testing.B) {
	l := newLimiter(nil, slog.Default())
	now := time.Now()
	for i := range 5000 {
		l.take(subject{client: "client" + strconv.Itoa(i)}, now, limit{max: 1e9, period: time.Minute})
		l.take(subject{addr: netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)})}, now, limit{max: 1e9, period: 24 * time.Hour})
	}
	for _, bc := range []struct {
		name   string
		caller subject
		rules  []limit
	}{
		{"client", subject{client: "bench"}, []limit{{max: 1e9, period: time.Minute}, {max: 1e9, period: 24 * time.Hour}}},
		{"anonymous", subject{addr: netip.MustParseAddr("127.0.0.1")}, []limit{{max: 1e9, period: 24 * time.Hour}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				l.take(bc.caller, now, bc.rules...)
			}
		})
	}
}
