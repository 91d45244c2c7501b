package events_test

import (
	"context"
	"errors"
	"fmt"
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

func TestPutCreateUpdateUnchangedConflict(t *testing.T) {
	s := natstest.MustOpen(t, natstest.MustStart(t))
	ctx := ctxT(t)
	meta := events.Meta{Editor: "ann", Source: "test"}

	res, err := s.Put(ctx, events.Write{Value: team(1, "Arsenal"), Meta: meta})
	if err != nil || !res.Changed {
		t.Fatalf("create: %+v %v", res, err)
	}
	if _, err := s.Put(ctx, events.Write{Value: team(1, "Other"), Meta: meta}); !errors.Is(err, events.ErrConflict) {
		t.Fatalf("second create: got %v, want conflict", err)
	}
	got, rev, err := events.Load[model.Team](ctx, s, "football.team.1")
	if err != nil || got.Name != "Arsenal" || rev.Editor != "ann" || rev.Source != "test" {
		t.Fatalf("load: %+v %+v %v", got, rev, err)
	}
	same, err := s.Put(ctx, events.Write{Value: team(1, "Arsenal"), Prev: &rev, Meta: meta})
	if err != nil || same.Changed || same.Seq != rev.Seq {
		t.Fatalf("unchanged put: %+v %v", same, err)
	}
	upd, err := s.Put(ctx, events.Write{Value: team(1, "Arsenal FC"), Prev: &rev, Meta: meta})
	if err != nil || !upd.Changed || upd.Seq <= rev.Seq {
		t.Fatalf("update: %+v %v", upd, err)
	}
	// A write from the stale revision loses.
	_, err = s.Put(ctx, events.Write{Value: team(1, "Gunners"), Prev: &rev, Meta: meta})
	var ce *events.ConflictError
	if !errors.As(err, &ce) || model.ErrorCode(err) != model.Conflict {
		t.Fatalf("stale update: got %v, want *ConflictError", err)
	}
	hist, err := s.History(ctx, "football.team.1")
	if err != nil || len(hist) != 2 {
		t.Fatalf("history: %d revisions, %v", len(hist), err)
	}
	if _, err := s.Get(ctx, "football.team.2"); model.ErrorCode(err) != model.NotFound {
		t.Fatalf("get missing: got %v, want not found", err)
	}
}

func TestConcurrentEditorsOneWins(t *testing.T) {
	srv := natstest.MustStart(t)
	a, b := natstest.MustOpen(t, srv), natstest.MustOpen(t, srv)
	ctx := ctxT(t)
	if _, err := a.Put(ctx, events.Write{Value: team(7, "Chelsea")}); err != nil {
		t.Fatal(err)
	}
	_, revA, _ := events.Load[model.Team](ctx, a, "football.team.7")
	_, revB, _ := events.Load[model.Team](ctx, b, "football.team.7")
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, s := range []*events.Store{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rev := []events.Revision{revA, revB}[i]
			_, errs[i] = s.Put(ctx, events.Write{Value: team(7, fmt.Sprintf("Chelsea %d", i)), Prev: &rev})
		}()
	}
	wg.Wait()
	conflicts := 0
	for _, err := range errs {
		if errors.Is(err, events.ErrConflict) {
			conflicts++
		} else if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
	}
	if conflicts != 1 {
		t.Fatalf("got %d conflicts, want exactly 1 (errors %v)", conflicts, errs)
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
			if _, err := s.Put(ctx, events.Write{Value: team(id, name), Prev: prev}); err != nil {
				t.Fatal(err)
			}
			want[subject] = name
		}
	}
	got := map[string]string{}
	delivered := 0
	readyAt := -1
	live := make(chan string, 1)
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ready := make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		errc <- s.Consume(cctx, events.All(events.KindTeam), func(ev events.Event, p events.Progress) error {
			tm, err := events.Decode[model.Team](ev.Data)
			if err != nil {
				return err
			}
			select {
			case <-ready:
				live <- tm.Name
				return nil
			default:
			}
			delivered++
			got[ev.Subject] = tm.Name
			return nil
		}, func() { readyAt = delivered; close(ready) })
	}()
	select {
	case <-ready:
	case err := <-errc:
		t.Fatalf("consume ended before ready: %v", err)
	case <-ctx.Done():
		t.Fatal("never ready")
	}
	if readyAt != len(want) || len(got) != len(want) {
		t.Fatalf("replay delivered %d events for %d entities (ready after %d)", delivered, len(want), readyAt)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: got %q want %q", k, got[k], v)
		}
	}
	rev, _ := s.Get(ctx, "football.team.1")
	if _, err := s.Put(ctx, events.Write{Value: team(1, "live"), Prev: &rev}); err != nil {
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
	if _, err := s.Put(ctx, events.Write{Value: team(1, "Arsenal")}); err != nil {
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
