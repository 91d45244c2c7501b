package model

import (
	"fmt"
	"slices"
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

// Validate checks an adjustment as stored.
func (a *Adjustment) Validate() error {
	return firstError(CheckID("id", a.ID), a.ValidateDraft())
}

// ValidateDraft checks everything but the id.
func (a *Adjustment) ValidateDraft() error {
	if err := firstError(CheckID("competition", a.CompetitionID), CheckID("team", a.TeamID)); err != nil {
		return err
	}
	if a.Points < -99 || a.Points > 99 {
		return Invalidf("points", fmt.Sprint(-a.Points), "a deduction must be from -99 to 99 points")
	}
	if strings.TrimSpace(a.Reason) == "" {
		return Invalidf("reason", a.Reason, "must say why (e.g. administration)")
	}
	return CheckText("reason", a.Reason, MaxReason)
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
	if err := CheckID("competition", o.CompetitionID); err != nil {
		return err
	}
	seen := map[int]bool{}
	for _, id := range o.TeamIDs {
		if CheckID("teams", id) != nil || seen[id] {
			return Invalidf("teams", fmt.Sprint(id), "must be distinct team ids")
		}
		seen[id] = true
	}
	if len(o.TeamIDs) < 2 {
		return Invalidf("teams", strings.Trim(fmt.Sprint(o.TeamIDs), "[]"), "an order needs at least two teams")
	}
	if strings.TrimSpace(o.Reason) == "" {
		return Invalidf("reason", o.Reason, "must say why (e.g. fair play, lots)")
	}
	return CheckText("reason", o.Reason, MaxReason)
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

// TieBreakData is what editors enter for the tie-breakers that read data
// rather than results, one per competition: each team's disciplinary
// points (DISCIPLINARY_POINTS: fewer ranks higher) and the coefficient order
// (COEFFICIENT: a team listed earlier ranks higher). Either rule separates
// level teams only when it has a figure for every one of them.
type TieBreakData struct {
	CompetitionID int `json:"competitionId"`
	// Disciplinary maps a team id to its disciplinary points.
	Disciplinary map[int]int `json:"disciplinary,omitempty"`
	// Coefficients lists team ids, highest coefficient first.
	Coefficients []int `json:"coefficients,omitempty"`
	// Source says where the figures come from.
	Source string `json:"source"`
}

// Validate checks the data.
func (d *TieBreakData) Validate() error {
	if err := CheckID("competition", d.CompetitionID); err != nil {
		return err
	}
	for team, points := range d.Disciplinary {
		if CheckID("disciplinary", team) != nil {
			return Invalidf("disciplinary", fmt.Sprint(team), "must be a team id")
		}
		if points < 0 || points > 999 {
			return Invalidf("disciplinary", fmt.Sprintf("%d:%d", team, points), "points must be from 0 to 999")
		}
	}
	seen := map[int]bool{}
	for _, id := range d.Coefficients {
		if CheckID("coefficients", id) != nil || seen[id] {
			return Invalidf("coefficients", fmt.Sprint(id), "must be distinct team ids")
		}
		seen[id] = true
	}
	return CheckRequired("source", d.Source, MaxSource)
}

// Teams returns every team the data names, in increasing order.
func (d *TieBreakData) Teams() []int {
	ids := slices.Clone(d.Coefficients)
	for team := range d.Disciplinary {
		if !slices.Contains(ids, team) {
			ids = append(ids, team)
		}
	}
	slices.Sort(ids)
	return ids
}
