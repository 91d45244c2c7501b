package model

import (
	"fmt"
	"slices"
	"strings"
)

// TieBreaker is one rule that orders teams level on points.
type TieBreaker string

// The tie-breaker vocabulary. Rules on totals compare the teams' own
// records; head-to-head rules compare a mini-table of the games among level
// teams (TableRules.HeadToHead says which teams); opponents' rules compare
// what the teams' opponents did; the last two read what editors enter as
// TieBreakData.
const (
	GoalDifference TieBreaker = "GOAL_DIFFERENCE"
	GoalsScored    TieBreaker = "GOALS_SCORED"
	// GoalQuotient is goals scored divided by goals conceded (Bundesliga
	// before 1971, England before 1976).
	GoalQuotient TieBreaker = "GOAL_QUOTIENT"
	// AwayGoals is the goals scored away.
	AwayGoals TieBreaker = "AWAY_GOALS"
	Wins      TieBreaker = "WINS"
	AwayWins  TieBreaker = "AWAY_WINS"

	HeadToHeadPoints    TieBreaker = "H2H_POINTS"
	HeadToHeadGoalDiff  TieBreaker = "H2H_GOAL_DIFFERENCE"
	HeadToHeadGoals     TieBreaker = "H2H_GOALS_SCORED"
	HeadToHeadAwayGoals TieBreaker = "H2H_AWAY_GOALS"

	// Opponents' rules add up, over every game a team played, the
	// opponent's points, goal difference or goals (a league phase where
	// teams meet different opponents: Champions League from 2024-25).
	OpponentsPoints   TieBreaker = "OPPONENTS_POINTS"
	OpponentsGoalDiff TieBreaker = "OPPONENTS_GOAL_DIFFERENCE"
	OpponentsGoals    TieBreaker = "OPPONENTS_GOALS_SCORED"

	// DisciplinaryPoints: fewer ranks higher (UEFA: yellow card 1, red 3;
	// FIFA's fair-play deductions taken as positive numbers).
	DisciplinaryPoints TieBreaker = "DISCIPLINARY_POINTS"
	// Coefficient: the editors' coefficient order (club coefficient,
	// qualifying ranking, FIFA ranking); a team listed earlier ranks higher.
	Coefficient TieBreaker = "COEFFICIENT"
)

var tieBreakers = []TieBreaker{GoalDifference, GoalsScored, GoalQuotient, AwayGoals, Wins, AwayWins,
	HeadToHeadPoints, HeadToHeadGoalDiff, HeadToHeadGoals, HeadToHeadAwayGoals,
	OpponentsPoints, OpponentsGoalDiff, OpponentsGoals, DisciplinaryPoints, Coefficient}

// HeadToHead reports whether t compares a mini-table of the level teams.
func (t TieBreaker) HeadToHead() bool {
	switch t {
	case HeadToHeadPoints, HeadToHeadGoalDiff, HeadToHeadGoals, HeadToHeadAwayGoals:
		return true
	}
	return false
}

// ParseTieBreaker parses one tie-breaker name (case-insensitive).
func ParseTieBreaker(s string) (TieBreaker, error) {
	u := TieBreaker(strings.ToUpper(strings.TrimSpace(s)))
	if slices.Contains(tieBreakers, u) {
		return u, nil
	}
	return "", Invalidf("tieBreakers", s, "must be one of %s", names(tieBreakers))
}

func names[T ~string](vs []T) string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return strings.Join(out, ", ")
}

// HeadToHeadMode says which teams a run of consecutive head-to-head rules
// compares.
type HeadToHeadMode string

// Head-to-head modes.
const (
	// HeadToHeadEachRule (the default, also when empty): each head-to-head
	// rule builds its mini-table among exactly the teams still level when
	// it is reached, so the mini-table is recomputed after every
	// criterion (Spain, Italy).
	HeadToHeadEachRule HeadToHeadMode = "EACH_RULE"
	// HeadToHeadTogether: the run of head-to-head rules ranks the whole
	// group of teams level on the rules before it on one mini-table, once
	// (FIFA World Cups 1998–2022).
	HeadToHeadTogether HeadToHeadMode = "TOGETHER"
	// HeadToHeadUEFA: as Together, then the same run again on a new
	// mini-table of each subset still level, until it separates no more;
	// only then do the rules after the run follow (UEFA competitions,
	// World Cup 2026).
	HeadToHeadUEFA HeadToHeadMode = "UEFA"
)

var headToHeadModes = []HeadToHeadMode{HeadToHeadEachRule, HeadToHeadTogether, HeadToHeadUEFA}

// Carry says which points a team brings from the regular season into a
// play-off phase.
type Carry string

// Carries. Halved points keep the half they lose or gain by rounding as a
// tie-breaker right after points: of teams level on points, one whose
// points were rounded up ranks below one whose were not (Belgium: "the half
// point is taken off again"), one rounded down above (Austria: "the half
// point is added again").
const (
	CarryAll      Carry = "ALL"
	CarryHalfUp   Carry = "HALF_UP"
	CarryHalfDown Carry = "HALF_DOWN"
	CarryNone     Carry = "NONE"
)

var carries = []Carry{CarryAll, CarryHalfUp, CarryHalfDown, CarryNone}

// Carried returns the points a team with points in the regular season
// brings into a phase, and the half point rounding added (+1), took off (-1)
// or neither (0).
func (c Carry) Carried(points int) (carried, half int) {
	switch c {
	case CarryAll:
		return points, 0
	case CarryHalfUp, CarryHalfDown:
		// A shift halves rounding down, also below zero (a deduction).
		floor := points >> 1
		switch {
		case points&1 == 0:
			return floor, 0
		case c == CarryHalfUp:
			return floor + 1, 1
		}
		return floor, -1
	}
	return 0, 0
}

// PhaseKind says how a phase shows in the table.
type PhaseKind string

// Phase kinds.
const (
	// PhaseSection: the league splits into sections that play on among
	// themselves; the table stays one list of whole-season totals, each
	// section ranked within its places (Scotland, Denmark).
	PhaseSection PhaseKind = "SECTION"
	// PhasePlayoff: the phase has its own table of its games, which its
	// teams start with the points they carry (Belgium, Austria).
	PhasePlayoff PhaseKind = "PLAYOFF"
)

// Phase is a part of a league's season after its regular season: the teams
// placed From to To in the regular-season table go on among themselves.
// Games of later matchdays between two teams of one phase count in that
// phase; other games of those matchdays count in no table.
type Phase struct {
	// Name is the phase's key in the table ("Champions' play-off").
	Name  string    `json:"name"`
	Kind  PhaseKind `json:"kind"`
	From  int       `json:"from"`
	To    int       `json:"to"`
	Carry Carry     `json:"carry,omitempty"` // play-offs only
	// TieBreakers replace the competition's in this phase when set.
	TieBreakers []TieBreaker `json:"tieBreakers,omitempty"`
}

// RegularSeason is the key under which a league's table lists, once its
// play-off phases have begun, the teams that take part in none of them.
const RegularSeason = "Regular season"

// Thirds is the key of the ranking of the teams placed third in their
// groups, in tournaments whose best thirds go through.
const Thirds = "thirds"

// ThirdsRule ranks the teams placed third in their groups against each
// other: points, then TieBreakers (no head-to-head: they never met).
type ThirdsRule struct {
	TieBreakers []TieBreaker `json:"tieBreakers"`
}

// TableRules say how a competition's table is computed. Fields after
// TieBreakers were added later; streams written before them decode with
// their zero values, which keep the earlier behaviour.
type TableRules struct {
	PointsWin   int          `json:"pointsWin"`
	PointsDraw  int          `json:"pointsDraw"`
	TieBreakers []TieBreaker `json:"tieBreakers"`
	// HeadToHead is how runs of head-to-head rules are applied; "" is
	// EACH_RULE.
	HeadToHead HeadToHeadMode `json:"headToHead,omitempty"`
	// RegularMatchdays is the last matchday of the regular season, after
	// which Phases begin. Phases apply to leagues, Thirds to tournaments;
	// a competition of the other type keeps them unused (the defaults of
	// a league code do not know the competition's type).
	RegularMatchdays int     `json:"regularMatchdays,omitempty"`
	Phases           []Phase `json:"phases,omitempty"`
	// Thirds, when set, ranks the teams placed third in their groups.
	Thirds *ThirdsRule `json:"thirds,omitempty"`
}

// Clone returns a copy sharing nothing with r.
func (r TableRules) Clone() TableRules {
	r.TieBreakers = slices.Clone(r.TieBreakers)
	r.Phases = slices.Clone(r.Phases)
	for i := range r.Phases {
		r.Phases[i].TieBreakers = slices.Clone(r.Phases[i].TieBreakers)
	}
	if r.Thirds != nil {
		r.Thirds = &ThirdsRule{TieBreakers: slices.Clone(r.Thirds.TieBreakers)}
	}
	return r
}

// PhaseTieBreakers returns the tie-breakers of phase p: its own, or the
// competition's.
func (r *TableRules) PhaseTieBreakers(p *Phase) []TieBreaker {
	if len(p.TieBreakers) > 0 {
		return p.TieBreakers
	}
	return r.TieBreakers
}

const (
	defaultPointsWin                = 3
	defaultPointsDraw               = 1
	historicPointsWin               = 2
	threePointsSinceYear            = 1995
	threePointsSinceEngland         = 1981
	threePointsSinceWorldCup        = 1994
	goalQuotientUntilYearBundesliga = 1970
)

// DefaultRules returns the table rules a league used in the season starting
// in year (a tournament: the year it was held). Editors override them per
// competition. docs/tables.md lists them with their sources.
//
//   - Points: 3 for a win from 1981 in England (PL, ELC, EL1, EL2, FAC),
//     1994 at the World Cup and 1995 elsewhere, 2 before.
//   - PL, ELC, EL1 and any league not listed: goal difference, goals
//     scored, then head-to-head.
//   - SA, SB, PD, SD: head-to-head points and goal difference first, the
//     mini-table recomputed after each.
//   - BL1, BL2, BL3: goal difference, goals scored, head-to-head, away
//     goals; goal quotient in place of goal difference before 1971.
//   - CL, EL: UEFA group rules; the league phase's from 2024.
//   - EC: UEFA group rules; best thirds from 2016.
//   - WC: FIFA's; best thirds 1986–1994 and from 2026.
//   - SPL (Scotland): split into two sections after round 33, from 2000.
//   - BJL (Belgium): wins first; play-offs with halved points from 2009.
//   - ABL (Austria): two groups with halved points after round 22, from
//     2018.
func DefaultRules(code LeagueCode, year int) TableRules {
	r := TableRules{PointsWin: defaultPointsWin, PointsDraw: defaultPointsDraw}
	threeSince := threePointsSinceYear
	switch code {
	case "PL", "ELC", "EL1", "EL2", "FAC":
		threeSince = threePointsSinceEngland
	case "WC":
		threeSince = threePointsSinceWorldCup
	}
	if year < threeSince {
		r.PointsWin = historicPointsWin
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
	case "CL", "EL":
		uefaClubRules(&r, year, h2h)
	case "EC":
		euroRules(&r, year, h2h)
	case "WC":
		worldCupRules(&r, year, h2h)
	case "BJL":
		belgiumRules(&r, year)
	default:
		r.TieBreakers = append([]TieBreaker{GoalDifference, GoalsScored}, h2h...)
		switch {
		case code == "SPL" && year >= 2000:
			r.RegularMatchdays = 33
			r.Phases = []Phase{{Name: "Championship", Kind: PhaseSection, From: 1, To: 6},
				{Name: "Relegation", Kind: PhaseSection, From: 7, To: 12}}
		case code == "ABL" && year >= 2018:
			r.RegularMatchdays = 22
			r.Phases = []Phase{{Name: "Championship group", Kind: PhasePlayoff, From: 1, To: 6, Carry: CarryHalfDown},
				{Name: "Qualification group", Kind: PhasePlayoff, From: 7, To: 12, Carry: CarryHalfDown}}
		}
	}
	return r
}

// uefaClubRules: the group stage's head-to-head run with UEFA's
// re-application (head-to-head away goals until 2020-21), then the
// overall record; the league phase from 2024-25 has no head-to-head.
func uefaClubRules(r *TableRules, year int, h2h []TieBreaker) {
	tail := []TieBreaker{GoalDifference, GoalsScored, AwayGoals, Wins, AwayWins}
	switch {
	case year >= 2024:
		r.TieBreakers = append(tail, OpponentsPoints, OpponentsGoalDiff, OpponentsGoals, DisciplinaryPoints, Coefficient)
		return
	case year <= 2020:
		h2h = append(h2h, HeadToHeadAwayGoals)
	}
	r.HeadToHead = HeadToHeadUEFA
	r.TieBreakers = slices.Concat(h2h, tail, []TieBreaker{DisciplinaryPoints, Coefficient})
}

// euroRules: head-to-head with UEFA's re-application, then the group
// record (wins at Euro 2020 only), disciplinary points, the qualifying
// ranking. The four best of six thirds go through from 2016.
func euroRules(r *TableRules, year int, h2h []TieBreaker) {
	r.HeadToHead = HeadToHeadUEFA
	overall := []TieBreaker{GoalDifference, GoalsScored}
	if year == 2020 {
		overall = append(overall, Wins)
	}
	r.TieBreakers = slices.Concat(h2h, overall, []TieBreaker{DisciplinaryPoints, Coefficient})
	switch {
	case year >= 2020:
		r.Thirds = &ThirdsRule{TieBreakers: []TieBreaker{GoalDifference, GoalsScored, Wins, DisciplinaryPoints, Coefficient}}
	case year >= 2016:
		r.Thirds = &ThirdsRule{TieBreakers: []TieBreaker{GoalDifference, GoalsScored, DisciplinaryPoints, Coefficient}}
	}
}

// worldCupRules: the overall record, then head-to-head among all the teams
// concerned at once, then fair play (from 2018); from 2026 head-to-head
// first with re-application. Best thirds 1986–1994 and from 2026.
func worldCupRules(r *TableRules, year int, h2h []TieBreaker) {
	overall := []TieBreaker{GoalDifference, GoalsScored}
	switch {
	case year >= 2026:
		r.HeadToHead = HeadToHeadUEFA
		r.TieBreakers = slices.Concat(h2h, overall, []TieBreaker{DisciplinaryPoints, Coefficient})
		r.Thirds = &ThirdsRule{TieBreakers: []TieBreaker{GoalDifference, GoalsScored, DisciplinaryPoints, Coefficient}}
		return
	case year >= 2018:
		h2h = append(h2h, DisciplinaryPoints)
	case year >= 1986 && year <= 1994:
		r.Thirds = &ThirdsRule{TieBreakers: overall}
	}
	r.HeadToHead = HeadToHeadTogether
	r.TieBreakers = slices.Concat(overall, h2h)
}

// belgiumRules: wins before goal difference; after the regular season,
// play-offs that start from halved points rounded up (the relegation
// play-off from whole points), in three eras.
func belgiumRules(r *TableRules, year int) {
	r.TieBreakers = []TieBreaker{Wins, GoalDifference, GoalsScored, AwayGoals, AwayWins}
	champions := func(to int) Phase {
		return Phase{Name: "Champions' play-off", Kind: PhasePlayoff, From: 1, To: to, Carry: CarryHalfUp}
	}
	switch {
	case year >= 2023:
		r.RegularMatchdays = 30
		r.Phases = []Phase{champions(6), {Name: "Europe play-off", Kind: PhasePlayoff, From: 7, To: 12, Carry: CarryHalfUp},
			{Name: "Relegation play-off", Kind: PhasePlayoff, From: 13, To: 16, Carry: CarryAll}}
	case year >= 2020:
		r.RegularMatchdays = 34
		r.Phases = []Phase{champions(4), {Name: "Europe play-off", Kind: PhasePlayoff, From: 5, To: 8, Carry: CarryHalfUp}}
	case year >= 2009:
		r.RegularMatchdays = 30
		r.Phases = []Phase{champions(6)}
	}
}

// Validate checks the rules.
func (r TableRules) Validate() error {
	if r.PointsWin < 1 || r.PointsWin > 10 {
		return Invalidf("pointsWin", fmt.Sprint(r.PointsWin), "must be from 1 to 10")
	}
	if r.PointsDraw < 0 || r.PointsDraw >= r.PointsWin {
		return Invalidf("pointsDraw", fmt.Sprint(r.PointsDraw), "must be from 0 to pointsWin-1")
	}
	if err := validTieBreakers("tieBreakers", r.TieBreakers); err != nil {
		return err
	}
	if r.HeadToHead != "" && !slices.Contains(headToHeadModes, r.HeadToHead) {
		return Invalidf("headToHead", string(r.HeadToHead), "must be one of %s", names(headToHeadModes))
	}
	if err := r.validPhases(); err != nil {
		return err
	}
	if r.Thirds != nil {
		if err := validTieBreakers("thirds", r.Thirds.TieBreakers); err != nil {
			return err
		}
		for _, t := range r.Thirds.TieBreakers {
			if t.HeadToHead() {
				return Invalidf("thirds", string(t), "teams of different groups have no head-to-head record")
			}
		}
	}
	return nil
}

func validTieBreakers(field string, ts []TieBreaker) error {
	seen := map[TieBreaker]bool{}
	for _, t := range ts {
		if _, err := ParseTieBreaker(string(t)); err != nil {
			return Invalidf(field, string(t), "must be one of %s", names(tieBreakers))
		}
		if seen[t] {
			return Invalidf(field, string(t), "is listed twice")
		}
		seen[t] = true
	}
	return nil
}

func (r TableRules) validPhases() error {
	if len(r.Phases) == 0 {
		if r.RegularMatchdays != 0 {
			return Invalidf("regularMatchdays", fmt.Sprint(r.RegularMatchdays), "is only for a league with phases")
		}
		return nil
	}
	if r.RegularMatchdays < 1 || r.RegularMatchdays > 98 {
		return Invalidf("regularMatchdays", fmt.Sprint(r.RegularMatchdays), "must be from 1 to 98: the phases begin after it")
	}
	byFrom := slices.Clone(r.Phases)
	slices.SortFunc(byFrom, func(a, b Phase) int { return a.From - b.From })
	for i, p := range byFrom {
		field := "phases." + p.Name
		switch {
		case strings.TrimSpace(p.Name) == "" || p.Name == RegularSeason:
			return Invalidf("phases", p.Name, "each phase needs a name other than %q", RegularSeason)
		case p.Kind != PhaseSection && p.Kind != PhasePlayoff:
			return Invalidf(field+".kind", string(p.Kind), "must be %s or %s", PhaseSection, PhasePlayoff)
		case p.Kind != byFrom[0].Kind:
			return Invalidf(field+".kind", string(p.Kind), "phases are all sections or all play-offs")
		case p.From < 1 || p.To < p.From || p.To > 99:
			return Invalidf(field, fmt.Sprintf("%d-%d", p.From, p.To), "places must run from 1 to 99, from first to last")
		case i > 0 && p.From <= byFrom[i-1].To:
			return Invalidf(field, fmt.Sprintf("%d-%d", p.From, p.To), "overlaps phase %s", byFrom[i-1].Name)
		case p.Kind == PhaseSection && p.Carry != "" && p.Carry != CarryAll:
			return Invalidf(field+".carry", string(p.Carry), "a section keeps every point: leave carry out")
		case p.Kind == PhasePlayoff && !slices.Contains(carries, p.Carry):
			return Invalidf(field+".carry", string(p.Carry), "must be one of %s", names(carries))
		}
		if err := validTieBreakers(field+".tieBreakers", p.TieBreakers); err != nil {
			return err
		}
	}
	seen := map[string]bool{}
	for _, p := range r.Phases {
		if seen[p.Name] {
			return Invalidf("phases", p.Name, "is listed twice")
		}
		seen[p.Name] = true
	}
	return nil
}
