package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/footdata/footballd/pkg/model"
)

// clMatch is what the stage tests read of a listed match.
type clMatch struct {
	ID          int    `json:"id"`
	Stage       string `json:"stage"`
	Matchday    *int   `json:"matchday"`
	Competition struct {
		Type string `json:"type"`
	} `json:"competition"`
}

// TestV4ChampionsLeague2024 imports the Champions League 2024-25 as a user
// does (openfootball's file: a league phase of 36, play-offs, then the
// knock-out rounds) and asks for it as an app written for today's
// Champions League does: by stage, with the competition's type, the
// matchdays and the league phase's table; then a match of each kind and
// the table byte for byte (goldens), each against the shape of the
// recorded Champions League answers.
func TestV4ChampionsLeague2024(t *testing.T) {
	r := startReplica(t, "", "--now", "2025-07-01T12:00:00Z", "--public-url", "http://api.test")
	s := r.store()
	importFiles(t, s, "openfootball-football-json/2024-25/uefa.cl.json")
	w := &v4World{r: r, token: addClient(t, s, "cl-app", model.TierRegistered, 1000)}
	r.waitApplied(s)

	var all struct {
		Count   int       `json:"count"`
		Matches []clMatch `json:"matches"`
	}
	w.getJSON(t, "/v4/competitions/CL/matches?season=2024", &all)
	var stages []string
	firstOf := map[string]int{}
	for _, m := range all.Matches {
		if _, ok := firstOf[m.Stage]; !ok {
			firstOf[m.Stage] = m.ID
			stages = append(stages, m.Stage)
		}
		if m.Competition.Type != "CUP" {
			t.Errorf("match %d: competition type %q, want CUP", m.ID, m.Competition.Type)
		}
	}
	if want := []string{"LEAGUE_STAGE", "PLAYOFFS", "LAST_16", "QUARTER_FINALS", "SEMI_FINALS", "FINAL"}; !slices.Equal(stages, want) {
		t.Errorf("stages in kick-off order %v, want %v", stages, want)
	}

	t.Run("by stage", func(t *testing.T) {
		for _, tt := range []struct {
			stage     string
			count     int
			matchdays string // the matchdays seen, in order
		}{
			{"LEAGUE_STAGE", 144, "1 2 3 4 5 6 7 8"},
			{"PLAYOFFS", 16, "null"},
			{"LAST_16", 16, "null"},
			{"QUARTER_FINALS", 8, "null"},
			{"SEMI_FINALS", 4, "null"},
			{"FINAL", 1, "null"},
			{"REGULAR_SEASON", 0, ""},
			{"GROUP_STAGE", 0, ""},
		} {
			var got struct {
				ResultSet struct {
					Count int `json:"count"`
				} `json:"resultSet"`
				Matches []clMatch `json:"matches"`
			}
			w.getJSON(t, "/v4/competitions/CL/matches?season=2024&stage="+tt.stage, &got)
			var mds []string
			for _, m := range got.Matches {
				md := "null"
				if m.Matchday != nil {
					md = fmt.Sprint(*m.Matchday)
				}
				if len(mds) == 0 || mds[len(mds)-1] != md {
					mds = append(mds, md)
				}
				if m.Stage != tt.stage {
					t.Errorf("stage=%s lists match %d of stage %s", tt.stage, m.ID, m.Stage)
				}
			}
			if got.ResultSet.Count != tt.count || len(got.Matches) != tt.count || strings.Join(mds, " ") != tt.matchdays {
				t.Errorf("stage=%s: count %d (%d listed), matchdays %q; want %d, %q", tt.stage, got.ResultSet.Count, len(got.Matches),
					strings.Join(mds, " "), tt.count, tt.matchdays)
			}
		}
	})

	// A matchday holds the matches v4 numbers so: the league phase's
	// eighth, and none in the knock-out rounds (v1's matchdays 9 to 14).
	t.Run("by matchday", func(t *testing.T) {
		for md, want := range map[int]int{8: 18, 9: 0, 11: 0, 14: 0} {
			var got struct {
				Matches []clMatch `json:"matches"`
			}
			w.getJSON(t, fmt.Sprintf("/v4/competitions/CL/matches?season=2024&matchday=%d", md), &got)
			if len(got.Matches) != want {
				t.Errorf("matchday=%d: %d matches, want %d", md, len(got.Matches), want)
			}
		}
	})

	t.Run("competition type", func(t *testing.T) {
		var c struct {
			Type string `json:"type"`
		}
		w.getJSON(t, "/v4/competitions/CL", &c)
		if c.Type != "CUP" {
			t.Errorf("/v4/competitions/CL type %q, want CUP (as upstream types it)", c.Type)
		}
	})

	t.Run("league phase table", func(t *testing.T) {
		var st struct {
			Standings []struct {
				Stage string  `json:"stage"`
				Type  string  `json:"type"`
				Group *string `json:"group"`
				Table []struct {
					PlayedGames int     `json:"playedGames"`
					Form        *string `json:"form"`
				} `json:"table"`
			} `json:"standings"`
		}
		w.getJSON(t, "/v4/competitions/CL/standings?season=2024", &st)
		if len(st.Standings) != 1 {
			t.Fatalf("%d standings, want one table of the league phase", len(st.Standings))
		}
		s := st.Standings[0]
		if s.Stage != "LEAGUE_STAGE" || s.Type != "TOTAL" || s.Group != nil || len(s.Table) != 36 {
			t.Errorf("standings: stage %s, type %s, group %v, %d rows; want LEAGUE_STAGE, TOTAL, null, 36", s.Stage, s.Type, s.Group, len(s.Table))
		}
		for i, row := range s.Table {
			if row.PlayedGames != 8 || row.Form != nil {
				t.Errorf("row %d: %d played, form %v; want 8, null (as the recorded cup tables)", i+1, row.PlayedGames, row.Form)
			}
		}
	})

	// A single match is checked against the recorded single match (a
	// league's) and the recorded Champions League matches, which have
	// knock-out rounds and matches not yet played.
	single := []string{"matches-417211.json", "competitions-2001-matches.json#matches"}
	t.Run("goldens", func(t *testing.T) {
		for _, c := range []struct {
			name, path string
			samples    []string
		}{
			{"v4-match-cl2024-league-phase", fmt.Sprintf("/v4/matches/%d", firstOf["LEAGUE_STAGE"]), single},
			{"v4-match-cl2024-playoff", fmt.Sprintf("/v4/matches/%d", firstOf["PLAYOFFS"]), single},
			{"v4-match-cl2024-last16", fmt.Sprintf("/v4/matches/%d", firstOf["LAST_16"]), single},
			{"v4-match-cl2024-final", fmt.Sprintf("/v4/matches/%d", firstOf["FINAL"]), single},
			{"v4-standings-cl2024", "/v4/competitions/CL/standings?season=2024", []string{"competitions-2001-standings.json"}},
			{"", "/v4/competitions/CL/matches?season=2024", []string{"competitions-2001-matches.json"}},
			{"", "/v4/competitions/CL", []string{"competitions-2001.json"}},
		} {
			resp := w.get(c.path, nil)
			if resp.status != 200 {
				t.Fatalf("GET %s: %d %s", c.path, resp.status, resp.body)
			}
			if c.name != "" {
				golden(t, c.name, resp.body)
			}
			var got any
			if err := json.Unmarshal(resp.body, &got); err != nil {
				t.Fatal(err)
			}
			sh := newShape()
			for _, sample := range c.samples {
				file, list, _ := strings.Cut(sample, "#")
				var recorded any
				if err := json.Unmarshal(readSample(t, file).Body, &recorded); err != nil {
					t.Fatal(err)
				}
				if list == "" {
					sh.merge(recorded)
					continue
				}
				for _, elem := range recorded.(map[string]any)[list].([]any) {
					sh.merge(elem)
				}
			}
			var diffs []string
			sh.check(got, "$", &diffs)
			for _, d := range slices.Compact(sortedCopy(diffs)) {
				if _, ok := v4Kept[d]; !ok {
					t.Errorf("GET %s against %v: %s", c.path, c.samples, d)
				}
			}
		}
	})
}
