package follow_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
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
	"github.com/footdata/footballd/internal/natsembed"
	"github.com/footdata/footballd/internal/natstest"
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
// request that matches), or misbehaving as mode says.
type source struct {
	t    *testing.T
	dir  string
	srv  *httptest.Server
	mode atomic.Value // string: "" serves the files
	// requests and notModified count what it answered.
	requests, notModified atomic.Int64
}

// Modes of a misbehaving source.
const (
	modeOK            = ""
	mode500           = "500"
	modeHTML          = "html"
	modeGarbage       = "garbage"
	modeTruncated     = "truncated"      // the file cut in the middle, served whole
	modeEmpty         = "empty"          // 200 and no body
	modeNoHeaders     = "no-headers"     // never answers
	modeHangBody      = "hang-body"      // headers, half the body, then nothing
	modeUnconditional = "unconditional" // 200 every time, no validators
)

func newSource(t *testing.T) *source {
	t.Helper()
	s := &source{t: t, dir: t.TempDir()}
	s.mode.Store(modeOK)
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	s.put(seasonFile, s.original())
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

// edit rewrites the season file: change edits its matches.
func (s *source) edit(change func(ms []map[string]any) []map[string]any) {
	s.t.Helper()
	b, err := os.ReadFile(filepath.Join(s.dir, seasonFile))
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
	s.put(seasonFile, out)
}

func (s *source) setMode(m string) { s.mode.Store(m) }

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
	b, err := os.ReadFile(filepath.Join(s.dir, filepath.FromSlash(strings.TrimPrefix(r.URL.Path, "/"))))
	if err != nil {
		http.NotFound(w, r)
		return
	}
	switch s.mode.Load().(string) {
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
		fi, err := os.Stat(filepath.Join(s.dir, seasonFile))
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
// it, the feeds' bucket, and a source.
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
	log     *syncBuffer
	cancel  context.CancelFunc
	stopped chan struct{}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// start runs a follower named holder until the test ends or it is
// stopped; change adjusts its configuration.
func (w *world) start(holder string, change func(*follow.Config)) *follower {
	w.t.Helper()
	fl := &follower{reg: prometheus.NewRegistry(), store: natstest.MustOpen(w.t, w.srv), log: &syncBuffer{}, stopped: make(chan struct{})}
	st, err := follow.Open(w.ctx, fl.store.Conn())
	if err != nil {
		w.t.Fatal(err)
	}
	cfg := follow.Config{Store: fl.store, State: st, Holder: holder, LeaseTTL: time.Second, Registerer: fl.reg,
		Log:          slog.New(slog.NewJSONHandler(fl.log, nil)),
		FetchTimeout: 2 * time.Second, HeaderTimeout: time.Second, MaxBackoff: 2 * time.Second}
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

// kill stops a follower as kill -9 would, as far as the others can tell:
// its connection goes first, so that it neither renews nor gives up its
// leases.
func (fl *follower) kill() {
	fl.store.Close()
	fl.cancel()
	<-fl.stopped
}

// addFeed registers a feed of the source's season file, polled every
// second.
func (w *world) addFeed(name string, createTeams bool) model.Feed {
	w.t.Helper()
	ed := natstest.Editor(w.t, w.store)
	if _, err := ed.AddFeed(w.ctx, model.Feed{Name: name, Format: "openfootball", URL: w.src.url(seasonFile), EverySeconds: 1, CreateTeams: createTeams}); err != nil {
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
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, _, err := w.state.Status(w.ctx, fd.Name, fd.Created)
		if err != nil {
			w.t.Fatal(err)
		}
		if ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("feed %s: %s never came; status %+v", fd.Name, what, st)
		}
		time.Sleep(20 * time.Millisecond)
	}
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
	w.src.edit(func(all []map[string]any) []map[string]any { ms = all; return all })
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
		w.src.edit(func(all []map[string]any) []map[string]any {
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
	w.src.setMode(modeUnconditional)
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
