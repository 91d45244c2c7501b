package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// world is the data every conformance test reads: real seasons imported
// through the importer, a restricted competition and three clients.
type world struct {
	r                    *replica
	acme, gold           string // tokens: registered, donating
	manUtdSpurs          int    // fixture id of Man Utd v Spurs, PL 2015 matchday 1
	manUtd, leicester    int    // team ids
	pl2015, fl2016, wc18 int
	pl2025               int
}

var (
	worldOnce sync.Once
	shared    *world
)

// theWorld starts one replica for the conformance tests, with the demo
// clock of the 2025-26 snapshot (2026-03-13).
func theWorld(t *testing.T) *world {
	worldOnce.Do(func() {
		w := &world{}
		w.r = startReplica(&worldT{T: t}, "", "--now", "2026-03-13T12:00:00Z", "--public-url", "http://api.test")
		s := w.r.store()
		importFiles(t, s,
			"openfootball-football-json/2015-16/en.1.json",
			"openfootball-football-json/2016-17/fr.1.json",
			"openfootball-worldcup-json/2018/worldcup.json",
			"openfootball-football-json/2025-26/en.1.json")
		// Seasons the v1 service had keep their historic ids.
		w.pl2015, w.fl2016, w.wc18, w.pl2025 = 398, 434, 467, 1
		ed := natstest.Editor(t, s)
		if _, _, err := ed.PutCompetition(context.Background(), w.fl2016, func(c *model.Competition) error {
			c.Tier = model.TierDonating
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		w.acme = addClient(t, s, "acme", model.TierRegistered, 1000)
		w.gold = addClient(t, s, "gold", model.TierDonating, 1000)
		w.r.waitApplied(s)
		var search struct {
			Teams []struct {
				ID   int    `json:"id"`
				Name string `json:"name"`
			} `json:"teams"`
		}
		w.getJSON(t, "/v1/teams?name=manchester%20united", w.acme, &search)
		w.manUtd = search.Teams[0].ID
		w.getJSON(t, "/v1/teams?name=leicester", w.acme, &search)
		w.leicester = search.Teams[0].ID
		var fixtures struct {
			Fixtures []struct {
				ID           int    `json:"id"`
				HomeTeamName string `json:"homeTeamName"`
			} `json:"fixtures"`
		}
		w.getJSON(t, fmt.Sprintf("/v1/competitions/%d/fixtures?matchday=1", w.pl2015), w.acme, &fixtures)
		for _, f := range fixtures.Fixtures {
			if f.HomeTeamName == "Manchester United" {
				w.manUtdSpurs = f.ID
			}
		}
		shared = w
	})
	if shared == nil {
		t.Fatal("the conformance world could not be built (see the first failing test)")
	}
	return shared.forTest(t)
}

// forTest is the world as test t sees it: what fails in its requests is
// t's failure.
func (w *world) forTest(t testing.TB) *world {
	c := *w
	c.r = w.r.forTest(t)
	return &c
}

func (w *world) getJSON(t *testing.T, path, token string, into any) {
	t.Helper()
	resp := w.r.do("GET", path, map[string]string{"X-Auth-Token": token})
	if resp.status != 200 {
		t.Fatalf("GET %s: %d %s", path, resp.status, resp.body)
	}
	if err := json.Unmarshal(resp.body, into); err != nil {
		t.Fatal(err)
	}
}

// waitApplied waits until the replica has applied everything in the stream.
func (r *replica) waitApplied(s *events.Store) {
	r.t.Helper()
	last, err := s.LastSeq(context.Background())
	if err != nil {
		r.t.Fatal(err)
	}
	natstest.CheckFor(r.t, 30*time.Second, 10*time.Millisecond, func() error {
		resp, err := http.Get(r.admin + "/metrics")
		if err != nil {
			r.t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var served, applied uint64
		for _, line := range strings.Split(string(body), "\n") {
			fmt.Sscanf(line, "fd_stream_last_applied_sequence %d", &applied)
			if _, err := fmt.Sscanf(line, "fd_stream_served_sequence %d", &served); err == nil && served >= last {
				return nil
			}
		}
		// Where it stopped (not delivered, or applied and not published)
		// and what it logged (warnings and errors: a lost consumer and
		// each attempt to replace it) say why.
		return fmt.Errorf("replica %s did not apply up to %d: it applied %d and serves %d\n%s", r.base, last, applied, served, r.logs.String())
	})
}

func TestEndpoints(t *testing.T) {
	w := theWorld(t)
	tests := []struct {
		name   string
		path   string
		header map[string]string
		status int
		golden string   // compare the body with testdata/<golden>.json
		has    []string // substrings the body must contain
	}{
		{"competitions of the current season", "/v1/competitions/", nil, 200, "competitions-current", nil},
		{"competitions of 2015", "/v1/competitions?season=2015", nil, 200, "competitions-2015", nil},
		{"competitions minified", "/v1/competitions/?season=2015", map[string]string{"X-Response-Control": "minified"}, 200, "competitions-2015-minified", nil},
		{"bad season", "/v1/competitions?season=15", nil, 400, "", []string{`"error":"season must be a four-digit year such as 2015, got '15'"`}},
		{"one competition", "/v1/competitions/398", nil, 200, "competition-1", nil},
		{"unknown competition", "/v1/competitions/999", nil, 404, "", []string{`competition 999 does not exist`}},
		{"competition id not a number", "/v1/competitions/abc", nil, 400, "", []string{`competition id must be an integer`}},
		{"teams of a competition", "/v1/competitions/398/teams", nil, 200, "competition-1-teams", nil},
		{"teams minified", "/v1/competitions/398/teams/", map[string]string{"X-Response-Control": "minified"}, 200, "competition-1-teams-minified", nil},
		{"final table of a former season", "/v1/competitions/398/leagueTable", nil, 200, "table-1", nil},
		{"table at matchday 10", "/v1/competitions/398/leagueTable/?matchday=10", nil, 200, "table-1-md10", nil},
		{"table minified", "/v1/competitions/398/leagueTable?matchday=10", map[string]string{"X-Response-Control": "minified"}, 200, "table-1-md10-minified", nil},
		{"table beyond the last matchday", "/v1/competitions/398/leagueTable?matchday=39", nil, 200, "", []string{`"matchday":null`, `"standing":[]`}},
		{"table matchday zero", "/v1/competitions/398/leagueTable?matchday=0", nil, 400, "", []string{`matchday must be an integer from 1 to 99, got '0'`}},
		{"tournament groups", "/v1/competitions/467/leagueTable", nil, 200, "table-wc2018", nil},
		{"fixtures of a matchday", "/v1/competitions/398/fixtures?matchday=1", nil, 200, "competition-1-fixtures-md1", nil},
		{"fixtures compressed", "/v1/competitions/398/fixtures?matchday=1", map[string]string{"X-Response-Control": "compressed"}, 200, "competition-1-fixtures-md1-compressed", nil},
		{"fixtures past week of a former season", "/v1/competitions/398/fixtures?timeFrame=p7", nil, 200, "", []string{`"timeFrameStart":"2026-03-06"`, `"timeFrameEnd":"2026-03-13"`, `"count":0`}},
		{"fixtures date range", "/v1/competitions/398/fixtures?timeFrameStart=2015-08-08&timeFrameEnd=2015-08-09", nil, 200, "", []string{`"count":9`}},
		{"bad timeFrame", "/v1/competitions/398/fixtures?timeFrame=x9", nil, 400, "", []string{`timeFrame must be p or n followed by a number of days from 1 to 99`}},
		{"timeFrame 0", "/v1/fixtures?timeFrame=n0", nil, 400, "", []string{`got 'n0'`}},
		{"timeFrame 100", "/v1/fixtures?timeFrame=p100", nil, 400, "", []string{`got 'p100'`}},
		{"range start alone", "/v1/fixtures?timeFrameStart=2026-03-01", nil, 400, "", []string{`timeFrameStart and timeFrameEnd go together`}},
		{"range reversed", "/v1/fixtures?timeFrameStart=2026-03-10&timeFrameEnd=2026-03-01", nil, 400, "", []string{`must not be before`}},
		{"range too wide across competitions", "/v1/fixtures?timeFrameStart=2015-01-01&timeFrameEnd=2016-01-01", nil, 400, "", []string{`spans 365 days; /v1/fixtures serves at most 99 days`}},
		{"a season of one competition by range", "/v1/competitions/398/fixtures?timeFrameStart=2015-08-01&timeFrameEnd=2016-06-01", nil, 200, "", []string{`"count":380`}},
		{"range and timeFrame", "/v1/fixtures?timeFrame=n7&timeFrameStart=2026-03-01&timeFrameEnd=2026-03-02", nil, 400, "", []string{`cannot be combined`}},
		{"range bad date", "/v1/fixtures?timeFrameStart=2026-02-30&timeFrameEnd=2026-03-02", nil, 400, "", []string{`timeFrameStart must be a date YYYY-MM-DD, got '2026-02-30'`}},
		{"fixtures of the next week", "/v1/fixtures/", nil, 200, "fixtures-n7", nil},
		{"empty query string", "/v1/fixtures/?", nil, 200, "fixtures-n7", nil},
		{"odd query string", "/v1/fixtures?&timeFrame=n7", nil, 200, "fixtures-n7", nil},
		{"league filter", "/v1/fixtures?timeFrame=p3&league=PL", nil, 200, "fixtures-p3-pl", nil},
		{"unused league code", "/v1/fixtures?league=XYZ", nil, 200, "", []string{`"count":0`, `"fixtures":[]`}},
		{"bad league code", "/v1/fixtures?league=P", nil, 400, "", []string{`league must be a comma-separated list of league codes`}},
		{"unknown parameters ignored", "/v1/fixtures?foo=bar&timeFrame=n7", nil, 200, "fixtures-n7", nil},
		{"one fixture with head2head", fmt.Sprintf("/v1/fixtures/%d", w.manUtdSpurs), nil, 200, "fixture-h2h", nil},
		{"head2head 0", fmt.Sprintf("/v1/fixtures/%d?head2head=0", w.manUtdSpurs), nil, 200, "", []string{`"count":0`, `"timeFrameStart":null`, `"lastWinHomeTeam":null`, `"fixtures":[]`}},
		{"head2head not a number", fmt.Sprintf("/v1/fixtures/%d?head2head=ten", w.manUtdSpurs), nil, 400, "", []string{`head2head must be an integer from 0 to 1000`}},
		{"fixture compressed", fmt.Sprintf("/v1/fixtures/%d", w.manUtdSpurs), map[string]string{"X-Response-Control": "compressed"}, 200, "fixture-h2h-compressed", nil},
		{"unknown fixture", "/v1/fixtures/99999999", nil, 404, "", []string{`fixture 99999999 does not exist`}},
		{"one team", fmt.Sprintf("/v1/teams/%d", w.manUtd), nil, 200, "team", nil},
		{"one team minified", fmt.Sprintf("/v1/teams/%d", w.manUtd), map[string]string{"X-Response-Control": "minified"}, 200, "team-minified", nil},
		{"team fixtures of a season", fmt.Sprintf("/v1/teams/%d/fixtures?season=2015", w.leicester), nil, 200, "team-fixtures-2015", nil},
		{"team home fixtures", fmt.Sprintf("/v1/teams/%d/fixtures/?season=2015&venue=home", w.leicester), nil, 200, "", []string{`"count":19`}},
		{"team fixtures bad venue", fmt.Sprintf("/v1/teams/%d/fixtures?venue=road", w.leicester), nil, 400, "", []string{`venue must be 'home' or 'away', got 'road'`}},
		{"team players", fmt.Sprintf("/v1/teams/%d/players", w.manUtd), nil, 200, "", []string{`"count":0`, `"players":[]`}},
		{"unknown team", "/v1/teams/99999", nil, 404, "", []string{`team 99999 does not exist`}},
		{"team search", "/v1/teams?name=manchester", nil, 200, "search-manchester", nil},
		{"team search without name", "/v1/teams", nil, 400, "", []string{`name is required`}},
		{"old path", "/v1/soccerseasons/398", nil, 200, "soccerseason-1", nil},
		{"old path table", "/v1/soccerseasons/398/leagueTable?matchday=1", nil, 200, "", []string{`"self":{"href":"http://api.test/v1/soccerseasons/398/leagueTable/?matchday=1"}`}},
		{"alpha", "/alpha/soccerseasons/398/fixtures?matchday=1", nil, 200, "", []string{`"href":"http://api.test/alpha/fixtures/`}},
		{"alpha v1-only resource", "/alpha/competitions/398", nil, 403, "", []string{`not available in this API version`}},
		{"alpha team search", "/alpha/teams?name=x", nil, 403, "", []string{`not available in this API version`}},
		// A 404 names what the version asked for serves.
		{"unknown path", "/v1/players", nil, 404, "", []string{`"error":"no resource at /v1/players; the v1 API serves /v1/competitions, /v1/events, ` +
			`/v1/fixtures, /v1/openapi.json, /v1/soccerseasons and /v1/teams; see http://api.test/v1/openapi.json for the paths"`}},
		{"unknown alpha path", "/alpha/players", nil, 404, "", []string{`"error":"no resource at /alpha/players; the alpha API serves /alpha/fixtures, ` +
			`/alpha/soccerseasons and /alpha/teams; see http://api.test/docs for the reference"`}},
		{"unknown top path", "/nothing", nil, 404, "", []string{`"error":"no resource at /nothing; the v1 API is served under /v1 and the v4 API under /v4; ` +
			`see http://api.test/docs for the reference"`}},
		{"bad X-Response-Control", "/v1/competitions/398", map[string]string{"X-Response-Control": "tiny"}, 400, "", []string{`X-Response-Control must be full, minified or compressed, got 'tiny'`}},
		{"restricted competition, anonymous", "/v1/competitions/434", nil, 403, "", []string{`available to donating clients only`}},
		{"restricted competition, registered", "/v1/competitions/434/leagueTable", map[string]string{"X-Auth-Token": w.acme}, 403, "", []string{`available to donating clients only`}},
		{"restricted competition, donating", "/v1/competitions/434/leagueTable", map[string]string{"X-Auth-Token": w.gold}, 200, "table-fl1-2016", nil},
		{"restricted fixtures list", "/v1/competitions/434/fixtures", nil, 403, "", nil},
		{"malformed token", "/v1/competitions/398", map[string]string{"X-Auth-Token": "NOT-A-TOKEN"}, 400, "", []string{`invalid API token`}},
		{"unknown token", "/v1/competitions/398", map[string]string{"X-Auth-Token": "abcdefghijk"}, 400, "", []string{`invalid API token`}},
		{"empty token is anonymous", "/v1/competitions/398", map[string]string{"X-Auth-Token": ""}, 200, "competition-1", nil},
	}
	doc := servedDoc(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := w.r.do("GET", tt.path, tt.header)
			if resp.status != tt.status {
				t.Fatalf("GET %s: status %d, want %d; body %s", tt.path, resp.status, tt.status, resp.body)
			}
			// What the document describes, status and body, it describes
			// as served: errors included.
			if path, _, _ := strings.Cut(tt.path, "?"); doc.template(path) != "" {
				if err := doc.check(path, resp.status, resp.header.Get("Content-Type"), resp.body); err != nil {
					t.Error(err)
				}
			}
			if ct := resp.header.Get("Content-Type"); ct != "application/json;charset=UTF-8" {
				t.Errorf("Content-Type %q", ct)
			}
			for _, h := range []string{"X-API-Version", "X-Authenticated-Client", "X-RequestCounter-Reset", "X-RequestsAvailable", "X-Requests-Available", "Access-Control-Allow-Origin"} {
				if resp.header.Get(h) == "" && strings.HasPrefix(tt.path, "/v1") {
					t.Errorf("header %s missing", h)
				}
			}
			if tt.status >= 400 {
				var e map[string]string
				if err := json.Unmarshal(resp.body, &e); err != nil || e["error"] == "" || len(e) != 1 {
					t.Errorf("error body %s: want exactly {\"error\": hint}", resp.body)
				}
			}
			if tt.golden != "" {
				golden(t, tt.golden, resp.body)
			}
			for _, s := range tt.has {
				if !strings.Contains(string(resp.body), s) {
					t.Errorf("body lacks %s\n%s", s, truncate(resp.body))
				}
			}
		})
	}
}

func truncate(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}

func TestRealFootballFacts(t *testing.T) {
	w := theWorld(t)
	var table struct {
		Matchday int `json:"matchday"`
		Standing []struct {
			Position, Rank, Points, PlayedGames int
			TeamName                            string `json:"teamName"`
		} `json:"standing"`
	}
	w.getJSON(t, "/v1/competitions/398/leagueTable", "", &table)
	if table.Matchday != 38 || len(table.Standing) != 20 || table.Standing[0].TeamName != "Leicester City" || table.Standing[0].Points != 81 {
		t.Errorf("PL 2015-16 final table: matchday %d, %d rows, first %+v", table.Matchday, len(table.Standing), table.Standing[0])
	}
	// Bastia v Lyon 2016-17 was awarded to Lyon: the table follows.
	w.getJSON(t, "/v1/competitions/434/leagueTable", w.gold, &table)
	for _, row := range table.Standing {
		if row.TeamName == "Olympique Lyonnais" && row.Points != 67 {
			t.Errorf("Lyon 2016-17: %d points, want 67", row.Points)
		}
	}
	var comp struct {
		CurrentMatchday int `json:"currentMatchday"`
	}
	w.getJSON(t, "/v1/competitions/1", "", &comp)
	if comp.CurrentMatchday < 29 || comp.CurrentMatchday > 31 {
		t.Errorf("PL 2025-26 current matchday on 2026-03-13: %d", comp.CurrentMatchday)
	}
}

// TestProtocol is what v1 alone has of the protocol; what every version
// has is TestConformance's.
func TestProtocol(t *testing.T) {
	r := theWorld(t).r
	t.Run("representation header says what was served", func(t *testing.T) {
		resp := r.do("GET", "/v1/competitions/398", map[string]string{"X-Response-Control": "compressed"})
		if resp.header.Get("X-Response-Control") != "full" || !strings.Contains(string(resp.body), `"_links"`) {
			t.Errorf("compressed competition: served %q", resp.header.Get("X-Response-Control"))
		}
		resp = r.do("GET", "/v1/competitions/398/fixtures?matchday=2", map[string]string{"X-Response-Control": "compressed"})
		if resp.header.Get("X-Response-Control") != "compressed" || !strings.Contains(string(resp.body), `"mday":2`) {
			t.Errorf("compressed fixtures: served %q", resp.header.Get("X-Response-Control"))
		}
	})
	t.Run("request line in absolute form", func(t *testing.T) {
		conn, err := net.Dial("tcp", strings.TrimPrefix(r.base, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "GET %s/v1/competitions/398?x=1 HTTP/1.1\r\nHost: ignored.example\r\n\r\n", r.base)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || !strings.Contains(string(body), `"caption":"English Premier League 2015/16"`) {
			t.Errorf("absolute-form request: %d %s", resp.StatusCode, body)
		}
	})
}

// TestLinksFollowTheRequestHost runs a second replica on the same stream
// without a public URL: links take the request's Host, and the replica
// answers the same data (any number of replicas can run side by side).
func TestLinksFollowTheRequestHost(t *testing.T) {
	w := theWorld(t)
	second := startReplica(t, w.r.nats)
	resp := second.do("GET", "/v1/competitions/398", nil)
	want := fmt.Sprintf(`"self":{"href":"%s/v1/competitions/398"}`, second.base)
	if resp.status != 200 || !strings.Contains(string(resp.body), want) {
		t.Errorf("second replica: %d %s, want %s", resp.status, truncate(resp.body), want)
	}
	a := w.r.do("GET", "/v1/competitions/398/leagueTable", nil)
	b := second.do("GET", "/v1/competitions/398/leagueTable", nil)
	if !bytes.Equal(bytes.ReplaceAll(b.body, []byte(second.base), []byte("http://api.test")), a.body) {
		t.Error("two replicas on one stream answer different tables")
	}
}
