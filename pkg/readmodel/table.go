package readmodel

import (
	"cmp"
	"slices"
	"strings"

	"github.com/footdata/footballd/pkg/model"
)

// row is one team's line of a table at one matchday. The fields are int32:
// a competition's tables at every matchday stay small (80 bytes a row), and
// wide enough for anything the model accepts.
type row struct {
	team                              int32
	position, rank                    int32
	played, won, drawn, lost          int32
	goals, against, points, adjusting int32
	home, away                        split
}

// split is the home or the away part of a row.
type split struct{ goals, against, won, drawn, lost int32 }

// groupTable is the ordered table of one group; a league has one group
// named "".
type groupTable struct {
	name string
	rows []row
}

// mdTable is a competition's tables at one matchday. Consecutive matchdays
// without a new result share one mdTable.
type mdTable struct{ groups []groupTable }

// tableInput is what the tables of one competition depend on.
type tableInput struct {
	comp *model.Competition
	// regular is every regular-stage fixture with both teams known, in
	// matchday order: their teams appear in the table even before they play.
	regular []*fixture
	last    int // tables are built for matchdays 1..last
	adjust  map[int32]int32
	order   []int32 // the editor's tie-break order
	name    func(team int32) string
	strs    []string
	// reuse holds the previous tables, valid before matchday from: a
	// change at matchday k leaves every table before k as it was.
	reuse []*mdTable
	from  int
}

// stat is a team's running totals while the tables are built.
type stat struct {
	row
	slot  int32
	group int32
	name  string
	tied  bool // level with the team before it on every rule
	key   ratio
}

// tables is the result of buildTables.
type tables struct {
	byMatchday []*mdTable
	// teams are the teams in the tables and their groups, by team: when
	// they change, every table changes and none can be reused.
	teams []teamGroup
}

type teamGroup struct {
	team  int32
	group string
}

// buildTables computes the table at every matchday 1..last in one pass over
// the results: totals accumulate matchday by matchday and each group is
// ordered whenever a matchday brought a result. Tables before in.from are
// taken from in.reuse when the teams are the same. Cups have no table.
func buildTables(in *tableInput, prevTeams []teamGroup) tables {
	if in.comp.Type == model.TypeCup || in.last < 1 {
		return tables{}
	}
	b := newTableBuilder(in)
	out := tables{byMatchday: make([]*mdTable, in.last), teams: b.teams()}
	reuse := 1
	if slices.Equal(out.teams, prevTeams) {
		reuse = min(in.from, len(in.reuse)+1)
	}
	var cur *mdTable
	next := 0
	for md := 1; md <= in.last; md++ {
		added := false
		for ; next < len(in.regular) && int(in.regular[next].matchday) <= md; next++ {
			if b.count(next) {
				added = true
			}
		}
		switch {
		case md < reuse:
			cur = in.reuse[md-1]
		case cur == nil || added:
			cur = b.snapshot()
		}
		out.byMatchday[md-1] = cur
	}
	return out
}

type tableBuilder struct {
	in     *tableInput
	stats  []stat
	slotOf map[int32]int32
	groups []string
	// order holds each group's teams in the order of the last snapshot,
	// which is where the next one starts: tables change little from one
	// matchday to the next, so the sorts run on nearly sorted input.
	order      [][]*stat
	groupOrder []int // groups by name (A, B, …), the order a table shows
	// groupPlayed tells whether a group has a result yet.
	groupPlayed []bool
	rk          ranker
}

func newTableBuilder(in *tableInput) *tableBuilder {
	b := &tableBuilder{in: in, slotOf: make(map[int32]int32, len(in.comp.Teams))}
	tournament := in.comp.Type == model.TypeTournament
	groupIndex := map[string]int32{}
	groupOf := func(name string) int32 {
		if !tournament {
			name = ""
		}
		g, ok := groupIndex[name]
		if !ok {
			g = int32(len(b.groups))
			groupIndex[name] = g
			b.groups = append(b.groups, name)
		}
		return g
	}
	add := func(team int32, group int32) {
		if _, ok := b.slotOf[team]; ok {
			return
		}
		s := int32(len(b.stats))
		b.slotOf[team] = s
		b.stats = append(b.stats, stat{row: row{team: team}, slot: s, group: group, name: in.name(team)})
	}
	for _, t := range in.comp.Teams {
		add(int32(t.TeamID), groupOf(t.Group))
	}
	if !tournament && len(b.groups) == 0 {
		groupOf("")
	}
	// A team missing from the competition's list joins the group its
	// fixture names, or else its opponent's group.
	for _, f := range in.regular {
		g := in.strs[f.group]
		for _, pair := range [][2]int32{{f.home, f.away}, {f.away, f.home}} {
			if _, ok := b.slotOf[pair[0]]; ok {
				continue
			}
			if g == "" {
				if s, ok := b.slotOf[pair[1]]; ok {
					add(pair[0], b.stats[s].group)
					continue
				}
			}
			add(pair[0], groupOf(g))
		}
	}
	b.order = make([][]*stat, len(b.groups))
	for i := range b.stats {
		g := b.stats[i].group
		b.order[g] = append(b.order[g], &b.stats[i])
	}
	// An adjustment of a team that is not in the table (neither listed nor
	// playing) shows nowhere.
	for team, points := range in.adjust {
		if s, ok := b.slotOf[team]; ok {
			b.stats[s].adjusting = points
			b.stats[s].points = points
		}
	}
	b.groupOrder = make([]int, len(b.groups))
	for i := range b.groupOrder {
		b.groupOrder[i] = i
	}
	slices.SortFunc(b.groupOrder, func(x, y int) int { return strings.Compare(b.groups[x], b.groups[y]) })
	b.groupPlayed = make([]bool, len(b.groups))
	b.rk = newRanker(in, len(b.stats))
	return b
}

func (b *tableBuilder) teams() []teamGroup {
	tg := make([]teamGroup, len(b.stats))
	for i := range b.stats {
		tg[i] = teamGroup{b.stats[i].team, b.groups[b.stats[i].group]}
	}
	slices.SortFunc(tg, func(x, y teamGroup) int { return cmp.Compare(x.team, y.team) })
	return tg
}

// count adds the i-th regular fixture to the totals if it has a result and
// both teams play in one group; it reports whether it did.
func (b *tableBuilder) count(i int) bool {
	f := b.in.regular[i]
	side, ok := f.outcome()
	if !ok {
		return false
	}
	hs, as := b.slotOf[f.home], b.slotOf[f.away]
	h, a := &b.stats[hs], &b.stats[as]
	if h.group != a.group {
		return false
	}
	hg, ag := f.goals()
	pw, pd := b.rk.pw, b.rk.pd
	h.played++
	a.played++
	h.goals += hg
	h.against += ag
	a.goals += ag
	a.against += hg
	h.home.goals += hg
	h.home.against += ag
	a.away.goals += ag
	a.away.against += hg
	var hp, ap int32
	switch side {
	case model.Home:
		h.won, h.home.won, hp = h.won+1, h.home.won+1, pw
		a.lost, a.away.lost = a.lost+1, a.away.lost+1
	case model.Away:
		a.won, a.away.won, ap = a.won+1, a.away.won+1, pw
		h.lost, h.home.lost = h.lost+1, h.home.lost+1
	default:
		h.drawn, h.home.drawn, hp = h.drawn+1, h.home.drawn+1, pd
		a.drawn, a.away.drawn, ap = a.drawn+1, a.away.drawn+1, pd
	}
	h.points += hp
	a.points += ap
	b.rk.meet(hs, as, hp, ap, hg, ag)
	b.groupPlayed[h.group] = true
	return true
}

// snapshot orders every group as the totals stand and copies the rows out.
func (b *tableBuilder) snapshot() *mdTable {
	t := &mdTable{groups: make([]groupTable, len(b.groups))}
	for i, g := range b.groupOrder {
		ts := b.order[g]
		b.rk.order(ts)
		// Before a group of a tournament has played, no team has a rank.
		unranked := b.in.comp.Type == model.TypeTournament && !b.groupPlayed[g]
		rows := make([]row, len(ts))
		for k, s := range ts {
			rows[k] = s.row
			rows[k].position = int32(k + 1)
			switch {
			case unranked:
				rows[k].rank = 0
			case s.tied:
				rows[k].rank = rows[k-1].rank
			default:
				rows[k].rank = int32(k + 1)
			}
		}
		t.groups[i] = groupTable{name: b.groups[g], rows: rows}
	}
	return t
}

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

// pointsRule is the first criterion of every table, ahead of the
// competition's tie-breakers.
const pointsRule model.TieBreaker = "POINTS"

// ranker orders the teams of a group by points and then by the
// competition's tie-breakers.
//
// It refines groups of level teams rule by rule: the teams level on
// everything so far are sorted by the next rule and split into runs that are
// still level, and each run goes on to the following rule. A head-to-head
// rule therefore builds its mini-table among exactly the teams still level
// when it is reached: if H2H_POINTS splits four level teams into one and
// three, H2H_GOAL_DIFFERENCE counts only the games among those three. Rules
// are not restarted from the first head-to-head rule for such a subset; the
// next rule in the list follows. Points adjustments are not part of a
// mini-table: they are not results between the teams.
type ranker struct {
	rules  []model.TieBreaker
	pw, pd int32
	editor map[int32]int // the tie-break order: team → place
	// meetings[h*slots+a] totals the results of h at home against a, so
	// that a mini-table costs the square of the level teams, not a scan
	// of the results.
	slots    int32
	meetings []meeting
	// Scratch for mini-tables, indexed by slot.
	mini []miniRow
}

type meeting struct{ homePoints, awayPoints, homeGoals, awayGoals int32 }

type miniRow struct{ points, goals, against, awayGoals int32 }

func newRanker(in *tableInput, slots int) ranker {
	r := ranker{
		rules:    append([]model.TieBreaker{pointsRule}, in.comp.Rules.TieBreakers...),
		pw:       int32(in.comp.Rules.PointsWin),
		pd:       int32(in.comp.Rules.PointsDraw),
		slots:    int32(slots),
		meetings: make([]meeting, slots*slots),
		mini:     make([]miniRow, slots),
	}
	if len(in.order) > 0 {
		r.editor = make(map[int32]int, len(in.order))
		for i, t := range in.order {
			r.editor[t] = i
		}
	}
	return r
}

// meet records a result for head-to-head mini-tables.
func (r *ranker) meet(home, away, homePoints, awayPoints, homeGoals, awayGoals int32) {
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

func (r *ranker) keys(ts []*stat, rule model.TieBreaker) {
	switch rule {
	case model.HeadToHeadPoints, model.HeadToHeadGoalDiff, model.HeadToHeadGoals, model.HeadToHeadAwayGoals:
		r.miniTable(ts)
	}
	for _, s := range ts {
		m := &r.mini[s.slot]
		switch rule {
		case pointsRule:
			s.key = whole(s.points)
		case model.GoalDifference:
			s.key = whole(s.goals - s.against)
		case model.GoalsScored:
			s.key = whole(s.goals)
		case model.GoalQuotient:
			s.key = ratio{int64(s.goals), int64(s.against)}
		case model.AwayGoals:
			s.key = whole(s.away.goals)
		case model.HeadToHeadPoints:
			s.key = whole(m.points)
		case model.HeadToHeadGoalDiff:
			s.key = whole(m.goals - m.against)
		case model.HeadToHeadGoals:
			s.key = whole(m.goals)
		case model.HeadToHeadAwayGoals:
			s.key = whole(m.awayGoals)
		default:
			// A rule this build does not know separates nobody.
			s.key = whole(0)
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
