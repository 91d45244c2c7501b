package main

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/model"
)

// TestRestrictedCompetitionsLeakNowhere restricts each competition in turn
// to donating clients and crawls every endpoint and representation as an
// anonymous and a registered caller: nothing of the competition may show
// (its links, its id as a fixture's or a team's competition, its
// fixtures, the meetings it holds in a head2head). A donating client sees
// it, so the crawl can find what it looks for.
func TestRestrictedCompetitionsLeakNowhere(t *testing.T) {
	r := startReplica(t, "", "--now", "2016-05-20T12:00:00Z", "--anonymous-per-day", "1000000")
	s := r.store()
	// Two seasons of one league: the same clubs meet in both.
	importFiles(t, s, "openfootball-football-json/2014-15/en.1.json", "openfootball-football-json/2015-16/en.1.json")
	reg := addClient(t, s, "reg", model.TierRegistered, 1_000_000)
	gold := addClient(t, s, "gold", model.TierDonating, 1_000_000)
	ed := natstest.Editor(t, s)
	comps := []int{354, 398}

	getAll := func(path, token string) []response {
		var out []response
		for _, rc := range []string{"full", "minified", "compressed"} {
			for _, prefix := range []string{"/v1", "/alpha"} {
				p := prefix + path
				if prefix == "/alpha" {
					p = strings.Replace(p, "/alpha/competitions", "/alpha/soccerseasons", 1)
				}
				out = append(out, r.do("GET", p, map[string]string{"X-Auth-Token": token, "X-Response-Control": rc}))
			}
		}
		return out
	}
	for _, restricted := range comps {
		for _, id := range comps {
			tier := model.TierAnonymous
			if id == restricted {
				tier = model.TierDonating
			}
			if _, _, err := ed.PutCompetition(context.Background(), id, func(c *model.Competition) error { c.Tier = tier; return nil }); err != nil {
				t.Fatal(err)
			}
		}
		r.waitApplied(s)
		// What of the restricted competition must not show.
		var fixtures struct {
			Fixtures []struct {
				ID int `json:"id"`
			} `json:"fixtures"`
		}
		if err := json.Unmarshal(r.do("GET", fmt.Sprintf("/v1/competitions/%d/fixtures", restricted), map[string]string{"X-Auth-Token": gold}).body, &fixtures); err != nil || len(fixtures.Fixtures) != 380 {
			t.Fatalf("competition %d as a donating client: %v, %d fixtures", restricted, err, len(fixtures.Fixtures))
		}
		secret := []*regexp.Regexp{
			regexp.MustCompile(fmt.Sprintf(`/(competitions|soccerseasons)/%d\b`, restricted)),
			regexp.MustCompile(fmt.Sprintf(`"(competitionId|cId|currentCompetition)":%d\b`, restricted)),
		}
		hidden := map[int]bool{}
		for _, f := range fixtures.Fixtures {
			hidden[f.ID] = true
		}
		fixtureRef := regexp.MustCompile(`/fixtures/(\d+)"|"id":(\d+),"cId"`)
		check := func(path string, rs []response) {
			t.Helper()
			for _, resp := range rs {
				if resp.status != 200 && resp.status != 403 && resp.status != 404 {
					t.Errorf("%s: status %d", path, resp.status)
				}
				for _, re := range secret {
					if m := re.Find(resp.body); m != nil {
						t.Errorf("competition %d restricted: %s shows %s", restricted, path, m)
					}
				}
				for _, m := range fixtureRef.FindAllSubmatch(resp.body, -1) {
					var id int
					fmt.Sscan(string(m[1])+string(m[2]), &id)
					if hidden[id] {
						t.Errorf("competition %d restricted: %s shows its fixture %d", restricted, path, id)
						break
					}
				}
			}
		}
		// Endpoints.
		var paths []string
		for _, season := range []int{2014, 2015} {
			paths = append(paths, fmt.Sprintf("/competitions/?season=%d", season))
		}
		var teams []int
		var open int
		for _, id := range comps {
			if id != restricted {
				open = id
			}
		}
		paths = append(paths, fmt.Sprintf("/competitions/%d", open), fmt.Sprintf("/competitions/%d/teams", open),
			fmt.Sprintf("/competitions/%d/leagueTable", open), fmt.Sprintf("/competitions/%d/fixtures", open))
		for day := time.Date(2014, 8, 1, 0, 0, 0, 0, time.UTC); day.Before(time.Date(2016, 6, 1, 0, 0, 0, 0, time.UTC)); day = day.AddDate(0, 0, 90) {
			paths = append(paths, fmt.Sprintf("/fixtures?timeFrameStart=%s&timeFrameEnd=%s", day.Format(time.DateOnly), day.AddDate(0, 0, 89).Format(time.DateOnly)))
		}
		var openFixtures struct {
			Fixtures []struct {
				ID    int `json:"id"`
				Links struct {
					Home struct{ Href string } `json:"homeTeam"`
				} `json:"_links"`
				Home string `json:"homeTeamName"`
			} `json:"fixtures"`
		}
		if err := json.Unmarshal(r.do("GET", fmt.Sprintf("/v1/competitions/%d/fixtures", open), nil).body, &openFixtures); err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for i, f := range openFixtures.Fixtures {
			if i%4 == 0 {
				paths = append(paths, fmt.Sprintf("/fixtures/%d?head2head=50", f.ID))
			}
			if !seen[f.Links.Home.Href] {
				seen[f.Links.Home.Href] = true
				var id int
				fmt.Sscanf(f.Links.Home.Href[strings.LastIndex(f.Links.Home.Href, "/")+1:], "%d", &id)
				teams = append(teams, id)
				paths = append(paths, fmt.Sprintf("/teams?name=%s", strings.ReplaceAll(f.Home, " ", "%20")))
			}
		}
		for _, team := range teams {
			paths = append(paths, fmt.Sprintf("/teams/%d", team), fmt.Sprintf("/teams/%d/fixtures", team), fmt.Sprintf("/teams/%d/players", team))
		}
		for _, p := range paths {
			check(p, getAll(p, ""))
			check(p, getAll(p, reg))
		}
		if restricted != 354 {
			continue // later meetings never show in an earlier fixture's head2head
		}
		// The crawl would see it: a donating client does.
		leaked := false
		for _, f := range openFixtures.Fixtures[len(openFixtures.Fixtures)-40:] {
			body := r.do("GET", fmt.Sprintf("/v1/fixtures/%d?head2head=50", f.ID), map[string]string{"X-Auth-Token": gold}).body
			leaked = leaked || secret[0].Match(body)
		}
		if !leaked {
			t.Errorf("competition %d: a donating client's head2head does not show it either: the crawl proves nothing", restricted)
		}
	}
}
