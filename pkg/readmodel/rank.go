package readmodel

import (
	"cmp"
	"slices"
	"strings"

	"github.com/footdata/footballd/pkg/model"
)

// ratio is a tie-breaker value: a whole number (d == 1) or a goal quotient,
// where d == 0 stands for "nothing conceded", above any finite quotient.
type ratio struct{ n, d int64 }

func whole(n int32) ratio { return ratio{int64(n), 1} }

func (a ratio) cmp(b ratio) int {
	switch {
	case a.d == 0 && b.d == 0:
		return 0
	case a.d == 0:
		return 1
	case b.d == 0:
		return -1
	}
	return cmp.Compare(a.n*b.d, b.n*a.d)
}

// Rules the ranker puts before the competition's tie-breakers: points, and
// in a play-off phase with halved points the points before rounding (the
// half point rounding added or took off counts again between level teams).
const (
	pointsRule      model.TieBreaker = "POINTS"
	unroundedPoints model.TieBreaker = "UNROUNDED_POINTS"
)

// maxHeadToHead is the most head-to-head rules a list can hold: each of the
// four at most once.
const maxHeadToHead = 4

// ranker orders the teams of a group by points and then by the
// competition's tie-breakers.
//
// It refines groups of level teams rule by rule: the teams level on
// everything so far are sorted by the next rule and split into runs that are
// still level, and each run goes on to the following rule.
//
// Head-to-head rules follow the competition's HeadToHead mode. EACH_RULE
// builds each rule's mini-table among exactly the teams still level when
// it is reached: if H2H_POINTS splits four level teams into one and three,
// H2H_GOAL_DIFFERENCE counts only the games among those three. TOGETHER
// takes a run of consecutive head-to-head rules as one criterion: one
// mini-table of the whole level group, sorted on every rule of the run.
// UEFA does the same, then applies the run again, on a new mini-table, to
// each subset it left level, as long as that separates anyone; the rules
// after the run then order who is still level. Points adjustments are not
// part of a mini-table: they are not results between the teams.
//
// Rules that read the editors' data (disciplinary points, coefficients)
// separate the level teams only when every one of them has a figure;
// otherwise they leave them level for the next rule.
type ranker struct {
	rules  []model.TieBreaker
	mode   model.HeadToHeadMode
	pw, pd int32
	editor map[int32]int // the tie-break order: team → place
	disc   map[int32]int32
	coef   map[int32]int32
	// stats are the teams by slot, for opponents' rules; opponents says
	// whether the rules have any, so that the builder records them.
	stats     []stat
	opponents bool
	// meetings[h*slots+a] totals the results of h at home against a, so
	// that a mini-table costs the square of the level teams, not a scan
	// of the results; nil when no rule is head-to-head.
	slots    int32
	meetings []meeting
	// Scratch for mini-tables, indexed by slot.
	mini []miniRow
}

type meeting struct{ homePoints, awayPoints, homeGoals, awayGoals int32 }

type miniRow struct{ points, goals, against, awayGoals int32 }

// newRanker returns a ranker of stats by points then tieBreakers; halved
// adds the points before rounding right after points.
func newRanker(in *tableInput, tieBreakers []model.TieBreaker, halved bool, stats []stat) ranker {
	rules := []model.TieBreaker{pointsRule}
	if halved {
		rules = append(rules, unroundedPoints)
	}
	slots := len(stats)
	r := ranker{
		rules: append(rules, tieBreakers...),
		mode:  in.comp.Rules.HeadToHead,
		pw:    int32(in.comp.Rules.PointsWin),
		pd:    int32(in.comp.Rules.PointsDraw),
		disc:  in.disc,
		coef:  in.coef,
		stats: stats,
		slots: int32(slots),
	}
	for _, t := range tieBreakers {
		switch {
		case t.HeadToHead() && r.meetings == nil:
			r.meetings, r.mini = make([]meeting, slots*slots), make([]miniRow, slots)
		case t == model.OpponentsPoints, t == model.OpponentsGoalDiff, t == model.OpponentsGoals:
			r.opponents = true
		}
	}
	if len(in.order) > 0 {
		r.editor = make(map[int32]int, len(in.order))
		for i, t := range in.order {
			r.editor[t] = i
		}
	}
	return r
}

// meet records a result for head-to-head mini-tables, if the rules have
// any.
func (r *ranker) meet(home, away, homePoints, awayPoints, homeGoals, awayGoals int32) {
	if r.meetings == nil {
		return
	}
	m := &r.meetings[home*r.slots+away]
	m.homePoints += homePoints
	m.awayPoints += awayPoints
	m.homeGoals += homeGoals
	m.awayGoals += awayGoals
}

// order sorts ts into table order and sets each team's tied flag.
func (r *ranker) order(ts []*stat) {
	for _, s := range ts {
		s.tied = false
	}
	r.resolve(ts, 0)
}

func (r *ranker) resolve(ts []*stat, rule int) {
	if len(ts) < 2 {
		return
	}
	if rule == len(r.rules) {
		r.breakTie(ts)
		return
	}
	if r.rules[rule].HeadToHead() && (r.mode == model.HeadToHeadTogether || r.mode == model.HeadToHeadUEFA) {
		end := rule
		for end < len(r.rules) && r.rules[end].HeadToHead() {
			end++
		}
		r.together(ts, rule, end)
		return
	}
	r.keys(ts, r.rules[rule])
	slices.SortStableFunc(ts, func(a, b *stat) int { return b.key.cmp(a.key) })
	for start := 0; start < len(ts); {
		end := start + 1
		for end < len(ts) && ts[end].key.cmp(ts[start].key) == 0 {
			end++
		}
		r.resolve(ts[start:end], rule+1)
		start = end
	}
}

// together applies the head-to-head rules rules[from:to] as one criterion
// on a mini-table of all of ts. Under UEFA, a run they leave level that is
// smaller than ts goes through them again among itself; a run they cannot
// split goes on to rules[to:].
func (r *ranker) together(ts []*stat, from, to int) {
	r.miniTable(ts)
	for _, s := range ts {
		m := &r.mini[s.slot]
		for k := from; k < to; k++ {
			s.block[k-from] = headToHeadKey(m, r.rules[k])
		}
	}
	n := to - from
	byBlock := func(a, b *stat) int { return slices.Compare(b.block[:n], a.block[:n]) }
	slices.SortStableFunc(ts, byBlock)
	for start := 0; start < len(ts); {
		end := start + 1
		for end < len(ts) && byBlock(ts[end], ts[start]) == 0 {
			end++
		}
		run := ts[start:end]
		switch {
		case len(run) < 2:
		case len(run) < len(ts) && r.mode == model.HeadToHeadUEFA:
			r.together(run, from, to)
		default:
			r.resolve(run, to)
		}
		start = end
	}
}

func headToHeadKey(m *miniRow, rule model.TieBreaker) int32 {
	switch rule {
	case model.HeadToHeadPoints:
		return m.points
	case model.HeadToHeadGoalDiff:
		return m.goals - m.against
	case model.HeadToHeadGoals:
		return m.goals
	}
	return m.awayGoals
}

func (r *ranker) keys(ts []*stat, rule model.TieBreaker) {
	switch {
	case rule.HeadToHead():
		r.miniTable(ts)
		for _, s := range ts {
			s.key = whole(headToHeadKey(&r.mini[s.slot], rule))
		}
		return
	case rule == model.DisciplinaryPoints:
		r.dataKeys(ts, r.disc)
		return
	case rule == model.Coefficient:
		r.dataKeys(ts, r.coef)
		return
	}
	for _, s := range ts {
		switch rule {
		case pointsRule:
			s.key = whole(s.points)
		case unroundedPoints:
			s.key = whole(2*s.points - s.half)
		case model.GoalDifference:
			s.key = whole(s.goals - s.against)
		case model.GoalsScored:
			s.key = whole(s.goals)
		case model.GoalQuotient:
			s.key = ratio{int64(s.goals), int64(s.against)}
		case model.AwayGoals:
			s.key = whole(s.away.goals)
		case model.Wins:
			s.key = whole(s.won)
		case model.AwayWins:
			s.key = whole(s.away.won)
		case model.OpponentsPoints, model.OpponentsGoalDiff, model.OpponentsGoals:
			var sum int32
			for _, o := range s.opponents {
				os := &r.stats[o]
				switch rule {
				case model.OpponentsPoints:
					sum += os.points
				case model.OpponentsGoalDiff:
					sum += os.goals - os.against
				default:
					sum += os.goals
				}
			}
			s.key = whole(sum)
		default:
			// A rule this build does not know separates nobody.
			s.key = whole(0)
		}
	}
}

// dataKeys keys ts by the editors' figures, lower first (disciplinary
// points, places in the coefficient order), or all alike unless every team
// of ts has one.
func (r *ranker) dataKeys(ts []*stat, figures map[int32]int32) {
	all := true
	for _, s := range ts {
		if _, ok := figures[s.team]; !ok {
			all = false
		}
	}
	for _, s := range ts {
		s.key = whole(0)
		if all {
			s.key = whole(-figures[s.team])
		}
	}
}

// miniTable totals the results among exactly the teams of ts.
func (r *ranker) miniTable(ts []*stat) {
	for _, s := range ts {
		r.mini[s.slot] = miniRow{}
	}
	for _, h := range ts {
		for _, a := range ts {
			if h == a {
				continue
			}
			m := r.meetings[h.slot*r.slots+a.slot]
			hr, ar := &r.mini[h.slot], &r.mini[a.slot]
			hr.points += m.homePoints
			hr.goals += m.homeGoals
			hr.against += m.awayGoals
			ar.points += m.awayPoints
			ar.goals += m.awayGoals
			ar.against += m.homeGoals
			ar.awayGoals += m.awayGoals
		}
	}
}

// breakTie orders teams level on every rule. The editor's tie-break order
// decides among the teams it lists, when it lists at least two of them:
// those get distinct places in its order, ahead of the unlisted ones. Teams
// it does not separate stay level, sharing a rank, in name order so that the
// output is stable.
func (r *ranker) breakTie(ts []*stat) {
	listed := 0
	for _, s := range ts {
		if _, ok := r.editor[s.team]; ok {
			listed++
		}
	}
	slices.SortFunc(ts, func(a, b *stat) int {
		if listed >= 2 {
			ai, aok := r.editor[a.team]
			bi, bok := r.editor[b.team]
			switch {
			case aok && bok:
				return cmp.Compare(ai, bi)
			case aok:
				return -1
			case bok:
				return 1
			}
		}
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		return cmp.Compare(a.team, b.team)
	})
	for k := 1; k < len(ts); k++ {
		ts[k].tied = listed < 2 || k > listed
	}
}
