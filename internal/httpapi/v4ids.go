package httpapi

import (
	"strconv"

	"github.com/footdata/footballd/pkg/model"
)

// The v4 API numbers what v1 did not: a competition is a league across its
// seasons (our competitions are its seasons), and leagues and countries
// are areas. The numbers are upstream's where upstream had them, so that a
// client's stored ids keep working.

// v4CompetitionIDs are the ids of upstream's v4 league-code table for our
// built-in league codes (spec football-data-v4.md, section 7) and the
// recorded competitions (v4-samples/competitions.json).
var v4CompetitionIDs = map[model.LeagueCode]int{
	"BL1": 2002, "BL2": 2004, "BL3": 2140, "DFB": 2011,
	"PL": 2021, "EL1": 2030, "ELC": 2016, "FAC": 2055,
	"SA": 2019, "SB": 2121, "PD": 2014, "SD": 2077, "CDR": 2079,
	"FL1": 2015, "FL2": 2142, "DED": 2003, "PPL": 2017, "GSL": 2132,
	"CL": 2001, "EL": 2146, "EC": 2018, "WC": 2000,
	// The importer's Brazilian league has upstream's code, and its id.
	"BSA": 2013,
}

// v4AddedBase is where the ids of leagues without an upstream id begin:
// far above upstream's (2000 to about 2300), so neither can take the
// other's.
const v4AddedBase = 100000

// v4CompetitionID is the v4 id of a league: upstream's, or for a league
// an editor added, v4AddedBase plus its code read as a number in base 37
// (digits 1–10 for 0–9, 11–36 for A–Z). Codes are 2 to 4 letters or
// digits, so every code has its own id, below v4AddedBase + 37⁴, and
// every replica computes the same one without a table in the stream.
func v4CompetitionID(code model.LeagueCode) int {
	if id, ok := v4CompetitionIDs[code]; ok {
		return id
	}
	n := 0
	for _, c := range []byte(code) {
		d := 0
		switch {
		case c >= '0' && c <= '9':
			d = int(c-'0') + 1
		case c >= 'A' && c <= 'Z':
			d = int(c-'A') + 11
		}
		n = n*37 + d
	}
	return v4AddedBase + n
}

// v4LeagueCode is the league code of a v4 id, v4CompetitionID read
// backwards; "" when no code has that id.
func v4LeagueCode(id int) model.LeagueCode {
	for code, n := range v4CompetitionIDs {
		if n == id {
			return code
		}
	}
	var b [4]byte
	i := len(b)
	for n := id - v4AddedBase; n > 0 && i > 0; n /= 37 {
		d := n % 37
		switch {
		case d == 0:
			return ""
		case d <= 10:
			b[i-1] = byte('0' + d - 1)
		default:
			b[i-1] = byte('A' + d - 11)
		}
		i--
	}
	code := model.LeagueCode(b[i:])
	if v4CompetitionID(code) != id {
		return ""
	}
	return code
}

// v4Area is an area of the v4 API: a country, a continent or the world.
type v4Area struct {
	id     int
	name   string
	code   string
	parent int // 0 for the world
}

// v4Areas are upstream's areas for the countries of our leagues (built in
// and those the importer knows) and their continents, from the recorded
// /v4/areas (spec v4-samples/areas.json). Upstream's flags are its own
// images: we serve none.
var v4Areas = []v4Area{
	{2267, "World", "INT", 0},
	{2077, "Europe", "EUR", 2267},
	{2001, "Africa", "AFR", 2267},
	{2014, "Asia", "ASI", 2267},
	{2159, "N/C America", "NCA", 2267},
	{2175, "Oceania", "OCE", 2267},
	{2220, "South America", "SAM", 2267},
	{2004, "Algeria", "ALG", 2001},
	{2011, "Argentina", "ARG", 2220},
	{2015, "Australia", "AUS", 2014},
	{2016, "Austria", "AUT", 2077},
	{2023, "Belgium", "BEL", 2077},
	{2032, "Brazil", "BRA", 2220},
	{2046, "China PR", "CHN", 2014},
	{2049, "Colombia", "COL", 2220},
	{2062, "Czech Republic", "CZE", 2077},
	{2070, "Egypt", "EGY", 2001},
	{2072, "England", "ENG", 2077},
	{2081, "France", "FRA", 2077},
	{2088, "Germany", "DEU", 2077},
	{2093, "Greece", "GRC", 2077},
	{2106, "Hungary", "HUN", 2077},
	{2114, "Italy", "ITA", 2077},
	{2116, "Japan", "JPN", 2014},
	{2149, "Mexico", "MEX", 2159},
	{2156, "Morocco", "MAR", 2001},
	{2163, "Netherlands", "NLD", 2077},
	{2187, "Portugal", "PRT", 2077},
	{2195, "Russia", "RUS", 2077},
	{2204, "Scotland", "SCO", 2077},
	{2224, "Spain", "ESP", 2077},
	{2234, "Switzerland", "CHE", 2077},
	{2247, "Turkey", "TUR", 2077},
	{2256, "United States", "USA", 2159},
}

// v4AreaAliases are the country names our leagues use where upstream's
// differ.
var v4AreaAliases = map[string]string{"China": "China PR", "USA": "United States"}

const v4World = 2267

var (
	v4AreaByID   = map[int]*v4Area{}
	v4AreaByName = map[string]*v4Area{}
)

func init() {
	for i := range v4Areas {
		a := &v4Areas[i]
		v4AreaByID[a.id], v4AreaByName[a.name] = a, a
	}
}

// v4AreaOf is the area of a league's country. A country upstream's table
// lacks (an editor's league) gets an area of its own under the world: its
// id is v4AddedBase plus a hash of its name (FNV-1a, 20 bits), its code
// the name's first three letters, upper case.
func v4AreaOf(country string) v4Area {
	if alias, ok := v4AreaAliases[country]; ok {
		country = alias
	}
	if a, ok := v4AreaByName[country]; ok {
		return *a
	}
	h := uint32(2166136261)
	for i := 0; i < len(country); i++ {
		h = (h ^ uint32(country[i])) * 16777619
	}
	code := []rune(country)
	if len(code) > 3 {
		code = code[:3]
	}
	return v4Area{id: v4AddedBase + int(h&0xfffff), name: country, code: toUpperASCII(string(code)), parent: v4World}
}

func toUpperASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// v4Cups are the leagues upstream types CUP whatever format a season is
// played in (the recorded CL, EC, WC, DFB, EL and CLI, and the FA Cup and
// Copa del Rey of section 7): the Champions League stays a CUP with its
// league phase since 2024, which we table as a league.
var v4Cups = map[model.LeagueCode]bool{"CL": true, "EL": true, "EC": true, "WC": true, "DFB": true, "FAC": true, "CDR": true, "CLI": true}

// v4Type is a league's v4 type, as upstream types it: CUP for its cups,
// else by our competition's type, LEAGUE for a league and CUP for a
// tournament or a cup (upstream's LEAGUE_CUP and PLAYOFFS type none of
// the competitions it was recorded with).
func v4Type(code model.LeagueCode, t model.CompetitionType) string {
	if t == model.TypeLeague && !v4Cups[code] {
		return "LEAGUE"
	}
	return "CUP"
}

// v4Plan is the v4 plan of a tier: the free plan for what anonymous and
// registered clients see, the next for donors.
func v4Plan(t model.Tier) string {
	if t == model.TierDonating {
		return "TIER_TWO"
	}
	return "TIER_ONE"
}

func itoa(n int) string { return strconv.Itoa(n) }
