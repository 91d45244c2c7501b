package model

import (
	"fmt"
	"strings"
)

// GoalType says how a goal came: v4's goal types.
type GoalType string

// Goal types.
const (
	GoalRegular GoalType = "REGULAR"
	GoalPenalty GoalType = "PENALTY"
	// GoalOwn counts for the side that did not score it, and for no
	// scorer's tally.
	GoalOwn GoalType = "OWN"
)

// Goal is one goal of a fixture as a source records it: the tournament
// files carry every goal; league files carry none; a live feed may carry
// a goal with neither minute nor scorer (OpenLigaDB's), kept as a goal of
// its side that counts for no scorer.
type Goal struct {
	// Minute is the minute of play (1 to 120), 0 while unknown; Injury
	// the minutes of stoppage time after it (45+2 is Minute 45, Injury 2).
	Minute int `json:"minute"`
	Injury int `json:"injury,omitempty"`
	// Side is the team the goal counts for: for an own goal, the
	// scorer's opponent.
	Side Side     `json:"side"`
	Type GoalType `json:"type"`
	// ScorerID is the scorer's person id; 0 while unknown. Scorer is
	// the name as the source wrote it ("Mbappé"); both are empty for a
	// goal whose scorer the source does not know.
	ScorerID int    `json:"scorerId,omitempty"`
	Scorer   string `json:"scorer"`
}

// ScorerSide is the side of the player who scored: the side the goal
// counts for, or its opponent for an own goal.
func (g Goal) ScorerSide() Side {
	if g.Type != GoalOwn {
		return g.Side
	}
	if g.Side == Home {
		return Away
	}
	return Home
}

// Anonymous reports whether the source did not say who scored: such a
// goal counts for its side and for no scorer.
func (g Goal) Anonymous() bool { return g.ScorerID == 0 && g.Scorer == "" }

// String is the goal as a listing writes it: 45+2' Kane (pen.); "?" for
// an unknown minute or scorer.
func (g Goal) String() string {
	var b strings.Builder
	if g.Minute == 0 {
		b.WriteString("?")
	} else {
		fmt.Fprintf(&b, "%d", g.Minute)
	}
	if g.Injury > 0 {
		fmt.Fprintf(&b, "+%d", g.Injury)
	}
	scorer := g.Scorer
	if g.Anonymous() {
		scorer = "?"
	}
	fmt.Fprintf(&b, "' %s", scorer)
	switch g.Type {
	case GoalPenalty:
		b.WriteString(" (pen.)")
	case GoalOwn:
		b.WriteString(" (o.g.)")
	}
	return b.String()
}

// checkGoals refuses goals that cannot be the fixture's: each must be
// well formed, and together they must make the final score (after extra
// time if there was any; shoot-out kicks are not goals), or while live the
// running score, so that a scorers list never disagrees with the results
// it comes from; and the half-time score, when known, must be what they
// make by half time.
func (f *Fixture) checkGoals() error {
	if len(f.Goals) == 0 {
		return nil
	}
	if !f.Status.Played() {
		return Invalidf("goals", f.Goals[0].String(), "only a fixture played (live, suspended, finished or awarded) has goals, not a %s one", f.Status)
	}
	var n Score
	for _, g := range f.Goals {
		if err := g.validate(); err != nil {
			return err
		}
		if g.Side == Home {
			n.Home++
		} else {
			n.Away++
		}
	}
	final := f.Result.FullTime
	if f.Result.ExtraTime != nil {
		final = f.Result.ExtraTime
	}
	if final == nil || *final != n {
		want := "no score"
		if final != nil {
			want = final.String()
		}
		return Invalidf("goals", n.String(), "%d goals listed make %s, the result is %s", len(f.Goals), n, want)
	}
	return f.checkHalfTime()
}

// checkHalfTime checks the half-time score against the goals: those of
// the first half (minute 45 and its stoppage time or before) make it, and
// a goal of unknown minute may have been scored in either half.
func (f *Fixture) checkHalfTime() error {
	ht := f.Result.HalfTime
	if ht == nil {
		return nil
	}
	var first, unknown Score
	for _, g := range f.Goals {
		n := &first
		switch {
		case g.Minute == 0:
			n = &unknown
		case g.Minute > 45:
			continue
		}
		if g.Side == Home {
			n.Home++
		} else {
			n.Away++
		}
	}
	if ht.Home < first.Home || ht.Away < first.Away || ht.Home > first.Home+unknown.Home || ht.Away > first.Away+unknown.Away {
		return Invalidf("half-time", ht.String(), "the goals listed make %s by half time", first)
	}
	return nil
}

func (g Goal) validate() error {
	if g.Minute < 0 || g.Minute > 120 {
		return Invalidf("goal minute", fmt.Sprint(g.Minute), "must be from 1 to 120, or 0 when unknown")
	}
	if g.Injury < 0 || g.Injury > 30 || (g.Minute == 0 && g.Injury != 0) {
		return Invalidf("goal injury time", fmt.Sprint(g.Injury), "must be from 0 to 30 minutes, after a known minute")
	}
	if g.Side != Home && g.Side != Away {
		return Invalidf("goal side", string(g.Side), "must be HOME_TEAM or AWAY_TEAM")
	}
	switch g.Type {
	case GoalRegular, GoalPenalty, GoalOwn:
	default:
		return Invalidf("goal type", string(g.Type), "must be REGULAR, PENALTY or OWN")
	}
	if g.Anonymous() {
		return nil
	}
	if g.ScorerID != 0 {
		if err := CheckID("goal scorer id", g.ScorerID); err != nil {
			return err
		}
	}
	return CheckRequired("goal scorer", g.Scorer, MaxName)
}

// Person is a player known by name: a squad's player or a goal's scorer.
// One id whatever the spelling: other spellings a source uses ("Kane"
// for "Harry Kane") are Aliases, as a team's are its TeamNames.
type Person struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
	// TeamID is the team the person last played or scored for.
	TeamID      int      `json:"teamId,omitempty"`
	Aliases     []string `json:"aliases,omitempty"`
	Nationality string   `json:"nationality,omitempty"`
	DateOfBirth *Date    `json:"dateOfBirth,omitempty"`
	Position    string   `json:"position,omitempty"`
}

// Validate checks a person as stored.
func (p *Person) Validate() error {
	return firstError(CheckID("id", p.ID), p.ValidateDraft())
}

// ValidateDraft checks everything but the id.
func (p *Person) ValidateDraft() error {
	if err := firstError(CheckRequired("name", p.Name, MaxName), CheckText("nationality", p.Nationality, MaxLabel),
		CheckText("position", p.Position, MaxLabel)); err != nil {
		return err
	}
	if p.TeamID != 0 {
		if err := CheckID("teamId", p.TeamID); err != nil {
			return err
		}
	}
	for _, a := range p.Aliases {
		if err := CheckRequired("alias", a, MaxName); err != nil {
			return err
		}
	}
	if p.DateOfBirth != nil {
		if _, err := ParseDate("dateOfBirth", string(*p.DateOfBirth)); err != nil {
			return err
		}
	}
	return nil
}
