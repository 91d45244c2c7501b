package importer_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/importer"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// TestOpenLigaDBLiveSnapshot: the recorded 2. Bundesliga season taken 32
// minutes into matchday 27 has three matches in play whose results are
// placeholders (0:0) while their goals count: each is IN_PLAY with the
// score of its last goal, the finished ones FINISHED with their type-2
// result and their type-1 half time, the rest TIMED; every fixture's
// source is OpenLigaDB's match id; a goal entered live, with neither
// minute nor scorer, is kept as its side's, of no one; importing it again
// publishes nothing.
func TestOpenLigaDBLiveSnapshot(t *testing.T) {
	s := natstest.MustOpen(t, natstest.MustStart(t))
	file := natstest.SharedData(t, "..", "spec", "openligadb", "getmatchdata-bl2-2023.live-2024-03-30T1332.json")
	opts := importer.Options{Now: time.Date(2024, 3, 30, 12, 33, 0, 0, time.UTC)}
	sum := natstest.Import(t, s, "openligadb", opts, file)
	if sum.Fixtures.Rejected != 0 || sum.Fixtures.Created != 306 {
		t.Fatalf("fixtures %+v, want 306 created and none rejected", sum.Fixtures)
	}
	byID := map[string]model.Fixture{}
	count := map[model.Status]int{}
	for _, f := range natstest.All[model.Fixture](t, s, events.KindFixture) {
		byID[f.Source] = f
		count[f.Status]++
	}
	for src, want := range map[string]string{"openligadb:67174": "1-0", "openligadb:67175": "1-0", "openligadb:67178": "1-0"} {
		f := byID[src]
		if f.Status != model.InPlay || f.Result.FullTime == nil || f.Result.FullTime.String() != want || f.Result.HalfTime != nil {
			t.Errorf("%s: %s %v (half time %v), want IN_PLAY %s with no half time", src, f.Status, f.Result.FullTime, f.Result.HalfTime, want)
		}
	}
	if g := byID["openligadb:67174"].Goals; len(g) != 1 || !g[0].Anonymous() || g[0].Side != model.Home || g[0].Minute != 0 {
		t.Errorf("goals of 67174: %+v, want one of the home side with no minute and no scorer", g)
	}
	if count[model.InPlay] != 3 || count[model.Finished]+count[model.InPlay]+count[model.Timed] != 306 {
		t.Errorf("statuses %v, want 3 IN_PLAY and the rest FINISHED or TIMED", count)
	}
	// A half time the goals' minutes contradict (a goal in first-half
	// stoppage time written as 47') is left out by the writer.
	halves := 0
	for _, f := range byID {
		if f.Matchday == 0 {
			t.Fatalf("%s: no matchday: %+v", f.Source, f)
		}
		if f.Status == model.Finished && f.Result.HalfTime != nil {
			halves++
		}
	}
	if halves < count[model.Finished]*9/10 {
		t.Errorf("%d of %d finished matches have their half time, want nearly all", halves, count[model.Finished])
	}
	t.Logf("%d of %d finished matches have their half time", halves, count[model.Finished])
	if again := natstest.Import(t, s, "openligadb", opts, file); again.Changes() != 0 {
		t.Errorf("the same answer again changed %d entities, want none", again.Changes())
	}
}

// TestOpenLigaDBTeamIDs: the teams of an OpenLigaDB document are recorded
// under OpenLigaDB's team ids (openligadb:team:134 as a spelling of
// Werder Bremen's team), read back from the stream by the next import,
// which finds a team the source renamed (same teamId) by its id: the same
// team, none created, nothing held back, whether or not unknown names
// create teams.
func TestOpenLigaDBTeamIDs(t *testing.T) {
	const werder, renamed = 134, "Grün-Weiß Bremen"
	path := natstest.SharedData(t, "..", "spec", "openligadb", "getmatchdata-bl1-2023-1.partial-2023-08-19.json")
	opts := importer.Options{Now: time.Date(2023, 8, 19, 12, 0, 0, 0, time.UTC)}
	for _, tc := range []struct {
		name string
		hold bool
	}{{"held back when unknown", true}, {"created when unknown", false}} {
		t.Run(tc.name, func(t *testing.T) {
			s := natstest.MustOpen(t, natstest.MustStart(t))
			natstest.Import(t, s, "openligadb", opts, path)
			before := homeTeams(t, s)
			id := natstest.All[model.TeamName](t, s, events.KindTeamName)[events.TeamNameSubject("openligadb:team:134")].TeamID
			if id == 0 || id != before["openligadb:66630"] {
				t.Fatalf("openligadb:team:134 names team %d, want Werder Bremen's, %d", id, before["openligadb:66630"])
			}
			teams := len(natstest.All[model.Team](t, s, events.KindTeam))
			o := opts
			o.HoldUnknownTeams = tc.hold
			sum := natstest.Import(t, s, "openligadb", o, renameTeam(t, path, werder, renamed))
			if sum.Fixtures.HeldBack != 0 || sum.Teams.Created != 0 {
				t.Errorf("renamed: %d fixture(s) held back, %d team(s) created, want none", sum.Fixtures.HeldBack, sum.Teams.Created)
			}
			if got := len(natstest.All[model.Team](t, s, events.KindTeam)); got != teams {
				t.Errorf("%d teams after the rename, want %d", got, teams)
			}
			if got := homeTeams(t, s)["openligadb:66630"]; got != id {
				t.Errorf("home team of openligadb:66630 after the rename: %d, want %d", got, id)
			}
		})
	}
}

// homeTeams maps the sources of the fixtures in s to their home teams.
func homeTeams(t *testing.T, s *events.Store) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, f := range natstest.All[model.Fixture](t, s, events.KindFixture) {
		out[f.Source] = f.HomeTeamID
	}
	return out
}

// renameTeam writes a copy of the OpenLigaDB document at path in which the
// team of OpenLigaDB id teamID is called name, and returns its path.
func renameTeam(t *testing.T, path string, teamID int, name string) string {
	t.Helper()
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ms []map[string]any
	if err := json.Unmarshal(body, &ms); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		for _, side := range []string{"team1", "team2"} {
			if team := m[side].(map[string]any); team["teamId"] == float64(teamID) {
				team["teamName"] = name
			}
		}
	}
	if body, err = json.Marshal(ms); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(out, body, 0o600); err != nil {
		t.Fatal(err)
	}
	return out
}
