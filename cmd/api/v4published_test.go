package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
)

// v4Standings is what a v4 standings answer says of each table.
type v4Standings struct {
	Standings []struct {
		Type  string `json:"type"`
		Table []struct {
			Position int `json:"position"`
			Team     struct {
				ID        int    `json:"id"`
				ShortName string `json:"shortName"`
			} `json:"team"`
			PlayedGames  int `json:"playedGames"`
			Won          int `json:"won"`
			Draw         int `json:"draw"`
			Lost         int `json:"lost"`
			Points       int `json:"points"`
			GoalsFor     int `json:"goalsFor"`
			GoalsAgainst int `json:"goalsAgainst"`
		} `json:"table"`
	} `json:"standings"`
}

// rows lists a table's figures, one line a row, by type.
func (s v4Standings) rows() map[string][]string {
	out := map[string][]string{}
	for _, st := range s.Standings {
		for _, r := range st.Table {
			out[st.Type] = append(out[st.Type], fmt.Sprintf("%2d team %-4d P%d W%d D%d L%d %d:%d %dpts",
				r.Position, r.Team.ID, r.PlayedGames, r.Won, r.Draw, r.Lost, r.GoalsFor, r.GoalsAgainst, r.Points))
		}
	}
	return out
}

// TestV4PublishedStandings: the Bundesliga 2022-23 as football-data.org
// published it after the sixth matchday (recorded on 12 September 2022),
// all three tables, TOTAL, HOME and AWAY, row for row: position, team id
// (v1's, which v4 kept), games, wins, draws, losses, goals and points.
// Ours is the same season imported from openfootball.
func TestV4PublishedStandings(t *testing.T) {
	w := theV4World(t)
	rec := readSample(t, "competitions-2002-standings.json")
	var want, got v4Standings
	if err := json.Unmarshal(rec.Body, &want); err != nil {
		t.Fatal(err)
	}
	w.getJSON(t, "/v4/competitions/BL1/standings?season=2022&matchday=6", &got)
	wantRows, gotRows := want.rows(), got.rows()
	for _, typ := range []string{"TOTAL", "HOME", "AWAY"} {
		if len(wantRows[typ]) != 18 {
			t.Fatalf("the recording has %d %s rows", len(wantRows[typ]), typ)
		}
		if !slices.Equal(gotRows[typ], wantRows[typ]) {
			t.Errorf("%s table after matchday 6:\n got %q\nwant %q", typ, gotRows[typ], wantRows[typ])
		}
	}
}
