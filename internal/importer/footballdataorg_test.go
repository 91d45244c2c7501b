package importer_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/footdata/footballd/internal/importer"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// v4Body writes the body of a recorded v4 answer (../shared/spec/
// v4-samples) to a file of the test, changed by edit, and returns its
// path.
func v4Body(t *testing.T, name string, edit func(matches []map[string]any)) string {
	t.Helper()
	b, err := os.ReadFile(natstest.SharedData(t, "..", "spec", "v4-samples", name))
	if err != nil {
		t.Fatal(err)
	}
	var rec struct{ Body map[string]any }
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	var ms []map[string]any
	for _, m := range rec.Body["matches"].([]any) {
		ms = append(ms, m.(map[string]any))
	}
	if edit != nil {
		edit(ms)
	}
	rec.Body["matches"] = ms
	out, err := json.Marshal(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), strings.TrimSuffix(name, ".json")+".body.json")
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFootballDataOrgMatches: the recorded Bundesliga 2022/23 match list
// of football-data.org v4 imports as its 306 fixtures, each of source
// football-data-org:ID, 54 finished with their scores; a match in play
// keeps v4's status, its running score in fullTime and its minute (sent
// as a string) and injury time; at half time (PAUSED) its half-time
// score; the same list again publishes nothing.
func TestFootballDataOrgMatches(t *testing.T) {
	s := natstest.MustOpen(t, natstest.MustStart(t))
	live := func(status string, minute any, ft, ht []int) func(ms []map[string]any) {
		return func(ms []map[string]any) {
			for _, m := range ms {
				if m["id"].(float64) != 416402 {
					continue
				}
				score := m["score"].(map[string]any)
				m["status"], m["minute"], m["injuryTime"] = status, minute, 2
				score["fullTime"] = map[string]any{"home": ft[0], "away": ft[1]}
				score["halfTime"] = map[string]any{"home": nil, "away": nil}
				if ht != nil {
					score["halfTime"] = map[string]any{"home": ht[0], "away": ht[1]}
				}
			}
		}
	}
	file := v4Body(t, "competitions-2002-matches.json", live("IN_PLAY", "38", []int{1, 0}, nil))
	sum := natstest.Import(t, s, "football-data-org", importer.Options{}, file)
	if sum.Fixtures.Created != 306 || sum.Fixtures.Rejected != 0 {
		t.Fatalf("fixtures %+v, want 306 created", sum.Fixtures)
	}
	fixtures := func() map[string]model.Fixture {
		out := map[string]model.Fixture{}
		for _, f := range natstest.All[model.Fixture](t, s, events.KindFixture) {
			out[f.Source] = f
		}
		return out
	}
	byID := fixtures()
	finished := 0
	for _, f := range byID {
		if f.Status == model.Finished {
			finished++
		}
	}
	if finished != 54 {
		t.Errorf("%d finished, want 54", finished)
	}
	if f := byID["football-data-org:416393"]; f.Result.FullTime == nil || f.Result.FullTime.String() != "1-6" || f.Result.HalfTime.String() != "0-5" {
		t.Errorf("Frankfurt v Bayern: %+v, want 1-6 (0-5)", f.Result)
	}
	if f := byID["football-data-org:416402"]; f.Status != model.InPlay || f.Result.FullTime.String() != "1-0" || f.Minute != 38 || f.InjuryTime != 2 || f.Result.HalfTime != nil {
		t.Errorf("the match in play: %s %v minute %d+%d half %v, want IN_PLAY 1-0 at 38+2 with no half time", f.Status, f.Result.FullTime, f.Minute, f.InjuryTime, f.Result.HalfTime)
	}
	natstest.Import(t, s, "football-data-org", importer.Options{}, v4Body(t, "competitions-2002-matches.json", live("PAUSED", nil, []int{1, 0}, []int{1, 0})))
	if f := fixtures()["football-data-org:416402"]; f.Status != model.Paused || f.Result.HalfTime == nil || f.Result.HalfTime.String() != "1-0" || f.Minute != 0 {
		t.Errorf("at half time: %s %v half %v minute %d, want PAUSED 1-0 (1-0) with no minute", f.Status, f.Result.FullTime, f.Result.HalfTime, f.Minute)
	}
	again := v4Body(t, "competitions-2002-matches.json", live("PAUSED", nil, []int{1, 0}, []int{1, 0}))
	if sum := natstest.Import(t, s, "football-data-org", importer.Options{}, again); sum.Changes() != 0 {
		t.Errorf("the same list again changed %d entities", sum.Changes())
	}
}

// TestFootballDataOrgOwnIDs: football-data.org's match ids are kept as
// our fixtures' ids where they are free (its team and competition ids
// already are ours); an id the stream already handed out is recorded as
// the source's (the fixture's source, football-data-org:ID) and the
// fixture gets a new one; ids below one taken first are still free. The
// same list again keeps every id.
func TestFootballDataOrgOwnIDs(t *testing.T) {
	tests := []struct {
		name  string
		taken int // the stream handed out the fixture ids up to it first (0: none)
		// higher is an own id taken first, as by a match with a higher id
		// read before the list (0: none).
		higher int
		kept   int // fixtures whose id is their match id
	}{
		{"free ids are kept", 0, 0, 306},
		{"ids taken give new ones", 416484, 0, 206},
		{"a higher id read first leaves the lower ones free", 0, 416690, 305},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := natstest.MustOpen(t, natstest.MustStart(t))
			if tt.taken > 0 {
				if err := s.Reserve(t.Context(), events.KindFixture, tt.taken); err != nil {
					t.Fatal(err)
				}
			}
			if tt.higher > 0 {
				if _, err := s.TakeOwnIDs(t.Context(), events.KindFixture, []int{tt.higher}); err != nil {
					t.Fatal(err)
				}
			}
			file := v4Body(t, "competitions-2002-matches.json", nil)
			natstest.Import(t, s, "football-data-org", importer.Options{}, file)
			before := natstest.All[model.Fixture](t, s, events.KindFixture)
			if sum := natstest.Import(t, s, "football-data-org", importer.Options{}, file); sum.Changes() != 0 {
				t.Errorf("the same list again: %d changes", sum.Changes())
			}
			kept := 0
			ids := map[int]bool{}
			for _, f := range before {
				own, err := strconv.Atoi(strings.TrimPrefix(f.Source, "football-data-org:"))
				if err != nil {
					t.Fatalf("source %q: %v", f.Source, err)
				}
				switch {
				case f.ID == own:
					kept++
				case own > tt.taken && own != tt.higher:
					t.Errorf("match %d, free, got id %d", own, f.ID)
				case f.ID <= tt.taken:
					t.Errorf("match %d got id %d, one the stream had handed out", own, f.ID)
				}
				if ids[f.ID] {
					t.Errorf("id %d twice", f.ID)
				}
				ids[f.ID] = true
			}
			if len(before) != 306 || kept != tt.kept {
				t.Errorf("%d fixtures, %d with their match id, want 306 and %d", len(before), kept, tt.kept)
			}
		})
	}
}

// TestFootballDataOrgLeagueStage: a v4 answer of today's Champions League,
// whose league stage has no groups (the recorded 2022 answer with its
// group stage made one), is imported whole: the season is one table
// (LEAGUE_STAGE), its other rounds keep their stages. Before, every team
// of the "tournament" lacked a group and the answer was rejected.
func TestFootballDataOrgLeagueStage(t *testing.T) {
	s := natstest.MustOpen(t, natstest.MustStart(t))
	file := v4Body(t, "competitions-2001-matches.json", func(ms []map[string]any) {
		for _, m := range ms {
			if m["stage"] == "GROUP_STAGE" {
				m["stage"], m["group"] = "LEAGUE_STAGE", nil
			}
		}
	})
	sum := natstest.Import(t, s, "football-data-org", importer.Options{}, file)
	if len(sum.Rejected) > 0 || sum.Fixtures.Created != 185 {
		t.Fatalf("fixtures %+v, rejected %v; want 185 created", sum.Fixtures, sum.Rejected)
	}
	var comp model.Competition
	for _, c := range natstest.All[model.Competition](t, s, events.KindCompetition) {
		comp = c
	}
	if comp.Type != model.TypeLeague || len(comp.Teams) != 32 {
		t.Fatalf("competition %s %s with %d teams, want a league of 32", comp.Key(), comp.Type, len(comp.Teams))
	}
	stages := map[model.RoundStage]int{}
	for _, f := range natstest.All[model.Fixture](t, s, events.KindFixture) {
		st, known := model.StageOf(f.Round, f.Stage == model.Playoff, comp.Type)
		if !known {
			t.Errorf("fixture %d: round %q unknown", f.ID, f.Round)
		}
		stages[st]++
	}
	want := map[model.RoundStage]int{model.StageLeague: 96, "QUALIFICATION_ROUND_1": 30, "QUALIFICATION_ROUND_2": 24,
		"QUALIFICATION_ROUND_3": 20, model.StagePlayoffRound: 12, model.StagePreliminary: 3}
	if fmt.Sprint(stages) != fmt.Sprint(want) {
		t.Errorf("stages %v, want %v", stages, want)
	}
}
