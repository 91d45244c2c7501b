package model

import (
	"fmt"
	"regexp"
	"strconv"
	"time"
)

// Stage tells whether a fixture counts in its competition's table.
type Stage string

// Stages.
const (
	// Regular fixtures count in the table (the group stage in tournaments).
	Regular Stage = "REGULAR"
	// Playoff fixtures (promotion and relegation play-offs, tournament
	// knock-out rounds) never count in a table.
	Playoff Stage = "PLAYOFF"
)

// Side names one of a fixture's two teams.
type Side string

// Sides; Draw is used for an awarded result with no winner.
const (
	Home Side = "HOME_TEAM"
	Away Side = "AWAY_TEAM"
	Draw Side = "DRAW"
)

// ParseSide parses home, away or draw (case-insensitive) for field.
func ParseSide(field, s string) (Side, error) {
	switch s {
	case "home", "HOME", "HOME_TEAM":
		return Home, nil
	case "away", "AWAY", "AWAY_TEAM":
		return Away, nil
	case "draw", "DRAW":
		return Draw, nil
	}
	return "", Invalidf(field, s, "must be home, away or draw")
}

// Score is a pair of goal counts.
type Score struct {
	Home int `json:"home"`
	Away int `json:"away"`
}

// Winner returns the side with more goals, or Draw.
func (s Score) Winner() Side {
	switch {
	case s.Home > s.Away:
		return Home
	case s.Away > s.Home:
		return Away
	}
	return Draw
}

// Result holds what is known of a fixture's score. FullTime is the score
// after regular time (and, while live, the running score).
type Result struct {
	FullTime  *Score `json:"fullTime,omitempty"`
	HalfTime  *Score `json:"halfTime,omitempty"`
	ExtraTime *Score `json:"extraTime,omitempty"`
	Penalties *Score `json:"penalties,omitempty"`
}

// Odds are the bookmakers' decimal odds, optional.
type Odds struct {
	HomeWin float64 `json:"homeWin"`
	Draw    float64 `json:"draw"`
	AwayWin float64 `json:"awayWin"`
}

// Fixture is a scheduled game. A zero team id is a knock-out placeholder,
// described by its Placeholder name ("Winner Group A").
type Fixture struct {
	ID              int       `json:"id"`
	CompetitionID   int       `json:"competitionId"`
	Matchday        int       `json:"matchday"`
	Group           string    `json:"group,omitempty"`
	Stage           Stage     `json:"stage"`
	Round           string    `json:"round,omitempty"`
	Kickoff         time.Time `json:"kickoff"`
	HomeTeamID      int       `json:"homeTeamId,omitempty"`
	AwayTeamID      int       `json:"awayTeamId,omitempty"`
	HomePlaceholder string    `json:"homePlaceholder,omitempty"`
	AwayPlaceholder string    `json:"awayPlaceholder,omitempty"`
	Status          Status    `json:"status"`
	Result          Result    `json:"result"`
	// Awarded is set when the result was awarded by the league: the table
	// counts it whatever the goals say.
	Awarded Side  `json:"awarded,omitempty"`
	Odds    *Odds `json:"odds,omitempty"`
	// Source identifies the fixture in the file it was imported from, so a
	// re-import finds it again.
	Source string `json:"source,omitempty"`
}

// Outcome is the side that gets the win in a table: the awarded side if
// any, else the full-time winner. ok is false while there is no result.
func (f *Fixture) Outcome() (Side, bool) {
	if !f.Status.HasResult() {
		return "", false
	}
	if f.Awarded != "" {
		return f.Awarded, true
	}
	if f.Result.FullTime == nil {
		return "", false
	}
	return f.Result.FullTime.Winner(), true
}

// Validate checks a fixture on its own. Checks against other entities
// (teams in the competition, status transitions) belong to the writer.
func (f *Fixture) Validate() error {
	if f.ID <= 0 {
		return Invalidf("id", fmt.Sprint(f.ID), "must be a positive integer")
	}
	if f.CompetitionID <= 0 {
		return Invalidf("competition", fmt.Sprint(f.CompetitionID), "must be a positive integer")
	}
	if f.Matchday < 1 || f.Matchday > 99 {
		return Invalidf("matchday", fmt.Sprint(f.Matchday), "must be from 1 to 99")
	}
	switch f.Stage {
	case Regular, Playoff:
	default:
		return Invalidf("stage", string(f.Stage), "must be REGULAR or PLAYOFF")
	}
	if f.Kickoff.IsZero() {
		return Invalidf("kickoff", "", "is required")
	}
	if f.HomeTeamID < 0 || f.AwayTeamID < 0 {
		return Invalidf("team", fmt.Sprint(min(f.HomeTeamID, f.AwayTeamID)), "team ids must be positive")
	}
	if f.HomeTeamID != 0 && f.HomeTeamID == f.AwayTeamID {
		return Invalidf("awayTeam", fmt.Sprint(f.AwayTeamID), "must differ from the home team")
	}
	if _, err := ParseStatus(string(f.Status)); err != nil {
		return err
	}
	if (f.Status == InPlay || f.Status == Finished) && (f.HomeTeamID == 0 || f.AwayTeamID == 0) {
		return Invalidf("status", string(f.Status), "needs both teams known")
	}
	if f.Status == Finished && f.Result.FullTime == nil && f.Awarded == "" {
		return Invalidf("result", "", "a FINISHED fixture needs a full-time score or an awarded winner")
	}
	for _, s := range []struct {
		field string
		score *Score
	}{{"fullTime", f.Result.FullTime}, {"halfTime", f.Result.HalfTime}, {"extraTime", f.Result.ExtraTime}, {"penalties", f.Result.Penalties}} {
		if s.score != nil && (s.score.Home < 0 || s.score.Away < 0 || s.score.Home > 99 || s.score.Away > 99) {
			return Invalidf(s.field, fmt.Sprintf("%d-%d", s.score.Home, s.score.Away), "goals must be from 0 to 99")
		}
	}
	if f.Result.FullTime == nil && (f.Result.HalfTime != nil || f.Result.ExtraTime != nil || f.Result.Penalties != nil) {
		return Invalidf("fullTime", "", "is required when other scores are given")
	}
	if f.Awarded != "" {
		if _, err := ParseSide("awarded", string(f.Awarded)); err != nil {
			return err
		}
		if f.Status != Finished {
			return Invalidf("awarded", string(f.Awarded), "only a FINISHED fixture can have an awarded result")
		}
	}
	if f.Odds != nil && (f.Odds.HomeWin < 1 || f.Odds.Draw < 1 || f.Odds.AwayWin < 1) {
		return Invalidf("odds", fmt.Sprintf("%v/%v/%v", f.Odds.HomeWin, f.Odds.Draw, f.Odds.AwayWin), "decimal odds must be at least 1")
	}
	return nil
}

var scoreRE = regexp.MustCompile(`^(\d+)[-:](\d+)$`)

// ParseScore parses "2-1" (or "2:1") for field.
func ParseScore(field, s string) (Score, error) {
	m := scoreRE.FindStringSubmatch(s)
	if m == nil {
		return Score{}, Invalidf(field, s, "must be a score like 2-1")
	}
	home, errH := strconv.Atoi(m[1])
	away, errA := strconv.Atoi(m[2])
	if errH != nil || errA != nil || home > 99 || away > 99 {
		return Score{}, Invalidf(field, s, "goals must be from 0 to 99")
	}
	return Score{Home: home, Away: away}, nil
}
