package model

import (
	"regexp"
	"strings"
	"time"
)

// LeagueCode identifies a league: two to four upper-case letters or digits.
type LeagueCode string

var leagueCodeRE = regexp.MustCompile(`^[A-Z0-9]{2,4}$`)

// League describes a league code. The spec's appendix gives the built-in
// ones; editors add more as League entities in the stream.
type League struct {
	Code    LeagueCode `json:"code"`
	Name    string     `json:"name"`
	Country string     `json:"country"`
	// Zone is the IANA time zone of the league's local kick-off times, used
	// when a source gives times without a zone.
	Zone string `json:"zone"`
}

// BuiltinLeagues are the league codes of the v1 specification's appendix.
var BuiltinLeagues = []League{
	{"BL1", "1. Bundesliga", "Germany", "Europe/Berlin"},
	{"BL2", "2. Bundesliga", "Germany", "Europe/Berlin"},
	{"BL3", "3. Liga", "Germany", "Europe/Berlin"},
	{"DFB", "DFB-Pokal", "Germany", "Europe/Berlin"},
	{"PL", "Premier League", "England", "Europe/London"},
	{"EL1", "League One", "England", "Europe/London"},
	{"ELC", "Championship", "England", "Europe/London"},
	{"FAC", "FA Cup", "England", "Europe/London"},
	{"SA", "Serie A", "Italy", "Europe/Rome"},
	{"SB", "Serie B", "Italy", "Europe/Rome"},
	{"PD", "Primera División", "Spain", "Europe/Madrid"},
	{"SD", "Segunda División", "Spain", "Europe/Madrid"},
	{"CDR", "Copa del Rey", "Spain", "Europe/Madrid"},
	{"FL1", "Ligue 1", "France", "Europe/Paris"},
	{"FL2", "Ligue 2", "France", "Europe/Paris"},
	{"DED", "Eredivisie", "Netherlands", "Europe/Amsterdam"},
	{"PPL", "Primeira Liga", "Portugal", "Europe/Lisbon"},
	{"GSL", "Super League", "Greece", "Europe/Athens"},
	{"CL", "Champions League", "Europe", "Europe/Paris"},
	{"EL", "Europa League", "Europe", "Europe/Paris"},
	{"EC", "European Championship", "Europe", "Europe/Paris"},
	{"WC", "World Cup", "World", "UTC"},
}

// BuiltinLeague returns the appendix entry for code.
func BuiltinLeague(code LeagueCode) (League, bool) {
	for _, l := range BuiltinLeagues {
		if l.Code == code {
			return l, true
		}
	}
	return League{}, false
}

// ParseLeagueCode checks the syntax of a league code. Whether the code is
// known (built in or added by an editor) is for the caller to check.
func ParseLeagueCode(s string) (LeagueCode, error) {
	c := LeagueCode(strings.ToUpper(strings.TrimSpace(s)))
	if !leagueCodeRE.MatchString(string(c)) {
		return "", Invalidf("league", s, "must be 2 to 4 letters or digits")
	}
	return c, nil
}

// Validate checks an editor-added league.
func (l *League) Validate() error {
	if c, err := ParseLeagueCode(string(l.Code)); err != nil || c != l.Code {
		return Invalidf("code", string(l.Code), "must be 2 to 4 upper-case letters or digits")
	}
	if err := firstError(CheckRequired("name", l.Name, MaxName), CheckText("country", l.Country, MaxLabel)); err != nil {
		return err
	}
	if _, err := time.LoadLocation(l.Zone); err != nil || l.Zone == "" || l.Zone == "Local" {
		return Invalidf("zone", l.Zone, "must be an IANA time zone such as Europe/London")
	}
	return nil
}

// Tier is the access level of an API client, and the level a competition
// requires.
type Tier string

// Tiers in increasing order of access.
const (
	TierAnonymous  Tier = "anonymous"
	TierRegistered Tier = "registered"
	TierDonating   Tier = "donating"
)

// Rank orders tiers: 0 anonymous, 1 registered, 2 donating; -1 for an
// unknown tier.
func (t Tier) Rank() int {
	switch t {
	case TierAnonymous, "":
		return 0
	case TierRegistered:
		return 1
	case TierDonating:
		return 2
	}
	return -1
}

// Allows reports whether a client of tier t may see a resource requiring need.
func (t Tier) Allows(need Tier) bool { return t.Rank() >= need.Rank() }

// ParseTier parses a tier name for field.
func ParseTier(field, s string) (Tier, error) {
	t := Tier(strings.ToLower(s))
	if t.Rank() < 0 || (t == "" && s != "") {
		return "", Invalidf(field, s, "must be anonymous, registered or donating")
	}
	if t == "" {
		t = TierAnonymous
	}
	return t, nil
}
