package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/model"
)

// The persons of the v4 world come from the World Cup 2022 file: the
// importer keeps every goal and makes a person of every scorer, by team.
// The world adds what the file lacks: Mbappé in France's squad (a squad's
// player is a person, with the same id), more about Messi in a person
// event, a reserve keeper without a team or a match, and Japan's goal
// against Croatia stripped of its scorer's id (a goal that names its
// scorer only). Di María and Perišić stay as the import made them.
var messi, mbappe, diMaria, perisic int

const reserveKeeper = 99006

// addGoals finds the imported scorers and publishes the squad, persons
// and edit above.
func (w *v4World) addGoals(t *testing.T) {
	s := w.r.store()
	ed := natstest.Editor(t, s)
	var list struct {
		Matches []struct {
			ID       int    `json:"id"`
			Stage    string `json:"stage"`
			HomeTeam struct {
				ID   int    `json:"id"`
				Name string `json:"name"`
			} `json:"homeTeam"`
			AwayTeam struct {
				ID   int    `json:"id"`
				Name string `json:"name"`
			} `json:"awayTeam"`
		} `json:"matches"`
	}
	w.getJSON(t, "/v4/competitions/WC/matches", &list)
	var argentina, france int
	var home, japanCroatia string
	for _, m := range list.Matches {
		if m.Stage == "FINAL" {
			w.wcFinal, argentina, france, home = m.ID, m.HomeTeam.ID, m.AwayTeam.ID, m.HomeTeam.Name
		}
		if m.ID == w.wcKnockout {
			japanCroatia = m.HomeTeam.Name + "–" + m.AwayTeam.Name
		}
	}
	if w.wcFinal == 0 || !strings.Contains(home, "Argentina") || japanCroatia != "Japan–Croatia" {
		t.Fatalf("World Cup final %d at home %q, the first shoot-out %q", w.wcFinal, home, japanCroatia)
	}
	var scorers struct {
		Scorers []v4ScorerRow `json:"scorers"`
	}
	w.getJSON(t, "/v4/competitions/WC/scorers?limit=200", &scorers)
	ids := map[string]*int{"Lionel Messi": &messi, "Kylian Mbappé": &mbappe, "Ángel Di María": &diMaria, "Ivan Perišić": &perisic}
	for _, r := range scorers.Scorers {
		if id, ok := ids[r.Player.Name]; ok && r.Player.ID != nil {
			*id = *r.Player.ID
		}
	}
	for name, id := range ids {
		if *id == 0 {
			t.Fatalf("no imported scorer %s among %d", name, len(scorers.Scorers))
		}
	}
	maeda, _, err := ed.Fixture(context.Background(), w.wcKnockout)
	if err != nil || len(maeda.Goals) != 2 || maeda.Goals[0].Scorer != "Daizen Maeda" {
		t.Fatalf("Japan–Croatia: %v, %v", maeda, err)
	}
	maeda.Goals[0].ScorerID = 0
	born := model.Date("1998-12-20")
	ten := 10
	natstest.Put(t, s,
		&model.Squad{TeamID: france, Players: []model.Player{{ID: mbappe, Name: "Kylian Mbappé", Position: "Offence", Nationality: "France",
			DateOfBirth: &born, JerseyNumber: &ten}}},
		&model.Person{ID: messi, Name: "Lionel Messi", TeamID: argentina, Nationality: "Argentina", Position: "Offence", Aliases: []string{"Messi"}},
		&model.Person{ID: reserveKeeper, Name: "Reserve Keeper", Nationality: "Norway"},
		maeda,
	)
	w.r.waitApplied(s)
}

// v4ScorerRow is what the tests read of a scorers row.
type v4ScorerRow struct {
	Player struct {
		ID          *int    `json:"id"`
		Name        string  `json:"name"`
		LastUpdated *string `json:"lastUpdated"`
	} `json:"player"`
	Team struct {
		Name string `json:"name"`
	} `json:"team"`
	Goals     int  `json:"goals"`
	Penalties *int `json:"penalties"`
}

func (r v4ScorerRow) String() string {
	id, pens := "null", "null"
	if r.Player.ID != nil {
		id = fmt.Sprint(*r.Player.ID)
	}
	if r.Penalties != nil {
		pens = fmt.Sprint(*r.Penalties)
	}
	return fmt.Sprintf("%s %s (%s) %d/%s", id, r.Player.Name, r.Team.Name, r.Goals, pens)
}

// TestV4Scorers: a season's scorers from the goals the importer kept:
// regular and penalty goals count, penalties apart, own goals for nobody;
// most goals first, then by name. The World Cup 2022's are FIFA's
// published ones: Mbappé 8, Messi 7, Álvarez and Giroud 4, then seven
// players on 3, of which the first six by name fill the ten rows.
func TestV4Scorers(t *testing.T) {
	w := theV4World(t)
	top := []string{
		fmt.Sprintf("%d Kylian Mbappé (France) 8/2", mbappe),
		fmt.Sprintf("%d Lionel Messi (Argentina) 7/4", messi),
	}
	onThree := map[string]bool{"Enner Valencia": true, "Cody Gakpo": true, "Bukayo Saka": true, "Marcus Rashford": true,
		"Gonçalo Ramos": true, "Álvaro Morata": true, "Richarlison": true}
	for _, c := range []struct {
		path    string
		filters string
		count   int
	}{
		{"/v4/competitions/WC/scorers", `{"season":"2022","limit":10}`, 10},
		{"/v4/competitions/2000/scorers?limit=2&season=2022", `{"season":"2022","limit":2}`, 2},
		{"/v4/competitions/BL1/scorers", `{"season":"2022","limit":10}`, 0},
	} {
		t.Run(c.path, func(t *testing.T) {
			var out struct {
				Count   int             `json:"count"`
				Filters json.RawMessage `json:"filters"`
				Scorers []v4ScorerRow   `json:"scorers"`
			}
			w.getJSON(t, c.path, &out)
			got := []string{}
			for _, r := range out.Scorers {
				got = append(got, r.String())
			}
			if out.Count != c.count || len(got) != c.count || string(out.Filters) != c.filters {
				t.Fatalf("count %d, filters %s, scorers %v; want %d, %s", out.Count, out.Filters, got, c.count, c.filters)
			}
			for i, r := range out.Scorers {
				switch {
				case i < len(top) && got[i] != top[i]:
					t.Errorf("row %d: %s, want %s", i+1, got[i], top[i])
				case i >= 2 && i < 4 && (r.Goals != 4 || r.Player.Name != []string{"Julián Álvarez", "Olivier Giroud"}[i-2]):
					t.Errorf("row %d: %s, want Álvarez then Giroud on 4", i+1, got[i])
				case i >= 4 && (r.Goals != 3 || !onThree[r.Player.Name]):
					t.Errorf("row %d: %s, want one of the players on 3", i+1, got[i])
				}
			}
		})
	}
}

// TestV4Persons: a person is a squad's player, a person event or a scorer
// his goals name; his team is there when he has one.
func TestV4Persons(t *testing.T) {
	w := theV4World(t)
	for _, c := range []struct {
		path                 string
		name, team, birth    string
		shirt                any
		lastUpdatedKnown     bool
		currentTeamRunningWC bool
	}{
		{fmt.Sprintf("/v4/persons/%d", mbappe), "Kylian Mbappé", "France", "1998-12-20", 10.0, true, true},
		{fmt.Sprintf("/v4/players/%d", mbappe), "Kylian Mbappé", "France", "1998-12-20", 10.0, true, true},
		{fmt.Sprintf("/v4/persons/%d", messi), "Lionel Messi", "Argentina", "", nil, true, true},
		{fmt.Sprintf("/v4/persons/%d", diMaria), "Ángel Di María", "Argentina", "", nil, true, true},
		{fmt.Sprintf("/v4/persons/%d", reserveKeeper), "Reserve Keeper", "", "", nil, true, false},
	} {
		t.Run(c.path, func(t *testing.T) {
			var out map[string]any
			w.getJSON(t, c.path, &out)
			team, hasTeam := out["currentTeam"].(map[string]any)
			birth, _ := out["dateOfBirth"].(string)
			switch {
			case out["name"] != c.name || birth != c.birth || out["shirtNumber"] != c.shirt || (out["lastUpdated"] != nil) != c.lastUpdatedKnown:
				t.Errorf("person %v", out)
			case hasTeam != (c.team != ""):
				t.Errorf("currentTeam %v, want %q", out["currentTeam"], c.team)
			case hasTeam && (team["name"] != c.team || fmt.Sprint(team["runningCompetitions"]) == "[]"):
				t.Errorf("currentTeam %v, want %s in the World Cup", team, c.team)
			}
		})
	}
}

// TestV4PersonMatches: the matches he scored in and his team's finished
// matches of its running competitions, newest first, with the filters.
func TestV4PersonMatches(t *testing.T) {
	w := theV4World(t)
	type result struct {
		Filters   map[string]any `json:"filters"`
		ResultSet map[string]any `json:"resultSet"`
		Person    struct {
			ID int `json:"id"`
		} `json:"person"`
		Matches []v4ListMatch `json:"matches"`
	}
	var france result
	w.getJSON(t, fmt.Sprintf("/v4/persons/%d/matches", mbappe), &france)
	if len(france.Matches) != 7 || france.Matches[0].ID != w.wcFinal || france.Person.ID != mbappe ||
		fmt.Sprint(france.ResultSet) != "map[competitions:WC count:7 first:2022-11-22 last:2022-12-18]" ||
		fmt.Sprint(france.Filters) != "map[competitions:WC limit:15 offset:0 permission:TIER_ONE]" {
		t.Fatalf("Mbappé: %v, %v, %v", v4IDs(france.Matches), france.ResultSet, france.Filters)
	}
	var argentina result
	w.getJSON(t, fmt.Sprintf("/v4/persons/%d/matches", messi), &argentina)
	if len(argentina.Matches) != 7 || argentina.Matches[0].ID != w.wcFinal {
		t.Fatalf("Messi: %v", v4IDs(argentina.Matches))
	}
	for _, c := range []struct {
		path      string
		want      []int
		resultSet string
	}{
		{fmt.Sprintf("/v4/players/%d/matches?limit=2&offset=1", mbappe), v4IDs(france.Matches)[1:3], ""},
		// Di María scored in the final only; his team's matches are his.
		{fmt.Sprintf("/v4/persons/%d/matches", diMaria), v4IDs(argentina.Matches), "map[competitions:WC count:7 first:2022-11-22 last:2022-12-18]"},
		{fmt.Sprintf("/v4/persons/%d/matches", reserveKeeper), []int{}, "map[count:0]"},
		{fmt.Sprintf("/v4/persons/%d/matches?competitions=PL", mbappe), []int{}, "map[count:0]"},
		{fmt.Sprintf("/v4/persons/%d/matches?competitions=WC&status=FINISHED&dateFrom=2022-12-18&dateTo=2022-12-19", mbappe), []int{w.wcFinal}, ""},
		{fmt.Sprintf("/v4/persons/%d/matches?status=SCHEDULED", mbappe), []int{}, "map[count:0]"},
	} {
		t.Run(c.path, func(t *testing.T) {
			var out result
			w.getJSON(t, c.path, &out)
			if ids := v4IDs(out.Matches); !reflect.DeepEqual(ids, c.want) || (c.resultSet != "" && fmt.Sprint(out.ResultSet) != c.resultSet) {
				t.Errorf("matches %v, resultSet %v; want %v, %s", ids, out.ResultSet, c.want, c.resultSet)
			}
		})
	}
}

// TestV4UnfoldGoals: every match list shows its matches' goals when asked
// with X-Unfold-Goals: true, and only then; the single match always does,
// with its venue. The cache keeps the two forms apart.
func TestV4UnfoldGoals(t *testing.T) {
	w := theV4World(t)
	var argentina struct {
		HomeTeam struct {
			ID int `json:"id"`
		} `json:"homeTeam"`
	}
	w.getJSON(t, fmt.Sprintf("/v4/matches/%d", w.wcFinal), &argentina)
	// Each goal as minute, type, side (ARG or FRA), running score, scorer.
	want := fmt.Sprintf("23' PENALTY ARG 1-0 %[1]d, 36' REGULAR ARG 2-0 %[2]d, 80' PENALTY FRA 2-1 %[3]d, 81' REGULAR FRA 2-2 %[3]d, "+
		"108' REGULAR ARG 3-2 %[1]d, 118' PENALTY FRA 3-3 %[3]d", messi, diMaria, mbappe)
	type goal struct {
		Minute int    `json:"minute"`
		Type   string `json:"type"`
		Team   struct {
			ID int `json:"id"`
		} `json:"team"`
		Scorer struct {
			ID *int `json:"id"`
		} `json:"scorer"`
		Score struct {
			Home, Away int
		} `json:"score"`
	}
	type match struct {
		ID    int              `json:"id"`
		Venue *string          `json:"venue"`
		Goals *json.RawMessage `json:"goals"`
		Score struct {
			FullTime  struct{ Home, Away *int } `json:"fullTime"`
			Penalties *struct{ Home, Away int } `json:"penalties"`
		} `json:"score"`
	}
	render := func(raw *json.RawMessage) string {
		var gs []goal
		if err := json.Unmarshal(*raw, &gs); err != nil {
			t.Fatal(err)
		}
		var parts []string
		for _, g := range gs {
			team := "FRA"
			if g.Team.ID == argentina.HomeTeam.ID {
				team = "ARG"
			}
			parts = append(parts, fmt.Sprintf("%d' %s %s %d-%d %d", g.Minute, g.Type, team, g.Score.Home, g.Score.Away, *g.Scorer.ID))
		}
		return strings.Join(parts, ", ")
	}
	var single match
	w.getJSON(t, fmt.Sprintf("/v4/matches/%d", w.wcFinal), &single)
	if single.Goals == nil || render(single.Goals) != want || single.Venue == nil || *single.Venue != "Lusail Iconic Stadium, Lusail" {
		t.Fatalf("single match: venue %v, goals %v", single.Venue, single.Goals)
	}
	for _, path := range []string{
		"/v4/competitions/WC/matches?stage=FINAL",
		fmt.Sprintf("/v4/matches?ids=%d", w.wcFinal),
		fmt.Sprintf("/v4/teams/%d/matches?competitions=WC", argentina.HomeTeam.ID),
		fmt.Sprintf("/v4/matches/%d/head2head", w.wcFinal),
		fmt.Sprintf("/v4/persons/%d/matches", messi),
	} {
		t.Run(path, func(t *testing.T) {
			for _, c := range []struct {
				header string
				unfold bool
			}{{"", false}, {"true", true}, {"false", false}, {"TRUE", true}} {
				h := map[string]string{}
				if c.header != "" {
					h["X-Unfold-Goals"] = c.header
				}
				resp := w.get(path, h)
				var out struct {
					Matches []match `json:"matches"`
				}
				if err := json.Unmarshal(resp.body, &out); err != nil || resp.status != 200 {
					t.Fatalf("X-Unfold-Goals %q: %d %s", c.header, resp.status, resp.body)
				}
				if got := resp.header.Get("Vary"); got != "Accept-Encoding, X-Auth-Token, X-Unfold-Goals" {
					t.Errorf("Vary %q", got)
				}
				found := false
				for _, m := range out.Matches {
					if m.Venue != nil {
						t.Errorf("a listed match has a venue")
					}
					switch {
					case (m.Goals != nil) != c.unfold:
						t.Errorf("X-Unfold-Goals %q: match %d has goals %v", c.header, m.ID, m.Goals != nil)
					case c.unfold && m.ID == w.wcFinal:
						found = true
						if got := render(m.Goals); got != want {
							t.Errorf("final's goals\n%s\nwant\n%s", got, want)
						}
					case c.unfold && m.Score.FullTime.Home != nil:
						// Imported from the World Cup file: the goals make
						// the score (v4's fullTime counts the shoot-out).
						var gs []goal
						if err := json.Unmarshal(*m.Goals, &gs); err != nil {
							t.Fatal(err)
						}
						total := *m.Score.FullTime.Home + *m.Score.FullTime.Away
						if p := m.Score.Penalties; p != nil {
							total -= p.Home + p.Away
						}
						if len(gs) != total {
							t.Errorf("match %d: %d goals for a score of %d goals: %s", m.ID, len(gs), total, *m.Goals)
						}
					}
				}
				if c.unfold && !found {
					t.Errorf("the final is not in the list")
				}
			}
		})
	}
}

// TestV4PersonErrors: v4's error body for persons and scorers, through
// the one error writer.
func TestV4PersonErrors(t *testing.T) {
	w := theV4World(t)
	for _, c := range []struct {
		path    string
		status  int
		message string
	}{
		{"/v4/persons/99999999", 404, "person 99999999 does not exist"},
		{"/v4/persons/99999999/matches", 404, "person 99999999 does not exist"},
		{"/v4/players/99999999/matches", 404, "person 99999999 does not exist"},
		{"/v4/persons/x", 400, "person id must be an integer such as 42, got 'x'"},
		{fmt.Sprintf("/v4/persons/%d/matches?limit=0", mbappe), 400, "limit must be an integer from 1 to 500, got '0'"},
		{fmt.Sprintf("/v4/persons/%d/matches?offset=x", mbappe), 400, "offset must be an integer from 0 to 500, got 'x'"},
		{fmt.Sprintf("/v4/persons/%d/matches?dateFrom=2022-12-01", mbappe), 400, "dateFrom and dateTo go together"},
		{fmt.Sprintf("/v4/persons/%d/matches?status=DONE", mbappe), 400, "status must be a comma-separated list of SCHEDULED"},
		{fmt.Sprintf("/v4/persons/%d/matches?competitions=P,L", mbappe), 400, "competitions must be a comma-separated list"},
		{"/v4/competitions/WC/scorers?limit=x", 400, "limit must be an integer from 1 to 500, got 'x'"},
		{"/v4/competitions/WC/scorers?season=22", 400, "season must be a four-digit year"},
		{"/v4/competitions/WC/scorers?season=2018", 404, "has no season 2018"},
		{"/v4/competitions/XYZ/scorers", 404, "competition XYZ does not exist"},
		{"/v4/competitions/DED/scorers", 403, "available to donating clients only"},
	} {
		t.Run(c.path, func(t *testing.T) {
			resp := w.get(c.path, nil)
			var body struct {
				Message   string `json:"message"`
				ErrorCode int    `json:"errorCode"`
			}
			if err := json.Unmarshal(resp.body, &body); err != nil {
				t.Fatalf("body %s: %v", resp.body, err)
			}
			if resp.status != c.status || body.ErrorCode != c.status || !strings.Contains(body.Message, c.message) {
				t.Errorf("GET %s: %d %s, want %d with %q", c.path, resp.status, resp.body, c.status, c.message)
			}
			if err := servedDoc(t).check(strings.Split(c.path, "?")[0], resp.status, resp.header.Get("Content-Type"), resp.body); err != nil {
				t.Errorf("against openapi.json: %v", err)
			}
		})
	}
	if resp := w.get("/v4/persons/1", map[string]string{"X-Auth-Token": "0000notatoken"}); resp.status != http.StatusBadRequest {
		t.Errorf("an unknown token: %d", resp.status)
	}
}
