package httpapi

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/readmodel"
)

// TestV4Score: v4's score arithmetic on our results (spec 8.1–8.4): our
// full time is after 90 minutes and our extra time after 120, v4's
// fullTime is the final score with the shoot-out's goals, extraTime the
// goals of extra time alone; the optional parts are absent after 90
// minutes.
func TestV4Score(t *testing.T) {
	sc := func(h, a int) *model.Score { return &model.Score{Home: h, Away: a} }
	for _, c := range []struct {
		name    string
		status  model.Status
		awarded model.Side
		result  model.Result
		want    string
	}{
		{"not played", model.Timed, "", model.Result{},
			`{"winner":null,"duration":"REGULAR","fullTime":{"home":null,"away":null},"halfTime":{"home":null,"away":null}}`},
		{"running", model.InPlay, "", model.Result{FullTime: sc(1, 0), HalfTime: sc(1, 0)},
			`{"winner":null,"duration":"REGULAR","fullTime":{"home":1,"away":0},"halfTime":{"home":1,"away":0}}`},
		{"regular", model.Finished, "", model.Result{FullTime: sc(3, 1), HalfTime: sc(0, 0)},
			`{"winner":"HOME_TEAM","duration":"REGULAR","fullTime":{"home":3,"away":1},"halfTime":{"home":0,"away":0}}`},
		{"draw", model.Finished, "", model.Result{FullTime: sc(1, 1), HalfTime: sc(1, 1)},
			`{"winner":"DRAW","duration":"REGULAR","fullTime":{"home":1,"away":1},"halfTime":{"home":1,"away":1}}`},
		{"extra time", model.Finished, "", model.Result{FullTime: sc(1, 1), HalfTime: sc(0, 1), ExtraTime: sc(2, 1)},
			`{"winner":"HOME_TEAM","duration":"EXTRA_TIME","fullTime":{"home":2,"away":1},"halfTime":{"home":0,"away":1},"regularTime":{"home":1,"away":1},"extraTime":{"home":1,"away":0}}`},
		// CFR Cluj–Pyunik as upstream recorded it: 1-1, 1-1 in extra
		// time, 3-4 on penalties, fullTime 5-6.
		{"shoot-out", model.Finished, "", model.Result{FullTime: sc(1, 1), HalfTime: sc(1, 0), ExtraTime: sc(2, 2), Penalties: sc(3, 4)},
			`{"winner":"AWAY_TEAM","duration":"PENALTY_SHOOTOUT","fullTime":{"home":5,"away":6},"halfTime":{"home":1,"away":0},"regularTime":{"home":1,"away":1},"extraTime":{"home":1,"away":1},"penalties":{"home":3,"away":4}}`},
		{"shoot-out after 90 minutes", model.Finished, "", model.Result{FullTime: sc(0, 0), Penalties: sc(5, 4)},
			`{"winner":"HOME_TEAM","duration":"PENALTY_SHOOTOUT","fullTime":{"home":5,"away":4},"halfTime":{"home":null,"away":null},"regularTime":{"home":0,"away":0},"penalties":{"home":5,"away":4}}`},
		{"awarded", model.Finished, model.Away, model.Result{FullTime: sc(2, 0)},
			`{"winner":"AWAY_TEAM","duration":"REGULAR","fullTime":{"home":2,"away":0},"halfTime":{"home":null,"away":null}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := readmodel.Fixture{Fixture: model.Fixture{Status: c.status, Awarded: c.awarded, Result: c.result}}
			got, err := json.Marshal(v4ScoreOf(&f))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("\n got %s\nwant %s", got, c.want)
			}
		})
	}
}

// TestV4Mapping: statuses, stages and groups in v4's words, and ids for
// leagues: upstream's where it has them, a stable one of their own else.
func TestV4Mapping(t *testing.T) {
	for _, c := range []struct {
		fixture model.Fixture
		typ     model.CompetitionType
		status  string
		stage   string
	}{
		{model.Fixture{Status: model.Canceled, Stage: model.Regular}, model.TypeLeague, "CANCELLED", "REGULAR_SEASON"},
		{model.Fixture{Status: model.Finished, Awarded: model.Home, Stage: model.Regular}, model.TypeTournament, "AWARDED", "GROUP_STAGE"},
		{model.Fixture{Status: model.Timed, Stage: model.Playoff, Round: "Round of 16"}, model.TypeTournament, "TIMED", "LAST_16"},
		{model.Fixture{Status: model.Finished, Stage: model.Playoff, Round: "Quarter-finals"}, model.TypeTournament, "FINISHED", "QUARTER_FINALS"},
		{model.Fixture{Status: model.Finished, Stage: model.Playoff, Round: "Semifinals"}, model.TypeTournament, "FINISHED", "SEMI_FINALS"},
		{model.Fixture{Status: model.Finished, Stage: model.Playoff, Round: "Match for third place"}, model.TypeTournament, "FINISHED", "THIRD_PLACE"},
		{model.Fixture{Status: model.Finished, Stage: model.Playoff, Round: "Final"}, model.TypeTournament, "FINISHED", "FINAL"},
		{model.Fixture{Status: model.Postponed, Stage: model.Playoff, Round: "Relegation play-off"}, model.TypeLeague, "POSTPONED", "PLAYOFFS"},
		{model.Fixture{Status: model.Scheduled, Stage: model.Regular, Round: "Round 3"}, model.TypeCup, "SCHEDULED", "ROUND_3"},
	} {
		f := readmodel.Fixture{Fixture: c.fixture}
		if got := v4Status(&f); got != c.status {
			t.Errorf("%+v: status %s, want %s", c.fixture, got, c.status)
		}
		if got := v4Stage(&f, c.typ); string(got) != c.stage {
			t.Errorf("%+v: stage %s, want %s", c.fixture, got, c.stage)
		}
	}
	if g := v4Group("B"); g == nil || *g != "GROUP_B" {
		t.Errorf("group B: %v", g)
	}
	for code, want := range map[model.LeagueCode]int{"PL": 2021, "BL1": 2002, "CL": 2001, "WC": 2000, "EC": 2018, "PD": 2014, "SA": 2019,
		"FL1": 2015, "DED": 2003, "PPL": 2017, "ELC": 2016, "AB": v4AddedBase + 11*37 + 12, "ZZZ9": v4AddedBase + ((36*37+36)*37+36)*37 + 10} {
		if got := v4CompetitionID(code); got != want {
			t.Errorf("%s: id %d, want %d", code, got, want)
		}
	}
	if a := v4AreaOf("England"); a.id != 2072 || a.code != "ENG" || a.parent != 2077 {
		t.Errorf("England: %+v", a)
	}
	if a := v4AreaOf("Atlantis"); a.id < v4AddedBase || a.code != "ATL" || a.parent != v4World || a != v4AreaOf("Atlantis") {
		t.Errorf("Atlantis: %+v", a)
	}
}

// TestV4LeagueCode: every code's v4 id reads back as the code, and ids no
// code has read as none.
func TestV4LeagueCode(t *testing.T) {
	for _, code := range []model.LeagueCode{"PL", "BL1", "WC", "BSA", "AB", "ZZZ9", "00", "A0B1", "X1"} {
		if got := v4LeagueCode(v4CompetitionID(code)); got != code {
			t.Errorf("%s: id %d reads back as %q", code, v4CompetitionID(code), got)
		}
	}
	for _, id := range []int{0, 1, 2999, v4AddedBase, v4AddedBase + 37, v4AddedBase + 37*37*37*37*37} {
		if got := v4LeagueCode(id); got != "" {
			t.Errorf("id %d reads as %q", id, got)
		}
	}
}

// TestV4TypesAsRecorded: every competition upstream was recorded with
// (v4-samples/competitions.json, and the running competitions of the
// recorded teams) that is one of our leagues keeps its recorded type,
// whichever type our season has: the Champions League is a CUP with its
// league phase (our LEAGUE) as with its groups (our TOURNAMENT). A league
// an editor adds is typed by its own type.
func TestV4TypesAsRecorded(t *testing.T) {
	recorded := map[model.LeagueCode]string{}
	var doc struct {
		Body struct {
			Competitions []struct {
				Code model.LeagueCode `json:"code"`
				Type string           `json:"type"`
			} `json:"competitions"`
			Teams []struct {
				RunningCompetitions []struct {
					Code model.LeagueCode `json:"code"`
					Type string           `json:"type"`
				} `json:"runningCompetitions"`
			} `json:"teams"`
		} `json:"body"`
	}
	for _, file := range []string{"competitions.json", "competitions-2001-teams.json", "competitions-2002-teams.json", "competitions-2013-teams.json"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "spec", "v4-samples", file))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, c := range doc.Body.Competitions {
			recorded[c.Code] = c.Type
		}
		for _, tm := range doc.Body.Teams {
			for _, c := range tm.RunningCompetitions {
				recorded[c.Code] = c.Type
			}
		}
	}
	ours := 0
	for code, want := range recorded {
		if _, ok := v4CompetitionIDs[code]; !ok && !v4Cups[code] {
			continue // not one of our leagues (or our code means another league)
		}
		ours++
		types := []model.CompetitionType{model.TypeLeague}
		if want == "CUP" {
			types = append(types, model.TypeTournament, model.TypeCup)
		}
		for _, typ := range types {
			if got := v4Type(code, typ); got != want {
				t.Errorf("%s as our %s: type %s, recorded %s", code, typ, got, want)
			}
		}
	}
	if ours < 12 {
		t.Errorf("%d recorded competitions of ours, want at least 12 (%v)", ours, recorded)
	}
	for _, c := range []struct {
		typ  model.CompetitionType
		want string
	}{{model.TypeLeague, "LEAGUE"}, {model.TypeTournament, "CUP"}, {model.TypeCup, "CUP"}} {
		if got := v4Type("XYZ", c.typ); got != c.want {
			t.Errorf("an editor's %s: type %s, want %s", c.typ, got, c.want)
		}
	}
}
