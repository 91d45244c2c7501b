package generate

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/footdata/footballd/pkg/model"
)

// groupRounds are the three matchdays of a group of four, by position in
// the group's draw.
var groupRounds = [3][2][2]int{{{0, 1}, {2, 3}}, {{0, 2}, {3, 1}}, {{3, 0}, {1, 2}}}

// koMatch is a knock-out match: its number and who plays, as placeholders
// ("1A" is the winner of group A, "W49" the winner of match 49, "L61" its
// loser). The numbering and pairing are those of the World Cups of 32.
type koMatch struct {
	number     int
	home, away string
	matchday   int
	round      string
	day        int // days after the tournament's first day
}

var koMatches = []koMatch{
	{49, "1A", "2B", 4, "Round of 16", 16}, {50, "1C", "2D", 4, "Round of 16", 16},
	{51, "1B", "2A", 4, "Round of 16", 17}, {52, "1D", "2C", 4, "Round of 16", 17},
	{53, "1E", "2F", 4, "Round of 16", 18}, {54, "1G", "2H", 4, "Round of 16", 18},
	{55, "1F", "2E", 4, "Round of 16", 19}, {56, "1H", "2G", 4, "Round of 16", 19},
	{57, "W49", "W50", 5, "Quarter-finals", 22}, {58, "W53", "W54", 5, "Quarter-finals", 22},
	{59, "W51", "W52", 5, "Quarter-finals", 23}, {60, "W55", "W56", 5, "Quarter-finals", 23},
	{61, "W57", "W58", 6, "Semi-finals", 26}, {62, "W59", "W60", 6, "Semi-finals", 27},
	{63, "L61", "L62", 7, "Match for third place", 30}, {64, "W61", "W62", 8, "Final", 31},
}

// tournamentHours are the kick-off hours (UTC) of a tournament day.
var tournamentHours = []int{11, 14, 17, 20}

// tournament publishes the summer's tournament of year: the draw into
// eight groups by pots of strength, the group games, then knock-out
// fixtures that start with placeholders and get their teams as the rounds
// before them are decided.
func (g *gen) tournament(ctx context.Context, year int) error {
	seeded := slices.Clone(g.plan.nations)
	slices.SortStableFunc(seeded, func(a, b *team) int {
		switch {
		case a.rating > b.rating:
			return -1
		case a.rating < b.rating:
			return 1
		}
		return a.id - b.id
	})
	groups := make([][]*team, tournamentGroups)
	for pot := range groupSize {
		p := seeded[pot*tournamentGroups : (pot+1)*tournamentGroups]
		g.r.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
		for i, t := range p {
			groups[i] = append(groups[i], t)
		}
	}
	c := &model.Competition{ID: g.compID(), Caption: fmt.Sprintf("World Cup %d", year), League: tournamentCode,
		Year: year, Type: model.TypeTournament, NumberOfMatchdays: len(groupRounds), Tier: model.TierAnonymous,
		Rules: model.DefaultRules(tournamentCode, year)}
	for i, grp := range groups {
		for _, t := range grp {
			c.Teams = append(c.Teams, model.CompetitionTeam{TeamID: t.id, Group: groupName(i)})
		}
	}
	slices.SortFunc(c.Teams, func(a, b model.CompetitionTeam) int { return a.TeamID - b.TeamID })
	if err := g.competition(ctx, c); err != nil {
		return err
	}
	first := time.Date(year, time.June, 11, 0, 0, 0, 0, time.UTC)
	at := func(day, hour int) time.Time { return first.AddDate(0, 0, day).Add(time.Duration(hour) * time.Hour) }
	// placed maps "1A", "W49", "L61" to teams as they become known.
	placed := map[string]*team{}
	for i, grp := range groups {
		rows := make([]*row, len(grp))
		for k, t := range grp {
			rows[k] = &row{team: t}
		}
		for md, pairs := range groupRounds {
			for k, p := range pairs {
				h, a := grp[p[0]], grp[p[1]]
				f := model.Fixture{ID: g.fixtureID(), CompetitionID: c.ID, Matchday: md + 1, Group: groupName(i),
					Stage: model.Regular, Kickoff: at(md*4+i/2, tournamentHours[(i%2)*2+k]),
					HomeTeamID: h.id, AwayTeamID: a.id}
				f.Status, f.Result, f.Awarded = g.play(h, a, false, true)
				count(c.Rules, &f, rows[p[0]], rows[p[1]])
				if err := g.publishFixture(ctx, c, f, plain, "", ""); err != nil {
					return err
				}
			}
		}
		sortTable(rows)
		placed["1"+groupName(i)], placed["2"+groupName(i)] = rows[0].team, rows[1].team
	}
	for k, m := range koMatches {
		h, a := placed[m.home], placed[m.away]
		f := model.Fixture{ID: g.fixtureID(), CompetitionID: c.ID, Matchday: m.matchday, Stage: model.Playoff,
			Round: m.round, Kickoff: at(m.day, tournamentHours[1+k%2]), HomeTeamID: h.id, AwayTeamID: a.id}
		var homeWon bool
		f.Result, homeWon = g.knockout(h, a)
		f.Status = model.Finished
		winner, loser := h, a
		if !homeWon {
			winner, loser = a, h
		}
		placed[fmt.Sprint("W", m.number)], placed[fmt.Sprint("L", m.number)] = winner, loser
		if err := g.publishFixture(ctx, c, f, knockout, m.home, m.away); err != nil {
			return err
		}
	}
	return nil
}

func groupName(i int) string { return string(rune('A' + i)) }

// knockout plays a tie to a winner: extra time after a draw, then
// penalties.
func (g *gen) knockout(home, away *team) (model.Result, bool) {
	_, r, _ := g.play(home, away, false, true)
	ft := *r.FullTime
	if ft.Home != ft.Away {
		return r, ft.Home > ft.Away
	}
	et := model.Score{Home: ft.Home + g.poisson(neutralGoals/3), Away: ft.Away + g.poisson(neutralGoals/3)}
	r.ExtraTime = &et
	if et.Home != et.Away {
		return r, et.Home > et.Away
	}
	loser := 2 + g.r.IntN(3)
	pens := model.Score{Home: loser, Away: loser + 1}
	if g.r.IntN(2) == 0 {
		pens = model.Score{Home: loser + 1, Away: loser}
	}
	r.Penalties = &pens
	return r, pens.Home > pens.Away
}
