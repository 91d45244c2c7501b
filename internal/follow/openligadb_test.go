package follow_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/follow"
	"github.com/footdata/footballd/internal/livefake"
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

// newFakeOpenLigaDB serves liveFile, its scripted match not yet kicked
// off (in an hour), allowing limit calls a window.
func newFakeOpenLigaDB(t *testing.T, limit int, window time.Duration) *livefake.OpenLigaDB {
	t.Helper()
	b, err := os.ReadFile(natstest.SharedData(t, "..", "spec", "openligadb", liveFile))
	if err != nil {
		t.Fatal(err)
	}
	fk, err := livefake.NewOpenLigaDB(b, limit, window)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fk.Close() })
	edit(t, fk, livefake.Unplayed(time.Now().Add(time.Hour)))
	return fk
}

// roomy gives a follower time to be answered the season, 465 kB the fake
// encodes afresh for each call, slowly under the race detector while
// another feed's import runs.
func roomy(c *follow.Config) { c.HeaderTimeout, c.FetchTimeout = 10*time.Second, 20*time.Second }

// edit changes the scripted match upstream and returns when.
func edit(t *testing.T, fk *livefake.OpenLigaDB, change func(map[string]any)) time.Time {
	t.Helper()
	at, err := fk.Edit(scripted, change)
	if err != nil {
		t.Fatal(err)
	}
	return at
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
	at time.Time // when the stream stored it
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
		// The stream's time, not this one's: it is before the write's
		// acknowledgement, so before the poll that wrote it ended.
		md, err := m.Metadata()
		if err != nil {
			w.t.Errorf("revision of %s: %v", source, err)
			return
		}
		mu.Lock()
		got = append(got, arrival{f: f, at: md.Timestamp})
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

// created waits for the watched fixture's creation by the first import,
// which the stream may deliver after the feed's status says it is in,
// and returns how many revisions came: those the test's changes follow.
func created(t *testing.T, arrivals func() []arrival) int {
	t.Helper()
	natstest.CheckFor(t, 10*time.Second, 10*time.Millisecond, func() error {
		if len(arrivals()) == 0 {
			return errors.New("the fixture's creation has not arrived")
		}
		return nil
	})
	return len(arrivals())
}

// TestFollowOpenLigaDBLive: an OpenLigaDB feed followed through a match
// played live upstream. Every state (kick-off, a goal, half time, two
// goals, a goal taken back, full time) reaches the stream, in order, one
// message each, with the first poll after the change upstream (the
// budget's pace: about a second a call at 60 calls a minute, two calls
// when the matchday changed); the source is never asked past its limit;
// the matchday is fetched only when its "last changed" date moved.
func TestFollowOpenLigaDBLive(t *testing.T) {
	// Not in parallel: its latency figures (logged) are the poll's own,
	// not the other tests' imports run beside it.
	w := newWorld(t)
	fk := newFakeOpenLigaDB(t, 60, time.Minute)
	fd := w.addLiveFeed("bl2-live", fk.URL, 60)
	arrivals := w.watchFixture("openligadb:" + strconv.Itoa(scripted))
	fl := w.start("f1", roomy)
	st := w.waitStatus(fd, "the season's first import", func(st follow.Status) bool {
		return st.Live != nil && st.Live.Matchday == scriptedMatchday && st.Result == follow.ResultChanged
	})
	if st.Live.InPlay == 0 || st.Matches != 306 {
		t.Fatalf("after the season's import: %d matches, live %+v; want 306 and matchday %d in play", st.Matches, st.Live, scriptedMatchday)
	}
	// What FootballdLiveFeedStale watches: the matches in play, exported
	// once the poll that saw them is recorded.
	natstest.CheckFor(t, 10*time.Second, 10*time.Millisecond, func() error {
		if n := metricValue(t, fl.reg, "fd_feed_matches_in_play", map[string]string{"feed": fd.Name}); n == 0 {
			return fmt.Errorf("fd_feed_matches_in_play = %v while %d are in play", n, st.Live.InPlay)
		}
		return nil
	})
	base := created(t, arrivals)
	var lat []time.Duration
	script := livefake.Script()
	for i, step := range script {
		at := edit(t, fk, step.Change)
		var got arrival
		natstest.CheckFor(t, 10*time.Second, 10*time.Millisecond, func() error {
			as := arrivals()
			if len(as) <= base+i {
				return fmt.Errorf("step %d (%s): %d revisions so far", i, step.What, len(as)-base)
			}
			got = as[base+i]
			return nil
		})
		if !step.Reached(got.f) {
			t.Fatalf("step %d (%s): revision %s %v half %v goals %d, want %s %s half %q", i, step.What, got.f.Status, got.f.Result.FullTime,
				got.f.Result.HalfTime, len(got.f.Goals), step.Status, step.Score, step.Half)
		}
		lat = append(lat, got.at.Sub(at))
		// A poll that finds the matchday changed is two calls (its last
		// change, then its matches), a second apart at most (60 a
		// minute).
		checkInterval(t, fk.Times(), at, got.at, 5*time.Second, 2, fmt.Sprintf("step %d (%s)", i, step.What))
	}
	if n := len(arrivals()) - base; n != len(script) {
		t.Errorf("%d revisions of the scripted match, want %d: one per change", n, len(script))
	}
	if fk.Refused() != 0 {
		t.Errorf("the source refused %d calls past its limit", fk.Refused())
	}
	calls := fk.Calls()
	if lc, md := calls["lastchange"], calls["matchday"]; md > len(script)+2 || lc < md {
		t.Errorf("%d matchday calls for %d changes (and %d last-change calls): the matchday is fetched only when it changed", md, len(script), lc)
	}
	slices.Sort(lat)
	t.Logf("change upstream → stream: p50 %s, max %s over %d changes; calls: %v", lat[len(lat)/2], lat[len(lat)-1], len(lat), calls)
}

// TestFollowOpenLigaDBFailures: a source answering 500, one that hangs,
// and one refusing past its limit each end in a clear status (the
// source's own answer named) and back off; nothing published is lost,
// and the feed recovers when the source does.
func TestFollowOpenLigaDBFailures(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	fk := newFakeOpenLigaDB(t, 1000, time.Minute)
	fd := w.addLiveFeed("bl2-live", fk.URL, 60)
	// Time enough for the season, and a hanging source found out in 3s.
	fl := w.start("f1", func(c *follow.Config) { roomy(c); c.HeaderTimeout = 3 * time.Second })
	w.waitStatus(fd, "the season's first import", func(st follow.Status) bool { return st.Result == follow.ResultChanged })
	before := w.fixtures()
	for _, c := range []struct{ mode, want string }{
		{livefake.Mode500, "HTTP 500 Internal Server Error: upstream trouble"},
		{livefake.ModeHang, "no response headers within 3s (--header-timeout)"},
	} {
		mark := time.Now()
		fk.SetMode(c.mode)
		st := w.waitStatus(fd, c.mode+" recorded", func(st follow.Status) bool { return st.ErrorAt.After(mark) && st.Result == follow.ResultError })
		if !strings.Contains(st.LastError, c.want) {
			t.Errorf("%s: last error %q, want it to say %q", c.mode, st.LastError, c.want)
		}
		fk.SetMode(livefake.ModeOK)
		mark = time.Now()
		w.waitStatus(fd, "recovery after "+c.mode, func(st follow.Status) bool { return st.LastSuccess.After(mark) && st.Failures == 0 })
	}
	fk.SetLimit(0)
	mark := time.Now()
	st := w.waitStatus(fd, "429 recorded", func(st follow.Status) bool { return st.ErrorAt.After(mark) })
	if !strings.Contains(st.LastError, "HTTP 429 Too Many Requests: too many requests (next call at ") || !st.NextPoll.After(mark.Add(50*time.Second)) {
		t.Errorf("429: last error %q, next poll %s; want the source's answer and a minute's wait", st.LastError, st.NextPoll)
	}
	for _, status := range []string{"200", "5xx", "failed", "429"} {
		if n := metricValue(t, fl.reg, "fd_feed_upstream_calls_total", map[string]string{"feed": fd.Name, "status": status}); n == 0 {
			t.Errorf("fd_feed_upstream_calls_total{status=%q} is 0", status)
		}
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
	t.Parallel()
	w := newWorld(t)
	fk := newFakeOpenLigaDB(t, 1000, time.Minute)
	fd := w.addLiveFeed("bl2-live", fk.URL, 120)
	arrivals := w.watchFixture("openligadb:" + strconv.Itoa(scripted))
	f1 := w.start("f1", roomy)
	w.waitStatus(fd, "the season's first import", func(st follow.Status) bool { return st.Result == follow.ResultChanged && st.Holder == "f1" })
	w.start("f2", roomy)
	base := created(t, arrivals)
	script := livefake.Script()
	for i, step := range script[:2] {
		edit(t, fk, step.Change)
		natstest.CheckFor(t, 10*time.Second, 10*time.Millisecond, func() error {
			if len(arrivals()) <= base+i {
				return fmt.Errorf("step %d (%s) not arrived", i, step.What)
			}
			return nil
		})
	}
	f1.kill()
	edit(t, fk, script[3].Change)
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

// TestFollowOpenLigaDBSharedBudget: two feeds of one source (one
// address) spend from one budget: together they make no more calls in
// the window than it allows, paced so that the source refuses none; and
// when others spent what is left, a poll makes no call (result deferred,
// no success recorded) and comes back when the window ends.
func TestFollowOpenLigaDBSharedBudget(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const perMinute = 30
	fk := newFakeOpenLigaDB(t, perMinute, time.Minute)
	a := w.addLiveFeed("bl2-a", fk.URL, perMinute)
	b := w.addLiveFeed("bl2-b", fk.URL, perMinute)
	w.start("f1", roomy)
	var key string
	spent := map[string]uint64{}
	for _, fd := range []model.Feed{a, b} {
		st := w.waitStatus(fd, "two polls", func(st follow.Status) bool { return st.Live != nil && st.Live.Calls >= 2 })
		key, spent[fd.Name] = st.Live.Budget, st.Live.Calls
	}
	calls := 0
	for _, n := range fk.Calls() {
		calls += n
	}
	used, limit, _, ok, err := w.state.Budget(w.ctx, key)
	if err != nil || !ok || limit != perMinute || used < int(spent[a.Name]+spent[b.Name]) || calls > perMinute || fk.Refused() != 0 {
		t.Errorf("budget %d of %d (%v, %v) for the feeds' calls %v; %d calls answered, %d refused; want one budget of %d counting both, none refused",
			used, limit, ok, err, spent, calls, fk.Refused(), perMinute)
	}
	// Another user of the address spends what is left.
	kv, err := jetstream.New(w.store.Conn())
	if err != nil {
		t.Fatal(err)
	}
	bucket, err := kv.KeyValue(w.ctx, events.FeedsBucket)
	if err != nil {
		t.Fatal(err)
	}
	e, err := bucket.Get(w.ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal(e.Value(), &rec); err != nil {
		t.Fatal(err)
	}
	rec["used"] = perMinute
	v, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bucket.Update(w.ctx, key, v, e.Revision()); err != nil {
		t.Fatal(err)
	}
	st := w.waitStatus(a, "a poll deferred", func(st follow.Status) bool { return st.Result == follow.ResultDeferred })
	if st.NextPoll.Before(time.Now().Add(10*time.Second)) || !st.LastSuccess.Before(st.LastFetch) {
		t.Errorf("deferred: next poll %s, last success %s, last fetch %s; want the window's end and no success", st.NextPoll, st.LastSuccess, st.LastFetch)
	}
}

// TestFollowOpenLigaDBFirstPollFails: a live feed whose first polls fail
// knows nothing of its matches, so it tries again within a minute, not
// after its interval for when nothing is on (10 minutes here).
func TestFollowOpenLigaDBFirstPollFails(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	fk := newFakeOpenLigaDB(t, 1000, time.Minute)
	fk.SetMode(livefake.Mode500)
	fd := w.addLiveFeed("bl2-live", fk.URL, 60)
	w.start("f1", roomy)
	st := w.waitStatus(fd, "the first poll's failure", func(st follow.Status) bool { return st.Result == follow.ResultError })
	if wait := st.NextPoll.Sub(st.LastFetch); wait > time.Minute {
		t.Errorf("next poll %s after the first failure, want within a minute", wait)
	}
}
