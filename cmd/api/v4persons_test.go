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

// The persons of the v4 world: the scorers of the World Cup 2022's final
// and of Japan–Croatia, published straight to the stream (the importer's
// goals are another change's). Mbappé is a squad's player, Messi a person
// event, Di María a scorer only his goals name, Doan a scorer without an
// id, and a reserve keeper a person without a team or a match.
const (
	messi         = 9001
	mbappe        = 9002
	diMaria       = 9003
	perisic       = 9005
	reserveKeeper = 9006
)

// addGoals publishes the goals, squads and persons of the v4 world.
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
	// The goals below name their sides as the data has them.
	if w.wcFinal == 0 || !strings.Contains(home, "Argentina") || japanCroatia != "Japan–Croatia" {
		t.Fatalf("World Cup final %d at home %q, the first shoot-out %q", w.wcFinal, home, japanCroatia)
	}
	g := func(minute, injury int, side model.Side, typ model.GoalType, id int, name string) model.Goal {
		return model.Goal{Minute: minute, Injury: injury, Side: side, Type: typ, ScorerID: id, Scorer: name}
	}
	withGoals := func(id int, venue string, goals ...model.Goal) *model.Fixture {
		f, _, err := ed.Fixture(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		f.Goals = goals
		f.Venue = venue
		return f
	}
	born := model.Date("1998-12-20")
	ten := 10
	natstest.Put(t, s,
		&model.Squad{TeamID: france, Players: []model.Player{{ID: mbappe, Name: "Kylian Mbappé", Position: "Offence", Nationality: "France",
			DateOfBirth: &born, JerseyNumber: &ten}}},
		&model.Person{ID: messi, Name: "Lionel Messi", TeamID: argentina, Nationality: "Argentina", Position: "Offence", Aliases: []string{"Messi"}},
		&model.Person{ID: reserveKeeper, Name: "Reserve Keeper", Nationality: "Norway"},
		withGoals(w.wcFinal, "Lusail Iconic Stadium, Lusail",
			g(23, 0, model.Home, model.GoalPenalty, messi, "Messi"),
			g(36, 0, model.Home, model.GoalRegular, diMaria, "Di María"),
			g(80, 0, model.Away, model.GoalPenalty, mbappe, "Mbappé"),
			g(81, 0, model.Away, model.GoalRegular, mbappe, "Mbappé"),
			g(108, 0, model.Home, model.GoalRegular, messi, "Messi"),
			g(118, 0, model.Away, model.GoalPenalty, mbappe, "Mbappé")),
		withGoals(w.wcKnockout, "Al Janoub Stadium, Al Wakrah",
			g(43, 0, model.Home, model.GoalRegular, 0, "Doan"),
			g(55, 0, model.Away, model.GoalRegular, perisic, "Perišić")),
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

// TestV4Scorers: a season's scorers from its goals: regular and penalty
// goals count, penalties apart; most goals first, then by name.
func TestV4Scorers(t *testing.T) {
	w := theV4World(t)
	all := []string{
		fmt.Sprintf("%d Kylian Mbappé (France) 3/2", mbappe),
		fmt.Sprintf("%d Lionel Messi (Argentina) 2/1", messi),
		fmt.Sprintf("%d Di María (Argentina) 1/null", diMaria),
		"null Doan (Japan) 1/null",
		fmt.Sprintf("%d Perišić (Croatia) 1/null", perisic),
	}
	for _, c := range []struct {
		path    string
		filters string
		want    []string
	}{
		{"/v4/competitions/WC/scorers", `{"season":"2022","limit":10}`, all},
		{"/v4/competitions/2000/scorers?limit=2&season=2022", `{"season":"2022","limit":2}`, all[:2]},
		{"/v4/competitions/BL1/scorers", `{"season":"2022","limit":10}`, []string{}},
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
			if !reflect.DeepEqual(got, c.want) || out.Count != len(c.want) || string(out.Filters) != c.filters {
				t.Errorf("count %d, filters %s, scorers\n%v\nwant %s\n%v", out.Count, out.Filters, got, c.filters, c.want)
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
		{fmt.Sprintf("/v4/persons/%d", diMaria), "Di María", "", "", nil, false, false},
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
	for _, c := range []struct {
		path      string
		want      []int
		resultSet string
	}{
		{fmt.Sprintf("/v4/players/%d/matches?limit=2&offset=1", mbappe), v4IDs(france.Matches)[1:3], ""},
		{fmt.Sprintf("/v4/persons/%d/matches", diMaria), []int{w.wcFinal}, "map[competitions:WC count:1 first:2022-12-18 last:2022-12-18]"},
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
					case c.unfold && m.ID != w.wcFinal && m.ID != w.wcKnockout && string(*m.Goals) != "[]":
						t.Errorf("match %d: goals %s, want []", m.ID, *m.Goals)
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
