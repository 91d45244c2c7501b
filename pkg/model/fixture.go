package model

import (
	"fmt"
	"regexp"
	"slices"
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
// after regular time: while IN_PLAY or PAUSED, the running score (in extra
// time ExtraTime runs, in a shoot-out Penalties). HalfTime is set once
// known.
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
	ID            int    `json:"id"`
	CompetitionID int    `json:"competitionId"`
	Matchday      int    `json:"matchday"`
	Group         string `json:"group,omitempty"`
	Stage         Stage  `json:"stage"`
	// Leg is 1 or 2 in a two-legged tie (the second leg's extra time and
	// shoot-out follow a level aggregate), 0 for a single match.
	Leg             int       `json:"leg,omitempty"`
	Round           string    `json:"round,omitempty"`
	Kickoff         time.Time `json:"kickoff"`
	HomeTeamID      int       `json:"homeTeamId,omitempty"`
	AwayTeamID      int       `json:"awayTeamId,omitempty"`
	HomePlaceholder string    `json:"homePlaceholder,omitempty"`
	AwayPlaceholder string    `json:"awayPlaceholder,omitempty"`
	Status          Status    `json:"status"`
	Result          Result    `json:"result"`
	// Minute is the minute of play of a live match where the source has
	// it (1 to 120), InjuryTime the minutes of stoppage time played after
	// it (45+2 is Minute 45, InjuryTime 2). Both mean something only while
	// the status is Live: the write path clears them otherwise.
	Minute     int `json:"minute,omitempty"`
	InjuryTime int `json:"injuryTime,omitempty"`
	// Awarded is set when the result was awarded by the league: the table
	// counts it whatever the goals say. A FINISHED or AWARDED fixture may
	// carry it (streams written before AWARDED existed hold FINISHED ones).
	Awarded Side  `json:"awarded,omitempty"`
	Odds    *Odds `json:"odds,omitempty"`
	// Referee is the referee's name as a source gives it. The v1 API has
	// no field for it: it is kept, not shown.
	Referee string `json:"referee,omitempty"`
	// Venue is the ground as a source names it ("Lusail Iconic Stadium,
	// Lusail"); v4 shows it on a single match.
	Venue string `json:"venue,omitempty"`
	// Goals are the goals in the order of play, where a source has them;
	// together they make the final (or, while live, the running) score
	// (checkGoals). A goal taken back is absent from the next revision.
	Goals []Goal `json:"goals,omitempty"`
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

// Validate checks a fixture as stored, on its own. Checks against other
// entities (its competition, its previous state) are CheckFixture's.
func (f *Fixture) Validate() error {
	return firstError(CheckID("id", f.ID), f.ValidateDraft())
}

// ValidateDraft checks everything but the id, which a new fixture gets once
// the rest is valid: where it sits in its competition, its teams, its
// labels, then its state (status, scores, goals, award, odds).
func (f *Fixture) ValidateDraft() error {
	if err := f.checkPlace(); err != nil {
		return err
	}
	if err := f.checkTeams(); err != nil {
		return err
	}
	if err := firstError(CheckText("group", f.Group, MaxLabel), CheckText("round", f.Round, MaxLabel), CheckText("referee", f.Referee, MaxName),
		CheckText("venue", f.Venue, MaxName), CheckText("source", f.Source, MaxSource)); err != nil {
		return err
	}
	return f.checkState()
}

// checkPlace checks the competition, matchday, stage, leg and kick-off.
func (f *Fixture) checkPlace() error {
	if err := CheckID("competition", f.CompetitionID); err != nil {
		return err
	}
	if f.Matchday < 1 || f.Matchday > 99 {
		return Invalidf("matchday", fmt.Sprint(f.Matchday), "must be from 1 to 99")
	}
	switch f.Stage {
	case Regular, Playoff:
	default:
		return Invalidf("stage", string(f.Stage), "must be REGULAR or PLAYOFF")
	}
	if f.Leg < 0 || f.Leg > 2 {
		return Invalidf("leg", fmt.Sprint(f.Leg), "must be 1 or 2 for a two-legged tie, 0 for a single match")
	}
	if f.Kickoff.IsZero() {
		return Invalidf("kickoff", "", "is required")
	}
	return nil
}

// checkTeams checks the two teams: ids or placeholders, not the same team.
func (f *Fixture) checkTeams() error {
	for _, side := range []struct {
		field, placeholderField string
		id                      int
		placeholder             string
	}{{"homeTeam", "homeTeam placeholder", f.HomeTeamID, f.HomePlaceholder}, {"awayTeam", "awayTeam placeholder", f.AwayTeamID, f.AwayPlaceholder}} {
		if side.id != 0 {
			if err := CheckID(side.field, side.id); err != nil {
				return err
			}
		}
		// Constant field names: a concatenation here cost an allocation
		// per fixture and side in every replay.
		if err := CheckText(side.placeholderField, side.placeholder, MaxLabel); err != nil {
			return err
		}
	}
	if f.HomeTeamID != 0 && f.HomeTeamID == f.AwayTeamID {
		return Invalidf("awayTeam", fmt.Sprint(f.AwayTeamID), "must differ from the home team")
	}
	return nil
}

// checkState checks the status and what it allows: the minute of a live
// match, a result, goals, an awarded winner; and the odds.
func (f *Fixture) checkState() error {
	if !slices.Contains(Statuses, f.Status) {
		// Stored statuses are canonical (ParseStatus's output), so that
		// every reader can compare them with the constants.
		return Invalidf("status", string(f.Status), "must be one of %s", statusNames)
	}
	if f.Status.Played() && (f.HomeTeamID == 0 || f.AwayTeamID == 0) {
		return Invalidf("status", string(f.Status), "needs both teams known")
	}
	if f.Status.HasResult() && f.Result.FullTime == nil && f.Awarded == "" {
		return Invalidf("result", "", "a fixture %s needs a full-time score or an awarded winner", f.Status)
	}
	if err := firstError(f.checkLive(), f.checkResult(), f.checkGoals()); err != nil {
		return err
	}
	if f.Awarded != "" {
		if _, err := ParseSide("awarded", string(f.Awarded)); err != nil {
			return err
		}
		if !f.Status.HasResult() {
			return Invalidf("awarded", string(f.Awarded), "only a FINISHED or AWARDED fixture can have an awarded result")
		}
	}
	if o := f.Odds; o != nil && !(validOdds(o.HomeWin) && validOdds(o.Draw) && validOdds(o.AwayWin)) {
		return Invalidf("odds", fmt.Sprintf("%v/%v/%v", o.HomeWin, o.Draw, o.AwayWin), "decimal odds must be numbers from 1 to 10000")
	}
	return nil
}

// checkLive checks the minute and injury time: only a live match has
// them (a finished one's last minute is no state of the match), and a
// source that sends a minute sends one of regular or extra time.
func (f *Fixture) checkLive() error {
	if f.Minute == 0 && f.InjuryTime == 0 {
		return nil
	}
	if !f.Status.Live() {
		return Invalidf("minute", fmt.Sprint(f.Minute), "only a live fixture (IN_PLAY, PAUSED, EXTRA_TIME, PENALTY_SHOOTOUT) has a minute, not a %s one", f.Status)
	}
	if f.Minute < 1 || f.Minute > 120 {
		return Invalidf("minute", fmt.Sprint(f.Minute), "must be from 1 to 120")
	}
	if f.InjuryTime < 0 || f.InjuryTime > 30 {
		return Invalidf("injury time", fmt.Sprint(f.InjuryTime), "must be from 0 to 30 minutes")
	}
	return nil
}

// validOdds reports whether x is decimal odds: a number from 1 to 10000.
// NaN and the infinities fail it: every comparison with NaN is false, so
// the test is written to need both bounds true (a NaN stored would make
// the fixture's event one JSON cannot carry).
func validOdds(x float64) bool { return x >= 1 && x <= 10000 }

// checkResult refuses a result that cannot have happened. Regular time
// comes first: half time is part of it; extra time follows a level full
// time (or, in the second leg of a tie, a level aggregate, which one match
// cannot see) and adds to the full-time goals; a shoot-out follows a level
// match and has a winner. Which fixtures may go beyond regular time is the
// competition's (CheckFixture). An awarded winner needs no goals.
func (f *Fixture) checkResult() error {
	r := f.Result
	for _, s := range []struct {
		field string
		score *Score
	}{{"score", r.FullTime}, {"half-time", r.HalfTime}, {"extra-time", r.ExtraTime}, {"penalties", r.Penalties}} {
		if s.score != nil && (s.score.Home < 0 || s.score.Away < 0 || s.score.Home > 99 || s.score.Away > 99) {
			return Invalidf(s.field, s.score.String(), "goals must be from 0 to 99")
		}
	}
	if r.FullTime == nil {
		if r.HalfTime != nil || r.ExtraTime != nil || r.Penalties != nil {
			return Invalidf("score", "", "a full-time score is required when other scores are given")
		}
		return nil
	}
	ft := *r.FullTime
	if ht := r.HalfTime; ht != nil && (ht.Home > ft.Home || ht.Away > ft.Away) {
		return Invalidf("half-time", ht.String(), "cannot exceed the full-time score %s for either side", ft)
	}
	level, err := f.checkExtraTime(ft)
	if err != nil {
		return err
	}
	if p := r.Penalties; p != nil {
		// A shoot-out under way is level after every other kick.
		if p.Home == p.Away && f.Status != PenaltyShootout {
			return Invalidf("penalties", p.String(), "a shoot-out has a winner")
		}
		if level.Home != level.Away && f.Leg != 2 {
			return Invalidf("penalties", p.String(), "a shoot-out follows a level match, not %s (a second leg says so with leg 2)", level)
		}
	}
	return nil
}

// checkExtraTime checks the score after extra time against the full-time
// score ft, and returns the score a shoot-out would follow.
func (f *Fixture) checkExtraTime(ft Score) (Score, error) {
	et := f.Result.ExtraTime
	if et == nil {
		return ft, nil
	}
	if et.Home < ft.Home || et.Away < ft.Away {
		return ft, Invalidf("extra-time", et.String(), "is the score after extra time and cannot be below the full-time score %s", ft)
	}
	if ft.Home != ft.Away && f.Leg != 2 {
		return ft, Invalidf("extra-time", et.String(), "extra time follows a level full time, not %s (a second leg says so with leg 2)", ft)
	}
	return *et, nil
}

// String is the score as editors write it, 2-1.
func (s Score) String() string { return fmt.Sprintf("%d-%d", s.Home, s.Away) }

// CheckFixture checks a fixture against its competition and, for an edit,
// its previous state: the rules a fixture cannot check on its own. The
// status path from prev is Path's.
func CheckFixture(c *Competition, f *Fixture, prev *Fixture) error {
	if err := checkInCompetition(c, f, prev); err != nil {
		return err
	}
	return f.Validate()
}

// CheckFixtureDraft is CheckFixture for a new fixture without its id yet.
func CheckFixtureDraft(c *Competition, f *Fixture) error {
	if err := checkInCompetition(c, f, nil); err != nil {
		return err
	}
	return f.ValidateDraft()
}

func checkInCompetition(c *Competition, f *Fixture, prev *Fixture) error {
	if f.CompetitionID != c.ID {
		return Invalidf("competition", fmt.Sprint(f.CompetitionID), "does not match competition %d", c.ID)
	}
	if prev != nil {
		if prev.CompetitionID != f.CompetitionID {
			return Invalidf("competition", fmt.Sprint(f.CompetitionID), "a fixture cannot move to another competition (it is in %d)", prev.CompetitionID)
		}
		if _, err := prev.Status.Path(f.Status); err != nil {
			return err
		}
	}
	if f.Stage == Regular {
		return checkRegular(c, f)
	}
	return nil
}

// checkRegular checks a fixture that counts in the table against its
// competition's shape: its teams, matchdays, groups, and whether it may go
// beyond regular time. Play-off fixtures may bring in teams from outside
// (a relegation play-off against a lower league's club), go past the last
// matchday and to extra time.
func checkRegular(c *Competition, f *Fixture) error {
	if len(c.Teams) > 0 {
		for _, side := range []struct {
			field string
			id    int
		}{{"homeTeam", f.HomeTeamID}, {"awayTeam", f.AwayTeamID}} {
			if side.id != 0 && !c.HasTeam(side.id) {
				return Invalidf(side.field, fmt.Sprint(side.id), "is not a team of competition %d", c.ID)
			}
		}
	}
	if c.NumberOfMatchdays > 0 && f.Matchday > c.NumberOfMatchdays {
		return Invalidf("matchday", fmt.Sprint(f.Matchday), "competition %d has %d matchdays (play-off rounds may go beyond with stage PLAYOFF)", c.ID, c.NumberOfMatchdays)
	}
	if c.Type == TypeTournament && f.Group == "" {
		return Invalidf("group", "", "a group-stage fixture of a tournament needs a group")
	}
	if c.Type == TypeCup {
		return Invalidf("stage", string(f.Stage), "every fixture of a cup is a knock-out (PLAYOFF) fixture")
	}
	if (f.Status == ExtraTime || f.Status == PenaltyShootout) && !c.RegularExtraTime {
		return Invalidf("status", string(f.Status), "only knock-out (PLAYOFF stage) fixtures go to extra time or penalties in competition %d", c.ID)
	}
	if r := f.Result; (r.ExtraTime != nil || r.Penalties != nil) && !c.RegularExtraTime {
		field, v := "extra-time", r.ExtraTime
		if v == nil {
			field, v = "penalties", r.Penalties
		}
		return Invalidf(field, v.String(), "only knock-out (PLAYOFF stage) fixtures go to extra time or penalties in competition %d", c.ID)
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
