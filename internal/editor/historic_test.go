package editor_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// TestNewIDsSkipHistoricRanges: counters hand out no id of the historic
// service's ranges (teams 1 to 1836, competitions 341 to 468), on a fresh
// stream or one made before the ranges grew (its counter below them), in
// a real run and a dry run alike; ids already above stay where they are.
func TestNewIDsSkipHistoricRanges(t *testing.T) {
	for _, tc := range []struct {
		name    string
		kind    events.Kind
		reserve int // the stream's counter hands out ids above this one (0: fresh)
		n       int
		dryRun  bool
		want    []int
	}{
		{"teams on a fresh stream", events.KindTeam, 0, 3, false, []int{1837, 1838, 1839}},
		{"teams on a stream made before", events.KindTeam, 49, 2, false, []int{1837, 1838}},
		{"teams in a dry run", events.KindTeam, 49, 2, true, []int{1837, 1838}},
		{"teams above the range", events.KindTeam, 2000, 1, false, []int{2001}},
		{"competitions across the range", events.KindCompetition, 338, 4, false, []int{339, 340, 469, 470}},
		{"competitions across the range, dry", events.KindCompetition, 338, 4, true, []int{339, 340, 469, 470}},
		{"fixtures have no range", events.KindFixture, 0, 2, false, []int{1, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := ctxT(t)
			s := natstest.MustOpen(t, natstest.MustStart(t))
			if tc.reserve > 0 {
				if err := s.Reserve(ctx, tc.kind, tc.reserve); err != nil {
					t.Fatal(err)
				}
			}
			before, err := s.NextIDs(ctx, tc.kind, 0)
			if err != nil {
				t.Fatal(err)
			}
			ed := natstest.Editor(t, s)
			ed.DryRun = tc.dryRun
			got, err := ed.NewIDs(ctx, tc.kind, tc.n)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("ids %v, want %v", got, tc.want)
			}
			after, err := s.NextIDs(ctx, tc.kind, 0)
			switch {
			case err != nil:
				t.Fatal(err)
			case tc.dryRun && after != before:
				t.Errorf("a dry run moved the counter from %d to %d", before, after)
			case !tc.dryRun && after != tc.want[len(tc.want)-1]+1:
				t.Errorf("the counter hands out %d next, want %d", after, tc.want[len(tc.want)-1]+1)
			}
		})
	}
}

// TestSpellingsOfAClubShareItsHistoricID: the spellings the historic table
// gives one club (RCD Espanyol, 80) name one team, whichever comes first
// and however many sources add: team 80, or the team the club had before
// (a stream made before the table knew the club, or whose id 80 an editor
// gave another team); and an editor creating a team under another spelling
// of a club that has one is told which team it is.
func TestSpellingsOfAClubShareItsHistoricID(t *testing.T) {
	for _, tc := range []struct {
		name     string
		before   []any      // what the stream holds first
		calls    [][]string // TeamsByName calls, one after the other
		wantID   int        // the id of every spelling; 0: a new one, above the historic range
		teams    int        // teams stored after
		creating []string   // the names the calls say they created
	}{
		{"two sources, one after the other", nil, [][]string{{"Espanyol Barcelona"}, {"RCD Espanyol", "Espanol"}},
			80, 1, []string{"Espanyol Barcelona"}},
		{"two spellings in one call", nil, [][]string{{"Espanyol Barcelona", "Espanol"}}, 80, 1, []string{"Espanyol Barcelona"}},
		{"the id given to another team", []any{&model.Team{ID: 80, Name: "Elsewhere Rovers"}},
			[][]string{{"Espanyol Barcelona"}, {"Espanol"}}, 0, 2, []string{"Espanyol Barcelona"}},
		{"a stream made before", []any{&model.Team{ID: 17, Name: "Espanyol Barcelona"}, &model.TeamName{Name: "Espanyol Barcelona", TeamID: 17}},
			[][]string{{"Espanol", "RCD Espanyol"}}, 17, 1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := ctxT(t)
			s := natstest.MustOpen(t, natstest.MustStart(t))
			ed := natstest.Editor(t, s)
			if len(tc.before) > 0 {
				natstest.PutNew(t, s, tc.before...)
			}
			_, last := model.ReservedTeamIDs()
			var creating []string
			ids := map[int]bool{}
			for _, names := range tc.calls {
				got, created, err := ed.TeamsByName(ctx, names)
				if err != nil {
					t.Fatal(err)
				}
				creating = append(creating, created...)
				for _, name := range names {
					ids[got[name]] = true
					if tc.wantID == 0 && got[name] <= last || tc.wantID != 0 && got[name] != tc.wantID {
						t.Errorf("%s has id %d, want %d (0: above %d)", name, got[name], tc.wantID, last)
					}
				}
			}
			if len(ids) != 1 {
				t.Errorf("the spellings have ids %v, want one", ids)
			}
			if !slices.Equal(creating, tc.creating) {
				t.Errorf("the calls created %v, want %v", creating, tc.creating)
			}
			if n := len(natstest.All[model.Team](t, s, events.KindTeam)); n != tc.teams {
				t.Errorf("%d teams stored, want %d", n, tc.teams)
			}
		})
	}

	ctx := ctxT(t)
	ed := natstest.Editor(t, natstest.MustOpen(t, natstest.MustStart(t)))
	put := func(name string) (*model.Team, error) {
		_, tm, err := ed.PutTeam(ctx, 0, func(tm *model.Team) error { tm.Name = name; return nil })
		return tm, err
	}
	if tm, err := put("Espanyol Barcelona"); err != nil || tm.ID != 80 {
		t.Fatalf("team put Espanyol Barcelona: %+v, %v; want team 80", tm, err)
	}
	_, err := put("RCD Espanyol")
	if model.ErrorCode(err) != model.Conflict || !strings.Contains(err.Error(), "the club of team 80") {
		t.Errorf("team put RCD Espanyol after Espanyol Barcelona: %v, want a conflict naming team 80", err)
	}
}
