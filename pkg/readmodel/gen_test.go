package readmodel_test

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/footdata/footballd/pkg/model"
)

// dataset is generated, realistic-looking football data: leagues of the
// v1 appendix, seasons going back from 2017, each a double round robin of
// teams drawn from a league's pool of clubs (promotion and relegation
// rotate them), with results up to a cut-off date.
type dataset struct {
	entities []any // in stream order: teams, competitions, fixtures, adjustments
	fixtures int
	comps    []*model.Competition // latest season first, league by league
}

// lastSeason is the year of the generated data's latest season.
const lastSeason = 2017

type genConfig struct {
	leagues, seasons, teams int
	// cutoff: fixtures kicking off before it are finished.
	cutoff time.Time
	seed   uint64
}

// generate builds a dataset. Team ids count from 1, league by league;
// competition ids are (league+1)*1000 + seasons back from lastSeason;
// fixture ids count from 1.
func generate(cfg genConfig) *dataset {
	r := rand.New(rand.NewPCG(cfg.seed, 1))
	d := &dataset{}
	pool := cfg.teams + 6
	for l := range cfg.leagues {
		for i := range pool {
			id := 1 + l*pool + i
			short := fmt.Sprintf("L%dT%d", l, i)
			crest := fmt.Sprintf("https://crests.example/%d.svg", id)
			d.entities = append(d.entities, &model.Team{ID: id, Name: fmt.Sprintf("%s Club %d", model.BuiltinLeagues[l%len(model.BuiltinLeagues)].Name, i),
				ShortName: &short, CrestURL: &crest})
		}
	}
	fixtureID := 0
	for l := range cfg.leagues {
		code := model.BuiltinLeagues[l%len(model.BuiltinLeagues)].Code
		for s := range cfg.seasons {
			year := lastSeason - s
			comp := &model.Competition{
				ID: (l+1)*1000 + s, Caption: fmt.Sprintf("%s %d/%02d", code, year, (year+1)%100), League: code, Year: year,
				Type: model.TypeLeague, NumberOfMatchdays: 2 * (cfg.teams - 1), Tier: model.TierAnonymous,
				Rules: model.DefaultRules(code, year),
			}
			ids := make([]int, cfg.teams)
			for i := range ids {
				ids[i] = 1 + l*pool + (i+2*s)%pool
				comp.Teams = append(comp.Teams, model.CompetitionTeam{TeamID: ids[i]})
			}
			d.comps = append(d.comps, comp)
			d.entities = append(d.entities, comp)
			start := time.Date(year, time.August, 10, 14, 0, 0, 0, time.UTC)
			for _, m := range roundRobin(cfg.teams) {
				fixtureID++
				kick := start.Add(time.Duration(m.matchday-1)*7*24*time.Hour + time.Duration(m.slot)*2*time.Hour)
				f := &model.Fixture{ID: fixtureID, CompetitionID: comp.ID, Matchday: m.matchday, Stage: model.Regular,
					Kickoff: kick, HomeTeamID: ids[m.home], AwayTeamID: ids[m.away], Status: model.Timed}
				if kick.Before(cfg.cutoff) {
					f.Status = model.Finished
					f.Result.FullTime = &model.Score{Home: r.IntN(5), Away: r.IntN(4)}
					f.Result.HalfTime = &model.Score{Home: min(f.Result.FullTime.Home, r.IntN(3)), Away: min(f.Result.FullTime.Away, r.IntN(2))}
				}
				d.entities = append(d.entities, f)
				d.fixtures++
			}
			d.entities = append(d.entities, &model.Adjustment{ID: comp.ID, CompetitionID: comp.ID, TeamID: ids[r.IntN(len(ids))],
				Points: -r.IntN(10), Reason: "administration"})
		}
	}
	return d
}

type match struct{ matchday, slot, home, away int }

// roundRobin is the circle method: n-1 matchdays in which everyone plays
// once, then the same again with home and away swapped.
func roundRobin(n int) []match {
	var ms []match
	for round := range n - 1 {
		for i := range n / 2 {
			a, b := (round+i)%(n-1), (n-1-i+round)%(n-1)
			if i == 0 {
				b = n - 1
			}
			if round%2 == 1 {
				a, b = b, a
			}
			ms = append(ms, match{matchday: round + 1, slot: i, home: a, away: b})
		}
	}
	first := len(ms)
	for _, m := range ms[:first] {
		ms = append(ms, match{matchday: m.matchday + n - 1, slot: m.slot, home: m.away, away: m.home})
	}
	return ms
}
