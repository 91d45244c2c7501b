package readmodel

import "slices"

// Table is a competition's league table at one matchday: one standing for
// a league; one per play-off phase once a league's play-offs have begun
// (in the order of its rules, then model.RegularSeason for the teams in
// none); one per group (by group name) for a tournament, then
// model.Thirds if its rules rank the thirds; none for a cup.
type Table struct {
	CompetitionID int
	// Matchday is the matchday shown; 0 when the matchday asked for is
	// beyond the competition's last, which has no standing.
	Matchday  int
	Standings []Standing
	// Version is the competition's version.
	Version uint64
}

// Standing is one ordered table: of a group, a play-off phase or the
// thirds, named by Group ("" for a league's one table).
type Standing struct {
	Group string
	Rows  []TableRow
}

// TableRow is one team's line.
type TableRow struct {
	// Position is the place in the table, 1..N. Rank is shared by teams
	// level on every tie-breaker (1, 2, 2, 4); in a tournament group that
	// has not played yet every rank is 0.
	Position, Rank int
	// Group is the row's group in a tournament (also among the thirds),
	// its phase after a league's split into play-offs, else "".
	Group  string
	TeamID int
	// TeamName, ShortName and CrestURL come from the team ("" if unknown).
	TeamName, ShortName, CrestURL string
	PlayedGames                   int
	// Points include PointsAdjustment, the sum of the team's points
	// adjustments in the competition, applied at every matchday: the
	// stream does not say from when a deduction counts. In a play-off
	// phase they include CarriedPoints, those brought from the regular
	// season (adjustments are part of those); the other figures count the
	// phase's games.
	Points, PointsAdjustment, CarriedPoints int
	Goals, GoalsAgainst                     int
	GoalDifference                          int
	Wins, Draws, Losses                     int
	Home, Away                              Split
}

// Split is the home or the away part of a TableRow.
type Split struct {
	Goals, GoalsAgainst, Wins, Draws, Losses int
}

// Table returns the competition's table at matchday, or at its
// DefaultMatchday when matchday is 0. A table at matchday N counts the
// regular-stage fixtures of matchdays 1..N that have a result.
func (s Snapshot) Table(id, matchday int) (Table, bool) {
	v, ok := s.TableView(id, matchday)
	if !ok {
		return Table{}, false
	}
	t := Table{CompetitionID: id, Matchday: v.Matchday, Version: v.Version}
	if v.md == nil {
		return t, true
	}
	t.Standings = make([]Standing, v.Standings())
	for i := range t.Standings {
		rows := make([]TableRow, v.Len(i))
		for k := range rows {
			v.Row(i, k, &rows[k])
		}
		t.Standings[i] = Standing{Group: v.Group(i), Rows: rows}
	}
	return t, true
}

// TableView is Table read in place: the tables are built when results
// arrive, and a view copies one row only when asked for it, so a renderer
// that writes each row as it reads it allocates nothing per row (copying
// the rows was an eighth of the cost of rendering a table afresh).
type TableView struct {
	// Matchday and Version are Table's.
	Matchday int
	Version  uint64
	// Caption is the competition's.
	Caption string

	md    *mdTable // nil when there is no standing
	names *tableNames
}

// tableNames is what a competition's table rows show of their teams:
// names[i] is team ids[i]'s, ids in increasing order. The ids are apart
// from the names so that the search reads one or two cache lines.
type tableNames struct {
	ids   []int32
	names []tableName
}

type tableName struct{ name, short, crest string }

// of returns team's names, nil for a team the tables do not hold. The
// search halves without a branch on the comparison: a table's rows are in
// no order of ids, so every step of slices.BinarySearch was a coin toss
// for the branch predictor, for each row of every table rendered (the
// compiler keeps the branch of an if in a loop like this one, so the step
// is arithmetic).
func (t *tableNames) of(team int32) *tableName {
	if t == nil || len(t.ids) == 0 {
		return nil
	}
	ids := t.ids
	base, n := 0, len(ids)
	for n > 1 {
		half := n / 2
		// The step is half when ids[base+half] <= team, else 0: d's
		// sign, spread over the word, masks it.
		d := int(team) - int(ids[base+half])
		base += half &^ (d >> 63)
		n -= half
	}
	if ids[base] != team {
		return nil
	}
	return &t.names[base]
}

// TableView returns the competition's table as Table does, without
// copying it.
func (s Snapshot) TableView(id, matchday int) (TableView, bool) {
	c, ok := s.comp(id)
	if !ok {
		return TableView{}, false
	}
	v := TableView{Version: c.version, Caption: c.comp.Caption, names: c.tableNames}
	if matchday == 0 {
		matchday = s.defaultMatchday(c)
	}
	if matchday < 1 || matchday > c.last {
		return v, true
	}
	v.Matchday = matchday
	if c.tables != nil {
		v.md = c.tables[matchday-1]
	}
	return v, true
}

// Standings is the number of standings, as len(Table.Standings).
func (v TableView) Standings() int {
	if v.md == nil {
		return 0
	}
	return len(v.md.groups)
}

// Group is the name of standing i.
func (v TableView) Group(i int) string { return v.md.groups[i].name }

// Len is the number of rows of standing i.
func (v TableView) Len(i int) int { return len(v.md.groups[i].rows) }

// Row sets r to row k of standing i. It fills the caller's row rather
// than returning one: a row is 31 words, and copying it out twice was a
// third of the cost of reading it.
func (v TableView) Row(i, k int, r *TableRow) {
	g := &v.md.groups[i]
	v.tableRow(&g.rows[k], r)
	r.Group = g.name
	if g.groups != nil {
		r.Group = g.groups[k]
	}
}

func (tv *TableView) tableRow(r *row, v *TableRow) {
	*v = TableRow{
		Position: int(r.position), Rank: int(r.rank), TeamID: int(r.team),
		PlayedGames: int(r.played), Points: int(r.points), PointsAdjustment: int(r.adjusting), CarriedPoints: int(r.carried),
		Goals: int(r.goals), GoalsAgainst: int(r.against), GoalDifference: int(r.goals - r.against),
		Wins: int(r.won), Draws: int(r.drawn), Losses: int(r.lost),
		Home: split32(r.home), Away: split32(r.away),
	}
	if n := tv.names.of(r.team); n != nil {
		v.TeamName, v.ShortName, v.CrestURL = n.name, n.short, n.crest
	}
}

// RowView is a row of a TableView read where the read model keeps it: a
// renderer that writes each figure as it reads it copies nothing, where
// Row fills the 31 words of a TableRow (Row was a tenth of a league
// table's cache miss in httpapi's BenchmarkHandler). Its figures and names
// are TableRow's; it has no Group (Row gives it).
type RowView struct {
	r *row
	n *tableName
}

// RowView returns row k of standing i in place.
func (v TableView) RowView(i, k int) RowView {
	r := &v.md.groups[i].rows[k]
	return RowView{r: r, n: v.names.of(r.team)}
}

func (r RowView) Position() int       { return int(r.r.position) }
func (r RowView) Rank() int           { return int(r.r.rank) }
func (r RowView) TeamID() int         { return int(r.r.team) }
func (r RowView) PlayedGames() int    { return int(r.r.played) }
func (r RowView) Points() int         { return int(r.r.points) }
func (r RowView) Goals() int          { return int(r.r.goals) }
func (r RowView) GoalsAgainst() int   { return int(r.r.against) }
func (r RowView) GoalDifference() int { return int(r.r.goals - r.r.against) }
func (r RowView) Wins() int           { return int(r.r.won) }
func (r RowView) Draws() int          { return int(r.r.drawn) }
func (r RowView) Losses() int         { return int(r.r.lost) }
func (r RowView) Home() Split         { return split32(r.r.home) }
func (r RowView) Away() Split         { return split32(r.r.away) }

// TeamName, ShortName and CrestURL are "" for a team the tables do not
// hold, as in TableRow.
func (r RowView) TeamName() string {
	if r.n == nil {
		return ""
	}
	return r.n.name
}

func (r RowView) ShortName() string {
	if r.n == nil {
		return ""
	}
	return r.n.short
}

func (r RowView) CrestURL() string {
	if r.n == nil {
		return ""
	}
	return r.n.crest
}

// TableViewOf makes a view of a table given as its rows, for renderers'
// tests: their figures must fit an int32, a team's names must be the same
// in every row of it, and GoalDifference is read as Goals - GoalsAgainst
// (as the read model's own tables have it), whatever the row says.
func TableViewOf(caption string, matchday int, standings []Standing) TableView {
	v := TableView{Matchday: matchday, Caption: caption, names: &tableNames{}}
	if len(standings) == 0 {
		return v
	}
	byTeam := map[int32]tableName{}
	v.md = &mdTable{groups: make([]groupTable, len(standings))}
	for i, st := range standings {
		g := groupTable{name: st.Group, rows: make([]row, len(st.Rows))}
		for k, r := range st.Rows {
			g.rows[k] = row{team: int32(r.TeamID), position: int32(r.Position), rank: int32(r.Rank),
				played: int32(r.PlayedGames), won: int32(r.Wins), drawn: int32(r.Draws), lost: int32(r.Losses),
				goals: int32(r.Goals), against: int32(r.GoalsAgainst), points: int32(r.Points),
				adjusting: int32(r.PointsAdjustment), carried: int32(r.CarriedPoints),
				home: splitOf(r.Home), away: splitOf(r.Away)}
			byTeam[int32(r.TeamID)] = tableName{name: r.TeamName, short: r.ShortName, crest: r.CrestURL}
		}
		v.md.groups[i] = g
	}
	for id := range byTeam {
		v.names.ids = append(v.names.ids, id)
	}
	slices.Sort(v.names.ids)
	for _, id := range v.names.ids {
		v.names.names = append(v.names.names, byTeam[id])
	}
	return v
}

func splitOf(s Split) split {
	return split{goals: int32(s.Goals), against: int32(s.GoalsAgainst), won: int32(s.Wins), drawn: int32(s.Draws), lost: int32(s.Losses)}
}

func split32(s split) Split {
	return Split{Goals: int(s.goals), GoalsAgainst: int(s.against), Wins: int(s.won), Draws: int(s.drawn), Losses: int(s.lost)}
}
