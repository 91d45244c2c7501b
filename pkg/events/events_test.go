package events_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func team(id int, name string) *model.Team { return &model.Team{ID: id, Name: name} }

// msg encodes v as a write from revision expected.
func msg(t *testing.T, v any, expected uint64) events.Msg {
	t.Helper()
	m := natstest.Msg(t, v)
	m.Expected, m.Meta = expected, events.Meta{Editor: "ann", Source: "test"}
	return m
}

func TestPublishCreateUpdateConflict(t *testing.T) {
	s := natstest.MustOpen(t, natstest.MustStart(t))
	ctx := ctxT(t)

	seq, err := s.Publish(ctx, msg(t, team(1, "Arsenal"), 0))
	if err != nil || seq == 0 {
		t.Fatalf("create: %d %v", seq, err)
	}
	if _, err := s.Publish(ctx, msg(t, team(1, "Other"), 0)); model.ErrorCode(err) != model.Conflict {
		t.Fatalf("second create: got %v, want conflict", err)
	}
	got, rev, err := events.Load[model.Team](ctx, s, "football.team.1")
	if err != nil || got.Name != "Arsenal" || rev.Editor != "ann" || rev.Source != "test" || rev.Seq != seq {
		t.Fatalf("load: %+v %+v %v", got, rev, err)
	}
	upd, err := s.Publish(ctx, msg(t, team(1, "Arsenal FC"), rev.Seq))
	if err != nil || upd <= rev.Seq {
		t.Fatalf("update: %d %v", upd, err)
	}
	// A write from the stale revision loses, with the one conflict form.
	_, err = s.Publish(ctx, msg(t, team(1, "Gunners"), rev.Seq))
	var me *model.Error
	if !errors.As(err, &me) || me.Code != model.Conflict || !strings.Contains(err.Error(), "changed by someone else") {
		t.Fatalf("stale update: got %v, want a model.Error conflict", err)
	}
	hist, err := s.History(ctx, "football.team.1")
	if err != nil || len(hist) != 2 {
		t.Fatalf("history: %d revisions, %v", len(hist), err)
	}
	if _, err := s.Get(ctx, "football.team.2"); model.ErrorCode(err) != model.NotFound {
		t.Fatalf("get missing: got %v, want not found", err)
	}
}

// Two writers making the very same write from the same revision (same
// subject, base and body, so the same change id) must not both be told
// they wrote it: the second gets a conflict from the compare-and-set; id
// counters depend on it: two writers reserving as many ids from one
// counter state publish identical messages, and must not both hand out
// the same ids.
func TestIdenticalWriteFromTheSameRevisionLoses(t *testing.T) {
	srv := natstest.MustStart(t)
	a, b := natstest.MustOpen(t, srv), natstest.MustOpen(t, srv)
	ctx := ctxT(t)
	for _, tc := range []struct {
		name   string
		id     int
		update bool // the write updates a revision rather than creating
	}{
		{"create", 8, false},
		{"update", 9, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var base uint64
			if tc.update {
				var err error
				if base, err = a.Publish(ctx, msg(t, team(tc.id, "Base"), 0)); err != nil {
					t.Fatal(err)
				}
			}
			m := msg(t, team(tc.id, "Same"), base)
			seq, err := a.Publish(ctx, m)
			if err != nil || seq == 0 {
				t.Fatalf("first writer: %d %v", seq, err)
			}
			if got, err := b.Publish(ctx, m); model.ErrorCode(err) != model.Conflict {
				t.Fatalf("second writer, same message: got seq %d, %v; want a conflict", got, err)
			}
		})
	}
}

func TestConcurrentWritersOneWins(t *testing.T) {
	srv := natstest.MustStart(t)
	a, b := natstest.MustOpen(t, srv), natstest.MustOpen(t, srv)
	ctx := ctxT(t)
	first, err := a.Publish(ctx, msg(t, team(7, "Chelsea"), 0))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, s := range []*events.Store{a, b} {
		wg.Go(func() { _, errs[i] = s.Publish(ctx, msg(t, team(7, fmt.Sprintf("Chelsea %d", i)), first)) })
	}
	wg.Wait()
	conflicts := 0
	for _, err := range errs {
		if model.ErrorCode(err) == model.Conflict {
			conflicts++
		} else if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
	}
	if conflicts != 1 {
		t.Fatalf("got %d conflicts, want exactly 1 (errors %v)", conflicts, errs)
	}
}

// TestOutageResendsTheWindowAtOnce: a server restart fails every message
// in flight at once; the bulk waits for the server once per outage, not
// once per message, and stores every message exactly once.
func TestOutageResendsTheWindowAtOnce(t *testing.T) {
	srv := natstest.MustStart(t)
	s := natstest.MustOpen(t, srv)
	ctx := ctxT(t)
	const n = 3000
	b := s.Bulk()
	stored := 0
	restarted := make(chan error, 1)
	for i := range n {
		if i == n/3 {
			go func() {
				srv.Stop()
				time.Sleep(time.Second) // the outage under test: not a wait
				ns, err := srv.Restart()
				if err == nil {
					t.Cleanup(ns.Stop)
				}
				restarted <- err
			}()
		}
		m := msg(t, team(i+1, fmt.Sprintf("team %d", i)), 0)
		if err := b.Put(ctx, m, func(seq uint64, err error) {
			if err != nil {
				t.Errorf("%s: %v", m.Subject, err)
			}
			stored++
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-restarted; err != nil {
		t.Fatal(err)
	}
	st := b.Stats()
	t.Logf("%d sent, %d resent, %d waits for the server", st.Sent, st.Resent, st.Waits)
	if stored != n {
		t.Errorf("%d of %d messages done", stored, n)
	}
	if st.Resent == 0 {
		t.Error("nothing was resent: the restart came too late for the test")
	}
	// One wait per round of the outage (the server down for a second, then
	// recovering its stream), never one per message of the window.
	if st.Waits > 30 {
		t.Errorf("%d waits for %d resends: the window was resent one message at a time", st.Waits, st.Resent)
	}
	teams := natstest.All[model.Team](t, s, events.KindTeam)
	if len(teams) != n {
		t.Errorf("%d teams stored, want %d", len(teams), n)
	}
}

func TestNextIDsUniqueUnderContention(t *testing.T) {
	srv := natstest.MustStart(t)
	ctx := ctxT(t)
	var mu sync.Mutex
	seen := map[int]bool{}
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		s := natstest.MustOpen(t, srv)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				first, err := s.NextIDs(ctx, events.KindTeam, 3)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				for id := first; id < first+3; id++ {
					if seen[id] {
						t.Errorf("id %d handed out twice", id)
					}
					seen[id] = true
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(seen) != 120 {
		t.Fatalf("got %d ids, want 120", len(seen))
	}
	s := natstest.MustOpen(t, srv)
	if err := s.Reserve(ctx, events.KindTeam, 500); err != nil {
		t.Fatal(err)
	}
	if next, _ := s.NextIDs(ctx, events.KindTeam, 1); next != 501 {
		t.Fatalf("after reserving 500 got %d, want 501", next)
	}
}

// TestCounterMovedByAnotherStore checks that a store which remembers the
// counter as it last wrote it still hands out the ids the counter holds
// after another store moved it: reading it (n = 0), reserving, and
// reserving below it.
func TestCounterMovedByAnotherStore(t *testing.T) {
	srv := natstest.MustStart(t)
	ctx := ctxT(t)
	a, b := natstest.MustOpen(t, srv), natstest.MustOpen(t, srv)
	steps := []struct {
		name    string
		s       *events.Store
		n       int // ids to take, or -1 to reserve the id reserve
		reserve int
		want    int // the first id handed out, or the next one for n = 0
	}{
		{"a takes 5", a, 5, 0, 1},
		{"b takes 5", b, 5, 0, 6},
		{"a reads the counter b moved", a, 0, 0, 11},
		{"a takes 2 after b", a, 2, 0, 11},
		{"b takes 1 after a", b, 1, 0, 13},
		{"a reserves 20", a, -1, 20, 0},
		{"b takes 1 after the reservation", b, 1, 0, 21},
		{"a reserves 10, below the counter", a, -1, 10, 0},
		{"a takes 1", a, 1, 0, 22},
	}
	for _, st := range steps {
		if st.n < 0 {
			if err := st.s.Reserve(ctx, events.KindTeam, st.reserve); err != nil {
				t.Fatalf("%s: %v", st.name, err)
			}
			continue
		}
		got, err := st.s.NextIDs(ctx, events.KindTeam, st.n)
		if err != nil || got != st.want {
			t.Fatalf("%s: got %d, %v; want %d", st.name, got, err, st.want)
		}
	}
}

// TestConsumeReplaysCurrentStateThenFollows makes many edits and checks that
// the replay returns exactly the last state of every entity, signals ready
// once, and then delivers a live change.
func TestConsumeReplaysCurrentStateThenFollows(t *testing.T) {
	srv := natstest.MustStart(t)
	s := natstest.MustOpen(t, srv)
	ctx := ctxT(t)
	want := map[string]string{}
	for round := 0; round < 5; round++ {
		for id := 1; id <= 40; id++ {
			subject := fmt.Sprintf("football.team.%d", id)
			var prev *events.Revision
			if rev, err := s.Get(ctx, subject); err == nil {
				prev = &rev
			}
			name := fmt.Sprintf("team %d rev %d", id, round)
			if id%3 == 0 && round > 2 {
				continue // some entities stop changing early
			}
			var expected uint64
			if prev != nil {
				expected = prev.Seq
			}
			if _, err := s.Publish(ctx, msg(t, team(id, name), expected)); err != nil {
				t.Fatal(err)
			}
			want[subject] = name
		}
	}
	// The replay's bodies are decoded only after it: a handler may keep
	// them (Event.Data).
	kept := map[string][]byte{}
	delivered := 0
	readyAt := -1
	live := make(chan string, 1)
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ready := make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		errc <- s.Consume(cctx, events.All(events.KindTeam), func(ev events.Event, p events.Progress) error {
			select {
			case <-ready:
				tm, err := events.Decode[model.Team](ev.Data)
				if err != nil {
					return err
				}
				live <- tm.Name
				return nil
			default:
			}
			delivered++
			kept[ev.Subject] = ev.Data
			return nil
		}, func() { readyAt = delivered; close(ready) }, nil)
	}()
	select {
	case <-ready:
	case err := <-errc:
		t.Fatalf("consume ended before ready: %v", err)
	case <-ctx.Done():
		t.Fatal("never ready")
	}
	if readyAt != len(want) || len(kept) != len(want) {
		t.Fatalf("replay delivered %d events for %d entities (ready after %d)", delivered, len(want), readyAt)
	}
	for k, v := range want {
		tm, err := events.Decode[model.Team](kept[k])
		if err != nil || tm.Name != v {
			t.Errorf("%s: got %q (%v) want %q", k, tm.Name, err, v)
		}
	}
	rev, _ := s.Get(ctx, "football.team.1")
	if _, err := s.Publish(ctx, msg(t, team(1, "live"), rev.Seq)); err != nil {
		t.Fatal(err)
	}
	select {
	case name := <-live:
		if name != "live" {
			t.Fatalf("live event %q", name)
		}
	case <-ctx.Done():
		t.Fatal("no live event")
	}
}

func TestConsumeEmptyIsReadyAtOnce(t *testing.T) {
	s := natstest.MustOpen(t, natstest.MustStart(t))
	ctx := ctxT(t)
	n := 0
	if err := s.Scan(ctx, events.All(events.KindFixture), func(events.Event) error { n++; return nil }); err != nil || n != 0 {
		t.Fatalf("scan of empty stream: %d events, %v", n, err)
	}
}

// TestScanCutShortIsAnError: a scan whose caller's context ends before it
// has seen everything says so. It returned nil with what it had read, and
// a follower stopping took an empty list of feeds for the whole one and
// gave up leases it then could not give up (seen under load in
// TestNATSConfiguration).
func TestScanCutShortIsAnError(t *testing.T) {
	s := natstest.MustOpen(t, natstest.MustStart(t))
	for id := 1; id <= 3; id++ {
		if _, err := s.Publish(ctxT(t), msg(t, team(id, fmt.Sprint("team ", id)), 0)); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(ctxT(t))
	defer cancel()
	n := 0
	err := s.Scan(ctx, events.All(events.KindTeam), func(events.Event) error { n++; cancel(); return nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("scan cut short after %d of 3 teams: %v, want context.Canceled", n, err)
	}
}

func TestDecodeRefusesNewerSchema(t *testing.T) {
	if _, err := events.Decode[model.Team]([]byte(`{"v":99,"data":{"id":1}}`)); err == nil {
		t.Fatal("decoded a message of a newer schema")
	}
	if _, err := events.Decode[model.Team]([]byte(`{"v":1,"data":{"id":1,"name":"x"}}`)); err != nil {
		t.Fatalf("current schema: %v", err)
	}
}

func TestTeamNameSubject(t *testing.T) {
	tests := []struct{ a, b string }{
		{"Arsenal FC", "arsenal"},
		{"Real Madrid", " REAL MADRID "},
		{"Brighton & Hove Albion FC", "Brighton & Hove Albion"},
		{"Sunderland AFC", "Sunderland"},
	}
	for _, tt := range tests {
		if events.TeamNameSubject(tt.a) != events.TeamNameSubject(tt.b) {
			t.Errorf("%q and %q map to different subjects", tt.a, tt.b)
		}
	}
	if got := events.TeamNameSubject("1. FC Köln"); got != "football.teamname.1_k%c3%b6ln" {
		t.Errorf("escaped subject %q", got)
	}
}

// TestScansLeaveNoConsumers: an importer scans once per competition; the
// server caps consumers per stream, so a scan must clean up after itself.
func TestScansLeaveNoConsumers(t *testing.T) {
	srv := natstest.MustStart(t)
	s := natstest.MustOpen(t, srv)
	ctx := ctxT(t)
	if _, err := s.Publish(ctx, msg(t, team(1, "Arsenal"), 0)); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if err := s.Scan(ctx, events.All(events.KindTeam), func(events.Event) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if _, err := s.History(ctx, "football.team.1"); err != nil {
			t.Fatal(err)
		}
	}
	nc, err := nats.Connect(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	st, err := js.Stream(ctx, "FOOTBALL")
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil || info.State.Consumers != 0 {
		t.Fatalf("%d consumers left after the scans (%v)", info.State.Consumers, err)
	}
}

// The shortcut reading of a message's reply subject agrees with
// jetstream's Metadata on what the server sends.
func TestAckInfoAgreesWithMetadata(t *testing.T) {
	srv := natstest.MustStart(t)
	s := natstest.MustOpen(t, srv)
	ctx := ctxT(t)
	for i := 1; i <= 3; i++ {
		if _, err := s.Publish(ctx, msg(t, team(i, fmt.Sprint("Team ", i)), 0)); err != nil {
			t.Fatal(err)
		}
	}
	nc, err := nats.Connect(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	cons, err := js.OrderedConsumer(ctx, "FOOTBALL", jetstream.OrderedConsumerConfig{FilterSubjects: []string{"football.>"},
		DeliverPolicy: jetstream.DeliverLastPerSubjectPolicy})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		m, err := cons.Next(jetstream.FetchContext(ctx))
		if err != nil {
			t.Fatal(err)
		}
		md, err := m.Metadata()
		if err != nil {
			t.Fatal(err)
		}
		seq, cseq, pending, at, ok := events.AckInfo(m.Reply())
		if !ok || seq != md.Sequence.Stream || cseq != md.Sequence.Consumer || pending != md.NumPending || !at.Equal(md.Timestamp) {
			t.Fatalf("ackInfo(%q) = %d, %d, %d, %v, ok %v; Metadata has %d, %d, %d, %v", m.Reply(), seq, cseq, pending, at, ok,
				md.Sequence.Stream, md.Sequence.Consumer, md.NumPending, md.Timestamp)
		}
	}
}

// Get reads from the stream's leader with a message get of its own, not
// jetstream's direct get (which a lagging follower may answer): it must
// read every revision as the direct get does, headers, time and a body
// that is not valid UTF-8 included.
func TestGetAgreesWithDirectGet(t *testing.T) {
	s := natstest.MustOpen(t, natstest.MustStart(t))
	ctx := ctxT(t)
	first, err := s.Publish(ctx, msg(t, team(1, "Arsenal"), 0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Publish(ctx, msg(t, team(1, "Arsenal FC"), first)); err != nil {
		t.Fatal(err)
	}
	bare := events.Msg{Subject: "football.team.2", Body: []byte("\xff\x00{}")}
	if _, err := s.Publish(ctx, bare); err != nil {
		t.Fatal(err)
	}
	js, err := jetstream.New(s.Conn())
	if err != nil {
		t.Fatal(err)
	}
	stream, err := js.Stream(ctx, "FOOTBALL")
	if err != nil {
		t.Fatal(err)
	}
	if !stream.CachedInfo().Config.AllowDirect {
		t.Fatal("the stream does not allow direct gets: the comparison would compare Get with itself")
	}
	for _, subject := range []string{"football.team.1", "football.team.2", "football.team.3"} {
		t.Run(subject, func(t *testing.T) {
			got, err := s.Get(ctx, subject)
			want, werr := stream.GetLastMsgForSubject(ctx, subject)
			if errors.Is(werr, jetstream.ErrMsgNotFound) {
				if model.ErrorCode(err) != model.NotFound {
					t.Fatalf("Get: %+v, %v; want not found", got, err)
				}
				return
			}
			if err != nil || werr != nil {
				t.Fatalf("Get: %v; direct get: %v", err, werr)
			}
			if got.Subject != want.Subject || got.Seq != want.Sequence || !got.Time.Equal(want.Time) ||
				string(got.Data) != string(want.Data) || got.Editor != want.Header.Get(events.HeaderEditor) ||
				got.Source != want.Header.Get(events.HeaderSource) {
				t.Errorf("Get: %+v\ndirect get: %+v", got, want)
			}
		})
	}
}

// TestLateAckTimesOutAndIsResent: a send whose ack does not come within
// the ack timeout (5 s) is sent again with the same change id, and only
// the resend's ack settles the message: the first send's ack, arriving
// while the resend waits for its own, is dropped. A plain subscriber
// stands in for the stream on a subject the stream does not hold.
func TestLateAckTimesOutAndIsResent(t *testing.T) {
	srv := natstest.MustStart(t)
	s := natstest.MustOpen(t, srv)
	ctx := ctxT(t)
	nc, err := nats.Connect(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	var mu sync.Mutex
	var ids []string
	var answered sync.WaitGroup
	// The first send is answered after 6.5 s, the second (sent at about
	// 5 s) 2.5 s after it came, so after the first's answer; the margins
	// hold on a loaded machine.
	answers := []struct {
		after time.Duration
		ack   string
	}{{6500 * time.Millisecond, `{"stream":"FOOTBALL","seq":99}`}, {2500 * time.Millisecond, `{"stream":"FOOTBALL","seq":100}`}}
	sub, err := nc.Subscribe("late.team.1", func(m *nats.Msg) {
		mu.Lock()
		ids = append(ids, m.Header.Get(events.HeaderChange))
		n := len(ids)
		mu.Unlock()
		if n > len(answers) {
			return
		}
		a := answers[n-1]
		answered.Go(func() {
			time.Sleep(a.after) // the late answer under test: not a wait
			if err := m.Respond([]byte(a.ack)); err != nil {
				t.Error(err)
			}
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sub.Unsubscribe() })
	if err := nc.FlushTimeout(time.Second); err != nil {
		t.Fatal(err)
	}

	b := s.Bulk()
	var seqs []uint64
	m := msg(t, team(1, "Arsenal"), 0)
	m.Subject = "late.team.1"
	if err := b.Put(ctx, m, func(seq uint64, err error) {
		if err != nil {
			t.Errorf("done with %v", err)
		}
		seqs = append(seqs, seq)
	}); err != nil {
		t.Fatal(err)
	}
	if err := b.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	answered.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(seqs) != 1 || seqs[0] != 100 {
		t.Errorf("done with sequences %v, want once with 100 (the resend's ack)", seqs)
	}
	if len(ids) != 2 || ids[0] == "" || ids[0] != ids[1] {
		t.Errorf("change ids of the sends %q, want two of one id", ids)
	}
	if st := b.Stats(); st.Sent != 2 || st.Resent != 1 {
		t.Errorf("stats %+v, want 2 sent, 1 resent", st)
	}
	if n := events.PendingAcks(s); n != 0 {
		t.Errorf("%d sends still await an ack", n)
	}
}
