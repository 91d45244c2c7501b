package importer

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/footdata/footballd/pkg/model"
)

// TestRoundsOfSplitLeagues reads real files whose leagues split after the
// regular season, or play a league phase then knock-outs, and checks how
// their rounds are numbered: "round: matchday stage" for the first match of
// each distinct round, and the competition's number of matchdays.
func TestRoundsOfSplitLeagues(t *testing.T) {
	tests := []struct {
		file      string
		matchdays int
		rounds    []string // a sample, in file order
	}{
		{"openfootball-football-json/2024-25/sco.1.json", 38, []string{
			"Matchday 33: 33 REGULAR", "Championship, Matchday 34: 34 REGULAR", "Championship, Matchday 38: 38 REGULAR",
			"Relegation, Matchday 34: 34 REGULAR", "Relegation, Matchday 38: 38 REGULAR"}},
		{"openfootball-football-json/2024-25/be.1.json", 40, []string{
			"Matchday 30: 30 REGULAR", "Championship, Matchday 1: 31 REGULAR", "Championship, Matchday 10: 40 REGULAR",
			"ECL Playoff, Final: 41 PLAYOFF", "Europe, Matchday 1: 31 REGULAR", "Relegation, Matchday 1: 31 REGULAR",
			"Relegation, Matchday 6: 36 REGULAR"}},
		{"openfootball-football-json/2018-19/be.1.json", 40, []string{
			"Matchday 30: 30 REGULAR", "Playoff I, Matchday 1: 31 REGULAR", "Playoff I, Matchday 10: 40 REGULAR"}},
		{"openfootball-football-json/2024-25/at.1.json", 32, []string{
			"Matchday 22: 22 REGULAR", "Championship, Matchday 23: 23 REGULAR", "Championship, Matchday 32: 32 REGULAR",
			"Europa League Finals, Semifinals: 33 PLAYOFF", "Europa League Finals, Final: 34 PLAYOFF",
			"Relegation, Matchday 23: 23 REGULAR"}},
		{"openfootball-football-json/2023-24/at.1.json", 32, []string{
			"Matchday 22: 22 REGULAR", "Matchday 23: 23 REGULAR", "Matchday 32: 32 REGULAR", "Semifinals: 33 PLAYOFF", "Final: 34 PLAYOFF"}},
		{"openfootball-football-json/2024-25/uefa.cl.json", 8, []string{
			"League, Matchday 1: 1 REGULAR", "League, Matchday 8: 8 REGULAR", "Playoffs, Matchday 1: 9 PLAYOFF",
			"Playoffs, Matchday 2: 10 PLAYOFF", "Finals, Round of 16: 11 PLAYOFF", "Finals, Quarterfinals: 12 PLAYOFF",
			"Finals, Semifinals: 13 PLAYOFF", "Finals, Final: 14 PLAYOFF"}},
		// No split in the rules: "Championship, …" stays a play-off.
		{"openfootball-football-json/2024-25/gr.1.json", 26, []string{"Matchday 26: 26 REGULAR"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("../../../shared/data", tt.file)
			src, err := parseOpenFootball(path, Options{}, func(code model.LeagueCode) (model.League, error) {
				if l, ok := model.BuiltinLeague(code); ok {
					return l, nil
				}
				return model.League{}, model.Invalidf("league", string(code), "not built in")
			})
			if err != nil {
				t.Fatal(err)
			}
			pf := src.seasons[0]
			seen := map[string]string{}
			for _, pm := range pf.matches {
				if pm.err != nil {
					t.Errorf("match %d: %v", pm.line, pm.err)
				}
				if _, ok := seen[pm.round]; !ok {
					seen[pm.round] = fmt.Sprintf("%s: %d %s", pm.round, pm.matchday, pm.stage)
				}
			}
			for _, want := range tt.rounds {
				if round := want[:strings.LastIndex(want, ":")]; seen[round] != want {
					t.Errorf("got %q, want %q", seen[round], want)
				}
			}
			if pf.matchdays != tt.matchdays {
				t.Errorf("%d matchdays, want %d", pf.matchdays, tt.matchdays)
			}
			for _, pm := range pf.matches {
				if pm.matchday > tt.matchdays && pm.stage != model.Playoff {
					t.Errorf("%s: matchday %d after the last is %s", pm.round, pm.matchday, pm.stage)
				}
			}
		})
	}
}
