package editor_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/internal/natsembed"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// league sets up two teams, a Premier League season and a fixture.
func league(t *testing.T, ed *editor.Editor) (comp, fixture int) {
	t.Helper()
	ctx := ctxT(t)
	var ids []int
	for _, name := range []string{"Arsenal", "Chelsea"} {
		_, tm, err := ed.PutTeam(ctx, 0, func(t *model.Team) error { t.Name = name; return nil })
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, tm.ID)
	}
	_, c, err := ed.PutCompetition(ctx, 0, func(c *model.Competition) error {
		c.League, c.Year, c.Caption, c.NumberOfMatchdays = "PL", 2025, "PL 2025/26", 38
		c.Teams = []model.CompetitionTeam{{TeamID: ids[0]}, {TeamID: ids[1]}}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	_, f, err := ed.PutFixture(ctx, 0, false, func(f *model.Fixture) error {
		f.CompetitionID, f.Matchday, f.HomeTeamID, f.AwayTeamID = c.ID, 1, ids[0], ids[1]
		f.Kickoff = time.Date(2025, 8, 16, 14, 0, 0, 0, time.UTC)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return c.ID, f.ID
}

// TestConcurrentResultEditsOneWins has two editors record different results
// for the same fixture from the same revision: one lands, the other gets a
// conflict that says what to do, and the stored state is the winner's.
func TestConcurrentResultEditsOneWins(t *testing.T) {
	srv := natstest.MustStart(t)
	ctx := ctxT(t)
	_, fixture := league(t, natstest.Editor(t, natstest.MustOpen(t, srv)))
	editors := []*editor.Editor{
		{Store: natstest.MustOpen(t, srv), Meta: events.Meta{Editor: "ann"}},
		{Store: natstest.MustOpen(t, srv), Meta: events.Meta{Editor: "bob"}},
	}
	// Both have read the fixture before either publishes.
	var read sync.WaitGroup
	read.Add(2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, e := range editors {
		wg.Go(func() {
			_, _, errs[i] = e.PutFixture(ctx, fixture, true, func(f *model.Fixture) error {
				read.Done()
				read.Wait()
				f.Status, f.Result.FullTime = model.Finished, &model.Score{Home: i, Away: 1}
				return nil
			})
		})
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil:
			winner = i
		case model.ErrorCode(err) == model.Conflict:
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
	got, rev, err := editors[0].Fixture(ctx, fixture)
	if err != nil || got.Result.FullTime.Home != winner || rev.Editor != editors[winner].Meta.Editor {
		t.Fatalf("stored %+v by %s, want the result of editor %d", got.Result.FullTime, rev.Editor, winner)
	}
}

// atOnce runs write for each of n writers, each with an editor on its own
// connection, released together, and fails the test on any error.
func atOnce(t *testing.T, srv *natsembed.Server, n int, write func(i int, ed *editor.Editor) error) {
	t.Helper()
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		ed := natstest.Editor(t, natstest.MustOpen(t, srv))
		wg.Go(func() {
			<-start
			errs[i] = write(i, ed)
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("writer %d: %v", i, err)
		}
	}
}

// TestRacingClaimsEndWithOneEntity: writers claiming the same natural keys
// at once (a team's name, a source's id for it, a league's season, an
// imported match) all end with the same entity, stored once.
func TestRacingClaimsEndWithOneEntity(t *testing.T) {
	srv := natstest.MustStart(t)
	ctx := ctxT(t)
	const writers = 4
	type got struct {
		team, comp int
		fixtures   map[string]int
	}
	results := make([]got, writers)
	atOnce(t, srv, writers, func(i int, ed *editor.Editor) error {
		r := &results[i]
		ids, _, err := ed.TeamsByName(ctx, []string{"Real Madrid CF", fmt.Sprintf("Writer %d FC", i)})
		r.team = ids["Real Madrid CF"]
		if err == nil {
			// Feeds of one source record its ids for the teams they all
			// met (OpenLigaDB's bl1 and dfb share their clubs); many
			// names, so that the writers meet on some of them.
			for k := 0; k < 25 && err == nil; k++ {
				_, err = ed.PutTeamName(ctx, fmt.Sprintf("openligadb:team:%d", k), r.team)
			}
		}
		if err == nil {
			r.comp, _, err = ed.ClaimCompetition(ctx, model.Competition{League: "PD", Year: 2025, Caption: "Primera División 2025/26",
				Teams: []model.CompetitionTeam{{TeamID: r.team}}})
		}
		if err == nil {
			r.fixtures, err = ed.SourceIDs(ctx, events.KindFixture, r.comp, []string{"src:a", "src:b", fmt.Sprintf("src:own%d", i)}, nil)
		}
		return err
	})
	s := natstest.MustOpen(t, srv)
	for i, r := range results {
		if r.team != results[0].team || r.comp != results[0].comp || r.fixtures["src:a"] != results[0].fixtures["src:a"] || r.fixtures["src:b"] != results[0].fixtures["src:b"] {
			t.Errorf("writer %d got %+v, writer 0 %+v", i, r, results[0])
		}
	}
	if n := len(natstest.All[model.Team](t, s, events.KindTeam)); n != 1+writers {
		t.Errorf("%d teams, want %d", n, 1+writers)
	}
	if results[0].team != 86 {
		t.Errorf("Real Madrid has id %d, want its historic 86", results[0].team)
	}
	if n := len(natstest.All[model.Competition](t, s, events.KindCompetition)); n != 1 {
		t.Errorf("%d competitions, want 1", n)
	}
	keys := natstest.All[model.SourceKeys](t, s, events.KindSourceKeys)
	if len(keys) != 1 {
		t.Fatalf("%d fixture key maps, want 1", len(keys))
	}
	for _, k := range keys {
		ids := map[int]bool{}
		for _, id := range k.IDs {
			ids[id] = true
		}
		if len(k.IDs) != 2+writers || len(ids) != len(k.IDs) {
			t.Errorf("fixture keys %v: want %d sources with distinct ids", k.IDs, 2+writers)
		}
	}
}

// TestCompetitionKeyIsClaimed: an editor creating a second competition of
// a league's season is refused with the existing one named.
func TestCompetitionKeyIsClaimed(t *testing.T) {
	ed := natstest.Editor(t, natstest.MustOpen(t, natstest.MustStart(t)))
	comp, _ := league(t, ed)
	_, _, err := ed.PutCompetition(ctxT(t), 0, func(c *model.Competition) error {
		c.League, c.Year, c.Caption = "PL", 2025, "Premier League again"
		return nil
	})
	if model.ErrorCode(err) != model.Conflict || !strings.Contains(err.Error(), fmt.Sprintf("--id %d", comp)) {
		t.Fatalf("second PL 2025: %v, want a conflict naming competition %d", err, comp)
	}
}

// TestRacingSourceClaimsOfManyCompetitions: writers claiming the sources
// of several competitions in one call at once all get the same id for a
// source, every source one id of its own, and a source found in the
// stream keeps its stored id. The one writer whose claim was stored first
// found none claimed before; the others found the shared sources.
func TestRacingSourceClaimsOfManyCompetitions(t *testing.T) {
	srv := natstest.MustStart(t)
	ctx := ctxT(t)
	const writers = 3
	comps := []int{11, 12, 13}
	claims := func(writer int) []editor.SourceClaim {
		var out []editor.SourceClaim
		for _, c := range comps {
			out = append(out, editor.SourceClaim{Competition: c,
				Sources: []string{"src:a", "src:b", fmt.Sprintf("src:own%d", writer)},
				Stored:  map[string]int{"src:a": 900000 + c}})
		}
		return append(out, editor.SourceClaim{Competition: 14})
	}
	results := make([][]editor.Claimed, writers)
	atOnce(t, srv, writers, func(i int, ed *editor.Editor) (err error) {
		results[i], err = ed.ClaimSources(ctx, events.KindFixture, claims(i))
		return err
	})
	first := make([]int, len(comps)) // writers finding nothing claimed before
	for i, r := range results {
		if len(r) != len(comps)+1 || len(r[len(comps)].IDs) != 0 {
			t.Fatalf("writer %d got %v: want one map per claim, the last empty", i, r)
		}
		for j, c := range comps {
			ids := r[j].IDs
			if ids["src:a"] != 900000+c || ids["src:b"] != results[0][j].IDs["src:b"] || ids["src:b"] == 0 {
				t.Errorf("writer %d, competition %d: %v, writer 0 %v", i, c, ids, results[0][j].IDs)
			}
			switch before := r[j].Before; {
			case len(before) == 0:
				first[j]++
			case !slices.Contains(before, "src:a") || !slices.Contains(before, "src:b") || slices.Contains(before, fmt.Sprintf("src:own%d", i)):
				t.Errorf("writer %d, competition %d: claimed before %v, want the shared sources", i, c, before)
			}
		}
	}
	for j, n := range first {
		if n != 1 {
			t.Errorf("competition %d: %d writers found nothing claimed before, want 1", comps[j], n)
		}
	}
	keys := natstest.All[model.SourceKeys](t, natstest.MustOpen(t, srv), events.KindSourceKeys)
	if len(keys) != len(comps) {
		t.Fatalf("%d fixture key maps, want %d", len(keys), len(comps))
	}
	ids := map[int]string{}
	for _, k := range keys {
		if len(k.IDs) != 2+writers {
			t.Errorf("competition %d: keys %v, want %d sources", k.CompetitionID, k.IDs, 2+writers)
		}
		for source, id := range k.IDs {
			if other, taken := ids[id]; taken {
				t.Errorf("id %d given to %s and to %s", id, other, source)
			}
			ids[id] = fmt.Sprintf("%d/%s", k.CompetitionID, source)
		}
	}
}

// TestRacingCompetitionClaimsOfManySeasons: writers claiming many seasons
// in one call at once get one competition per season, the same for all of
// them, each created by exactly one writer; a season with a v1 id gets it,
// a season that exists already is found and not created again, and every
// writer's own season is its own.
func TestRacingCompetitionClaimsOfManySeasons(t *testing.T) {
	srv := natstest.MustStart(t)
	ctx := ctxT(t)
	existing, _ := league(t, natstest.Editor(t, natstest.MustOpen(t, srv))) // PL 2025
	const writers = 3
	shared := []int{2015, 2019, 2020, 2021, 2022, 2025}
	drafts := func(writer int) []model.Competition {
		var out []model.Competition
		for _, y := range append(slices.Clone(shared), 2030+writer) {
			out = append(out, model.Competition{League: "PL", Year: y, Caption: fmt.Sprintf("Premier League %d by %d", y, writer)})
		}
		return out
	}
	results := make([][]editor.ClaimedCompetition, writers)
	atOnce(t, srv, writers, func(i int, ed *editor.Editor) (err error) {
		results[i], err = ed.ClaimCompetitions(ctx, drafts(i))
		return err
	})
	for j, y := range shared {
		creators := 0
		for i, r := range results {
			if len(r) != len(shared)+1 {
				t.Fatalf("writer %d got %v: want one result per draft", i, r)
			}
			if r[j].ID != results[0][j].ID || r[j].ID == 0 {
				t.Errorf("PL %d: writer %d got %+v, writer 0 %+v", y, i, r[j], results[0][j])
			}
			if r[j].Created {
				creators++
			}
		}
		want := 1
		if y == 2025 {
			want = 0
			if results[0][j].ID != existing {
				t.Errorf("PL 2025 claimed as %d, want the existing %d", results[0][j].ID, existing)
			}
		}
		if creators != want {
			t.Errorf("PL %d: created by %d writers, want %d", y, creators, want)
		}
	}
	if id := results[0][0].ID; id != 398 {
		t.Errorf("PL 2015 has id %d, want its historic 398", id)
	}
	for i, r := range results {
		if own := r[len(shared)]; !own.Created {
			t.Errorf("writer %d's own season: %+v, want created", i, own)
		}
	}
	s := natstest.MustOpen(t, srv)
	comps := natstest.All[model.Competition](t, s, events.KindCompetition)
	if len(comps) != len(shared)+writers {
		t.Errorf("%d competitions, want %d", len(comps), len(shared)+writers)
	}
	byKey := map[string]int{}
	for _, c := range comps {
		if other, ok := byKey[c.Key()]; ok {
			t.Errorf("%s is competition %d and %d", c.Key(), other, c.ID)
		}
		byKey[c.Key()] = c.ID
	}
	for _, k := range natstest.All[model.CompetitionKey](t, s, events.KindCompetitionKey) {
		if id := byKey[fmt.Sprintf("%s/%d", k.League, k.Year)]; id != k.CompetitionID {
			t.Errorf("claim of %s/%d holds %d, the competition is %d", k.League, k.Year, k.CompetitionID, id)
		}
	}
}

// TestClaimCompetitionsChecksEveryDraftFirst: a draft that breaks a rule
// fails the claim with the competition named, and nothing is written.
func TestClaimCompetitionsChecksEveryDraftFirst(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		bad        model.Competition
	}{
		{"unknown team", "competition PL/2024", model.Competition{League: "PL", Year: 2024, Caption: "PL 2024",
			Teams: []model.CompetitionTeam{{TeamID: 999999}}}},
		{"unknown league", "competition ZZ9/2024", model.Competition{League: "ZZ9", Year: 2024, Caption: "ZZ 2024"}},
		{"no caption", "competition PL/2024", model.Competition{League: "PL", Year: 2024}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := natstest.MustOpen(t, natstest.MustStart(t))
			ed := natstest.Editor(t, s)
			_, err := ed.ClaimCompetitions(ctxT(t), []model.Competition{{League: "PL", Year: 2023, Caption: "PL 2023"}, tc.bad})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error naming %s", err, tc.want)
			}
			if n := len(natstest.All[model.Competition](t, s, events.KindCompetition)); n != 0 {
				t.Errorf("%d competitions written, want none", n)
			}
			if n := len(natstest.All[model.CompetitionKey](t, s, events.KindCompetitionKey)); n != 0 {
				t.Errorf("%d claims written, want none", n)
			}
		})
	}
}

// TestClaimOfAMovedCompetitionsSeason: a competition moved to another
// season leaves its old claim stale; claiming the old season creates a
// competition of its own, and the moved one keeps its new season.
func TestClaimOfAMovedCompetitionsSeason(t *testing.T) {
	s := natstest.MustOpen(t, natstest.MustStart(t))
	ed := natstest.Editor(t, s)
	ctx := ctxT(t)
	moved, _ := league(t, ed) // PL 2025
	if _, _, err := ed.PutCompetition(ctx, moved, func(c *model.Competition) error { c.Year = 2026; return nil }); err != nil {
		t.Fatal(err)
	}
	got, err := ed.ClaimCompetitions(ctx, []model.Competition{
		{League: "PL", Year: 2025, Caption: "PL 2025/26"},
		{League: "PL", Year: 2026, Caption: "PL 2026/27"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !got[0].Created || got[0].ID == moved {
		t.Errorf("PL 2025: %+v, want a new competition, not the moved %d", got[0], moved)
	}
	if got[1].Created || got[1].ID != moved {
		t.Errorf("PL 2026: %+v, want the moved %d", got[1], moved)
	}
	comps := natstest.All[model.Competition](t, s, events.KindCompetition)
	if len(comps) != 2 {
		t.Errorf("%d competitions, want 2", len(comps))
	}
}

// TestTeamsByNameWritesEachClaimsTeam: every name ends claimed for a
// team that is stored, whatever the stream held before: nothing, a claim
// whose writer stopped before its team, or a claim with its team (kept as
// it is). Each team is written in the same batch as the claims, once its
// own claim is in.
func TestTeamsByNameWritesEachClaimsTeam(t *testing.T) {
	for _, tc := range []struct {
		name    string
		before  []any // what the stream holds of "Orphan Town"
		wantID  int   // its id after, 0: a new one
		created int   // teams this call creates
		stored  string
	}{
		{"new name", nil, 0, 3, "Orphan Town"},
		{"claim without its team", []any{&model.TeamName{Name: "Orphan Town", TeamID: 9001}}, 9001, 2, "Orphan Town"},
		{"claim with its team", []any{&model.Team{ID: 9002, Name: "Orphan Town AFC"}, &model.TeamName{Name: "Orphan Town", TeamID: 9002}}, 9002, 2, "Orphan Town AFC"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := natstest.MustOpen(t, natstest.MustStart(t))
			if len(tc.before) > 0 {
				natstest.PutNew(t, s, tc.before...)
			}
			names := []string{"Orphan Town", "Fresh Rovers", "Other United"}
			ids, created, err := natstest.Editor(t, s).TeamsByName(ctxT(t), names)
			if err != nil {
				t.Fatal(err)
			}
			if len(created) != tc.created || slices.Contains(created, "Orphan Town") != (tc.created == 3) {
				t.Errorf("created %v, want %d teams", created, tc.created)
			}
			if tc.wantID != 0 && ids["Orphan Town"] != tc.wantID {
				t.Errorf("Orphan Town has id %d, want %d", ids["Orphan Town"], tc.wantID)
			}
			teams := natstest.All[model.Team](t, s, events.KindTeam)
			claims := natstest.All[model.TeamName](t, s, events.KindTeamName)
			if len(teams) != len(names) || len(claims) != len(names) {
				t.Errorf("%d teams and %d names stored, want %d of each", len(teams), len(claims), len(names))
			}
			byID := map[int]model.Team{}
			for _, tm := range teams {
				byID[tm.ID] = tm
			}
			for _, name := range names {
				if _, ok := byID[ids[name]]; !ok {
					t.Errorf("%s: team %d is not stored", name, ids[name])
				}
			}
			if got := byID[ids["Orphan Town"]].Name; got != tc.stored {
				t.Errorf("Orphan Town's team is named %q, want %q", got, tc.stored)
			}
		})
	}
}
