package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/footdata/footballd/pkg/model"
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

// TestV4PublishedScorers: the scorers of two more tournaments as FIFA and
// UEFA published them, from the goals of the openfootball files: the
// World Cup 2018's golden boot (Harry Kane, 6, three of them penalties)
// and the Euro 2024's six players on 3, who shared it. The Euro file
// names five of them by surname only, and so do we.
func TestV4PublishedScorers(t *testing.T) {
	r := startReplica(t, "", "--now", "2024-08-01T12:00:00Z")
	s := r.store()
	importFiles(t, s, "openfootball-worldcup-json/2018/worldcup.json", "openfootball-euro-json/2024/euro.json")
	token := addClient(t, s, "scorers", model.TierRegistered, 1000)
	r.waitApplied(s)
	for _, c := range []struct {
		path string
		want []string
	}{
		{"/v4/competitions/WC/scorers?season=2018&limit=1", []string{"Harry Kane (England) 6/3"}},
		{"/v4/competitions/EC/scorers?season=2024&limit=6", []string{"Gakpo (Netherlands) 3/null", "Harry Kane (England) 3/1",
			"Mikautadze (Georgia) 3/2", "Musiala (Germany) 3/null", "Olmo (Spain) 3/null", "Schranz (Slovakia) 3/null"}},
		{"/v4/competitions/EC/scorers?season=2024&limit=7", nil},
	} {
		resp := r.do(http.MethodGet, c.path, map[string]string{"X-Auth-Token": token})
		var out struct {
			Scorers []v4ScorerRow `json:"scorers"`
		}
		if resp.status != http.StatusOK || json.Unmarshal(resp.body, &out) != nil {
			t.Fatalf("GET %s: %d %s", c.path, resp.status, resp.body)
		}
		var got []string
		for _, row := range out.Scorers {
			line := row.String()
			got = append(got, line[strings.Index(line, " ")+1:])
		}
		if c.want == nil {
			// The seventh has fewer: the six are all who scored 3.
			if len(out.Scorers) != 7 || out.Scorers[6].Goals >= 3 {
				t.Errorf("GET %s: %v, want a seventh on fewer than 3", c.path, got)
			}
			continue
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("GET %s:\n got %q\nwant %q", c.path, got, c.want)
		}
	}
}
