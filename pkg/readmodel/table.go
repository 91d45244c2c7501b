package readmodel

import (
	"cmp"
	"slices"
	"strings"

	"github.com/footdata/footballd/pkg/model"
)

// row is one team's line of a table at one matchday. The fields are int32:
// a competition's tables at every matchday stay small (about 90 bytes a
// row), and wide enough for anything the model accepts.
type row struct {
	team                              int32
	position, rank                    int32
	played, won, drawn, lost          int32
	goals, against, points, adjusting int32
	// carried is what a play-off phase's row started with (in points).
	carried    int32
	home, away split
}

// split is the home or the away part of a row.
type split struct{ goals, against, won, drawn, lost int32 }

// groupTable is the ordered table of one group (a league has one group
// named ""), of one play-off phase (named after it), or of the thirds.
type groupTable struct {
	name string
	rows []row
	// groups holds each row's own group where it is not name: in the
	// thirds' ranking.
	groups []string
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
	// disc and coef are the editors' tie-break data: disciplinary points
	// and places in the coefficient order, by team.
	disc, coef map[int32]int32
	name       func(team int32) string
	strs       []string
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
	// half is the half point a play-off phase's rounding added (+1) or
	// took off (-1).
	half int32
	// opponents are the slots of the teams met, for opponents' rules.
	opponents []int32
	// block holds the keys of a run of head-to-head rules applied
	// together.
	block [maxHeadToHead]int32
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
// ordered whenever a matchday brought a result. A league with phases splits
// after its regular season (see tableBuilder.split). Tables before in.from
// are taken from in.reuse when the teams are the same. Cups have no table.
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
	regular := in.comp.Rules.RegularMatchdays
	var cur *mdTable
	next := 0
	for md := 1; md <= in.last; md++ {
		fresh := false
		if len(in.comp.Rules.Phases) > 0 && md == regular+1 && in.comp.Type == model.TypeLeague {
			b.split(out.byMatchday[regular-1])
			fresh = true
		}
		for ; next < len(in.regular) && int(in.regular[next].matchday) <= md; next++ {
			if b.add(in.regular[next]) {
				fresh = true
			}
		}
		switch {
		case md < reuse:
			cur = in.reuse[md-1]
		case cur == nil || fresh:
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
	// thirds ranks the teams placed third in their groups, if the
	// tournament's rules say so.
	thirds *ranker
	// opponents says whether a ranker needs each team's opponents.
	opponents bool

	// After a league's split: sections are the teams of each section
	// (or of a place in none), in the order of places, each in the order
	// of its last snapshot; playoffs are the play-off phases' own
	// builders, rest the rows at the split of the teams in none, and
	// phaseOf each slot's play-off phase (-1 for none).
	sections [][]*stat
	playoffs []*tableBuilder
	rest     []row
	phaseOf  []int
}

func newTableBuilder(in *tableInput) *tableBuilder {
	b := &tableBuilder{in: in, slotOf: make(map[int32]int32, len(in.comp.Teams))}
	b.placeTeams()
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
	b.newRankers()
	return b
}

// teamPlacer gives teams their slots and groups while a builder is made.
type teamPlacer struct {
	b          *tableBuilder
	tournament bool
	groupIndex map[string]int32
}

// placeTeams gives every team of the table a slot and a group: the
// competition's teams first, in its order, then those only its fixtures
// name. A league has one group, named "", even with no teams.
func (b *tableBuilder) placeTeams() {
	p := teamPlacer{b: b, tournament: b.in.comp.Type == model.TypeTournament, groupIndex: map[string]int32{}}
	for _, t := range b.in.comp.Teams {
		p.add(int32(t.TeamID), p.group(t.Group))
	}
	if !p.tournament && len(b.groups) == 0 {
		p.group("")
	}
	for _, f := range b.in.regular {
		p.addUnlisted(f)
	}
}

// addUnlisted places the teams of a fixture that are missing from the
// competition's list: a team joins the group its fixture names, or else
// its opponent's group.
func (p *teamPlacer) addUnlisted(f *fixture) {
	g := p.b.in.strs[f.group]
	for _, pair := range [][2]int32{{f.home, f.away}, {f.away, f.home}} {
		if _, ok := p.b.slotOf[pair[0]]; ok {
			continue
		}
		if g == "" {
			if s, ok := p.b.slotOf[pair[1]]; ok {
				p.add(pair[0], p.b.stats[s].group)
				continue
			}
		}
		p.add(pair[0], p.group(g))
	}
}

// group returns the index of a group by name, adding it if new; a
// league's teams are all in the group "", whatever their entries say.
func (p *teamPlacer) group(name string) int32 {
	if !p.tournament {
		name = ""
	}
	g, ok := p.groupIndex[name]
	if !ok {
		g = int32(len(p.b.groups))
		p.groupIndex[name] = g
		p.b.groups = append(p.b.groups, name)
	}
	return g
}

// add gives a team a slot in group unless it has one.
func (p *teamPlacer) add(team, group int32) {
	b := p.b
	if _, ok := b.slotOf[team]; ok {
		return
	}
	s := int32(len(b.stats))
	b.slotOf[team] = s
	b.stats = append(b.stats, stat{row: row{team: team}, slot: s, group: group, name: b.in.name(team)})
}

// newRankers makes the rankers of the competition's tie-breakers, and of
// the third-placed teams' if the tournament's rules rank them.
func (b *tableBuilder) newRankers() {
	rules := &b.in.comp.Rules
	b.rk = newRanker(b.in, rules.TieBreakers, false, b.stats)
	if b.in.comp.Type == model.TypeTournament && rules.Thirds != nil {
		rk := newRanker(b.in, rules.Thirds.TieBreakers, false, b.stats)
		b.thirds = &rk
	}
	b.opponents = b.rk.opponents || (b.thirds != nil && b.thirds.opponents)
}

func (b *tableBuilder) teams() []teamGroup {
	tg := make([]teamGroup, len(b.stats))
	for i := range b.stats {
		tg[i] = teamGroup{b.stats[i].team, b.groups[b.stats[i].group]}
	}
	slices.SortFunc(tg, func(x, y teamGroup) int { return cmp.Compare(x.team, y.team) })
	return tg
}

// add counts a regular fixture where it belongs: after a split into
// play-offs, in the phase of its two teams (in none if they are not of one
// phase); otherwise in the competition's totals.
func (b *tableBuilder) add(f *fixture) bool {
	if b.playoffs == nil || int(f.matchday) <= b.in.comp.Rules.RegularMatchdays {
		return b.count(f)
	}
	p := b.phaseOf[b.slotOf[f.home]]
	if p < 0 || p != b.phaseOf[b.slotOf[f.away]] {
		return false
	}
	return b.playoffs[p].count(f)
}

// count adds a fixture to the totals if it has a result and both teams
// play in one group; it reports whether it did.
func (b *tableBuilder) count(f *fixture) bool {
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
	if b.opponents {
		h.opponents = append(h.opponents, as)
		a.opponents = append(a.opponents, hs)
	}
	b.rk.meet(hs, as, hp, ap, hg, ag)
	b.groupPlayed[h.group] = true
	return true
}

// split ends a league's regular season with its table at that matchday:
// the phases take the teams of their places. Sections go on in the
// competition's totals; each play-off phase gets a builder of its own whose
// teams start from the points they carry. Places in no phase keep the team
// that held them.
func (b *tableBuilder) split(at *mdTable) {
	rules := &b.in.comp.Rules
	rows := at.groups[0].rows
	inPhase := make([]bool, len(rows))
	if rules.Phases[0].Kind == model.PhaseSection {
		first := make([]int, 0, len(rows)) // each section's first place
		for _, p := range rules.Phases {
			var sec []*stat
			for place := p.From; place <= min(p.To, len(rows)); place++ {
				sec = append(sec, &b.stats[b.slotOf[rows[place-1].team]])
				inPhase[place-1] = true
			}
			if len(sec) > 0 {
				b.sections = append(b.sections, sec)
				first = append(first, p.From)
			}
		}
		for place, in := range inPhase {
			if !in {
				b.sections = append(b.sections, []*stat{&b.stats[b.slotOf[rows[place].team]]})
				first = append(first, place+1)
			}
		}
		idx := make([]int, len(b.sections))
		for i := range idx {
			idx[i] = i
		}
		slices.SortFunc(idx, func(x, y int) int { return first[x] - first[y] })
		sorted := make([][]*stat, len(idx))
		for i, k := range idx {
			sorted[i] = b.sections[k]
		}
		b.sections = sorted
		return
	}
	b.phaseOf = make([]int, len(b.stats))
	for i := range b.phaseOf {
		b.phaseOf[i] = -1
	}
	b.playoffs = []*tableBuilder{}
	for i := range rules.Phases {
		p := &rules.Phases[i]
		var members []row
		for place := p.From; place <= min(p.To, len(rows)); place++ {
			members = append(members, rows[place-1])
			b.phaseOf[b.slotOf[rows[place-1].team]] = i
			inPhase[place-1] = true
		}
		b.playoffs = append(b.playoffs, b.newPhase(p, members))
	}
	for place, in := range inPhase {
		if !in {
			b.rest = append(b.rest, rows[place])
		}
	}
}

// newPhase returns the builder of a play-off phase whose teams are those of
// rows, in the order of their regular-season places.
func (b *tableBuilder) newPhase(p *model.Phase, rows []row) *tableBuilder {
	c := &tableBuilder{in: b.in, slotOf: make(map[int32]int32, len(rows)), groups: []string{p.Name},
		groupOrder: []int{0}, groupPlayed: []bool{false}}
	for _, r := range rows {
		carried, half := p.Carry.Carried(int(r.points))
		s := int32(len(c.stats))
		c.slotOf[r.team] = s
		c.stats = append(c.stats, stat{row: row{team: r.team, points: int32(carried), carried: int32(carried)},
			slot: s, name: b.stats[b.slotOf[r.team]].name, half: int32(half)})
	}
	c.order = [][]*stat{make([]*stat, len(c.stats))}
	for i := range c.stats {
		c.order[0][i] = &c.stats[i]
	}
	halved := p.Carry == model.CarryHalfUp || p.Carry == model.CarryHalfDown
	c.rk = newRanker(b.in, b.in.comp.Rules.PhaseTieBreakers(p), halved, c.stats)
	c.opponents = c.rk.opponents
	return c
}

// snapshot orders every group as the totals stand and copies the rows out.
func (b *tableBuilder) snapshot() *mdTable {
	if b.playoffs != nil {
		t := &mdTable{}
		for _, c := range b.playoffs {
			t.groups = append(t.groups, c.snapshot().groups...)
		}
		if len(b.rest) > 0 {
			t.groups = append(t.groups, groupTable{name: model.RegularSeason, rows: b.rest})
		}
		return t
	}
	t := &mdTable{groups: make([]groupTable, len(b.groups))}
	var thirds []*stat
	for i, g := range b.groupOrder {
		ts := b.order[g]
		if b.sections != nil {
			b.orderSections(ts)
		} else {
			b.rk.order(ts)
		}
		// Before a group of a tournament has played, no team has a rank.
		unranked := b.in.comp.Type == model.TypeTournament && !b.groupPlayed[g]
		t.groups[i] = groupTable{name: b.groups[g], rows: ranked(ts, unranked)}
		if b.thirds != nil && len(ts) >= 3 {
			thirds = append(thirds, ts[2])
		}
	}
	if b.thirds != nil {
		t.groups = append(t.groups, b.thirdsTable(thirds))
	}
	return t
}

// ranked copies the rows of ts, in order, with their positions and ranks.
func ranked(ts []*stat, unranked bool) []row {
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
	return rows
}

// orderSections orders each section within its places and writes the
// sections, in the order of places, into ts.
func (b *tableBuilder) orderSections(ts []*stat) {
	k := 0
	for _, sec := range b.sections {
		b.rk.order(sec)
		k += copy(ts[k:], sec)
	}
}

// thirdsTable ranks the teams placed third, each of its group (given in
// group order). A third whose group has not played has no rank.
func (b *tableBuilder) thirdsTable(ts []*stat) groupTable {
	b.thirds.order(ts)
	g := groupTable{name: model.Thirds, rows: ranked(ts, false), groups: make([]string, len(ts))}
	for k, s := range ts {
		g.groups[k] = b.groups[s.group]
		if !b.groupPlayed[s.group] {
			g.rows[k].rank = 0
		}
	}
	return g
}
