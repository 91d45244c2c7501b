package httpapi

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natsembed"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/readmodel"
	"github.com/prometheus/client_golang/prometheus"
)

// keepAlive is one keep-alive connection of a raw HTTP client, dialled
// from a loopback address of the test's choosing (127.0.0.2 is another
// client address than 127.0.0.1 to the server).
type keepAlive struct {
	conn net.Conn
	br   *bufio.Reader
}

func dialFrom(t testing.TB, from, addr string) *keepAlive {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 10 * time.Second}
	conn, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &keepAlive{conn: conn, br: bufio.NewReader(conn)}
}

// get asks for path with the token (none if empty) and returns the status.
func (k *keepAlive) get(path, token string) (int, http.Header, error) {
	if token == "" {
		return k.getHeaders(path, "")
	}
	return k.getHeaders(path, "X-Auth-Token: "+token+"\r\n")
}

// getHeaders asks for path with the header lines given, each ending in
// CRLF.
func (k *keepAlive) getHeaders(path, headers string) (int, http.Header, error) {
	_ = k.conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(k.conn, "GET "+path+" HTTP/1.1\r\nHost: a\r\n"+headers+"\r\n"); err != nil {
		return 0, nil, err
	}
	resp, err := http.ReadResponse(k.br, nil)
	if err != nil {
		return 0, nil, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header, err
}

// floodReplica is a replica following a real stream with budgets shared
// and tokens looked up, as cmd/api wires them, and a registered client's
// token.
type floodReplica struct {
	nats  *natsembed.Server
	store *events.Store
	s     *Server
	addr  string
	reg   *prometheus.Registry
	token string
}

func newFloodReplica(t testing.TB, opts Options) floodReplica {
	t.Helper()
	srv := natstest.MustStart(t)
	store := natstest.MustOpen(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	following := make(chan struct{})
	t.Cleanup(func() { cancel(); <-following })
	token, _, err := natstest.Editor(t, store).AddClient(ctx, model.Client{Name: "acme", Tier: model.TierDonating, PerMinute: 1_000_000})
	if err != nil {
		close(following)
		t.Fatal(err)
	}
	m, err := readmodel.New(readmodel.Config{})
	if err != nil {
		close(following)
		t.Fatal(err)
	}
	go func() {
		defer close(following)
		_ = m.Run(ctx, store)
	}()
	if err := m.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	budgets, err := store.Budgets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	opts.Model, opts.Registry = m, prometheus.NewRegistry()
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	s.ShareBudgets(budgets)
	s.LookUpTokens(store)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.Serve(ln) }()
	t.Cleanup(func() { _ = s.App().Shutdown(); s.Close() })
	return floodReplica{nats: srv, store: store, s: s, addr: ln.Addr().String(), reg: opts.Registry, token: token}
}

// natsMessages is what the NATS server has received and sent so far.
func (r floodReplica) natsMessages(t testing.TB) int64 {
	t.Helper()
	v, err := r.nats.Varz(nil)
	if err != nil {
		t.Fatal(err)
	}
	return v.InMsgs + v.OutMsgs
}

// flood sends requests with tokens over conns connections from the address
// from, at most rate a second in all (0: as fast as they go), and counts
// the statuses.
func flood(t testing.TB, addr, from string, tokens []string, conns, rate int) map[int]int {
	t.Helper()
	var mu sync.Mutex
	statuses := map[int]int{}
	var wg sync.WaitGroup
	start := time.Now()
	for w := range conns {
		k := dialFrom(t, from, addr)
		wg.Go(func() {
			for i := w; i < len(tokens); i += conns {
				if rate > 0 {
					time.Sleep(time.Until(start.Add(time.Duration(i) * time.Second / time.Duration(rate))))
				}
				status, _, err := k.get("/v1/competitions", tokens[i])
				if err != nil {
					t.Errorf("flood request %d: %v", i, err)
					return
				}
				mu.Lock()
				statuses[status]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return statuses
}

// minuteWindows is how many of the limiter's minute windows [start, end]
// touches.
func minuteWindows(start, end time.Time) int {
	return int(end.Unix()/60-start.Unix()/60) + 1
}

// TestTokenFloodIsBoundedPerAddress: fresh random tokens from one address
// cost the stream's leader at most the address's lookups a minute; beyond
// them they are refused with 429 and Retry-After without a lookup, while
// the same address's anonymous requests, another address's new token and
// a registered client are answered as before.
func TestTokenFloodIsBoundedPerAddress(t *testing.T) {
	const budget = 20
	r := newFloodReplica(t, Options{TokenLookupsPerMinute: budget, AnonymousPerDay: 1_000_000})
	tokens := randomTokens(t, 500)
	start := time.Now()
	statuses := flood(t, r.addr, "127.0.0.1", tokens, 8, 0)
	windows := minuteWindows(start, time.Now())
	got := lookups(t, r.reg)
	t.Logf("%d fresh tokens from one address: %v lookups in %d minute windows, statuses %v", len(tokens), got, windows, statuses)
	if got > float64(budget*windows) || got < budget {
		t.Errorf("%d fresh tokens from one address made %v lookups, want %d to %d (%d a minute)", len(tokens), got, budget, budget*windows, budget)
	}
	if statuses[400] != int(got) || statuses[429] != len(tokens)-int(got) {
		t.Errorf("statuses %v, want 400 for each of the %v looked up and 429 for the rest", statuses, got)
	}
	if n := counter(t, r.reg, "fd_token_lookups_skipped_total", "reason", "address"); n != float64(statuses[429]) {
		t.Errorf("fd_token_lookups_skipped_total{reason=\"address\"} = %v, want %d", n, statuses[429])
	}

	k := dialFrom(t, "127.0.0.1", r.addr)
	status, header, err := k.get("/v1/competitions", randomTokens(t, 1)[0])
	if err != nil || status != 429 || header.Get("Retry-After") == "" {
		t.Errorf("one more fresh token: %d (Retry-After %q) %v, want 429 with Retry-After", status, header.Get("Retry-After"), err)
	}
	if status, _, err := k.get("/v1/competitions", ""); err != nil || status != 200 {
		t.Errorf("anonymous request from the flooding address: %d %v, want 200", status, err)
	}
	if status, header, err := k.get("/v1/competitions", r.token); err != nil || status != 200 || header.Get("X-Authenticated-Client") != "acme" {
		t.Errorf("registered client from the flooding address: %d as %q %v, want 200 as acme", status, header.Get("X-Authenticated-Client"), err)
	}

	// Another address has its own lookups: a client added now is found
	// on this replica even before it applies it.
	before := lookups(t, r.reg)
	other := dialFrom(t, "127.0.0.2", r.addr)
	if status, _, err := other.get("/v1/competitions", randomTokens(t, 1)[0]); err != nil || status != 400 || lookups(t, r.reg) != before+1 {
		t.Errorf("a fresh token from another address: %d %v after %v lookups, want 400 after one", status, err, lookups(t, r.reg)-before)
	}
}

// TestTokenFloodCost measures what 2,000 requests a second with fresh
// random tokens from one address cost NATS and a registered client's p99
// on another connection, against the same rate of anonymous requests and
// against the same flood with lookups unbounded per address (as before
// they had a budget), in one run. It logs the figures; the bound it
// asserts is the lookups'.
func TestTokenFloodCost(t *testing.T) {
	if testing.Short() {
		t.Skip("a few seconds of load")
	}
	const n, rate = 2000, 2000
	type phase struct {
		name      string
		lookups   int // per minute and address; 0: the default
		anonymous bool
	}
	phases := []phase{{"quiet", 0, false}, {"anonymous flood", 0, true}, {"fresh tokens, lookups unbounded", 1 << 30, false},
		{"fresh tokens, lookups bounded", 0, false}}
	type result struct {
		msgs    int64
		p99     time.Duration
		lookups float64
	}
	results := make([]result, len(phases))
	for i, p := range phases {
		r := newFloodReplica(t, Options{TokenLookupsPerMinute: p.lookups})
		tokens := make([]string, n)
		if !p.anonymous {
			tokens = randomTokens(t, n)
		}
		legit := dialFrom(t, "127.0.0.1", r.addr)
		if status, _, err := legit.get("/v1/competitions", r.token); err != nil || status != 200 {
			t.Fatalf("%s: registered client: %d %v", p.name, status, err)
		}
		msgs := r.natsMessages(t)
		done := make(chan struct{})
		var lat []time.Duration
		go func() {
			defer close(done)
			for end := time.Now().Add(time.Second); time.Now().Before(end); {
				at := time.Now()
				if status, _, err := legit.get("/v1/competitions", r.token); err != nil || status != 200 {
					t.Errorf("%s: registered client: %d %v", p.name, status, err)
					return
				}
				lat = append(lat, time.Since(at))
			}
		}()
		if p.name != "quiet" {
			flood(t, r.addr, "127.0.0.2", tokens, 8, rate)
		}
		<-done
		slices.Sort(lat)
		results[i] = result{msgs: r.natsMessages(t) - msgs, p99: lat[len(lat)*99/100], lookups: lookups(t, r.reg)}
		t.Logf("%-32s NATS messages %6d, token lookups %5.0f, registered client p99 %s over %d requests", p.name, results[i].msgs,
			results[i].lookups, results[i].p99, len(lat))
	}
	quiet, anon, before, after := results[0], results[1], results[2], results[3]
	t.Logf("fresh-token flood vs anonymous flood: NATS messages %.1f× unbounded, %.1f× bounded; registered p99 %.1f× unbounded, %.1f× bounded "+
		"(vs quiet: %.1f×, %.1f×; the anonymous flood's %.1f×)",
		float64(before.msgs)/float64(max(anon.msgs, 1)), float64(after.msgs)/float64(max(anon.msgs, 1)),
		float64(before.p99)/float64(anon.p99), float64(after.p99)/float64(anon.p99),
		float64(before.p99)/float64(quiet.p99), float64(after.p99)/float64(quiet.p99), float64(anon.p99)/float64(quiet.p99))
	if after.lookups > 2*DefaultTokenLookupsPerMinute {
		t.Errorf("bounded flood: %v lookups, want at most %d", after.lookups, 2*DefaultTokenLookupsPerMinute)
	}
}
