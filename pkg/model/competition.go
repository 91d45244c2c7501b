package model

import (
	"fmt"
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
	// RegularExtraTime: level regular-stage matches went to extra time
	// (World Cup 1954's group stage). Knock-out fixtures always may.
	RegularExtraTime bool `json:"regularExtraTime,omitempty"`
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

// Validate checks the competition as stored, on its own; whether its league
// code is known and its teams exist is checked by the writer, which knows
// the stream.
func (c *Competition) Validate() error {
	return firstError(CheckID("id", c.ID), c.ValidateDraft())
}

// ValidateDraft checks everything but the id, which a new competition gets
// once the rest is valid.
func (c *Competition) ValidateDraft() error {
	if err := CheckRequired("caption", c.Caption, MaxName); err != nil {
		return err
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
		if err := CheckID("teams", t.TeamID); err != nil {
			return err
		}
		if seen[t.TeamID] {
			return Invalidf("teams", fmt.Sprint(t.TeamID), "team is listed twice")
		}
		seen[t.TeamID] = true
		if err := CheckText("group", t.Group, MaxLabel); err != nil {
			return err
		}
		if c.Type == TypeTournament && t.Group == "" {
			return Invalidf("teams", fmt.Sprint(t.TeamID), "every team of a tournament needs a group")
		}
	}
	return c.Rules.Validate()
}

// Key is the competition's natural key, its league and season: one
// competition per league and season.
func (c *Competition) Key() string { return fmt.Sprintf("%s/%d", c.League, c.Year) }

// SetDefaults fills what a new competition leaves unsaid: a league, open
// to everyone, with its league's table rules for its season.
func (c *Competition) SetDefaults() {
	if c.Type == "" {
		c.Type = TypeLeague
	}
	if c.Tier == "" {
		c.Tier = TierAnonymous
	}
	if c.Rules.PointsWin == 0 {
		c.Rules = DefaultRules(c.League, c.Year)
	}
	if c.League == "WC" && c.Year == regularExtraTimeWorldCup {
		c.RegularExtraTime = true
	}
}

// regularExtraTimeWorldCup is the one World Cup whose group games went to
// extra time when level after 90 minutes.
const regularExtraTimeWorldCup = 1954
