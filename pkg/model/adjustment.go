package model

import (
	"fmt"
	"strings"
)

// Adjustment adds (or, negative, deducts) points to a team in a
// competition's table. Points 0 withdraws an earlier adjustment.
type Adjustment struct {
	ID            int    `json:"id"`
	CompetitionID int    `json:"competitionId"`
	TeamID        int    `json:"teamId"`
	Points        int    `json:"points"`
	Reason        string `json:"reason"`
}

// Validate checks an adjustment.
func (a *Adjustment) Validate() error {
	if a.ID <= 0 {
		return Invalidf("id", fmt.Sprint(a.ID), "must be a positive integer")
	}
	if a.CompetitionID <= 0 {
		return Invalidf("competition", fmt.Sprint(a.CompetitionID), "must be a positive integer")
	}
	if a.TeamID <= 0 {
		return Invalidf("team", fmt.Sprint(a.TeamID), "must be a positive integer")
	}
	if a.Points < -99 || a.Points > 99 {
		return Invalidf("points", fmt.Sprint(a.Points), "must be from -99 to 99")
	}
	if strings.TrimSpace(a.Reason) == "" {
		return Invalidf("reason", a.Reason, "must say why (e.g. administration)")
	}
	return nil
}

// TieBreakOrder is an editor's decision for teams still level after every
// tie-breaker (fair play, drawing of lots): among level teams, those listed
// earlier rank higher. One order per competition.
type TieBreakOrder struct {
	CompetitionID int    `json:"competitionId"`
	TeamIDs       []int  `json:"teamIds"`
	Reason        string `json:"reason"`
}

// Validate checks an order.
func (o *TieBreakOrder) Validate() error {
	if o.CompetitionID <= 0 {
		return Invalidf("competition", fmt.Sprint(o.CompetitionID), "must be a positive integer")
	}
	seen := map[int]bool{}
	for _, id := range o.TeamIDs {
		if id <= 0 || seen[id] {
			return Invalidf("teams", fmt.Sprint(id), "must be distinct positive team ids")
		}
		seen[id] = true
	}
	if len(o.TeamIDs) < 2 {
		return Invalidf("teams", fmt.Sprint(len(o.TeamIDs)), "an order needs at least two teams")
	}
	if strings.TrimSpace(o.Reason) == "" {
		return Invalidf("reason", o.Reason, "must say why (e.g. fair play, lots)")
	}
	return nil
}

// Rank returns team's place in the order, or -1 if it is not listed.
func (o *TieBreakOrder) Rank(team int) int {
	for i, id := range o.TeamIDs {
		if id == team {
			return i
		}
	}
	return -1
}
