package editor_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// TestConcurrentResultEditsOneWins has two editors record different results
// for the same fixture from the same revision: one lands, the other gets a
// conflict that says what to do, and the stored state is the winner's.
func TestConcurrentResultEditsOneWins(t *testing.T) {
	srv := natstest.MustStart(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	setup := &editor.Editor{Store: natstest.MustOpen(t, srv)}
	for _, name := range []string{"Arsenal", "Chelsea"} {
		if _, err := setup.PutTeam(ctx, &model.Team{Name: name}, nil); err != nil {
			t.Fatal(err)
		}
	}
	c := model.Competition{League: "PL", Year: 2025, Caption: "PL", Type: model.TypeLeague, NumberOfMatchdays: 38,
		Teams: []model.CompetitionTeam{{TeamID: 1}, {TeamID: 2}}, Rules: model.DefaultRules("PL", 2025)}
	if _, err := setup.PutCompetition(ctx, &c, nil); err != nil {
		t.Fatal(err)
	}
	f := model.Fixture{CompetitionID: c.ID, Matchday: 1, Stage: model.Regular, Kickoff: time.Date(2025, 8, 16, 14, 0, 0, 0, time.UTC),
		HomeTeamID: 1, AwayTeamID: 2, Status: model.Timed}
	if _, err := setup.PutFixture(ctx, &f, nil); err != nil {
		t.Fatal(err)
	}
	editors := []*editor.Editor{
		{Store: natstest.MustOpen(t, srv), Meta: events.Meta{Editor: "ann"}},
		{Store: natstest.MustOpen(t, srv), Meta: events.Meta{Editor: "bob"}},
	}
	type loaded struct {
		f   model.Fixture
		rev *events.Revision
	}
	var views []loaded
	for _, e := range editors {
		fx, rev, err := e.Fixture(ctx, f.ID)
		if err != nil {
			t.Fatal(err)
		}
		views = append(views, loaded{fx, rev})
	}
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, e := range editors {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := views[i]
			v.f.Status = model.Finished
			v.f.Result.FullTime = &model.Score{Home: i, Away: 1}
			_, errs[i] = e.PutFixture(ctx, &v.f, v.rev)
		}()
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil:
			winner = i
		case errors.Is(err, events.ErrConflict) && model.ErrorCode(err) == model.Conflict:
			if !strings.Contains(err.Error(), "changed by someone else") {
				t.Errorf("conflict message %q", err)
			}
		default:
			t.Fatalf("editor %d: unexpected error %v", i, err)
		}
	}
	if winner < 0 || errs[1-winner] == nil {
		t.Fatalf("want exactly one winner, got errors %v", errs)
	}
	got, rev, err := setup.Fixture(ctx, f.ID)
	if err != nil || got.Result.FullTime.Home != winner || rev.Editor != editors[winner].Meta.Editor {
		t.Fatalf("stored %+v by %s, want the result of editor %d", got.Result.FullTime, rev.Editor, winner)
	}
}
