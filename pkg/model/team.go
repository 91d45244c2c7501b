package model

import (
	"fmt"
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
}

// Validate checks a team.
func (t *Team) Validate() error {
	if t.ID <= 0 {
		return Invalidf("id", fmt.Sprint(t.ID), "must be a positive integer")
	}
	if strings.TrimSpace(t.Name) == "" {
		return Invalidf("name", t.Name, "must not be empty")
	}
	if t.Code != nil && (len(*t.Code) < 2 || len(*t.Code) > 5) {
		return Invalidf("code", *t.Code, "must be 2 to 5 characters")
	}
	return nil
}

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

// Validate checks a player.
func (p *Player) Validate() error {
	if p.ID <= 0 {
		return Invalidf("player id", fmt.Sprint(p.ID), "must be a positive integer")
	}
	if strings.TrimSpace(p.Name) == "" {
		return Invalidf("player name", p.Name, "must not be empty")
	}
	if p.JerseyNumber != nil && (*p.JerseyNumber < 1 || *p.JerseyNumber > 99) {
		return Invalidf("jerseyNumber", fmt.Sprint(*p.JerseyNumber), "must be from 1 to 99")
	}
	for field, d := range map[string]*Date{"dateOfBirth": p.DateOfBirth, "contractUntil": p.ContractUntil} {
		if d != nil {
			if _, err := ParseDate(field, string(*d)); err != nil {
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

// Validate checks a squad: valid players, unique ids and shirt numbers.
func (s *Squad) Validate() error {
	if s.TeamID <= 0 {
		return Invalidf("teamId", fmt.Sprint(s.TeamID), "must be a positive integer")
	}
	ids, shirts := map[int]bool{}, map[int]string{}
	for i := range s.Players {
		p := &s.Players[i]
		if err := p.Validate(); err != nil {
			return err
		}
		if ids[p.ID] {
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

// TeamName maps one spelling of a team's name to its id, so that importers
// give the same club one id across seasons and sources.
type TeamName struct {
	Name   string `json:"name"`
	TeamID int    `json:"teamId"`
}

// clubAffixes are the legal-form words that sources add or drop at will
// ("Arsenal" and "Arsenal FC", "Sunderland AFC" and "Sunderland").
var clubAffixes = map[string]bool{"fc": true, "afc": true, "cf": true, "sc": true, "ac": true,
	"as": true, "ssc": true, "cfc": true, "fk": true, "sk": true, "calcio": true}

// NormalizeTeamName returns the key under which importers match a team's
// name: lower case, punctuation as spaces, and legal-form words such as FC
// dropped, so that "Manchester United FC" and "Manchester United" are one
// club. Editors can map any other spelling to a team explicitly.
func NormalizeTeamName(name string) string {
	words := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
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
