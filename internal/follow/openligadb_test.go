package follow_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/follow"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/nats-io/nats.go/jetstream"
)

// liveFile is the recorded 2. Bundesliga 2023/24 season taken 32 minutes
// into matchday 27: three matches in play.
const liveFile = "getmatchdata-bl2-2023.live-2024-03-30T1332.json"

// scripted is the match of liveFile the fake plays live: Braunschweig v
// Elversberg, matchday 27.
const (
	scripted         = 67178
	scriptedMatchday = 27
)

// fakeOpenLigaDB is a local OpenLigaDB: the recorded season, its
// matchdays, their "last changed" dates, and one match played live by
// the test. It counts calls in a fixed window that starts at the first
// call, as the real one counts its day, and answers 429 past its limit.
type fakeOpenLigaDB struct {
	t   *testing.T
	srv *httptest.Server

	mu      sync.Mutex
	matches []map[string]any
	changed map[int]time.Time // matchday → last change
	mode    string            // "": serve; "500", "hang"
	limit   int
	window  time.Duration
	start   time.Time
	used    int
	calls   map[string]int // by kind: season, matchday, lastchange
	refused int            // 429s answered
}

func newFakeOpenLigaDB(t *testing.T, limit int, window time.Duration) *fakeOpenLigaDB {
	t.Helper()
	b, err := os.ReadFile(natstest.SharedData(t, "..", "spec", "openligadb", liveFile))
	if err != nil {
		t.Fatal(err)
	}
	fk := &fakeOpenLigaDB{t: t, changed: map[int]time.Time{}, limit: limit, window: window, calls: map[string]int{}}
	if err := json.Unmarshal(b, &fk.matches); err != nil {
		t.Fatal(err)
	}
	// The scripted match has not kicked off yet, and kicks off in an
	// hour: nothing entered.
	fk.edit(func(m map[string]any) {
		m["matchDateTimeUTC"] = time.Now().UTC().Add(time.Hour).Format(time.RFC3339)
		m["matchResults"], m["goals"], m["matchIsFinished"] = []any{}, []any{}, false
	})
	fk.srv = httptest.NewServer(http.HandlerFunc(fk.serve))
	t.Cleanup(fk.srv.Close)
	return fk
}

// edit changes the scripted match and moves its matchday's last change.
func (fk *fakeOpenLigaDB) edit(change func(m map[string]any)) time.Time {
	fk.mu.Lock()
	defer fk.mu.Unlock()
	now := time.Now()
	for _, m := range fk.matches {
		if int(m["matchID"].(float64)) == scripted {
			change(m)
			m["lastUpdateDateTime"] = now.Format("2006-01-02T15:04:05.000")
		}
	}
	fk.changed[scriptedMatchday] = now
	return now
}

func (fk *fakeOpenLigaDB) setMode(m string) {
	fk.mu.Lock()
	defer fk.mu.Unlock()
	fk.mode = m
}

func (fk *fakeOpenLigaDB) count(kind string) int {
	fk.mu.Lock()
	defer fk.mu.Unlock()
	return fk.calls[kind]
}

func (fk *fakeOpenLigaDB) refusals() int {
	fk.mu.Lock()
	defer fk.mu.Unlock()
	return fk.refused
}

func (fk *fakeOpenLigaDB) serve(w http.ResponseWriter, r *http.Request) {
	fk.mu.Lock()
	now := time.Now()
	if now.Sub(fk.start) >= fk.window {
		fk.start, fk.used = now, 0
	}
	fk.used++
	over, mode := fk.used > fk.limit, fk.mode
	if over {
		fk.refused++
	}
	fk.mu.Unlock()
	switch {
	case over:
		http.Error(w, "too many requests", http.StatusTooManyRequests)
		return
	case mode == "500":
		http.Error(w, "upstream trouble", http.StatusInternalServerError)
		return
	case mode == "hang":
		<-r.Context().Done()
		return
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(parts) < 3 || parts[1] != "bl2" || parts[2] != "2023" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	fk.mu.Lock()
	defer fk.mu.Unlock()
	switch {
	case parts[0] == "getmatchdata" && len(parts) == 3:
		fk.calls["season"]++
		_ = json.NewEncoder(w).Encode(fk.matches)
	case parts[0] == "getmatchdata" && len(parts) == 4:
		fk.calls["matchday"]++
		md, _ := strconv.Atoi(parts[3])
		var out []map[string]any
		for _, m := range fk.matches {
			if int(m["group"].(map[string]any)["groupOrderID"].(float64)) == md {
				out = append(out, m)
			}
		}
		_ = json.NewEncoder(w).Encode(out)
	case parts[0] == "getlastchangedate" && len(parts) == 4:
		fk.calls["lastchange"]++
		md, _ := strconv.Atoi(parts[3])
		at := fk.changed[md]
		if at.IsZero() {
			at = time.Date(2024, 3, 30, 13, 32, 50, 0, time.UTC)
		}
		fmt.Fprintf(w, "%q", at.Format("2006-01-02T15:04:05.000"))
	default:
		http.NotFound(w, r)
	}
}

// addLiveFeed registers an OpenLigaDB feed of the fake as the docs give
// it, with a budget of perMinute calls a minute.
func (w *world) addLiveFeed(name, url string, perMinute int) model.Feed {
	w.t.Helper()
	ed := natstest.Editor(w.t, w.store)
	fd := model.Feed{Name: name, Format: "openligadb", URL: url, SourceLeague: "bl2", Season: 2023, League: "BL2",
		EverySeconds: 600, CreateTeams: true, UpstreamPerMinute: perMinute}
	if _, err := ed.AddFeed(w.ctx, fd); err != nil {
		w.t.Fatal(err)
	}
	f, err := ed.Feed(w.ctx, name)
	if err != nil {
		w.t.Fatal(err)
	}
	return f
}

// arrival is a revision of the scripted fixture as the stream delivered
// it.
type arrival struct {
	f  model.Fixture
	at time.Time
}

// watchFixture delivers every revision of the fixture of source, as it
// is published.
func (w *world) watchFixture(source string) func() []arrival {
	w.t.Helper()
	js, err := jetstream.New(w.store.Conn())
	if err != nil {
		w.t.Fatal(err)
	}
	cons, err := js.OrderedConsumer(w.ctx, events.DefaultStream, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{events.All(events.KindFixture)}, DeliverPolicy: jetstream.DeliverNewPolicy})
	if err != nil {
		w.t.Fatal(err)
	}
	var mu sync.Mutex
	var got []arrival
	cc, err := cons.Consume(func(m jetstream.Msg) {
		f, err := events.Decode[model.Fixture](m.Data())
		if err != nil || f.Source != source {
			return
		}
		mu.Lock()
		got = append(got, arrival{f: f, at: time.Now()})
		mu.Unlock()
	})
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(cc.Stop)
	return func() []arrival {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(got)
	}
}

// liveStep is one change of the scripted match upstream and the state it
// must reach the stream as.
type liveStep struct {
	what   string
	change func(m map[string]any)
	status model.Status
	score  string // running or final
	half   string // "": none
}

func results(ft, ht [2]int) []any {
	return []any{
		map[string]any{"resultID": 1, "resultName": "Endergebnis", "pointsTeam1": ft[0], "pointsTeam2": ft[1], "resultOrderID": 1, "resultTypeID": 2},
		map[string]any{"resultID": 2, "resultName": "Halbzeitergebnis", "pointsTeam1": ht[0], "pointsTeam2": ht[1], "resultOrderID": 2, "resultTypeID": 1},
	}
}

func goal(id, home, away int) map[string]any {
	return map[string]any{"goalID": id, "scoreTeam1": home, "scoreTeam2": away, "matchMinute": nil, "goalGetterID": 0, "goalGetterName": "",
		"isPenalty": false, "isOwnGoal": false, "isOvertime": false, "comment": nil}
}

// liveScript is a match as OpenLigaDB shows it: placeholder results at
// kick-off, goals without minute or scorer, the half-time result typed
// in, a goal taken back, and the final result with the whistle.
func liveScript() []liveStep {
	return []liveStep{
		{"kick-off", func(m map[string]any) {
			m["matchDateTimeUTC"] = time.Now().UTC().Add(-time.Minute).Format(time.RFC3339)
			m["matchResults"] = results([2]int{0, 0}, [2]int{0, 0})
		}, model.InPlay, "0-0", ""},
		{"a goal", func(m map[string]any) { m["goals"] = []any{goal(1, 1, 0)} }, model.InPlay, "1-0", ""},
		{"half time", func(m map[string]any) { m["matchResults"] = results([2]int{0, 0}, [2]int{1, 0}) }, model.InPlay, "1-0", "1-0"},
		{"a goal", func(m map[string]any) { m["goals"] = []any{goal(1, 1, 0), goal(2, 1, 1)} }, model.InPlay, "1-1", "1-0"},
		{"a goal", func(m map[string]any) { m["goals"] = []any{goal(1, 1, 0), goal(2, 1, 1), goal(3, 2, 1)} }, model.InPlay, "2-1", "1-0"},
		{"the goal taken back", func(m map[string]any) { m["goals"] = []any{goal(1, 1, 0), goal(2, 1, 1)} }, model.InPlay, "1-1", "1-0"},
		{"full time", func(m map[string]any) {
			m["matchIsFinished"], m["matchResults"] = true, results([2]int{1, 1}, [2]int{1, 0})
		}, model.Finished, "1-1", "1-0"},
	}
}

func (s liveStep) reached(f model.Fixture) bool {
	half := ""
	if f.Result.HalfTime != nil {
		half = f.Result.HalfTime.String()
	}
	// Each goal is listed, without minute or scorer, and one taken back
	// is gone.
	return f.Status == s.status && f.Result.FullTime != nil && f.Result.FullTime.String() == s.score && half == s.half &&
		len(f.Goals) == f.Result.FullTime.Home+f.Result.FullTime.Away
}

// TestFollowOpenLigaDBLive: an OpenLigaDB feed followed through a match
// played live upstream. Every state (kick-off, a goal, half time, two
// goals, a goal taken back, full time) reaches the stream, in order, one
// message each, within the feed's pace (the budget's share: about a
// second at 60 calls a minute; two calls when the matchday changed) and
// a second of the change upstream; the source is never asked past its
// limit; the matchday is fetched only when its "last changed" date moved.
func TestFollowOpenLigaDBLive(t *testing.T) {
	w := newWorld(t)
	fk := newFakeOpenLigaDB(t, 60, time.Minute)
	fd := w.addLiveFeed("bl2-live", fk.srv.URL, 60)
	arrivals := w.watchFixture("openligadb:" + strconv.Itoa(scripted))
	w.start("f1", nil)
	st := w.waitStatus(fd, "the season's first import", func(st follow.Status) bool {
		return st.Live != nil && st.Live.Matchday == scriptedMatchday && st.Result == follow.ResultChanged
	})
	if st.Live.InPlay == 0 || st.Matches != 306 {
		t.Fatalf("after the season's import: %d matches, live %+v; want 306 and matchday %d in play", st.Matches, st.Live, scriptedMatchday)
	}
	// The fixture's creation by the season's import came first.
	base := len(arrivals())
	bound := 2*time.Second + time.Second + 500*time.Millisecond
	var lat []time.Duration
	for i, step := range liveScript() {
		at := fk.edit(step.change)
		var got arrival
		natstest.CheckFor(t, 10*time.Second, 10*time.Millisecond, func() error {
			as := arrivals()
			if len(as) <= base+i {
				return fmt.Errorf("step %d (%s): %d revisions so far", i, step.what, len(as)-base)
			}
			got = as[base+i]
			return nil
		})
		if !step.reached(got.f) {
			t.Fatalf("step %d (%s): revision %s %v half %v, want %s %s half %q", i, step.what, got.f.Status, got.f.Result.FullTime, got.f.Result.HalfTime,
				step.status, step.score, step.half)
		}
		d := got.at.Sub(at)
		lat = append(lat, d)
		if d > bound {
			t.Errorf("step %d (%s) took %s to arrive, want at most %s", i, step.what, d, bound)
		}
	}
	if n := len(arrivals()) - base; n != len(liveScript()) {
		t.Errorf("%d revisions of the scripted match, want %d: one per change", n, len(liveScript()))
	}
	if fk.refusals() != 0 {
		t.Errorf("the source refused %d calls past its limit", fk.refusals())
	}
	if lc, md := fk.count("lastchange"), fk.count("matchday"); md > len(liveScript())+2 || lc < md {
		t.Errorf("%d matchday calls for %d changes (and %d last-change calls): the matchday is fetched only when it changed", md, len(liveScript()), lc)
	}
	slices.Sort(lat)
	t.Logf("change upstream → stream: p50 %s, max %s over %d changes; calls: %v", lat[len(lat)/2], lat[len(lat)-1], len(lat), fk.calls)
}

// TestFollowOpenLigaDBFailures: a source answering 500, one that hangs,
// and one refusing past its limit each end in a clear status (the
// source's own answer named) and back off; nothing published is lost,
// and the feed recovers when the source does.
func TestFollowOpenLigaDBFailures(t *testing.T) {
	w := newWorld(t)
	fk := newFakeOpenLigaDB(t, 1000, time.Minute)
	fd := w.addLiveFeed("bl2-live", fk.srv.URL, 60)
	w.start("f1", nil)
	w.waitStatus(fd, "the season's first import", func(st follow.Status) bool { return st.Result == follow.ResultChanged })
	before := w.fixtures()
	for _, c := range []struct{ mode, want string }{
		{"500", "HTTP 500 Internal Server Error: upstream trouble"},
		{"hang", "no response headers within 1s (--header-timeout)"},
	} {
		mark := time.Now()
		fk.setMode(c.mode)
		st := w.waitStatus(fd, c.mode+" recorded", func(st follow.Status) bool { return st.ErrorAt.After(mark) && st.Result == follow.ResultError })
		if !strings.Contains(st.LastError, c.want) {
			t.Errorf("%s: last error %q, want it to say %q", c.mode, st.LastError, c.want)
		}
		fk.setMode("")
		mark = time.Now()
		w.waitStatus(fd, "recovery after "+c.mode, func(st follow.Status) bool { return st.LastSuccess.After(mark) && st.Failures == 0 })
	}
	fk.mu.Lock()
	fk.limit = 0
	fk.mu.Unlock()
	mark := time.Now()
	st := w.waitStatus(fd, "429 recorded", func(st follow.Status) bool { return st.ErrorAt.After(mark) })
	if !strings.Contains(st.LastError, "HTTP 429 Too Many Requests: too many requests (next call at ") || !st.NextPoll.After(mark.Add(50*time.Second)) {
		t.Errorf("429: last error %q, next poll %s; want the source's answer and a minute's wait", st.LastError, st.NextPoll)
	}
	after := w.fixtures()
	for src, f := range before {
		if a := after[src]; a.Status != f.Status || (f.Result.FullTime != nil && (a.Result.FullTime == nil || *a.Result.FullTime != *f.Result.FullTime)) {
			t.Errorf("%s changed while the source failed: %+v, was %+v", src, a, f)
		}
	}
}

// TestFollowOpenLigaDBHandOver: the follower killed mid-match hands the
// feed over; the next goal still arrives.
func TestFollowOpenLigaDBHandOver(t *testing.T) {
	w := newWorld(t)
	fk := newFakeOpenLigaDB(t, 1000, time.Minute)
	fd := w.addLiveFeed("bl2-live", fk.srv.URL, 120)
	arrivals := w.watchFixture("openligadb:" + strconv.Itoa(scripted))
	f1 := w.start("f1", nil)
	w.waitStatus(fd, "the season's first import", func(st follow.Status) bool { return st.Result == follow.ResultChanged && st.Holder == "f1" })
	w.start("f2", nil)
	base := len(arrivals())
	script := liveScript()
	for i, step := range script[:2] {
		fk.edit(step.change)
		natstest.CheckFor(t, 10*time.Second, 10*time.Millisecond, func() error {
			if len(arrivals()) <= base+i {
				return fmt.Errorf("step %d (%s) not arrived", i, step.what)
			}
			return nil
		})
	}
	f1.kill()
	fk.edit(script[3].change)
	natstest.CheckFor(t, 15*time.Second, 10*time.Millisecond, func() error {
		as := arrivals()
		if len(as) < base+3 || as[base+2].f.Result.FullTime == nil || as[base+2].f.Result.FullTime.String() != "1-1" {
			return fmt.Errorf("the goal after the hand-over has not arrived: %d revisions", len(as))
		}
		return nil
	})
	if holder, err := w.state.Holder(context.Background(), fd.Name); err != nil || holder != "f2" {
		t.Errorf("lease holder %q (%v), want f2", holder, err)
	}
}
