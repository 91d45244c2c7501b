package model

import (
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"
)

// Team is a club or a national team. Optional fields are pointers: the API
// renders an unknown value as null, never as an empty string.
type Team struct {
	ID               int     `json:"id"`
	Name             string  `json:"name"`
	ShortName        *string `json:"shortName,omitempty"`
	Code             *string `json:"code,omitempty"`
	CrestURL         *string `json:"crestUrl,omitempty"`
	SquadMarketValue *string `json:"squadMarketValue,omitempty"`
	// MergedInto is set on a duplicate folded into another team: it is
	// no longer served, and its fixtures, squad and names are the
	// other's.
	MergedInto int `json:"mergedInto,omitempty"`
}

// Validate checks a team as stored.
func (t *Team) Validate() error {
	return firstError(CheckID("id", t.ID), t.ValidateDraft())
}

// ValidateDraft checks everything but the id, which a new team gets once
// the rest is valid.
func (t *Team) ValidateDraft() error {
	if err := CheckRequired("name", t.Name, MaxName); err != nil {
		return err
	}
	if NormalizeTeamName(t.Name) == "" {
		return Invalidf("name", t.Name, "must contain a letter or digit")
	}
	if t.Code != nil && !teamCodeRE.MatchString(*t.Code) {
		return Invalidf("code", *t.Code, "must be 2 to 5 letters or digits")
	}
	if t.MergedInto != 0 && (CheckID("mergedInto", t.MergedInto) != nil || t.MergedInto == t.ID) {
		return Invalidf("mergedInto", fmt.Sprint(t.MergedInto), "must be another team's id")
	}
	return firstError(
		checkOptional("shortName", t.ShortName, textOf(MaxShort, true)),
		checkOptional("crestUrl", t.CrestURL, CheckURL),
		checkOptional("squadMarketValue", t.SquadMarketValue, textOf(MaxShort, true)))
}

var teamCodeRE = regexp.MustCompile(`^[\p{L}\p{N}]{2,5}$`)

// Date is a calendar date, YYYY-MM-DD.
type Date string

// ParseDate checks s as a date for field.
func ParseDate(field, s string) (Date, error) {
	if _, err := time.Parse(time.DateOnly, s); err != nil {
		return "", Invalidf(field, s, "must be a date YYYY-MM-DD")
	}
	return Date(s), nil
}

// Player is a member of a squad.
type Player struct {
	ID            int     `json:"id"`
	Name          string  `json:"name"`
	Position      string  `json:"position"`
	JerseyNumber  *int    `json:"jerseyNumber,omitempty"`
	DateOfBirth   *Date   `json:"dateOfBirth,omitempty"`
	Nationality   string  `json:"nationality"`
	ContractUntil *Date   `json:"contractUntil,omitempty"`
	MarketValue   *string `json:"marketValue,omitempty"`
}

// Validate checks a player as stored.
func (p *Player) Validate() error {
	return firstError(CheckID("player id", p.ID), p.ValidateDraft())
}

// ValidateDraft checks everything but the id.
func (p *Player) ValidateDraft() error {
	if err := firstError(CheckRequired("player name", p.Name, MaxName), CheckText("position", p.Position, MaxLabel),
		CheckText("nationality", p.Nationality, MaxLabel), checkOptional("marketValue", p.MarketValue, textOf(MaxShort, true))); err != nil {
		return err
	}
	if p.JerseyNumber != nil && (*p.JerseyNumber < 1 || *p.JerseyNumber > 99) {
		return Invalidf("jerseyNumber", fmt.Sprint(*p.JerseyNumber), "must be from 1 to 99")
	}
	// In a fixed order, so that a player with two bad dates always gets
	// the same error (a map's order changes from run to run), and without
	// building a map for every player of every squad replayed.
	for _, d := range [...]struct {
		field string
		date  *Date
	}{{"dateOfBirth", p.DateOfBirth}, {"contractUntil", p.ContractUntil}} {
		if d.date != nil {
			if _, err := ParseDate(d.field, string(*d.date)); err != nil {
				return err
			}
		}
	}
	return nil
}

// Squad is the players of a team, replaced as a whole.
type Squad struct {
	TeamID  int      `json:"teamId"`
	Players []Player `json:"players"`
}

// Validate checks a squad as stored: valid players, unique ids and shirt
// numbers.
func (s *Squad) Validate() error {
	for i := range s.Players {
		if err := CheckID("player id", s.Players[i].ID); err != nil {
			return err
		}
	}
	return s.ValidateDraft()
}

// ValidateDraft checks a squad whose new players have no id yet.
func (s *Squad) ValidateDraft() error {
	if err := CheckID("team", s.TeamID); err != nil {
		return err
	}
	if len(s.Players) > maxSquad {
		return Invalidf("players", fmt.Sprint(len(s.Players)), "a squad has at most %d players", maxSquad)
	}
	ids, shirts := map[int]bool{}, map[int]string{}
	for i := range s.Players {
		p := &s.Players[i]
		if err := p.ValidateDraft(); err != nil {
			return err
		}
		if p.ID != 0 && ids[p.ID] {
			return Invalidf("player id", fmt.Sprint(p.ID), "is listed twice")
		}
		ids[p.ID] = true
		if p.JerseyNumber != nil {
			if other, ok := shirts[*p.JerseyNumber]; ok {
				return Invalidf("jerseyNumber", fmt.Sprint(*p.JerseyNumber), "is worn by %s and %s", other, p.Name)
			}
			shirts[*p.JerseyNumber] = p.Name
		}
	}
	return nil
}

// maxSquad bounds a squad: first team, reserves and loans with room to spare.
const maxSquad = 200

// TeamName maps one spelling of a team's name to its id, so that importers
// give the same club one id across seasons and sources.
type TeamName struct {
	Name   string `json:"name"`
	TeamID int    `json:"teamId"`
}

// Validate checks a spelling.
func (n *TeamName) Validate() error {
	if err := CheckRequired("name", n.Name, MaxName); err != nil {
		return err
	}
	if NormalizeTeamName(n.Name) == "" {
		return Invalidf("name", n.Name, "must contain a letter or digit")
	}
	return CheckID("team", n.TeamID)
}

// clubAffixes are the legal-form words that sources add or drop at will
// ("Arsenal" and "Arsenal FC", "Sunderland AFC" and "Sunderland").
var clubAffixes = map[string]bool{"fc": true, "afc": true, "cf": true, "sc": true, "ac": true,
	"as": true, "ssc": true, "cfc": true, "fk": true, "sk": true, "calcio": true}

// NormalizeTeamName returns the key under which a team's name is claimed
// and importers match it: invisible characters dropped, lower case,
// punctuation and white space as one space, and legal-form words such as
// FC dropped, so that "Manchester United FC" and "Manchester  united" are
// one club, and a name that only looks like another ("Arse\u200bnal FC")
// is that other. Editors can map any other spelling to a team explicitly.
func NormalizeTeamName(name string) string {
	words := nameWords(name)
	kept := words[:0:0]
	for _, w := range words {
		if !clubAffixes[w] {
			kept = append(kept, w)
		}
	}
	if len(kept) == 0 {
		kept = words
	}
	return strings.Join(kept, " ")
}

// NormalizePersonName is NormalizeTeamName for a person's name: the same
// key (accents kept, case, punctuation and look-alikes not), without the
// clubs' legal-form words, which a person's name never drops ("Mbappé",
// "MBAPPÉ" and "Mbap\u200bpé" are one key; "Mbappe" is another).
func NormalizePersonName(name string) string { return strings.Join(nameWords(name), " ") }

// nameWords are a name's words, as both keys see them: invisible
// characters dropped, lower case, anything but letters and digits a break.
func nameWords(name string) []string {
	return strings.FieldsFunc(strings.ToLower(strings.Map(dropInvisible, name)), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// dropInvisible is a strings.Map mapping that drops invisible characters.
func dropInvisible(r rune) rune {
	if invisible(r) {
		return -1
	}
	return r
}
