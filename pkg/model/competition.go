package model

import (
	"fmt"
	"strings"
)

// CompetitionType tells how a competition is played and so how it is tabled.
type CompetitionType string

// Competition types.
const (
	// League: one table over every regular fixture.
	TypeLeague CompetitionType = "LEAGUE"
	// Tournament: a group stage with one table per group, then knock-out rounds.
	TypeTournament CompetitionType = "TOURNAMENT"
	// Cup: knock-out only, no table.
	TypeCup CompetitionType = "CUP"
)

// CompetitionTeam is a participant; Group is set in tournaments.
type CompetitionTeam struct {
	TeamID int    `json:"teamId"`
	Group  string `json:"group,omitempty"`
}

// Competition is one season of a league, or one edition of a tournament.
type Competition struct {
	ID                int               `json:"id"`
	Caption           string            `json:"caption"`
	League            LeagueCode        `json:"league"`
	Year              int               `json:"year"`
	Type              CompetitionType   `json:"type"`
	NumberOfMatchdays int               `json:"numberOfMatchdays"`
	Teams             []CompetitionTeam `json:"teams"`
	Tier              Tier              `json:"tier"`
	Rules             TableRules        `json:"rules"`
}

// NumberOfTeams is the number of participating teams.
func (c *Competition) NumberOfTeams() int { return len(c.Teams) }

// HasTeam reports whether team takes part.
func (c *Competition) HasTeam(team int) bool {
	for _, t := range c.Teams {
		if t.TeamID == team {
			return true
		}
	}
	return false
}

// GroupOf returns team's group ("" outside tournaments or if unknown).
func (c *Competition) GroupOf(team int) string {
	for _, t := range c.Teams {
		if t.TeamID == team {
			return t.Group
		}
	}
	return ""
}

// Validate checks the competition on its own; whether its league code is
// known is checked by the writer, which knows the editor-added codes.
func (c *Competition) Validate() error {
	if c.ID <= 0 {
		return Invalidf("id", fmt.Sprint(c.ID), "must be a positive integer")
	}
	if strings.TrimSpace(c.Caption) == "" {
		return Invalidf("caption", c.Caption, "must not be empty")
	}
	if _, err := ParseLeagueCode(string(c.League)); err != nil {
		return err
	}
	if c.Year < 1850 || c.Year > 2999 {
		return Invalidf("year", fmt.Sprint(c.Year), "must be a four-digit season start year")
	}
	switch c.Type {
	case TypeLeague, TypeTournament, TypeCup:
	default:
		return Invalidf("type", string(c.Type), "must be LEAGUE, TOURNAMENT or CUP")
	}
	if c.NumberOfMatchdays < 0 || c.NumberOfMatchdays > 99 {
		return Invalidf("numberOfMatchdays", fmt.Sprint(c.NumberOfMatchdays), "must be from 0 to 99")
	}
	if _, err := ParseTier("tier", string(c.Tier)); err != nil {
		return err
	}
	seen := map[int]bool{}
	for _, t := range c.Teams {
		if t.TeamID <= 0 {
			return Invalidf("teams", fmt.Sprint(t.TeamID), "team ids must be positive")
		}
		if seen[t.TeamID] {
			return Invalidf("teams", fmt.Sprint(t.TeamID), "team is listed twice")
		}
		seen[t.TeamID] = true
		if c.Type == TypeTournament && t.Group == "" {
			return Invalidf("teams", fmt.Sprint(t.TeamID), "every team of a tournament needs a group")
		}
	}
	return c.Rules.Validate()
}
