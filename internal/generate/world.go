package generate

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/footdata/footballd/pkg/model"
)

// team is a club or nation of the world with its playing strength.
type team struct {
	id     int
	name   string
	nation string // the nationality most of its players have
	// rating moves the expected goals: a team rated 0.5 above its
	// opponent scores about a third more and concedes a quarter less.
	rating float64
}

// league is one league code and the teams playing in it this season.
type league struct {
	spec      model.League
	synthetic bool // registered by the generator, not built in
	chain     int  // pyramid it belongs to
	tier      int  // 0 is the top of its pyramid
	size      int
	teams     []*team
}

// pyramid is a chain of leagues with a pool of teams below the lowest,
// from which it promotes and into which it relegates.
type pyramid struct {
	leagues []*league
	reserve []*team
}

// reservePerPyramid is the number of teams waiting below each pyramid.
const reservePerPyramid = 6

// tournamentTeams plays eight groups of four.
const (
	tournamentTeams  = 32
	tournamentGroups = 8
	groupSize        = tournamentTeams / tournamentGroups
	// Each group plays a round robin (six fixtures) and the knock-out
	// rounds sixteen: round of 16, quarter- and semi-finals, third place
	// and final.
	tournamentFixtures = tournamentGroups*groupSize*(groupSize-1)/2 + 16
)

// plan is the world before any season is played: leagues, pyramids,
// teams and the number of seasons.
type plan struct {
	leagues  []*league
	pyramids []*pyramid
	teams    []*team // every team, in id order once ids are given
	nations  []*team
	seasons  int
	fixtures int // in all seasons
	comps    int
}

// newPlan draws the leagues' sizes, the teams and their strengths.
func newPlan(cfg *Config, r *rand.Rand) (*plan, error) {
	p := &plan{leagues: leagueSpecs(cfg.Leagues)}
	for _, l := range p.leagues {
		l.size = evenSize(r, cfg.MinTeams, cfg.MaxTeams)
		for len(p.pyramids) <= l.chain {
			p.pyramids = append(p.pyramids, &pyramid{})
		}
		py := p.pyramids[l.chain]
		py.leagues = append(py.leagues, l)
	}
	clubs := 0
	for _, py := range p.pyramids {
		for _, l := range py.leagues {
			clubs += l.size
		}
		clubs += reservePerPyramid
	}
	names, err := clubNames(r, clubs)
	if err != nil {
		return nil, err
	}
	newTeam := func(name, nation string, rating float64) *team {
		t := &team{name: name, nation: nation, rating: rating}
		p.teams = append(p.teams, t)
		return t
	}
	for _, py := range p.pyramids {
		nation := nationalities[r.IntN(len(nationalities))]
		for _, l := range py.leagues {
			for range l.size {
				l.teams = append(l.teams, newTeam(names[0], nation, rating(r, l.tier)))
				names = names[1:]
			}
		}
		for range reservePerPyramid {
			py.reserve = append(py.reserve, newTeam(names[0], nation, rating(r, len(py.leagues))))
			names = names[1:]
		}
	}
	if cfg.TournamentEvery > 0 {
		for _, n := range nationNames(r, tournamentTeams) {
			p.nations = append(p.nations, newTeam(n, n, 0.6+r.NormFloat64()*0.35))
		}
	}
	perSeason := 0
	for _, l := range p.leagues {
		perSeason += l.size * (l.size - 1)
	}
	for s := 0; cfg.Fixtures > 0 && p.fixtures < cfg.Fixtures || s < cfg.Seasons; s++ {
		if cfg.FirstYear+s > maxYear {
			return nil, fmt.Errorf("fixtures %d: %d leagues would play seasons beyond %d: use more leagues", cfg.Fixtures, cfg.Leagues, maxYear)
		}
		p.seasons++
		p.fixtures += perSeason
		p.comps += len(p.leagues)
		if tournamentIn(cfg, s) {
			p.fixtures += tournamentFixtures
			p.comps++
		}
	}
	return p, nil
}

func tournamentIn(cfg *Config, season int) bool {
	return cfg.TournamentEvery > 0 && season%cfg.TournamentEvery == 0
}

// evenSize draws an even league size from min to max.
func evenSize(r *rand.Rand, lo, hi int) int {
	lo += lo % 2
	hi -= hi % 2
	return lo + 2*r.IntN((hi-lo)/2+1)
}

// rating draws a team's strength; lower tiers are weaker on average, so
// promoted teams tend to struggle a level up.
func rating(r *rand.Rand, tier int) float64 {
	return -0.25*float64(tier) + r.NormFloat64()*0.3
}

// squad draws a team's players, one for each of ids.
func squad(r *rand.Rand, t *team, ids []int, year int) model.Squad {
	size := len(ids)
	sq := model.Squad{TeamID: t.id, Players: make([]model.Player, 0, size)}
	// Keepers wear 1; everybody else a distinct number from 2 to 40.
	shirts := r.Perm(maxSquad - 1)
	names := map[string]bool{}
	for i := range size {
		var name string
		for name == "" || names[name] {
			name = firstNames[r.IntN(len(firstNames))] + " " + lastNames[r.IntN(len(lastNames))]
		}
		names[name] = true
		shirt := 1
		if i > 0 {
			shirt = shirts[i-1] + 2
		}
		nation := t.nation
		if r.IntN(3) == 0 && t.name != t.nation {
			nation = nationalities[r.IntN(len(nationalities))]
		}
		born := model.Date(fmt.Sprintf("%d-%02d-%02d", year-17-r.IntN(19), 1+r.IntN(12), 1+r.IntN(28)))
		contract := model.Date(fmt.Sprintf("%d-06-30", year+1+r.IntN(5)))
		sq.Players = append(sq.Players, model.Player{ID: ids[i], Name: name,
			Position: squadPositions[i%len(squadPositions)], JerseyNumber: &shirt,
			DateOfBirth: &born, Nationality: nation, ContractUntil: &contract})
	}
	return sq
}

// teamEntity is the published form of a team.
func teamEntity(t *team) *model.Team {
	// The short name is the town, without the club word.
	short := t.name
	for _, w := range strings.Fields(t.name) {
		if !slices.Contains(clubBefore, w) && !slices.Contains(clubAfter, w) {
			short = w
			break
		}
	}
	var letters []rune
	for _, c := range strings.ToUpper(strings.ReplaceAll(t.name, " ", "")) {
		if len(letters) < 3 {
			letters = append(letters, c)
		}
	}
	code := string(letters)
	return &model.Team{ID: t.id, Name: t.name, ShortName: &short, Code: &code}
}
