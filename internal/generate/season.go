package generate

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// Rates of the unusual.
const (
	postponedRate  = 0.01
	awardedRate    = 0.001
	adjustmentRate = 0.05 // of league seasons with a points deduction
	// Goals per game at home and away between equal teams, and how much a
	// rating point moves them.
	homeGoals, awayGoals, neutralGoals = 1.45, 1.12, 1.3
	ratingWeight                       = 0.55
	// firstHalfShare is the share of goals scored before half time.
	firstHalfShare = 0.45
	ratingDrift    = 0.05
	// relegated is the most teams a league swaps with its neighbour.
	relegated = 3
)

var deductions = []int{1, 3, 3, 6, 9, 10, 10, 12}

// slot is a weekend kick-off time in UTC, days after the Saturday.
type slot struct {
	day, hour, minute, weight int
}

var slots = []slot{{0, 12, 30, 15}, {0, 15, 0, 55}, {0, 17, 30, 15}, {1, 14, 0, 10}, {1, 16, 30, 5}}

// row is a team's line in a table, for promotion and tournament draws.
type row struct {
	team               *team
	points, gd, scored int
}

func sortTable(rows []*row) {
	slices.SortStableFunc(rows, func(a, b *row) int {
		return cmp.Or(b.points-a.points, b.gd-a.gd, b.scored-a.scored, a.team.id-b.team.id)
	})
}

// count adds a result to the table.
func count(rules model.TableRules, f *model.Fixture, home, away *row) {
	side, ok := f.Outcome()
	if !ok {
		return
	}
	if ft := f.Result.FullTime; ft != nil {
		home.scored += ft.Home
		away.scored += ft.Away
		home.gd += ft.Home - ft.Away
		away.gd += ft.Away - ft.Home
	}
	switch side {
	case model.Home:
		home.points += rules.PointsWin
	case model.Away:
		away.points += rules.PointsWin
	default:
		home.points += rules.PointsDraw
		away.points += rules.PointsDraw
	}
}

// season plays one season of every league (after the summer's tournament,
// if there is one), then moves teams up and down the pyramids.
func (g *gen) season(ctx context.Context, s int) error {
	year := g.cfg.FirstYear + s
	if tournamentIn(g.cfg, s) {
		if err := g.tournament(ctx, year); err != nil {
			return err
		}
	}
	tables := map[*league][]*row{}
	for _, l := range g.plan.leagues {
		rows, err := g.leagueSeason(ctx, l, year, s == g.plan.seasons-1)
		if err != nil {
			return err
		}
		tables[l] = rows
	}
	g.promote(tables)
	for _, t := range g.plan.teams {
		t.rating += g.r.NormFloat64() * ratingDrift
	}
	return nil
}

// leagueSeason publishes a league's competition, its double round robin
// and perhaps a points deduction, and returns its final table.
func (g *gen) leagueSeason(ctx context.Context, l *league, year int, last bool) ([]*row, error) {
	n := len(l.teams)
	teams := slices.Clone(l.teams)
	g.r.Shuffle(n, func(i, j int) { teams[i], teams[j] = teams[j], teams[i] })
	c := &model.Competition{ID: g.compID(), Caption: fmt.Sprintf("%s %d/%02d", l.spec.Name, year, (year+1)%100),
		League: l.spec.Code, Year: year, Type: model.TypeLeague, NumberOfMatchdays: 2 * (n - 1),
		Tier: model.TierAnonymous, Rules: model.DefaultRules(l.spec.Code, year)}
	for _, t := range teams {
		c.Teams = append(c.Teams, model.CompetitionTeam{TeamID: t.id})
	}
	slices.SortFunc(c.Teams, func(a, b model.CompetitionTeam) int { return a.TeamID - b.TeamID })
	if err := g.competition(ctx, c); err != nil {
		return nil, err
	}
	rows := make([]*row, n)
	for i, t := range teams {
		rows[i] = &row{team: t}
	}
	start := firstSaturday(year)
	for md := 1; md <= 2*(n-1); md++ {
		round, swap := md-1, false
		if round >= n-1 {
			round, swap = round-(n-1), true
		}
		date := start.AddDate(0, 0, 7*(md-1))
		for _, p := range roundPairs(n, round) {
			h, a := p[0], p[1]
			if swap {
				h, a = a, h
			}
			f := model.Fixture{ID: g.fixtureID(), CompetitionID: c.ID, Matchday: md, Stage: model.Regular,
				Kickoff: g.kickoff(date), HomeTeamID: teams[h].id, AwayTeamID: teams[a].id}
			f.Status, f.Result, f.Awarded = g.play(teams[h], teams[a], true, false)
			count(c.Rules, &f, rows[h], rows[a])
			k := plain
			if last && g.liveLeft > 0 && f.Status == model.Finished && f.Awarded == "" {
				k = live
				g.liveLeft--
				g.sum.LiveFixtures = append(g.sum.LiveFixtures, f.ID)
			}
			if err := g.publishFixture(ctx, c, f, k, "", ""); err != nil {
				return nil, err
			}
		}
	}
	if g.r.Float64() < adjustmentRate {
		i := g.r.IntN(n)
		points := -deductions[g.r.IntN(len(deductions))]
		if err := g.adjust(ctx, c, teams[i], points); err != nil {
			return nil, err
		}
		rows[i].points += points
	}
	sortTable(rows)
	return rows, nil
}

func (g *gen) adjust(ctx context.Context, c *model.Competition, t *team, points int) error {
	ids, err := g.ed.NewIDs(ctx, events.KindAdjustment, 1)
	if err != nil {
		return fmt.Errorf("reserve adjustment id: %w", err)
	}
	g.sum.Messages++
	a := &model.Adjustment{ID: ids[0], CompetitionID: c.ID, TeamID: t.id, Points: points, Reason: "administration (generated)"}
	g.sum.Adjustments++
	return g.pub.add(ctx, a)
}

// roundPairs returns round r (0-based) of a single round robin of n teams
// (n even) by the circle method: team n-1 stays put while the others
// rotate, so that every pair meets exactly once in n-1 rounds. Home and
// away alternate to keep runs of home games short.
func roundPairs(n, r int) [][2]int {
	m := n - 1
	pairs := make([][2]int, 0, n/2)
	for i := range n / 2 {
		a, b := m, r
		if i > 0 {
			a, b = (r+i)%m, (r-i+m)%m
		}
		if (i == 0 && r%2 == 1) || i%2 == 1 {
			a, b = b, a
		}
		pairs = append(pairs, [2]int{a, b})
	}
	return pairs
}

// firstSaturday is the first Saturday from 8 August of year.
func firstSaturday(year int) time.Time {
	d := time.Date(year, time.August, 8, 0, 0, 0, 0, time.UTC)
	return d.AddDate(0, 0, (int(time.Saturday)-int(d.Weekday())+7)%7)
}

func (g *gen) kickoff(saturday time.Time) time.Time {
	w := g.r.IntN(100)
	s := slots[len(slots)-1]
	for _, c := range slots {
		if w < c.weight {
			s = c
			break
		}
		w -= c.weight
	}
	return saturday.AddDate(0, 0, s.day).Add(time.Duration(s.hour)*time.Hour + time.Duration(s.minute)*time.Minute)
}

// play draws a result: goals are Poisson distributed around what the two
// ratings and home advantage make likely.
func (g *gen) play(home, away *team, league, neutral bool) (model.Status, model.Result, model.Side) {
	if league {
		switch x := g.r.Float64(); {
		case x < postponedRate:
			return model.Postponed, model.Result{}, ""
		case x < postponedRate+awardedRate:
			if g.r.IntN(2) == 0 {
				return model.Finished, model.Result{FullTime: &model.Score{Home: 3}}, model.Home
			}
			return model.Finished, model.Result{FullTime: &model.Score{Away: 3}}, model.Away
		}
	}
	lh, la := homeGoals, awayGoals
	if neutral {
		lh, la = neutralGoals, neutralGoals
	}
	diff := ratingWeight * (home.rating - away.rating)
	ft := model.Score{Home: g.poisson(lh * math.Exp(diff)), Away: g.poisson(la * math.Exp(-diff))}
	ht := model.Score{Home: g.binomial(ft.Home, firstHalfShare), Away: g.binomial(ft.Away, firstHalfShare)}
	return model.Finished, model.Result{FullTime: &ft, HalfTime: &ht}, ""
}

func (g *gen) poisson(lambda float64) int {
	limit, k, p := math.Exp(-lambda), 0, 1.0
	for {
		p *= g.r.Float64()
		if p < limit || k == 20 {
			return k
		}
		k++
	}
}

func (g *gen) binomial(n int, p float64) int {
	k := 0
	for range n {
		if g.r.Float64() < p {
			k++
		}
	}
	return k
}

// promote swaps the bottom of each league with the top of the one below;
// the lowest league of a pyramid swaps with teams drawn from its reserve.
func (g *gen) promote(tables map[*league][]*row) {
	swap := func(l *league, out, in []*team) {
		for i, t := range l.teams {
			if j := slices.Index(out, t); j >= 0 {
				l.teams[i] = in[j]
			}
		}
	}
	for _, py := range g.plan.pyramids {
		for i, upper := range py.leagues {
			rows := tables[upper]
			k := min(relegated, len(rows)/4)
			var down, up []*team
			for _, r := range rows[len(rows)-k:] {
				down = append(down, r.team)
			}
			if i+1 < len(py.leagues) {
				lower := tables[py.leagues[i+1]]
				k = min(k, len(lower)/4)
				down = down[len(down)-k:]
				for _, r := range lower[:k] {
					up = append(up, r.team)
				}
				swap(py.leagues[i+1], up, down)
			} else {
				perm := g.r.Perm(len(py.reserve))[:k]
				for _, j := range perm {
					up = append(up, py.reserve[j])
				}
				for n, j := range perm {
					py.reserve[j] = down[n]
				}
			}
			swap(upper, down, up)
		}
	}
}
