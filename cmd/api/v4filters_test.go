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
		{"default", "", `{"limit":15,"permission":"TIER_ONE"}`, []string{"2022-09-04", "2022-05-07", "2021-08-29"}},
		{"limit", "?limit=2", `{"limit":2,"permission":"TIER_ONE"}`, []string{"2022-09-04", "2022-05-07"}},
		{"dateTo is exclusive", "?dateFrom=2022-01-01&dateTo=2022-09-04",
			`{"limit":15,"dateFrom":"2022-01-01","dateTo":"2022-09-04","permission":"TIER_ONE"}`, []string{"2022-05-07"}},
		{"dateTo the day after", "?dateFrom=2022-05-07&dateTo=2022-09-05",
			`{"limit":15,"dateFrom":"2022-05-07","dateTo":"2022-09-05","permission":"TIER_ONE"}`, []string{"2022-09-04", "2022-05-07"}},
		{"competition code", "?competitions=fl1", `{"limit":15,"competitions":"FL1","permission":"TIER_ONE"}`,
			[]string{"2022-09-04", "2022-05-07", "2021-08-29"}},
		{"competition id", "?competitions=2015&limit=1", `{"limit":1,"competitions":"2015","permission":"TIER_ONE"}`, []string{"2022-09-04"}},
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
