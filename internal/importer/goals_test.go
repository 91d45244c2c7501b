package importer_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/importer"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// TestTournamentGoals imports the World Cups of 2018 and 2022 and the
// Euro 2024 with their goals, and counts each person's goals from the
// stored fixtures: the published top scorers must come out, and a scorer
// the file names two ways must be one person.
func TestTournamentGoals(t *testing.T) {
	s := natstest.MustOpen(t, natstest.MustStart(t))
	files := []string{
		ofFile(t, "openfootball-worldcup-json/2018/worldcup.json"),
		ofFile(t, "openfootball-worldcup-json/2022/worldcup.json"),
		ofFile(t, "openfootball-euro-json/2024/euro.json"),
	}
	sum := importAll(t, s, files...)
	if len(sum.Rejected) > 0 {
		t.Fatalf("rejected: %v", sum.Rejected)
	}
	if sum.Persons.Created == 0 {
		t.Errorf("no person created: %+v", sum.Persons)
	}
	w := load(t, s)
	persons := natstest.All[model.Person](t, s, events.KindPerson)
	byID := map[int]model.Person{}
	for _, p := range persons {
		byID[p.ID] = p
	}
	teamID := map[string]int{}
	for _, tm := range w.teams {
		teamID[tm.Name] = tm.ID
	}

	tests := []struct {
		comp string
		// top are the published top scorers, by team and name as
		// stored (the fullest spelling the files give: Euro 2024's
		// file names Musiala, Mikautadze and Schranz by surname
		// only), and their goals (own goals count for nobody).
		top []scorer
		// same are spellings of one person of a team.
		team string
		same []string
		// venue is a ground of the competition's fixtures.
		venue string
	}{
		{"WC/2018", []scorer{{"England", "Harry Kane", 6}}, "England", []string{"Kane", "Harry Kane"}, "Luzhniki Stadium, Moscow"},
		{"WC/2022", []scorer{{"France", "Kylian Mbappé", 8}, {"Argentina", "Lionel Messi", 7}}, "France", []string{"Mbappé", "Kylian Mbappé"},
			"Lusail Iconic Stadium, Lusail"},
		{"EC/2024", []scorer{{"England", "Harry Kane", 3}, {"Germany", "Musiala", 3}, {"Netherlands", "Cody Gakpo", 3},
			{"Georgia", "Mikautadze", 3}, {"Slovakia", "Schranz", 3}, {"Spain", "Dani Olmo", 3}}, "England", []string{"Kane", "Harry Kane"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.comp, func(t *testing.T) {
			c, ok := w.comps[tt.comp]
			if !ok {
				t.Fatalf("no competition %s", tt.comp)
			}
			goals := map[int]int{}
			fixtures, withGoals, venues := 0, 0, map[string]bool{}
			for _, f := range w.fixtures {
				if f.CompetitionID != c.ID {
					continue
				}
				fixtures++
				venues[f.Venue] = true
				if len(f.Goals) > 0 {
					withGoals++
				}
				for i, g := range f.Goals {
					if i > 0 && (g.Minute < f.Goals[i-1].Minute || g.Minute == f.Goals[i-1].Minute && g.Injury < f.Goals[i-1].Injury) {
						t.Errorf("fixture %d: goals not in order of play: %v", f.ID, f.Goals)
					}
					if g.ScorerID == 0 {
						t.Errorf("fixture %d: goal %s has no scorer id", f.ID, g)
					}
					if g.Type != model.GoalOwn {
						goals[g.ScorerID]++
					}
				}
			}
			// Every finished fixture with a goal has its goals (the
			// model refuses goals that do not make the score).
			if withGoals < fixtures*3/4 {
				t.Errorf("%d of %d fixtures have goals", withGoals, fixtures)
			}
			if tt.venue != "" && !venues[tt.venue] {
				t.Errorf("no fixture at %q", tt.venue)
			}
			most := 0
			for _, n := range goals {
				most = max(most, n)
			}
			var top, want []string
			for id, n := range goals {
				if n == most {
					top = append(top, byID[id].Name)
				}
			}
			for _, sc := range tt.top {
				id := personID(t, byID, teamID[sc.team], sc.name)
				if byID[id].Name != sc.name || goals[id] != sc.goals {
					t.Errorf("%s of %s: %s with %d goals, want %d", sc.name, sc.team, byID[id].Name, goals[id], sc.goals)
				}
				if sc.goals == most {
					want = append(want, sc.name)
				}
			}
			slices.Sort(want)
			if slices.Sort(top); !slices.Equal(top, want) {
				t.Errorf("top scorers on %d: %v, want %v", most, top, want)
			}
			team := teamID[tt.team]
			ids := map[int]bool{}
			for _, name := range tt.same {
				ids[personID(t, byID, team, name)] = true
			}
			if len(ids) != 1 {
				t.Errorf("%v of %s are %d persons", tt.same, tt.team, len(ids))
			}
		})
	}

	// Importing the files again changes nothing.
	again := importAll(t, s, files...)
	if again.Changes() != 0 || again.Persons.Changed() != 0 {
		t.Errorf("a second import changed %d entities: fixtures %+v, persons %+v", again.Changes(), again.Fixtures, again.Persons)
	}
}

// personID finds the person of a team that a name or an alias spells.
func personID(t *testing.T, byID map[int]model.Person, team int, name string) int {
	t.Helper()
	var found []int
	for id, p := range byID {
		if p.TeamID == team && (p.Name == name || slices.Contains(p.Aliases, name)) {
			found = append(found, id)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%q of team %d is %d persons: %v", name, team, len(found), found)
	}
	return found[0]
}

type scorer struct {
	team, name string
	goals      int
}

// TestGoalsThatMissTheScore imports Euro 2020, whose Ukraine v England
// lists England's goals for Ukraine: the match keeps its result and loses
// its goals, and the summary names it.
func TestGoalsThatMissTheScore(t *testing.T) {
	s := natstest.MustOpen(t, natstest.MustStart(t))
	sum := importAll(t, s, ofFile(t, "openfootball-euro-json/2020/euro.json"))
	var warned []string
	for _, w := range sum.Warnings {
		if strings.Contains(w.What, "goals") {
			warned = append(warned, w.What)
		}
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "Ukraine v England") {
		t.Fatalf("warnings of goals: %q", warned)
	}
	w := load(t, s)
	found := false
	for _, f := range w.fixtures {
		if w.teams[f.HomeTeamID].Name == "Ukraine" && w.teams[f.AwayTeamID].Name == "England" {
			found = true
			if len(f.Goals) != 0 || f.Result.FullTime == nil || *f.Result.FullTime != (model.Score{Home: 0, Away: 4}) {
				t.Errorf("Ukraine v England: result %v, goals %v", f.Result.FullTime, f.Goals)
			}
		}
	}
	if !found {
		t.Error("no Ukraine v England")
	}
	t.Log(warned[0])
}

// TestRacingGoalImports: importers of the same tournament at once end
// with each scorer once, every goal naming a stored person of its
// scorer's team, as one importer alone does.
func TestRacingGoalImports(t *testing.T) {
	file := ofFile(t, "openfootball-worldcup-json/2018/worldcup.json")
	alone := natstest.MustOpen(t, natstest.MustStart(t))
	importAll(t, alone, file)
	want := len(natstest.All[model.Person](t, alone, events.KindPerson))

	srv := natstest.MustStart(t)
	const importers = 3
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range importers {
		im := newImporter(t, natstest.MustOpen(t, srv))
		wg.Go(func() {
			<-start
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := im.Import(ctx, importer.Formats["openfootball"], []string{file}, importer.Options{}); err != nil {
				t.Errorf("importer %d: %v", i, err)
			}
		})
	}
	close(start)
	wg.Wait()
	s := natstest.MustOpen(t, srv)
	persons := map[int]model.Person{}
	for _, p := range natstest.All[model.Person](t, s, events.KindPerson) {
		persons[p.ID] = p
	}
	if len(persons) != want {
		t.Errorf("%d persons after racing imports, %d after one", len(persons), want)
	}
	for _, f := range load(t, s).fixtures {
		for _, g := range f.Goals {
			team := f.HomeTeamID
			if g.ScorerSide() == model.Away {
				team = f.AwayTeamID
			}
			if p, ok := persons[g.ScorerID]; !ok || p.TeamID != team {
				t.Errorf("fixture %d: goal %s names person %d (%+v), not one of team %d", f.ID, g, g.ScorerID, p, team)
			}
		}
	}
}
