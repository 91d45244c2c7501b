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

// TieBreaker is one rule that orders teams level on points.
type TieBreaker string

// The tie-breaker vocabulary. Head-to-head rules build a mini-table among
// exactly the teams still level when the rule is reached.
const (
	GoalDifference TieBreaker = "GOAL_DIFFERENCE"
	GoalsScored    TieBreaker = "GOALS_SCORED"
	// GoalQuotient is goals scored divided by goals conceded (Bundesliga
	// before 1971, England before 1976).
	GoalQuotient        TieBreaker = "GOAL_QUOTIENT"
	HeadToHeadPoints    TieBreaker = "H2H_POINTS"
	HeadToHeadGoalDiff  TieBreaker = "H2H_GOAL_DIFFERENCE"
	HeadToHeadGoals     TieBreaker = "H2H_GOALS_SCORED"
	HeadToHeadAwayGoals TieBreaker = "H2H_AWAY_GOALS"
	AwayGoals           TieBreaker = "AWAY_GOALS"
)

const (
	defaultPointsWin                = 3
	defaultPointsDraw               = 1
	historicPointsWin               = 2
	threePointsSinceYear            = 1995
	threePointsSinceEngland         = 1981
	goalQuotientUntilYearBundesliga = 1970
)

var tieBreakers = []TieBreaker{GoalDifference, GoalsScored, GoalQuotient, HeadToHeadPoints,
	HeadToHeadGoalDiff, HeadToHeadGoals, HeadToHeadAwayGoals, AwayGoals}

// ParseTieBreaker parses one tie-breaker name (case-insensitive).
func ParseTieBreaker(s string) (TieBreaker, error) {
	u := TieBreaker(strings.ToUpper(strings.TrimSpace(s)))
	for _, t := range tieBreakers {
		if t == u {
			return t, nil
		}
	}
	names := make([]string, len(tieBreakers))
	for i, t := range tieBreakers {
		names[i] = string(t)
	}
	return "", Invalidf("tieBreakers", s, "must be one of %s", strings.Join(names, ", "))
}

// TableRules say how a competition's table is computed.
type TableRules struct {
	PointsWin   int          `json:"pointsWin"`
	PointsDraw  int          `json:"pointsDraw"`
	TieBreakers []TieBreaker `json:"tieBreakers"`
}

// DefaultRules returns the table rules a league used in the season starting
// in year. Editors override them per competition.
//
//   - Points: 3 for a win from 1981 in England (PL, ELC, EL1, EL2, FAC) and
//     1995 elsewhere, 2 before.
//   - PL, ELC, EL1: goal difference, goals scored, then head-to-head.
//   - SA, SB, PD, SD: head-to-head points and goal difference first.
//   - BL1, BL2, BL3: goal difference, goals scored, head-to-head, away goals;
//     goal quotient in place of goal difference before 1971.
//   - CL, EL, EC: head-to-head first (UEFA group rules), then overall.
//   - WC and any other league: goal difference, goals scored, head-to-head.
func DefaultRules(code LeagueCode, year int) TableRules {
	r := TableRules{PointsWin: defaultPointsWin, PointsDraw: defaultPointsDraw}
	switch code {
	case "PL", "ELC", "EL1", "EL2", "FAC":
		if year < threePointsSinceEngland {
			r.PointsWin = historicPointsWin
		}
	default:
		if year < threePointsSinceYear {
			r.PointsWin = historicPointsWin
		}
	}
	h2h := []TieBreaker{HeadToHeadPoints, HeadToHeadGoalDiff, HeadToHeadGoals}
	switch code {
	case "SA", "SB", "PD", "SD":
		r.TieBreakers = append(h2h[:2:2], GoalDifference, GoalsScored)
	case "BL1", "BL2", "BL3":
		gd := GoalDifference
		if year <= goalQuotientUntilYearBundesliga {
			gd = GoalQuotient
		}
		r.TieBreakers = append([]TieBreaker{gd, GoalsScored}, HeadToHeadPoints, HeadToHeadGoalDiff, HeadToHeadAwayGoals, AwayGoals)
	case "CL", "EL", "EC":
		r.TieBreakers = append(h2h, GoalDifference, GoalsScored)
	default:
		r.TieBreakers = append([]TieBreaker{GoalDifference, GoalsScored}, h2h...)
	}
	return r
}

// Validate checks the rules.
func (r TableRules) Validate() error {
	if r.PointsWin < 1 || r.PointsWin > 10 {
		return Invalidf("pointsWin", fmt.Sprint(r.PointsWin), "must be from 1 to 10")
	}
	if r.PointsDraw < 0 || r.PointsDraw >= r.PointsWin {
		return Invalidf("pointsDraw", fmt.Sprint(r.PointsDraw), "must be from 0 to pointsWin-1")
	}
	seen := map[TieBreaker]bool{}
	for _, t := range r.TieBreakers {
		if _, err := ParseTieBreaker(string(t)); err != nil {
			return err
		}
		if seen[t] {
			return Invalidf("tieBreakers", string(t), "is listed twice")
		}
		seen[t] = true
	}
	return nil
}

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
