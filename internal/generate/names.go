package generate

import (
	"fmt"
	"math/rand/v2"

	"github.com/footdata/footballd/pkg/model"
)

// builtinChains are the built-in league codes that are leagues (not cups
// or tournaments), as national pyramids: teams move between neighbours.
var builtinChains = [][]model.LeagueCode{
	{"PL", "ELC", "EL1"}, {"BL1", "BL2", "BL3"}, {"SA", "SB"}, {"PD", "SD"},
	{"FL1", "FL2"}, {"DED"}, {"PPL"}, {"GSL"},
}

// tournamentCode is the code of the generated tournament.
const tournamentCode model.LeagueCode = "WC"

const (
	// syntheticChain is the depth of a synthetic league pyramid.
	syntheticChain = 3
	// maxSynthetic synthetic codes G001 to G999 exist.
	maxSynthetic = 999
)

func builtinLeagueCount() int {
	n := 0
	for _, c := range builtinChains {
		n += len(c)
	}
	return n
}

func maxLeagues() int { return builtinLeagueCount() + maxSynthetic }

// leagueSpecs returns n leagues: the built-in ones first, then synthetic
// ones in pyramids of three, each with its chain number and tier.
func leagueSpecs(n int) []*league {
	var out []*league
	chain := 0
	for _, codes := range builtinChains {
		for tier, code := range codes {
			if len(out) == n {
				return out
			}
			spec, _ := model.BuiltinLeague(code)
			out = append(out, &league{spec: spec, chain: chain, tier: tier})
		}
		chain++
	}
	for i := 1; len(out) < n; i++ {
		country := (i-1)/syntheticChain + 1
		out = append(out, &league{
			spec: model.League{Code: model.LeagueCode(fmt.Sprintf("G%03d", i)),
				Name:    fmt.Sprintf("Generated League %d", i),
				Country: fmt.Sprintf("Generated Country %d", country), Zone: "UTC"},
			synthetic: true, chain: chain + country - 1, tier: (i - 1) % syntheticChain,
		})
	}
	return out
}

// Parts of synthetic names. Towns are a prefix and a suffix; clubs a town
// with a club word; nations a prefix with a nation ending. Club names have
// two words and nation names one, so no club is named like a nation.
var (
	townPrefixes = []string{"Ash", "Bel", "Brad", "Carn", "Dun", "El", "Fal", "Glen", "Hart", "Ing",
		"Kel", "Lang", "Mor", "Nor", "Oak", "Pen", "Rad", "Stan", "Thorn", "Wex", "Alder", "Bram",
		"Cress", "Dray", "Fen", "Gold", "Hal", "Kings", "Lind", "Mar", "Nether", "Quen", "Ros", "Sal",
		"Tal", "Ul", "Ver", "Wal", "Yar", "Zen", "Amber", "Birch", "Cold", "Deer", "Elm", "Frost",
		"Gran", "Hollow", "Iron", "Juni", "Knot", "Lark", "Mill", "Nut", "Orm", "Pine", "Quarry",
		"Red", "Silver", "Tarn"}
	townSuffixes = []string{"bury", "ford", "ham", "ton", "wick", "mouth", "field", "stead", "well",
		"by", "combe", "dale", "gate", "hurst", "ley", "minster", "port", "shaw", "thorpe", "worth",
		"brook", "cliff", "cross", "den", "haven", "holm", "more", "ridge", "side", "water"}
	clubAfter  = []string{"United", "City", "Town", "Rovers", "Athletic", "Wanderers", "Albion", "County", "Rangers", "Villa", "Olympic", "Harriers"}
	clubBefore = []string{"Real", "Sporting", "Racing", "Dynamo", "Inter", "Union", "Atletico", "Hapoel"}
	nationEnds = []string{"ia", "land", "onia", "ovia", "stan", "ary", "ica", "ador"}
	firstNames = []string{"Adam", "Ben", "Carlos", "Daniel", "Emil", "Felix", "Gabriel", "Hugo", "Ivan",
		"Jonas", "Karim", "Luca", "Marco", "Nico", "Oscar", "Pablo", "Quentin", "Rafael", "Samuel",
		"Tomas", "Umar", "Victor", "William", "Xavi", "Yusuf", "Zoltan", "Alex", "Bruno", "Cedric",
		"Diego", "Erik", "Filip", "Goran", "Henrik", "Igor", "Jamal", "Kevin", "Leon", "Mateo", "Noah"}
	lastNames = []string{"Abbott", "Berg", "Costa", "Dubois", "Eriksen", "Fischer", "Garcia", "Hansen",
		"Ivanov", "Jensen", "Kovac", "Lopez", "Moreau", "Nielsen", "Okafor", "Petrov", "Quinn", "Rossi",
		"Silva", "Torres", "Ueda", "Varga", "Weber", "Xu", "Yilmaz", "Zelenko", "Andersen", "Bianchi",
		"Carvalho", "Diaz", "Evans", "Ferreira", "Gomez", "Horvat", "Ibrahim", "Jovanovic", "Keller",
		"Larsen", "Meyer", "Novak", "Oliveira", "Pereira", "Ramos", "Schmidt", "Tanaka", "Urban",
		"Vidal", "Walker", "Young", "Ziegler"}
	nationalities = []string{"England", "Germany", "Italy", "Spain", "France", "Netherlands", "Portugal",
		"Greece", "Brazil", "Argentina", "Belgium", "Croatia", "Denmark", "Nigeria", "Japan", "Serbia",
		"Sweden", "Senegal", "Uruguay", "Poland", "Morocco", "Ghana", "Colombia", "Norway", "Austria"}
	// squadPositions is the make-up of a squad of 25; larger and smaller
	// squads take positions from it in turn.
	squadPositions = []string{"Keeper", "Keeper", "Keeper", "Centre-Back", "Centre-Back", "Centre-Back",
		"Centre-Back", "Left-Back", "Left-Back", "Right-Back", "Right-Back", "Defensive Midfield",
		"Defensive Midfield", "Central Midfield", "Central Midfield", "Central Midfield",
		"Central Midfield", "Attacking Midfield", "Attacking Midfield", "Left Wing", "Right Wing",
		"Centre-Forward", "Centre-Forward", "Centre-Forward", "Secondary Striker"}
)

// clubNames returns n distinct club names (distinct also once normalised,
// so that each has its own name subject), in an order drawn from r.
func clubNames(r *rand.Rand, n int) ([]string, error) {
	var all []string
	seen := map[string]bool{}
	add := func(name string) {
		if k := model.NormalizeTeamName(name); !seen[k] {
			seen[k] = true
			all = append(all, name)
		}
	}
	for _, p := range townPrefixes {
		for _, s := range townSuffixes {
			town := p + s
			for _, w := range clubAfter {
				add(town + " " + w)
			}
			for _, w := range clubBefore {
				add(w + " " + town)
			}
		}
	}
	if n > len(all) {
		return nil, fmt.Errorf("%d teams wanted, but only %d club names can be made: use fewer leagues", n, len(all))
	}
	r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	return all[:n], nil
}

// nationNames returns n distinct one-word nation names drawn from r.
func nationNames(r *rand.Rand, n int) []string {
	var all []string
	for _, p := range townPrefixes {
		for _, e := range nationEnds {
			all = append(all, p+e)
		}
	}
	r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	return all[:n]
}
