package push

import (
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/pkg/model"
)

// TestBodyURI: the URI of each kind of event in each API version; the rest
// of the body is the same in both.
func TestBodyURI(t *testing.T) {
	fixture := Event{Kind: FixtureUpdate, ID: 123, Competition: 7, League: "PL", Year: 2025, Type: model.TypeLeague, Time: time.Unix(0, 0)}
	league := Event{Kind: CompetitionUpdate, ID: 7, Competition: 7, League: "PL", Year: 2025, Type: model.TypeLeague, Time: time.Unix(0, 0)}
	tournament := league
	tournament.League, tournament.Type = "WC", model.TypeTournament
	cup := league
	cup.League, cup.Type, cup.Year = "FAC", model.TypeCup, 2022
	for _, c := range []struct {
		name string
		ev   Event
		api  API
		uri  string
	}{
		{"v1 fixture", fixture, V1, "https://api.test/v1/fixtures/123"},
		{"v1 competition", league, V1, "https://api.test/v1/competitions/7"},
		{"v4 match", fixture, V4, "https://api.test/v4/matches/123"},
		{"v4 league", league, V4, "https://api.test/v4/competitions/PL/standings?season=2025"},
		{"v4 tournament", tournament, V4, "https://api.test/v4/competitions/WC/standings?season=2025"},
		{"v4 cup: matches, it has no standings", cup, V4, "https://api.test/v4/competitions/FAC/matches?season=2022"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := c.ev.Body("https://api.test", c.api)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), `"URI":"`+c.uri+`"`) {
				t.Errorf("body %s, want URI %s", b, c.uri)
			}
		})
	}
	for name, want := range map[string]API{"v1": V1, "v4": V4} {
		if got, ok := ParseAPI(name); !ok || got != want {
			t.Errorf("ParseAPI(%q) = %v, %v", name, got, ok)
		}
	}
	if _, ok := ParseAPI("V4"); ok {
		t.Error("ParseAPI(V4) accepted")
	}
}
