package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// v4Error checks that resp is v4's 400 with a message containing hint.
func v4Error(t *testing.T, path string, resp response, hint string) {
	t.Helper()
	var body struct {
		Message   string `json:"message"`
		ErrorCode int    `json:"errorCode"`
	}
	if err := json.Unmarshal(resp.body, &body); err != nil {
		t.Fatalf("GET %s: body %s: %v", path, resp.body, err)
	}
	if resp.status != http.StatusBadRequest || body.ErrorCode != http.StatusBadRequest || !strings.Contains(body.Message, hint) {
		t.Errorf("GET %s: %d %s, want 400 with %q", path, resp.status, resp.body, hint)
	}
}

// TestV4HeadToHeadFilters: head2head's limit (upstream's default 15),
// dateFrom/dateTo (dateTo exclusive, as on every v4 route) and
// competitions (codes or ids) select the meetings of Brest and Strasbourg,
// and filters echoes them in upstream's order.
func TestV4HeadToHeadFilters(t *testing.T) {
	w := theV4World(t)
	type h2h struct {
		Filters   json.RawMessage `json:"filters"`
		ResultSet struct {
			Count int    `json:"count"`
			First string `json:"first"`
			Last  string `json:"last"`
		} `json:"resultSet"`
		Aggregates struct {
			NumberOfMatches int `json:"numberOfMatches"`
		} `json:"aggregates"`
		Matches []v4ListMatch `json:"matches"`
	}
	for _, c := range []struct {
		name, query string
		filters     string // the echo, byte for byte
		days        []string
	}{
		// The return leg of March 2023 counts, as upstream's return legs.
		{"default", "", `{"limit":15,"permission":"TIER_ONE"}`, []string{"2023-03-05", "2022-09-04", "2022-05-07", "2021-08-29"}},
		{"limit", "?limit=2", `{"limit":2,"permission":"TIER_ONE"}`, []string{"2023-03-05", "2022-09-04"}},
		{"a window after the match", "?dateFrom=2022-09-05&dateTo=2023-12-31",
			`{"limit":15,"dateFrom":"2022-09-05","dateTo":"2023-12-31","permission":"TIER_ONE"}`, []string{"2023-03-05"}},
		{"dateTo is exclusive", "?dateFrom=2022-01-01&dateTo=2022-09-04",
			`{"limit":15,"dateFrom":"2022-01-01","dateTo":"2022-09-04","permission":"TIER_ONE"}`, []string{"2022-05-07"}},
		{"dateTo the day after", "?dateFrom=2022-05-07&dateTo=2022-09-05",
			`{"limit":15,"dateFrom":"2022-05-07","dateTo":"2022-09-05","permission":"TIER_ONE"}`, []string{"2022-09-04", "2022-05-07"}},
		{"competition code", "?competitions=fl1", `{"limit":15,"competitions":"FL1","permission":"TIER_ONE"}`,
			[]string{"2023-03-05", "2022-09-04", "2022-05-07", "2021-08-29"}},
		{"competition id", "?competitions=2015&limit=1", `{"limit":1,"competitions":"2015","permission":"TIER_ONE"}`, []string{"2023-03-05"}},
		{"other competitions", "?competitions=PL,BL1", `{"limit":15,"competitions":"PL,BL1","permission":"TIER_ONE"}`, []string{}},
		{"unknown competition", "?competitions=XX", `{"limit":15,"competitions":"XX","permission":"TIER_ONE"}`, []string{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got h2h
			w.getJSON(t, fmt.Sprintf("/v4/matches/%d/head2head%s", w.brest, c.query), &got)
			if string(got.Filters) != c.filters {
				t.Errorf("filters %s, want %s", got.Filters, c.filters)
			}
			days := []string{}
			for _, m := range got.Matches {
				days = append(days, m.UTCDate[:10])
			}
			if fmt.Sprint(days) != fmt.Sprint(c.days) || got.ResultSet.Count != len(c.days) || got.Aggregates.NumberOfMatches != len(c.days) {
				t.Errorf("meetings %v (count %d, aggregates %d), want %v", days, got.ResultSet.Count, got.Aggregates.NumberOfMatches, c.days)
			}
			if len(c.days) > 0 && (got.ResultSet.First != c.days[len(c.days)-1] || got.ResultSet.Last != c.days[0]) {
				t.Errorf("resultSet first %s last %s, want %s and %s", got.ResultSet.First, got.ResultSet.Last, c.days[len(c.days)-1], c.days[0])
			}
		})
	}
	for _, c := range []struct{ query, hint string }{
		{"?dateFrom=2022-01-01", "dateFrom and dateTo go together"},
		{"?dateFrom=2022-01-01&dateTo=2022-02-30", "dateTo must be a date YYYY-MM-DD, got '2022-02-30'"},
		{"?dateFrom=2022-03-01&dateTo=2022-02-01", "dateTo (2022-02-01) must not be before dateFrom"},
		{"?competitions=F,L1", "competitions must be a comma-separated list"},
		{"?limit=0", "limit must be an integer from 1 to 500, got '0'"},
	} {
		path := fmt.Sprintf("/v4/matches/%d/head2head%s", w.brest, c.query)
		v4Error(t, path, w.get(path, nil), c.hint)
	}
}

// TestV4StandingsDate: standings at a date are the matchday table of the
// highest matchday played by the end of that day, the season the one that
// had begun by then; the same table as the matchday filter's and, in
// TOTAL, as v1's leagueTable of that matchday.
func TestV4StandingsDate(t *testing.T) {
	w := theV4World(t)
	type answer struct {
		Filters   json.RawMessage `json:"filters"`
		Standings json.RawMessage `json:"standings"`
	}
	type v1Table struct {
		Matchday int `json:"matchday"`
		Standing []struct {
			TeamID int `json:"teamId"`
			Points int `json:"points"`
		} `json:"standing"`
	}
	for _, c := range []struct {
		name, path string
		matchday   int
		filters    string
	}{
		{"first day", "/v4/competitions/BL1/standings?date=2022-08-05", 1, `{"season":"2022","date":"2022-08-05"}`},
		{"season given", "/v4/competitions/BL1/standings?season=2022&date=2022-09-03", 5, `{"season":"2022","date":"2022-09-03"}`},
		{"winter break", "/v4/competitions/2002/standings?date=2022-12-25", 15, `{"season":"2022","date":"2022-12-25"}`},
		{"restart", "/v4/competitions/BL1/standings?date=2023-01-20", 16, `{"season":"2022","date":"2023-01-20"}`},
		{"today", "/v4/competitions/BL1/standings?date=today", 24, `{"season":"2022","date":"TODAY"}`},
		{"after the season", "/v4/competitions/BL1/standings?date=2023-07-01", 34, `{"season":"2022","date":"2023-07-01"}`},
		{"tournament", "/v4/competitions/WC/standings?date=2022-11-21", 1, `{"season":"2022","date":"2022-11-21"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got, byMatchday answer
			w.getJSON(t, c.path, &got)
			if string(got.Filters) != c.filters {
				t.Errorf("filters %s, want %s", got.Filters, c.filters)
			}
			code := strings.Split(c.path, "/")[3]
			w.getJSON(t, fmt.Sprintf("/v4/competitions/%s/standings?season=2022&matchday=%d", code, c.matchday), &byMatchday)
			if string(got.Standings) != string(byMatchday.Standings) {
				t.Errorf("standings differ from matchday %d's:\n%s\n%s", c.matchday, got.Standings, byMatchday.Standings)
			}
			if code == "WC" {
				return
			}
			var v4 struct {
				Standings []struct {
					Type  string `json:"type"`
					Table []struct {
						Team struct {
							ID int `json:"id"`
						} `json:"team"`
						Points int `json:"points"`
					} `json:"table"`
				} `json:"standings"`
			}
			var v1 v1Table
			if err := json.Unmarshal(got.Standings, &v4.Standings); err != nil {
				t.Fatal(err)
			}
			w.getJSON(t, fmt.Sprintf("/v1/competitions/%d/leagueTable?matchday=%d", w.bl1, c.matchday), &v1)
			total := v4.Standings[0]
			if total.Type != "TOTAL" || len(total.Table) != len(v1.Standing) || v1.Matchday != c.matchday {
				t.Fatalf("TOTAL %d rows, v1 %d rows at matchday %d", len(total.Table), len(v1.Standing), v1.Matchday)
			}
			for i, r := range total.Table {
				if r.Team.ID != v1.Standing[i].TeamID || r.Points != v1.Standing[i].Points {
					t.Errorf("row %d: v4 team %d %d points, v1 team %d %d points", i+1, r.Team.ID, r.Points, v1.Standing[i].TeamID, v1.Standing[i].Points)
				}
			}
		})
	}
	for _, c := range []struct {
		path   string
		status int
		hint   string
	}{
		{"/v4/competitions/BL1/standings?date=2022-02-30", 400, "date must be a date YYYY-MM-DD, YESTERDAY, TODAY or TOMORROW, got '2022-02-30'"},
		{"/v4/competitions/BL1/standings?date=2023-01-01&matchday=3", 400, "date cannot be combined with matchday"},
		{"/v4/competitions/BL1/standings?date=2022-08-04", 404, "competition BL1 had played no match by 2022-08-04"},
		{"/v4/competitions/BL1/standings?season=2022&date=2022-08-04", 404, "had played no match of season 2022 by 2022-08-04"},
	} {
		resp := w.get(c.path, nil)
		if c.status == 400 {
			v4Error(t, c.path, resp, c.hint)
			continue
		}
		if resp.status != c.status || !strings.Contains(string(resp.body), c.hint) {
			t.Errorf("GET %s: %d %s, want %d with %q", c.path, resp.status, resp.body, c.status, c.hint)
		}
	}
}

// TestV4TeamMatchesVenue: venue=HOME|AWAY (any case) keeps a team's home
// or away matches, and is echoed as upstream spells it.
func TestV4TeamMatchesVenue(t *testing.T) {
	w := theV4World(t)
	type list struct {
		Filters map[string]any `json:"filters"`
		Matches []struct {
			HomeTeam struct {
				ID int `json:"id"`
			} `json:"homeTeam"`
			AwayTeam struct {
				ID int `json:"id"`
			} `json:"awayTeam"`
		} `json:"matches"`
	}
	for _, c := range []struct {
		query      string
		home, away int
		echo       any
	}{
		{"", 17, 17, nil},
		{"?venue=HOME", 17, 0, "HOME"},
		{"?venue=away", 0, 17, "AWAY"},
		{"?venue=AWAY&limit=5", 0, 5, "AWAY"},
	} {
		t.Run(c.query, func(t *testing.T) {
			var got list
			path := fmt.Sprintf("/v4/teams/%d/matches", w.koeln)
			w.getJSON(t, path+c.query, &got)
			resp := w.get(path+c.query, nil)
			if err := servedDoc(t).check(path, resp.status, resp.header.Get("Content-Type"), resp.body); err != nil {
				t.Errorf("against openapi.json: %v", err)
			}
			home, away := 0, 0
			for _, m := range got.Matches {
				switch w.koeln {
				case m.HomeTeam.ID:
					home++
				case m.AwayTeam.ID:
					away++
				}
			}
			if home != c.home || away != c.away || got.Filters["venue"] != c.echo {
				t.Errorf("%d at home, %d away, venue echoed %v; want %d, %d, %v", home, away, got.Filters["venue"], c.home, c.away, c.echo)
			}
		})
	}
}

// TestV4FilterValues: every filter of the spec's table refuses a malformed
// value with a 400 naming it, and takes every well-formed one.
func TestV4FilterValues(t *testing.T) {
	w := theV4World(t)
	for _, c := range []struct {
		path string
		hint string // "" for a 200
	}{
		{"/v4/teams/%d/matches?venue=NEUTRAL", "venue must be HOME or AWAY, got 'NEUTRAL'"},
		{"/v4/teams/%d/matches?venue=", "venue must be HOME or AWAY, got ''"},
		{"/v4/teams/%d/matches?season=0000", "season must be a four-digit year such as 2015, got '0000'"},
		{"/v4/competitions/BL1/standings?season=0999", "season must be a four-digit year"},
		{"/v4/matches?competitions=12345678", "competitions must be a comma-separated list"},
		{"/v4/matches?competitions=PL,", "competitions must be a comma-separated list"},
		// A league an editor adds has a v4 id of up to 7 digits.
		{"/v4/matches?competitions=1234567", ""},
		{"/v4/teams/%d/matches?competitions=BL1,100411", ""},
		{"/v4/matches/%d/head2head?competitions=1974161", ""},
	} {
		path := c.path
		if strings.Contains(path, "%d") {
			id := w.koeln
			if strings.Contains(path, "head2head") {
				id = w.brest
			}
			path = fmt.Sprintf(path, id)
		}
		resp := w.get(path, nil)
		if c.hint == "" {
			if resp.status != http.StatusOK {
				t.Errorf("GET %s: %d %s, want 200", path, resp.status, resp.body)
			}
			continue
		}
		v4Error(t, path, resp, c.hint)
	}
}
