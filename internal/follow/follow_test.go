package follow_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/follow"
	"github.com/footdata/footballd/internal/importer"
	"github.com/footdata/footballd/internal/natsembed"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/internal/netguard"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
)

// seasonFile is the season in progress the tests follow: the Premier
// League 2025-26 as of 13 March 2026, 89 of its 380 matches unplayed.
const seasonFile = "2025-26/en.1.json"

// source is a real HTTP server serving the files of a folder the test
// edits between polls, with ETag and Last-Modified (304 on a conditional
// request that matches), or misbehaving as the mode of the file's feed
// says. Each feed has its season file under a folder of its name:
// /NAME/2025-26/en.1.json.
type source struct {
	t     *testing.T
	dir   string
	srv   *httptest.Server
	mu    sync.Mutex
	modes map[string]string // feed → mode ("": serve the file)
	// requests and notModified count what it answered.
	requests, notModified atomic.Int64
}

// Modes of a misbehaving source.
const (
	modeOK            = ""
	mode500           = "500"
	modeHTML          = "html"
	modeGarbage       = "garbage"
	modeTruncated     = "truncated"     // the file cut in the middle, served whole
	modeEmpty         = "empty"         // 200 and no body
	modeNoHeaders     = "no-headers"    // never answers
	modeHangBody      = "hang-body"     // headers, half the body, then nothing
	modeUnconditional = "unconditional" // 200 every time, no validators
)

func newSource(t *testing.T) *source {
	t.Helper()
	s := &source{t: t, dir: t.TempDir(), modes: map[string]string{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// original is the real season file.
func (s *source) original() []byte {
	b, err := os.ReadFile(natstest.SharedData(s.t, "openfootball-football-json", seasonFile))
	if err != nil {
		s.t.Fatal(err)
	}
	return b
}

func (s *source) url(rel string) string { return s.srv.URL + "/" + rel }

func (s *source) put(rel string, b []byte) {
	s.t.Helper()
	p := filepath.Join(s.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		s.t.Fatal(err)
	}
}

// edit rewrites the season file of feed: change edits its matches.
func (s *source) edit(feed string, change func(ms []map[string]any) []map[string]any) {
	s.t.Helper()
	b, err := os.ReadFile(filepath.Join(s.dir, feed, seasonFile))
	if err != nil {
		s.t.Fatal(err)
	}
	var f map[string]any
	if err := json.Unmarshal(b, &f); err != nil {
		s.t.Fatal(err)
	}
	var ms []map[string]any
	for _, m := range f["matches"].([]any) {
		ms = append(ms, m.(map[string]any))
	}
	f["matches"] = change(ms)
	out, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		s.t.Fatal(err)
	}
	s.put(feed+"/"+seasonFile, out)
}

func (s *source) setMode(feed, m string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.modes[feed] = m
}

func (s *source) mode(path string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	feed, _, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	return s.modes[feed]
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (s *source) serve(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	path := filepath.Join(s.dir, filepath.FromSlash(strings.TrimPrefix(r.URL.Path, "/")))
	b, err := os.ReadFile(path)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	switch s.mode(r.URL.Path) {
	case mode500:
		http.Error(w, "upstream broke", http.StatusInternalServerError)
	case modeHTML:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!doctype html><html><body>Maintenance</body></html>")
	case modeGarbage:
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte("\x00\x17garbage, not JSON at all"))
	case modeTruncated:
		w.Header().Set("Content-Type", "application/json")
		w.Write(b[:len(b)/2])
	case modeEmpty:
		w.Header().Set("Content-Type", "application/json")
	case modeNoHeaders:
		<-r.Context().Done()
	case modeHangBody:
		w.Header().Set("Content-Length", fmt.Sprint(len(b)))
		w.Write(b[:len(b)/2])
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	case modeUnconditional:
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	default:
		sum := sha256.Sum256(b)
		w.Header().Set("ETag", `"`+hex.EncodeToString(sum[:8])+`"`)
		w.Header().Set("Content-Type", "application/json")
		fi, err := os.Stat(path)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		sw := &statusWriter{ResponseWriter: w}
		http.ServeContent(sw, r, "", fi.ModTime(), bytes.NewReader(b))
		if sw.status == http.StatusNotModified {
			s.notModified.Add(1)
		}
	}
}

// world is a real NATS server with the stream provisioned, a store on
// it, the feeds' bucket, and a source. Each test has worlds of its own,
// and followers with registries of their own, so the tests run in
// parallel (t.Parallel): they spend most of their time waiting for the
// followers' polls, paced by the feeds' intervals and budgets. Those
// that time each change's arrival do not.
type world struct {
	t     *testing.T
	ctx   context.Context
	srv   *natsembed.Server
	store *events.Store
	state *follow.State
	src   *source
}

func newWorld(t *testing.T) *world {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	w := &world{t: t, ctx: ctx, srv: natstest.MustStart(t), src: newSource(t)}
	w.store = natstest.MustOpen(t, w.srv)
	var err error
	if w.state, err = follow.Open(ctx, w.store.Conn()); err != nil {
		t.Fatal(err)
	}
	return w
}

// follower is one follower running in the test, on its own connection.
type follower struct {
	f       *follow.Follower
	reg     *prometheus.Registry
	store   *events.Store
	log     *natstest.Buffer
	cancel  context.CancelFunc
	stopped chan struct{}
}

// start runs a follower named holder until the test ends or it is
// stopped; change adjusts its configuration.
func (w *world) start(holder string, change func(*follow.Config)) *follower {
	w.t.Helper()
	fl := &follower{reg: prometheus.NewRegistry(), store: natstest.MustOpen(w.t, w.srv), log: &natstest.Buffer{}, stopped: make(chan struct{})}
	st, err := follow.Open(w.ctx, fl.store.Conn())
	if err != nil {
		w.t.Fatal(err)
	}
	cfg := follow.Config{Store: fl.store, State: st, Holder: holder, LeaseTTL: time.Second, Registerer: fl.reg,
		Log:          slog.New(slog.NewJSONHandler(fl.log, nil)),
		FetchTimeout: 2 * time.Second, HeaderTimeout: time.Second, MaxBackoff: 2 * time.Second,
		// The sources are fakes on loopback, which only an allow list
		// lets a follower reach.
		Allow: mustAllow(w.t, "127.0.0.1/32")}
	if change != nil {
		change(&cfg)
	}
	if fl.f, err = follow.New(cfg); err != nil {
		w.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(w.ctx)
	fl.cancel = cancel
	go func() {
		defer close(fl.stopped)
		_ = fl.f.Run(ctx)
	}()
	w.t.Cleanup(func() { cancel(); <-fl.stopped })
	return fl
}

func mustAllow(t *testing.T, list string) *netguard.Allow {
	t.Helper()
	a, err := netguard.ParseAllow(list)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// kill stops a follower as kill -9 would, as far as the others can tell:
// its connection goes first, so that it neither renews nor gives up its
// leases.
func (fl *follower) kill() {
	fl.store.Close()
	fl.cancel()
	<-fl.stopped
}

// addFeed registers a feed of a copy of the season file of its own,
// polled every second.
func (w *world) addFeed(name string, createTeams bool) model.Feed {
	w.t.Helper()
	w.src.put(name+"/"+seasonFile, w.src.original())
	ed := natstest.Editor(w.t, w.store)
	if _, err := ed.AddFeed(w.ctx, model.Feed{Name: name, Format: "openfootball", URL: w.src.url(name + "/" + seasonFile), EverySeconds: 1, CreateTeams: createTeams}); err != nil {
		w.t.Fatal(err)
	}
	f, err := ed.Feed(w.ctx, name)
	if err != nil {
		w.t.Fatal(err)
	}
	return f
}

// waitStatus polls the feed's status until ok, for up to 30 seconds.
func (w *world) waitStatus(fd model.Feed, what string, ok func(follow.Status) bool) follow.Status {
	w.t.Helper()
	return w.waitStatusIn(w.t, fd, what, ok)
}

// waitStatusIn is waitStatus failing t: a subtest's own, since a
// subtest may not fail its parent.
func (w *world) waitStatusIn(t testing.TB, fd model.Feed, what string, ok func(follow.Status) bool) follow.Status {
	t.Helper()
	var st follow.Status
	natstest.CheckFor(t, 30*time.Second, 20*time.Millisecond, func() error {
		var err error
		if st, _, err = w.state.Status(w.ctx, fd.Name, fd.Created); err != nil {
			t.Fatal(err)
		}
		if !ok(st) {
			return fmt.Errorf("feed %s: %s never came; status %+v", fd.Name, what, st)
		}
		return nil
	})
	return st
}

// polledAfter is a status of a poll that ended after mark with result.
func polledAfter(mark time.Time, result string) func(follow.Status) bool {
	return func(st follow.Status) bool { return st.LastFetch.After(mark) && st.Result == result }
}

func (w *world) lastSeq() uint64 {
	w.t.Helper()
	seq, err := w.store.LastSeq(w.ctx)
	if err != nil {
		w.t.Fatal(err)
	}
	return seq
}

// published returns the subjects of the messages after sequence from, in
// order, and fails the test if any of them repeats the state before it:
// a change published twice.
func (w *world) published(from uint64) []string {
	w.t.Helper()
	js, err := jetstream.New(w.store.Conn())
	if err != nil {
		w.t.Fatal(err)
	}
	stream, err := js.Stream(w.ctx, events.DefaultStream)
	if err != nil {
		w.t.Fatal(err)
	}
	var subjects []string
	for seq := from + 1; seq <= w.lastSeq(); seq++ {
		m, err := stream.GetMsg(w.ctx, seq)
		if err != nil {
			w.t.Fatal(err)
		}
		subjects = append(subjects, m.Subject)
		hist, err := w.store.History(w.ctx, m.Subject)
		if err != nil {
			w.t.Fatal(err)
		}
		for i := 1; i < len(hist); i++ {
			if bytes.Equal(hist[i].Data, hist[i-1].Data) {
				w.t.Errorf("%s: revisions %d and %d hold the same state: a change published twice", m.Subject, hist[i-1].Seq, hist[i].Seq)
			}
		}
	}
	return subjects
}

// fixtures returns the stream's fixtures by their source.
func (w *world) fixtures() map[string]model.Fixture {
	w.t.Helper()
	out := map[string]model.Fixture{}
	for _, f := range natstest.All[model.Fixture](w.t, w.store, events.KindFixture) {
		out[f.Source] = f
	}
	return out
}

// sourceOf is the importer's natural key of a Premier League 2025 match.
func sourceOf(m map[string]any) string {
	return fmt.Sprintf("openfootball:PL:2025:%s|%s|%s", m["round"], m["team1"], m["team2"])
}

// unplayed returns the i-th match of the season without a score.
func unplayed(ms []map[string]any, i int) map[string]any {
	for _, m := range ms {
		if sc, _ := m["score"].(map[string]any); len(sc) == 0 {
			if i == 0 {
				return m
			}
			i--
		}
	}
	panic("not so many unplayed matches")
}

// metricValue sums the series of a metric of reg whose labels include
// want.
func metricValue(t *testing.T, reg *prometheus.Registry, name string, want map[string]string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	series:
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if v, ok := want[l.GetName()]; ok && v != l.GetValue() {
					continue series
				}
			}
			sum += m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	return sum
}

// TestFollowKeepsSeasonCurrent: a season in progress whose file changes
// upstream between polls (a result added, a kick-off moved, a match
// postponed) is followed: each change publishes the one fixture it
// touches and nothing else, and a fetch of the file unchanged, whether
// the source answers 304 or the same bytes again, publishes nothing.
func TestFollowKeepsSeasonCurrent(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	fl := w.start("a", nil)
	fd := w.addFeed("pl", true)
	st := w.waitStatus(fd, "the first import", polledAfter(time.Time{}, follow.ResultChanged))
	if st.Matches != 380 || st.Holder != "a" || st.ETag == "" {
		t.Fatalf("after the first fetch: %+v, want 380 matches, holder a, an ETag", st)
	}
	if n := len(w.fixtures()); n != 380 {
		t.Fatalf("%d fixtures in the stream, want the file's 380", n)
	}

	mark, seq := time.Now(), w.lastSeq()
	w.waitStatus(fd, "a 304", polledAfter(mark, follow.ResultNotModified))
	if got := w.published(seq); len(got) != 0 || w.src.notModified.Load() == 0 {
		t.Errorf("a poll of the unchanged file published %v (304s: %d), want nothing", got, w.src.notModified.Load())
	}

	var ms []map[string]any
	w.src.edit("pl", func(all []map[string]any) []map[string]any { ms = all; return all })
	edits := []struct {
		name  string
		match map[string]any
		edit  func(m map[string]any)
		check func(f model.Fixture) bool
	}{
		{"a result added", unplayed(ms, 0), func(m map[string]any) { m["score"] = map[string]any{"ht": []int{1, 0}, "ft": []int{2, 1}} },
			func(f model.Fixture) bool {
				return f.Status == model.Finished && f.Result.FullTime != nil && *f.Result.FullTime == model.Score{Home: 2, Away: 1}
			}},
		{"a kick-off moved", unplayed(ms, 1), func(m map[string]any) { m["time"] = "17:30" },
			func(f model.Fixture) bool { return f.Kickoff.UTC().Format("15:04") == "17:30" }},
		{"a postponement", unplayed(ms, 2), func(m map[string]any) { m["status"] = "postponed" },
			func(f model.Fixture) bool { return f.Status == model.Postponed }},
	}
	for _, e := range edits {
		before := w.fixtures()[sourceOf(e.match)]
		mark, seq := time.Now(), w.lastSeq()
		w.src.edit("pl", func(all []map[string]any) []map[string]any {
			for _, m := range all {
				if sourceOf(m) == sourceOf(e.match) {
					e.edit(m)
				}
			}
			return all
		})
		st := w.waitStatus(fd, e.name, polledAfter(mark, follow.ResultChanged))
		subject := events.FixtureSubject(before.CompetitionID, before.ID)
		got := w.published(seq)
		if len(got) == 0 || strings.Count(strings.Join(got, " ")+" ", subject+" ") != len(got) {
			t.Errorf("%s: published %v, want revisions of %s alone", e.name, got, subject)
		}
		if after := w.fixtures()[sourceOf(e.match)]; !e.check(after) {
			t.Errorf("%s: fixture now %+v", e.name, after)
		}
		if st.Changes == 0 {
			t.Errorf("%s: status counts no change: %+v", e.name, st)
		}
	}

	// A source that ignores conditional requests sends the same bytes:
	// they are not even parsed again.
	w.src.setMode("pl", modeUnconditional)
	mark, seq = time.Now(), w.lastSeq()
	w.waitStatus(fd, "an unconditional 200 of the same file", polledAfter(mark, follow.ResultUnchanged))
	if got := w.published(seq); len(got) != 0 {
		t.Errorf("the same bytes again published %v, want nothing", got)
	}
	if n := metricValue(t, fl.reg, "fd_feed_changes_published_total", map[string]string{"feed": "pl"}); n < 383 {
		t.Errorf("fd_feed_changes_published_total{feed=pl} = %v, want the 380 fixtures, their teams and competition, and 3 changes", n)
	}
	if n := metricValue(t, fl.reg, "fd_feed_fetches_total", map[string]string{"feed": "pl", "result": follow.ResultNotModified}); n == 0 {
		t.Error("fd_feed_fetches_total{result=not_modified} is 0")
	}
}

// TestFollowRefusesBadSources: a source that fails in any of the ways
// real ones do leaves the last good data as it was: nothing published,
// no fixture deleted, the error recorded (status, metric, one log line
// naming the feed) and the feed polled again later, backing off; a file
// that lost more than --max-shrink of its matches is refused as suspect,
// and one that lost less is written without deleting anything.
func TestFollowRefusesBadSources(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	fl := w.start("a", nil)
	original := w.src.original()
	keep := func(n int) func([]map[string]any) []map[string]any {
		return func(ms []map[string]any) []map[string]any { return ms[:n] }
	}
	tests := []struct {
		name   string
		mode   string
		shrink func([]map[string]any) []map[string]any // the file's new matches
		result string
		err    string // in the status's last error and the log line
	}{
		{"500", mode500, nil, follow.ResultError, "HTTP 500"},
		{"no headers in time", modeNoHeaders, nil, follow.ResultError, "no response headers within"},
		{"hangs after the headers", modeHangBody, nil, follow.ResultError, "no whole answer within"},
		{"an HTML page", modeHTML, nil, follow.ResultError, "HTML page"},
		{"garbage", modeGarbage, nil, follow.ResultError, "not openfootball JSON"},
		{"a truncated file", modeTruncated, nil, follow.ResultError, "unexpected end of JSON input"},
		{"an empty file", modeEmpty, nil, follow.ResultError, "empty document"},
		{"half the matches missing", modeOK, keep(190), follow.ResultSuspect, "refused as suspect: 190 matches, 190 fewer than the 380"},
		{"a tenth of the matches missing", modeOK, keep(342), follow.ResultUnchanged, ""},
	}
	// A feed for each row, each file imported once before the rows run
	// at once: the rows publish nothing, so the stream's last sequence
	// is theirs to watch together.
	feeds := make([]model.Feed, len(tests))
	for i := range tests {
		feeds[i] = w.addFeed(fmt.Sprintf("f%d", i), true)
	}
	for i, tt := range tests {
		w.waitStatus(feeds[i], tt.name+": the first import", func(st follow.Status) bool { return st.Matches == 380 })
	}
	before := w.fixtures()
	seq := w.lastSeq()
	t.Cleanup(func() {
		if got := w.published(seq); len(got) != 0 {
			t.Errorf("the rows published %v, want nothing", got)
		}
		if after := w.fixtures(); len(after) != len(before) {
			t.Errorf("%d fixtures after, %d before: none may go", len(after), len(before))
		}
	})
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fd := feeds[i]
			mark := time.Now()
			errors0 := metricValue(t, fl.reg, "fd_feed_fetches_total", map[string]string{"feed": fd.Name, "result": tt.result})
			if tt.shrink != nil {
				w.src.edit(fd.Name, tt.shrink)
			}
			w.src.setMode(fd.Name, tt.mode)
			st := w.waitStatusIn(t, fd, tt.name, polledAfter(mark, tt.result))
			// The fetch is counted as its status is written, not before:
			// the counter may trail the status a moment.
			natstest.CheckFor(t, 10*time.Second, 10*time.Millisecond, func() error {
				if n := metricValue(t, fl.reg, "fd_feed_fetches_total", map[string]string{"feed": fd.Name, "result": tt.result}); n <= errors0 {
					return fmt.Errorf("fd_feed_fetches_total{result=%s} = %v, was %v", tt.result, n, errors0)
				}
				return nil
			})
			if tt.err != "" {
				if st.Failures == 0 || !strings.Contains(st.LastError, tt.err) || !st.ErrorAt.After(mark) {
					t.Errorf("status %+v, want a failure and the error %q", st, tt.err)
				}
				// Backing off: the next poll is at least half the first
				// back-off away (1s here), jittered.
				if wait := st.NextPoll.Sub(st.LastFetch); wait < 500*time.Millisecond {
					t.Errorf("next poll %s after the failure, want at least 500ms", wait)
				}
				// The line is logged just after the fetch is counted.
				natstest.CheckFor(t, 10*time.Second, 10*time.Millisecond, func() error {
					if line := logLine(fl.log.String(), fd.Name, tt.err); line["level"] != "WARN" {
						return fmt.Errorf("log line of the failure %v, want a warning naming feed %s; log:\n%s", line, fd.Name, fl.log.String())
					}
					return nil
				})
			}
			if tt.result == follow.ResultUnchanged && st.Matches != 342 {
				t.Errorf("a smaller file within the limit: %d matches recorded, want 342", st.Matches)
			}
			// Back to the good file: the feed recovers.
			mark = time.Now()
			w.src.put(fd.Name+"/"+seasonFile, original)
			w.src.setMode(fd.Name, modeOK)
			st = w.waitStatus(fd, "recovery", func(st follow.Status) bool { return st.LastSuccess.After(mark) })
			if st.Failures != 0 {
				t.Errorf("after recovery %+v, want no failures", st)
			}
		})
	}
}

// logLine returns the last JSON log line of feed that holds text in
// its error. The rows run at once and one row's error may hold
// another's text ("not openfootball JSON" is in the truncated file's
// error too), so the feed picks the line, not the text alone.
func logLine(log, feed, text string) map[string]any {
	lines := strings.Split(strings.TrimSpace(log), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		var m map[string]any
		if json.Unmarshal([]byte(lines[i]), &m) != nil || m["feed"] != feed {
			continue
		}
		if err, _ := m["err"].(string); strings.Contains(err, text) {
			return m
		}
	}
	return nil
}

// TestFollowHoldsBackUnknownNames: a feed maps team names through the
// spellings the stream records (and the historic table: "Man United" is
// placed); a name no team has ("The Red Devils", and
// the three promoted clubs the stream has never seen) is reported and
// its fixtures held back, never created as a second club, until an
// alias places it; a feed that may create teams creates them.
func TestFollowHoldsBackUnknownNames(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	// The stream knows last season's twenty clubs.
	natstest.Import(t, w.store, "openfootball", importer.Options{}, natstest.SharedData(t, "openfootball-football-json", "2024-25", "en.1.json"))
	teams := func() map[string]model.Team { return natstest.All[model.Team](t, w.store, events.KindTeam) }
	before := len(teams())
	w.start("a", nil)
	w.src.put("pl/"+seasonFile, bytes.ReplaceAll(w.src.original(), []byte(`"Manchester United FC"`), []byte(`"The Red Devils"`)))
	ed := natstest.Editor(t, w.store)
	if _, err := ed.AddFeed(w.ctx, model.Feed{Name: "pl", Format: "openfootball", URL: w.src.url("pl/" + seasonFile), EverySeconds: 1}); err != nil {
		t.Fatal(err)
	}
	fd, err := ed.Feed(w.ctx, "pl")
	if err != nil {
		t.Fatal(err)
	}
	st := w.waitStatus(fd, "names held back", polledAfter(time.Time{}, follow.ResultHeldBack))
	want := map[string]int{"The Red Devils": 38, "Burnley FC": 38, "Leeds United FC": 38, "Sunderland AFC": 38}
	if !maps.Equal(st.HeldBack, want) {
		t.Errorf("held back %v, want %v", st.HeldBack, want)
	}
	if n := len(teams()); n != before {
		t.Errorf("%d teams after the feed, %d before: it created some", n, before)
	}
	// 380 less the 38 of each of the four names, their meetings (12
	// pairs, two each) counted once.
	if n := len(w.fixtures()) - 380; n != 380-4*38+12 {
		t.Errorf("%d fixtures of the season written, want %d", n, 380-4*38+12)
	}

	// An editor places the spelling: the next poll, which fetches the
	// document whole again, writes The Red Devils's fixtures, against the
	// club the stream has.
	var united int
	for _, tm := range teams() {
		if tm.Name == "Manchester United FC" {
			united = tm.ID
		}
	}
	mark := time.Now()
	if _, err := ed.PutTeamName(w.ctx, "The Red Devils", united); err != nil {
		t.Fatal(err)
	}
	st = w.waitStatus(fd, "The Red Devils placed", func(st follow.Status) bool { return st.LastFetch.After(mark) && st.HeldBack["The Red Devils"] == 0 })
	if len(st.HeldBack) != 3 || st.Result != follow.ResultHeldBack {
		t.Errorf("after the alias: held back %v (%s), want the three promoted clubs", st.HeldBack, st.Result)
	}
	if n := len(teams()); n != before {
		t.Errorf("%d teams after the alias, %d before", n, before)
	}
	if n := len(w.fixtures()) - 380; n != 380-3*38+6 {
		t.Errorf("%d fixtures of the season written, want %d", n, 380-3*38+6)
	}

	// A feed that may create teams creates the three.
	if _, err := ed.AddFeed(w.ctx, model.Feed{Name: "pl-create", Format: "openfootball", URL: w.src.url("pl/" + seasonFile), EverySeconds: 1, CreateTeams: true}); err != nil {
		t.Fatal(err)
	}
	create, err := ed.Feed(w.ctx, "pl-create")
	if err != nil {
		t.Fatal(err)
	}
	w.waitStatus(create, "teams created", polledAfter(time.Time{}, follow.ResultChanged))
	if n := len(teams()); n != before+3 {
		t.Errorf("%d teams after a feed that creates them, want %d", n, before+3)
	}
	if n := len(w.fixtures()) - 380; n != 380 {
		t.Errorf("%d fixtures of the season written, want 380", n)
	}
}

// TestTwoFollowersOneLease: of two followers, one polls the feed; when
// it dies without a word (its connection gone, as after kill -9) the
// other takes the lease over within seconds and goes on, and a change
// made upstream after is published once.
func TestTwoFollowersOneLease(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	a := w.start("a", nil)
	fd := w.addFeed("pl", true)
	w.waitStatus(fd, "a's first import", polledAfter(time.Time{}, follow.ResultChanged))
	b := w.start("b", nil)
	// b runs through several lease times while a keeps polling.
	mark := time.Now()
	w.waitStatus(fd, "a polling on", func(st follow.Status) bool { return st.LastFetch.After(mark.Add(2500 * time.Millisecond)) })
	if holder, err := w.state.Holder(w.ctx, "pl"); err != nil || holder != "a" {
		t.Fatalf("lease holder %q, %v; want a", holder, err)
	}
	if n := metricValue(t, b.reg, "fd_feed_fetches_total", nil); n != 0 {
		t.Errorf("b fetched %v times while a held the lease, want 0", n)
	}
	if n := metricValue(t, a.reg, "fd_feed_lease_held", map[string]string{"feed": "pl"}); n != 1 {
		t.Errorf("a: fd_feed_lease_held{feed=pl} = %v, want 1", n)
	}

	killed := time.Now()
	a.kill()
	natstest.CheckFor(t, 20*time.Second, 20*time.Millisecond, func() error {
		holder, err := w.state.Holder(w.ctx, "pl")
		if err != nil {
			t.Fatal(err)
		}
		if holder != "b" {
			return fmt.Errorf("lease still held by %q after its holder died", holder)
		}
		return nil
	})
	t.Logf("b took the lease over %s after a died (lease 1s)", time.Since(killed).Round(10*time.Millisecond))

	var m map[string]any
	seq, mark := w.lastSeq(), time.Now()
	w.src.edit("pl", func(ms []map[string]any) []map[string]any {
		m = unplayed(ms, 0)
		m["score"] = map[string]any{"ft": []int{0, 3}}
		return ms
	})
	st := w.waitStatus(fd, "b publishes the change", polledAfter(mark, follow.ResultChanged))
	f := w.fixtures()[sourceOf(m)]
	subject := events.FixtureSubject(f.CompetitionID, f.ID)
	got := w.published(seq)
	if len(got) == 0 || strings.Count(strings.Join(got, " ")+" ", subject+" ") != len(got) {
		t.Errorf("published %v, want revisions of %s alone", got, subject)
	}
	if st.Holder != "b" || f.Result.FullTime == nil || *f.Result.FullTime != (model.Score{Home: 0, Away: 3}) {
		t.Errorf("status %+v, fixture %+v: want b's poll and the result 0-3", st, f)
	}
	if n := metricValue(t, b.reg, "fd_feed_lease_held", map[string]string{"feed": "pl"}); n != 1 {
		t.Errorf("b: fd_feed_lease_held{feed=pl} = %v, want 1", n)
	}
}

// TestSplitBrainWritesOnce: two followers that both believe they hold a
// feed (one paused past its lease) write the same changed document at
// once: every change lands once, as the editor's compare-and-set makes
// the loser decide again and find nothing left to do.
func TestSplitBrainWritesOnce(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.src.put("pl/"+seasonFile, w.src.original())
	body := w.src.original()
	f := importer.Formats["openfootball"]
	write := func(store *events.Store, body []byte) importer.Summary {
		im := importer.New(natstest.Editor(t, store), nil)
		opts := importer.Options{}
		doc, err := im.Parse(w.ctx, f, "/pl/"+seasonFile, body, opts)
		if err != nil {
			t.Error(err)
			return im.Summary
		}
		if err := im.ImportDoc(w.ctx, doc, opts); err != nil {
			t.Error(err)
		}
		return im.Summary
	}
	write(w.store, body)
	w.src.edit("pl", func(ms []map[string]any) []map[string]any {
		for i := range 10 {
			unplayed(ms, i)["score"] = map[string]any{"ft": []int{i % 4, 1}}
		}
		return ms
	})
	changed, err := os.ReadFile(filepath.Join(w.src.dir, "pl", seasonFile))
	if err != nil {
		t.Fatal(err)
	}
	seq := w.lastSeq()
	stores := []*events.Store{natstest.MustOpen(t, w.srv), natstest.MustOpen(t, w.srv)}
	sums := make([]importer.Summary, 2)
	var wg sync.WaitGroup
	for i, s := range stores {
		wg.Go(func() { sums[i] = write(s, changed) })
	}
	wg.Wait()
	got := w.published(seq)
	subjects := map[string]bool{}
	for _, s := range got {
		subjects[s] = true
	}
	if len(subjects) != 10 {
		t.Errorf("published %d messages to %d subjects, want the 10 fixtures changed", len(got), len(subjects))
	}
	if n := sums[0].Fixtures.Updated + sums[1].Fixtures.Updated; n != 10 {
		t.Errorf("the two writers updated %d and %d fixtures, want 10 between them", sums[0].Fixtures.Updated, sums[1].Fixtures.Updated)
	}
}

// TestStopGivesUpEveryLease: a follower stopped at any moment, a renewal
// of its leases under way included, gives every lease up, so that the
// next follower takes them at once. A renewal abandoned on the way was
// still written, at a revision the release did not know: the release
// failed, "feed lease not released", and the lease waited out its time
// to live (deploy's TestNATSConfiguration, 1 run in 8 under load).
func TestStopGivesUpEveryLease(t *testing.T) {
	natstest.SkipShort(t, "stops followers at 10 random moments of their renewals")
	t.Parallel()
	w := newWorld(t)
	ed := natstest.Editor(t, w.store)
	// Feeds whose source fails: each keeps its lease and costs nothing
	// to poll, so that the rounds are mostly renewals.
	const feeds = 40
	for i := range feeds {
		if _, err := ed.AddFeed(w.ctx, model.Feed{Name: fmt.Sprintf("gone-%d", i), Format: "openfootball", URL: w.src.url("gone/" + seasonFile), EverySeconds: 60}); err != nil {
			t.Fatal(err)
		}
	}
	holders := func() map[string]int {
		n := map[string]int{}
		for i := range feeds {
			h, err := w.state.Holder(w.ctx, fmt.Sprintf("gone-%d", i))
			if err != nil {
				t.Fatal(err)
			}
			n[h]++
		}
		return n
	}
	for round := range 10 {
		holder := fmt.Sprintf("f%d", round)
		fl := w.start(holder, nil)
		natstest.CheckFor(t, 30*time.Second, 20*time.Millisecond, func() error {
			if n := holders(); n[holder] != feeds {
				return fmt.Errorf("round %d: leases %v, want all %d held by %s", round, n, feeds, holder)
			}
			return nil
		})
		// A moment within the renewals (a third of the 1 s time to live).
		time.Sleep(time.Duration(rand.IntN(400)) * time.Millisecond)
		fl.cancel()
		<-fl.stopped
		if n := holders(); n[""] != feeds {
			t.Fatalf("round %d: leases after %s stopped %v, want all %d given up; its log:\n%s", round, holder, n, feeds, fl.log.String())
		}
	}
}
