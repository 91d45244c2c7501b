package httpapi

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// TestTableJSONMatchesEncodingJSON checks the hand-written table encoder
// byte for byte against encoding/json, on hand-picked strings (escapes,
// HTML characters, non-ASCII, invalid UTF-8, line separators) and on random
// tables.
func TestTableJSONMatchesEncodingJSON(t *testing.T) {
	strs := []string{"", "Arsenal FC", `Quote "Q" \ back`, "<b>&amp;</b>", "Bayern München", "Ñandú\u2028\u2029",
		"tab\tnew\nline\rcr\x00\x1f\x7f", "bad \xff\xfe utf-8", "http://h.test/v1/teams/5", "😀"}
	md := 7
	tables := []leagueTableJSON{
		{LeagueCaption: "empty", Standing: []any{}},
		{LeagueCaption: "nil standing"},
		{Links: &tableLinks{Self: href{"http://a/v1/competitions/1/leagueTable/?matchday=7"}, Competition: href{"http://a/v1/competitions/1"}},
			LeagueCaption: "Premier League 2015/16", Matchday: &md},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func() string { return strs[rng.IntN(len(strs))] }
	num := func() int { return rng.IntN(200) - 100 }
	for range 200 {
		tb := leagueTableJSON{LeagueCaption: pick(), Standing: []any{}}
		if rng.IntN(2) == 0 {
			tb.Matchday = &md
			tb.Links = &tableLinks{Self: href{pick()}, Competition: href{pick()}}
		}
		for range rng.IntN(24) {
			if rng.IntN(3) == 0 {
				tb.Standing = append(tb.Standing, rowMinified{Rank: num(), Team: pick(), TeamID: num(), PlayedGames: num(), CrestURI: pick(),
					Points: num(), Goals: num(), GoalsAgainst: num(), GoalDifference: num()})
				continue
			}
			r := rowFull{Position: num(), Rank: num(), Team: pick(), TeamID: num(), TeamName: pick(), CrestURI: pick(),
				PlayedGames: num(), Points: num(), Goals: num(), GoalsAgainst: num(), GoalDifference: num(), Wins: num(),
				Draws: num(), Losses: num(), Home: splitJSON{num(), num(), num(), num(), num()}, Away: splitJSON{num(), num(), num(), num(), num()}}
			r.Links.Team = href{pick()}
			tb.Standing = append(tb.Standing, r)
		}
		tables = append(tables, tb)
	}
	for i, tb := range tables {
		want, err := json.Marshal(tb)
		if err != nil {
			t.Fatal(err)
		}
		got, err := encodeJSON(tb)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("table %d:\n got %s\nwant %s", i, got, want)
		}
	}
}
