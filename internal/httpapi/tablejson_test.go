package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/footdata/footballd/internal/wire"
	"github.com/footdata/footballd/pkg/readmodel"
)

// leagueTableJSON and rowMinified are the documented shapes of a league
// table, which the hand-written encoder must write as encoding/json would.
type leagueTableJSON struct {
	Links         *tableLinks `json:"_links,omitempty"`
	LeagueCaption string      `json:"leagueCaption"`
	Matchday      *int        `json:"matchday"`
	Standing      []any       `json:"standing"`
}

type rowMinified struct {
	Rank           int     `json:"rank"`
	Team           string  `json:"team"`
	TeamID         int     `json:"teamId"`
	PlayedGames    int     `json:"playedGames"`
	CrestURI       *string `json:"crestURI"`
	Points         int     `json:"points"`
	Goals          int     `json:"goals"`
	GoalsAgainst   int     `json:"goalsAgainst"`
	GoalDifference int     `json:"goalDifference"`
}

// standings is a table's rows held in slices.
type standings [][]readmodel.TableRow

// view is the read model's view of the rows, which the encoder reads.
func (s standings) view(caption string, matchday int) readmodel.TableView {
	var sts []readmodel.Standing
	for _, rows := range s {
		sts = append(sts, readmodel.Standing{Rows: rows})
	}
	return readmodel.TableViewOf(caption, matchday, sts)
}

// referenceTable is the table in the documented shapes, for encoding/json.
func referenceTable(id int, caption string, matchday int, rows standings, rep representation, l links) leagueTableJSON {
	out := leagueTableJSON{Links: tableLinksOf(id, matchday, rep, l), LeagueCaption: caption, Standing: []any{}}
	if matchday > 0 {
		out.Matchday = &matchday
	}
	for _, st := range rows {
		for _, r := range st {
			if rep == full {
				out.Standing = append(out.Standing, renderFullRow(r, l))
				continue
			}
			out.Standing = append(out.Standing, rowMinified{Rank: r.Rank, Team: shortName(r.ShortName, r.TeamName), TeamID: r.TeamID,
				PlayedGames: r.PlayedGames, CrestURI: crest(r.CrestURL), Points: r.Points, Goals: r.Goals,
				GoalsAgainst: r.GoalsAgainst, GoalDifference: r.GoalDifference})
		}
	}
	return out
}

// TestTableJSONMatchesEncodingJSON checks the hand-written table encoder
// byte for byte against encoding/json, in every representation and kind of
// link, on hand-picked strings (escapes, HTML characters, non-ASCII,
// invalid UTF-8, line separators) in names, crests and the base URL, and
// on random tables.
func TestTableJSONMatchesEncodingJSON(t *testing.T) {
	strs := []string{"", "Arsenal FC", `Quote "Q" \ back`, "<b>&amp;</b>", "Bayern München", "Ñandú\u2028\u2029",
		"tab\tnew\nline\rcr\x00\x1f\x7f", "bad \xff\xfe utf-8", "http://h.test/v1/teams/5", "😀", "trailing \xe2\x82", "1 < 2", "a>b", "R&D"}
	bases := []string{"http://api.test", "https://h1.test:8443", "http://[::1]:80", "http://b<a>d&\"\\", "http://\xff\u2028", "http://h\xe2\x82", ""}
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func() string { return strs[rng.IntN(len(strs))] }
	num := func() int { return rng.IntN(2500) - 1000 }
	split := func() readmodel.Split {
		return readmodel.Split{Goals: num(), GoalsAgainst: num(), Wins: num(), Draws: num(), Losses: num()}
	}
	// Team ids are never used twice: a team has the same names in every
	// row of the read model's tables, and a view holds them per team.
	used := map[int]bool{}
	row := func() readmodel.TableRow {
		id := num()
		for used[id] {
			id = num()
		}
		used[id] = true
		r := readmodel.TableRow{Position: num(), Rank: num(), TeamID: id, TeamName: pick(), ShortName: pick(),
			CrestURL: pick(), PlayedGames: num(), Points: num(), PointsAdjustment: num(), CarriedPoints: num(),
			Goals: num(), GoalsAgainst: num(), Wins: num(), Draws: num(), Losses: num(),
			Home: split(), Away: split()}
		r.GoalDifference = r.Goals - r.GoalsAgainst
		return r
	}
	type table struct {
		id, matchday int
		caption      string
		rows         standings
	}
	tables := []table{
		{id: 1, caption: "no standing"},
		{id: 2, caption: "empty standing", rows: standings{{}}},
		{id: 3, caption: "Premier League 2015/16", matchday: 7, rows: standings{{row(), row()}}},
		{id: 4, caption: "two standings", matchday: 38, rows: standings{{row()}, {}, {row(), row()}}},
	}
	for range 200 {
		clear(used)
		tb := table{id: rng.IntN(100_000), caption: pick()}
		if rng.IntN(2) == 0 {
			tb.matchday = 1 + rng.IntN(46)
		}
		for range 1 + rng.IntN(2) {
			st := []readmodel.TableRow{}
			for range rng.IntN(24) {
				st = append(st, row())
			}
			tb.rows = append(tb.rows, st)
		}
		tables = append(tables, tb)
	}
	// The bodies go through the pool the server's cache uses.
	rc := &renderCache{bodies: wire.NewPool(1 << 20)}
	for i, tb := range tables {
		for _, rep := range []representation{full, minified} {
			for _, kind := range []linkKind{competitionsPath, soccerseasonsPath, alphaPath} {
				l := newLinks([]byte(bases[(i+int(kind))%len(bases)]), kind)
				t.Run(fmt.Sprintf("%d/%s/%d", i, rep, kind), func(t *testing.T) {
					want, err := json.Marshal(referenceTable(tb.id, tb.caption, tb.matchday, tb.rows, rep, l))
					if err != nil {
						t.Fatal(err)
					}
					e, err := rc.encode(newLeagueTable(tb.id, tb.rows.view(tb.caption, tb.matchday), rep, l), maxAgeLive)
					if err != nil {
						t.Fatal(err)
					}
					got := e.Body()
					if !bytes.Equal(got, want) {
						t.Fatalf("table %d (%s, links %q):\n got %s\nwant %s", i, rep, l.base, got, want)
					}
				})
			}
		}
	}
}
